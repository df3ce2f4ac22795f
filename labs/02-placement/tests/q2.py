OK_FORMAT = True

test = {   'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q2_pg_num == 1024, 'PGCalc: 100 x 40 / 3 = 1333, and the nearest power of two is 1024 (only 23 % below, so it is kept)'\n"
                                               ">>> assert abs(q2_per_osd - 76.8) < 0.01, 'Each PG has 3 copies spread over 40 OSDs: pg_num x size / OSDs'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
