OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0.1 + 0.2 + 0.5 < q1_commit_ms < 10, 'In ms: more than one hop, the CPU and the flush, since the primary also waits for its replicas'\n"
                                               ">>> assert q1_commit_ms < q1_two_flushes_ms, 'Serial flushes add up: two cost more than one'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
