OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q4_shards_moved - 0.2) < 1e-09, 'The new OSD ends up with its weight share of the copies, 1 of 5, and straw2 moves nothing else'\n"
                                               ">>> assert abs(q4_pgs_changed - 0.6) < 1e-09, 'A PG changes when its 3 OSDs (out of 5) include the new one'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
