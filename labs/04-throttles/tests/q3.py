OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> assert abs(q3_collapse_s - 34.9) < 0.2, "Use simulate(throttle=\'none\', **CASE4_WBTHROTTLE).collapse_time"\n'
                                               '>>> assert abs(q3_iops_after - 150) < 1, "Once stalled, the cluster runs at the seed\'s 100-200 IOPS until the dirty data drains"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert abs(q3_collapse_big_s - 2 * q3_collapse_s) < 0.3, 'The cliff is reached when dirty data = dirty_ratio x page cache; twice the cache, twice "
                                               "the time'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
