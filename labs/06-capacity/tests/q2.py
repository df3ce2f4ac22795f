OK_FORMAT = True

test = {   'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q2_at_87 == 'nearfull', '87 % is above the 0.85 nearfull ratio but below backfillfull'\n"
                                               ">>> assert q2_at_93 == 'backfillfull', '93 % is above 0.90 (no more backfill into it) but below the 0.95 full ratio'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
