OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert 0.1 < q4_commit_ms < 100 * (1 + 0.1), "In ms: more than the SSD\'s commit, less than the whole 100x slower transaction (it has 1 ms of '
                                               'other work)"\n'
                                               ">>> assert q4_looks_like in ('LAN write', 'many slow flushes'), 'Answer with one of the two strings exactly'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
