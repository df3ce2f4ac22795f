OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q3_factor_16 - 1.142) < 0.005 and abs(q3_factor_128 - 1.052) < 0.005, 'Use pl.fullest_factor(pg_num, size=3, osds=4) for each pg_num'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert 3 <= q3_pgs_to_halve <= 5, 'The excess shrinks like std / mean = 1 / sqrt(PGs per OSD) roughly: halving it takes about 4x the PGs'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
