OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert q3_factor_small > q3_factor_big > 1, 'Factors are fullest / average, above 1, and more PGs must give a smaller excess: use "
                                               "pl.fullest_factor(pg_num, size=3, osds=...)'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert 1 < q3_pgs_to_halve < 20, 'A factor of PGs per OSD, more than 1: the excess shrinks like std / mean of the PG count per OSD'\n"
                                               ">>> assert q3_pgs_to_halve > 2.5, 'Twice the PGs per OSD do not halve the excess: it shrinks more slowly than the PG count grows'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
