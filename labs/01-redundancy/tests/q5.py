OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q5_default, (bool, np.bool_)) and isinstance(q5_strict, (bool, np.bool_)), 'Store two booleans (True/False)'\n"
                                               ">>> assert not (q5_strict and (not q5_default)), 'Raising min_size can only make a PG stop serving sooner, never keep serving longer'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
