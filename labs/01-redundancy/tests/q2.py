OK_FORMAT = True

test = {   'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q2_usable_tb, (int, float)), 'q2_usable_tb should be a number of TB'\n"
                                               ">>> assert abs(q2_usable_tb - 340) < 0.5, 'Usable = raw / raw_per_usable x fill ratio; EC 4+2 stores 1.5 raw bytes per client byte'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
