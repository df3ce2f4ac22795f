OK_FORMAT = True

test = {   'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q2_ms, (int, float)), 'q2_ms should be a number of milliseconds'\n"
                                               ">>> assert abs(q2_ms - 6.4) < 1e-06, 'The replicas work in parallel with the primary: add (1), the longer of the two middle steps, and (4) -- not one "
                                               "disk per copy'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
