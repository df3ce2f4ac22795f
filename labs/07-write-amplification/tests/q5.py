OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert P[\'q5_client_tb\'] < q5_tb_per_day < P[\'q5_client_tb\'] * 100, "TB per day, more than the clients\' TB: device bytes = client bytes x '
                                               'WAF"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
