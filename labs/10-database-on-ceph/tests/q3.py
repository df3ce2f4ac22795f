OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q3_cap < 1000, 'Transactions per second with one multi-millisecond flush at a time: fewer than one per millisecond'\n"
                                               '>>> assert P[\'q3_clients\'] < q3_tps < P[\'q3_clients\'] * 1000, "Little\'s law: tps = clients / time per transaction, in seconds"\n'
                                               ">>> assert isinstance(q3_possible, (bool, np.bool_)), 'Store a boolean (True/False): compare the tps with the cap'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
