OK_FORMAT = True

test = {   'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q2_blocked, float), 'q2_blocked should be a fraction such as 0.5'\n"
                                               ">>> assert abs(q2_blocked - 0.2) < 1e-09, 'A PG blocks when the stopped host held 2 or 3 of its shards (size - lost < min_size)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
