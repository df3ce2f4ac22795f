OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert q4_best in (\'none\', \'backoff\'), \'q4_best is the throttle\\\'s name: "none" or "backoff"\'\n'
                                               '>>> assert 0 < q4_backoff_iops < 14264, "Client IOPS averaged over 0-120 s: use simulate(throttle=\'backoff\', **CASE4_WBTHROTTLE).mean_iops(0, '
                                               '120)"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
