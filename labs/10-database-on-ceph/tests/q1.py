OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q1_commit_ms - 1.3) < 1e-06, 'hop + OSD CPU + the longer of (own flush, round trip to the replicas incl. their CPU and flush) + hop'\n"
                                               ">>> assert abs(q1_two_flushes_ms - 2.6) < 1e-06, 'Serial flushes add up: each one is a whole replicated write'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
