OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_overhead, float), 'q1_overhead should be a number such as 0.5 (not a percentage string)'\n"
                                               ">>> assert 0 < q1_overhead < 1, 'Overhead is extra raw space per usable byte, a fraction: fewer coding chunks than data chunks keep it below 1'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
