OK_FORMAT = True

test = {   'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q5_iops_70 - 2676) < 2, 'Each op costs 1/R or 1/W of the time: a weighted harmonic mean, not a weighted average'\n"
                                               ">>> assert q5_closer_to == 'writes', 'The slow writes take most of the time even when they are only 30 % of the ops'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
