OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert q1_not_active == 26, "Split each state at \'+\' and count the PGs without the flag \'active\': peering and peered PGs serve no I/O"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert abs(q1_degraded_fraction - 0.09383) < 0.0001, 'The seed prints it as a percentage: degraded copies / all copies'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
