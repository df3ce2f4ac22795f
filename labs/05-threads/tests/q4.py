OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert q4_async == 59, "AsyncMessenger\'s thread count does not depend on clients: the measured per-OSD constant"\n'
                                               ">>> assert q4_simple == 354, '2 x (32 + 1 + 6 x 24)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
