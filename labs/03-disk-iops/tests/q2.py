OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert 1 < q2_in_flight < P[\'q2_iops\'], "Little\'s law: in flight = IOPS x latency, with the latency in seconds (fewer I/Os than one second\'s '
                                               'worth)"\n'
                                               ">>> assert 1 < q2_latency_ms < 1000, 'Give the latency in milliseconds: a few dozen I/Os at a few thousand IOPS take more than a millisecond, less "
                                               "than a second'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
