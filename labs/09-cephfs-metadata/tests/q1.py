OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {'code': ">>> assert q1_operation == 'File Rename', 'Compare separate / shared for the three file operations of the table'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert abs(q1_factor - 6.336) < 0.01, 'The factor is separate ops/s divided by shared ops/s'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
