OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {'code': ">>> assert q4_create_requests == 1, 'A create changes the namespace: the MDS must do it (and journal it)'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert q4_stat_requests == 0, 'The client that created the file holds its caps: who can answer the stat?'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
