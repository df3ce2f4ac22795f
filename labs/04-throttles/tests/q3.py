OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> assert 0 < q3_collapse_s < 120, "A time in seconds within the two-minute run: use simulate(throttle=\'none\', **CASE4_WBTHROTTLE).collapse_time"\n'
                                               '>>> assert 0 < q3_iops_after < 14264, "Once stalled, the cluster runs far below the seed\'s 14,264 IOPS until the dirty data drains: mean_iops(60, '
                                               '120)"\n'
                                               '>>> assert q3_iops_after < 14264 / 4, "The stall lasts: from 60 s on the writers wait for the dirty data to drain, far below the whole run\'s average, '
                                               'which counts the fast first seconds"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q3_collapse_s < q3_collapse_big_s < 3 * q3_collapse_s, 'The cliff is reached when dirty data = dirty_ratio x page cache: more cache delays "
                                               "it, roughly in proportion'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
