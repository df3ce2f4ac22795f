OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q4_best == 'backoff', 'The unthrottled run is faster for 35 s, then stalls at 150 IOPS; add up the whole two minutes'\n"
                                               '>>> assert abs(q4_backoff_iops - 5252) < 5, "Use simulate(throttle=\'backoff\', **CASE4_WBTHROTTLE).mean_iops(0, 120)"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
