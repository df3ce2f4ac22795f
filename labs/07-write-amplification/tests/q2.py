OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q2_small > q2_big > P['q2_replicas'], 'Device bytes per client byte over all replicas: more than the replica count, and a deferred small "
                                               "write (WAL, then in place) more than a direct one'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
