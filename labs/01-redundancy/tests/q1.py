OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_overhead, float), 'q1_overhead should be a number such as 0.5 (not a percentage string)'\n"
                                               ">>> assert not 1 <= q1_overhead < 2, 'That is raw / usable itself: the overhead is only the extra raw space per usable byte, the part above one'\n"
                                               '>>> assert abs(q1_overhead * (P[\'q1_k\'] + P[\'q1_m\']) / P[\'q1_m\'] - 1) > 0.01, "That is m / (k + m), the coding chunks\' share of the raw space: '
                                               'the overhead compares the extra raw space with the usable space, not with all the raw"\n'
                                               ">>> assert 0 < q1_overhead < 1, 'Overhead is extra raw space per usable byte, a fraction (not a percentage): fewer coding chunks than data chunks keep "
                                               "it below 1'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
