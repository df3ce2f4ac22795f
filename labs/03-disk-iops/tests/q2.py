OK_FORMAT = True

test = {   'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert abs(q2_in_flight - 579.8) < 0.5, "Little\'s law: in flight = IOPS x latency, with the latency in seconds"\n'
                                               ">>> assert abs(q2_latency_ms - 7.641) < 0.01, 'latency = in flight / IOPS; give it in milliseconds'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
