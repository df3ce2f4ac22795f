OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q5_one_left, (bool, np.bool_)) and isinstance(q5_two_left, (bool, np.bool_)), 'Store two booleans (True/False)'\n"
                                               ">>> assert not (q5_one_left and (not q5_two_left)), 'A PG that serves I/O with one OSD reachable must also serve it with two: fewer live copies can "
                                               "only stop it sooner'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
