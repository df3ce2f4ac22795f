OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert int(q2_clients) == q2_clients and 0 < q2_clients < 32768 / (12 * 2), 'Whole clients (round down); each of the 12 OSDs runs 2 threads per "
                                               "client and more for its peers: fewer than pid_max / (12 x 2)'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert int(q2_osds) == q2_osds and 0 < q2_osds < 32768 / (2 * 100), 'Whole OSDs (round down); one OSD at 100 clients runs more than 200 threads, "
                                               "its PG peers add more'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
