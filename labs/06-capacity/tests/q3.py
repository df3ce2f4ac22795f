OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q3_usable_gib - 8.686) < 0.01, 'The OSD with 28 of 96 PGs fills first: raw = 0.95 x 8 / (28/96), then divide by 3 copies'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> assert abs(q3_stranded - 1 / 7) < 0.001, "Compare with an even spread: 1 - (fullest OSD\'s even share) / (its real share)"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
