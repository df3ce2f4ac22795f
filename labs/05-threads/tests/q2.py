OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert q2_clients == 164, 'Solve 12 x 2 x (clients + 1 + 6 x 200) <= 32,768 for clients (whole clients, round down)'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {'code': '>>> assert q2_osds == 12, "Divide the limit by one OSD\'s threads at 100 clients and 200 PGs, rounding down"\n', 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
