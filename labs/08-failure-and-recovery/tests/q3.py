OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q3_seconds_1 - 1459.7) < 1, '3e12 bytes over min(99 peers, 49 PGs at once) OSDs, each held to 4 MiB per 0.1 s by the recovery sleep'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert abs(q3_seconds_4 - 722.5) < 1, 'With 4 slots all 99 survivors copy at once, each still at 4 MiB per 0.1 s'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {'code': ">>> assert q3_bottleneck == 'sleep', '4 x 50 MB/s is more than 4 MiB / 0.1 s: which bound is lower?'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
