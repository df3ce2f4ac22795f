OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q2_max_ops < P['q2_throughput'], 'A rate in transactions per second, below the expected throughput once every transaction waits; the "
                                               "rate is 1 / delay'\n"
                                               ">>> assert q2_max_ops > 1, 'That is the delay one transaction waits, in seconds: the rate is how many transactions pass in one second, one over the "
                                               "delay'\n"
                                               '>>> assert abs(3 * q2_max_ops * P[\'q2_multiple\'] / P[\'q2_throughput\'] - 1) > 0.01, "Do not divide the rate among the OSDs: with size 3 on 3 OSDs '
                                               'each OSD sees every client write, so one OSD\'s rate is the client\'s"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
