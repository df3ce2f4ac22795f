OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q6',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> assert isinstance(my_pg_num, (int, np.integer)) and (not isinstance(my_pg_num, bool)) and (8 <= my_pg_num <= 128) and (my_pg_num & my_pg_num - 1 '
                                               "== 0), 'Choose a whole power of two from 8 to 128 (8, 16, 32, 64 or 128)'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert 0 < q6_per_osd < my_pg_num, 'PGs per OSD: every PG has 3 copies spread over 4 OSDs, so an OSD holds fewer PGs than the pool has'\n"
                                               ">>> assert q6_per_osd > 1.5 * my_pg_num / 4, 'PGs per OSD count every copy of a PG, not each PG once: my_pg_num / 4 leaves out two copies of three'\n"
                                               ">>> assert 1 < q6_fullest_factor <= my_pg_num / q6_per_osd, 'A factor: fullest OSD over the mean, above 1, and no OSD can hold more PGs than the pool "
                                               "has'\n"
                                               '>>> assert abs(q6_fullest_factor / pgs.fullest_osd_factor(my_pg_num, 3, 4) - 1) > 0.005, "That is the model with every copy placed independently '
                                               '(pgs.fullest_osd_factor): a PG\'s 3 copies sit on 3 different OSDs, which evens the counts, as the model in pl assumes"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
