OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert abs(q2_mib - 96) < 0.01, 'Each object has 3 copies spread over 4 OSDs: 128 x 3 / 4'\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> assert abs(q2_seconds - 9.6) < 0.01, 'Only one PG recovers at a time on 3 OSDs (rec.concurrent_recoveries), and its primary pushes one 1 MiB "
                                               "object per 0.1 s sleep'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
