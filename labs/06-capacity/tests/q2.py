OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert {q2_at_87, q2_at_93} <= {'ok', 'nearfull', 'backfillfull', 'full'}, 'Store the names exactly as cap.fill_state returns them'\n"
                                               ">>> assert q2_at_87 != q2_at_93 and q2_at_87 != 'full', 'The two OSDs are past different thresholds: compare each fill with the ratios Ceph checks, in "
                                               "the order it checks them'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
