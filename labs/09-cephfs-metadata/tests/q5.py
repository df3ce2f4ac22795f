OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(my_clients, (int, np.integer)) and (not isinstance(my_clients, bool)) and (2 <= my_clients <= 6), 'Choose a whole number of "
                                               "clients from 2 to 6'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert 1 <= q5_speedup <= my_clients + 1e-09, 'A ratio of two throughputs, not ops/s: in the model more clients never do worse than one, and N "
                                               "clients at most N times better'\n"
                                               '>>> assert my_clients * 0.0003 <= 0.0007 or q5_speedup < 0.9 * my_clients, "Past the knee N* = R0 / S the MDS is busy all the time: more clients then '
                                               'queue for it, they do not each add one client\'s rate"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
