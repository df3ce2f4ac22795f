OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert int(q2_pg_num) == q2_pg_num > 0 and int(q2_pg_num) & int(q2_pg_num) - 1 == 0, 'PGCalc suggests a power of two (pgs.pgcalc)'\n"
                                               '>>> assert 100 * P[\'q2_osds\'] / P[\'q2_size\'] / 2 < q2_pg_num < 100 * P[\'q2_osds\'] / P[\'q2_size\'] * 2, "PGCalc\'s power of two is within a '
                                               'factor 2 of target x OSDs / size"\n'
                                               ">>> assert 100 / 2 < q2_per_osd < 100 * 2, 'PGs per OSD count every copy of a PG: near the target of 100, not pg_num / OSDs'\n"
                                               ">>> assert q2_per_osd > 1.5 * q2_pg_num / P['q2_osds'], 'PGs per OSD count every copy of a PG, one per replica, each on its own OSD: not pg_num / "
                                               "OSDs'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
