OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q4_commit_ms - 109) < 0.01, 'Solve 1 + commit = 100 x (1 + 0.1) for the commit'\n"
                                               ">>> assert q4_looks_like == 'many slow flushes', 'A healthy replicated write costs a few ms; 109 ms means something much slower in the path'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
