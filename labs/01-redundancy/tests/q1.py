OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_overhead, float), 'q1_overhead should be a number such as 0.5 (not a percentage string)'\n"
                                               ">>> assert abs(q1_overhead - 0.375) < 1e-09, 'Overhead is (k + m) / k - 1: EC 8+3 writes 11 chunks for 8 chunks of data'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
