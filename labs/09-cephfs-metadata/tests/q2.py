OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> assert P[\'q2_rtt_ms\'] < q2_wait_ms < 1000, "In milliseconds, more than the bare round trip: 70 clients queue at the MDS (Little\'s law)"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert 1 < q2_knee_clients < 70, 'A number of clients, above 1 and below the 70 that saturated the MDS: N* = R0 / S'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
