OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q4_max_fill < cap.NEARFULL, 'A fill ratio below nearfull: the same data on one host fewer fills each survivor more'\n"
                                               '>>> assert q4_max_fill < 0.9 * (P[\'q4_hosts\'] - 1) / P[\'q4_hosts\'], "Your fill lets the survivors fill up completely: they must stay at or below '
                                               'the nearfull ratio once they hold the failed host\'s data too"\n'
                                               ">>> assert isinstance(q4_seed_is_safe, (bool, np.bool_)) and q4_seed_is_safe == (0.7 <= q4_max_fill), 'Store a boolean: compare 0.7 with your "
                                               "answer'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
