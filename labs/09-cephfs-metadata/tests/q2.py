OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {'code': '>>> assert abs(q2_wait_ms - 16.24) < 0.01, "Little\'s law: each client waits clients / throughput"\n', 'hidden': False, 'locked': False},
                                   {'code': ">>> assert abs(q2_knee_clients - 8.62) < 0.01, 'N* = R0 / S, with S = 1 / the separate-directory creation rate'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
