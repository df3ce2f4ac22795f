OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {'code': ">>> assert q3_four_private > 4, 'Creations per second (not per ms): where are 4 clients relative to the knee of Q2?'\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> assert 0 < q3_seventy_shared < 70 / 0.002, 'Creations per second: saturated clients complete less than one creation per round trip each, and each "
                                               "creation costs 4 MDS requests'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
