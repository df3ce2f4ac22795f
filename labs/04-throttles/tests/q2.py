OK_FORMAT = True

test = {   'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q2_max_ops - 25) < 1e-06, 'With low = high the delay jumps to e = high_multiple / expected_throughput at once; the rate is 1 / delay'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
