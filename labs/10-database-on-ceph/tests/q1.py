OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert P['q1_hop_ms'] + P['q1_cpu_ms'] + P['q1_flush_ms'] < q1_commit_ms < 20, 'In ms: more than one hop, the CPU and the flush, since the primary "
                                               "also waits for its replicas'\n"
                                               '>>> assert q1_commit_ms > 4 * P[\'q1_hop_ms\'] + P[\'q1_cpu_ms\'] + P[\'q1_flush_ms\'], "Your commit has no replica in it: the primary acknowledges '
                                               'only after a replica\'s round trip (two more hops, its CPU and its flush)"\n'
                                               ">>> assert q1_commit_ms < q1_serial_ms, 'Serial flushes add up: several cost more than one'\n"
                                               ">>> assert q1_commit_ms < 0.999 * (4 * P['q1_hop_ms'] + 2 * P['q1_cpu_ms'] + 2 * P['q1_flush_ms']), 'Your commit writes the copies one after another: "
                                               "the primary sends the write to its replicas in parallel, while it writes its own copy'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
