OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q4_max_fill - 0.765) < 1e-06, 'The same data on 9 hosts instead of 10 fills each of them 10/9 times as much'\n"
                                               ">>> assert q4_seed_is_safe == True, 'Compare 0.7 with your answer'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
