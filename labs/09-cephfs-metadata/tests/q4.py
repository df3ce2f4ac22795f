OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert int(q4_create_requests) == q4_create_requests > 0, 'A whole number of requests; a create changes the namespace: the MDS must do it (and "
                                               "journal it)'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert int(q4_stat_requests) == q4_stat_requests <= q4_create_requests, 'A whole number of requests, no more than a create needs: the client that "
                                               "created the file holds its caps'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
