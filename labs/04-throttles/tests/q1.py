OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_delay_s, float), 'q1_delay_s should be a number of seconds'\n"
                                               ">>> assert abs(q1_delay_s - 0.03) < 1e-09, 'Above high the delay is e + (r - high)(m - e)/(1 - high), with e = 2/200 s and m = 10/200 s'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
