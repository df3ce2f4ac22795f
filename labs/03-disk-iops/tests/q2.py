OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert 1 < q2_in_flight < 14264, "Little\'s law: in flight = IOPS x latency, with the latency in seconds (fewer I/Os than one second\'s worth)"\n'
                                               ">>> assert 1 < q2_latency_ms < 1000, 'Give the latency in milliseconds: 16 I/Os at about 2,000 IOPS take more than a millisecond, less than a "
                                               "second'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
