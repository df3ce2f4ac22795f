OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> assert abs(q3_ms - 13.9) < 1e-06, "The primary acknowledges only after the slowest copy is written: that replica\'s round trip sets the latency"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {'code': ">>> assert abs(q3_slowdown - 13.9 / 1.27) < 0.001, 'Divide by the latency of the same write with every disk an SSD'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
