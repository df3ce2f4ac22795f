OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q4_unavailable, float) and 0 < q4_unavailable < 1, 'A fraction of the PGs (not a percentage, not a count), above 0 and below the "
                                               "one-host case: a PG is gone only if all its shards were on the stopped host'\n"
                                               '>>> assert q4_unavailable < 0.75 / P[\'q4_hosts\'], "Not the stopped host\'s share of the PGs: a PG is gone only if every one of its shards sat on '
                                               'that host, which few PGs do"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
