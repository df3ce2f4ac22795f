OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q2_blocked, float), 'q2_blocked should be a fraction such as 0.5'\n"
                                               ">>> assert 0 < q2_blocked < 1, 'A fraction of the PGs (not a percentage): a PG blocks when the stopped host held enough of its shards that size - lost "
                                               "< min_size'\n"
                                               '>>> assert q2_blocked < 0.9 / P[\'q2_hosts\'], "Not the stopped host\'s share of the PGs: a PG with one shard there keeps the others, enough for '
                                               'min_size, and goes on serving; only PGs left with fewer than min_size stop"\n'
                                               '>>> assert P[\'q2_size\'] == 3 or abs(q2_blocked - fd.blocked_fraction(P[\'q2_hosts\'], P[\'q2_per_host\'], 3, 2, \'osd\')) > 1e-09, "That is a size-3 '
                                               'pool\'s share: your pool keeps more copies, so a PG stops only when more of them sat on the stopped host"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
