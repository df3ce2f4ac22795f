OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q2_4k > q2_64k > 3, 'Device bytes per client byte over 3 replicas: more than 3, and a deferred small write (WAL, then in place) more than a "
                                               "direct one'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
