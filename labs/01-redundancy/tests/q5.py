OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert int(q5_left) == q5_left and 0 <= q5_left <= P['q5_k'] + P['q5_m'], 'Count the shards whose OSDs are still up'\n"
                                               ">>> assert all((isinstance(x, (bool, np.bool_)) for x in (q5_survives, q5_default, q5_strict))), 'Store three booleans (True/False)'\n"
                                               ">>> assert not (q5_strict and (not q5_default)), 'Raising min_size can only make a PG stop serving sooner, never keep serving longer'\n"
                                               ">>> assert not (q5_default and (not q5_survives)), 'A PG that serves I/O has its data: min_size is never below k'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
