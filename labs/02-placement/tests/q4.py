OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q4_shards_moved < q4_pgs_changed < 1, 'Both are fractions; a PG changes its OSD set when any one of its copies moves, so more PGs "
                                               "change than copies move'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
