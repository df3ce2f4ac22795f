OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_delay_s, float), 'q1_delay_s should be a number of seconds'\n"
                                               ">>> assert P['q1_high_multiple'] / P['q1_throughput'] < q1_delay_s < P['q1_max_multiple'] / P['q1_throughput'], 'Above high the delay lies between e = "
                                               "high_multiple / throughput and m = max_multiple / throughput, in seconds (not ms)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
