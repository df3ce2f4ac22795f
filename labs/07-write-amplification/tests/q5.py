OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert P[\'q5_client_tb\'] < q5_tb_per_day < P[\'q5_client_tb\'] * 100, "TB per day, more than the clients\' TB: device bytes = client bytes x '
                                               'WAF"\n'
                                               '>>> assert q5_tb_per_day > 4 * P[\'q5_client_tb\'], "More than the replicas\' copies alone: FileStore also writes each byte to its journal first, plus '
                                               'metadata and the file system\'s journal (seed 003\'s long-term WAF)"\n'
                                               '>>> assert q5_tb_per_day < 25 * P[\'q5_client_tb\'], "That WAF is a fresh cluster\'s (seed 003\'s short microbenchmark): use the seed\'s long-term '
                                               'run, as the question says"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
