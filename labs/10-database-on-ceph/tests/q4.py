OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert P[\'q4_ssd_ms\'] < q4_commit_ms < P[\'q4_ratio\'] * (P[\'q4_other_ms\'] + P[\'q4_ssd_ms\']), "In ms: more than the SSD\'s commit, less than '
                                               'the whole slower transaction (it has other work too)"\n'
                                               '>>> assert q4_commit_ms > 1.5 * P[\'q4_ratio\'] * P[\'q4_ssd_ms\'], "Not the SSD\'s commit times the ratio: the whole transaction is that much slower, '
                                               'and its other work does not grow, so the commit must grow by more"\n'
                                               ">>> assert q4_looks_like in ('LAN write', 'many slow flushes'), 'Answer with one of the two strings exactly'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
