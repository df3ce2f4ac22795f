OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_delay_s, float), 'q1_delay_s should be a number of seconds'\n"
                                               ">>> assert P['q1_high_multiple'] / P['q1_throughput'] < q1_delay_s < P['q1_max_multiple'] / P['q1_throughput'], 'Above high the delay lies between e = "
                                               "high_multiple / throughput and m = max_multiple / throughput, in seconds (not ms)'\n"
                                               ">>> _e, _m = (P['q1_high_multiple'] / P['q1_throughput'], P['q1_max_multiple'] / P['q1_throughput'])\n"
                                               ">>> _ramp = (P['q1_fill'] - P['q1_low']) * _e / (P['q1_high'] - P['q1_low'])\n"
                                               ">>> _same_slope = abs(_e / (P['q1_high'] - P['q1_low']) - (_m - _e) / (1 - P['q1_high'])) < 1e-09 * _m\n"
                                               '>>> assert _same_slope or abs(q1_delay_s / _ramp - 1) > 0.01, "That is the ramp between low and high carried on past high: above high the delay '
                                               'follows the table\'s last row, from e at high to m at a full queue"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
