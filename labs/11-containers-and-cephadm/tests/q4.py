OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q4_unavailable - 1.0) < 1e-09, 'Every OSD daemon runs on that one host: how many shards of any PG keep running?'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
