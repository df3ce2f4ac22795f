OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert isinstance(q1_pgid, str) and q1_pgid.startswith(f"{P[\'q1_pool\']}."), \'A PG id is a string: the pool id, a dot, and the PG number in '
                                               "hex'\n"
                                               ">>> assert '0x' not in q1_pgid and q1_pgid == q1_pgid.lower(), 'Write the PG number in lowercase hex without a 0x prefix, as `ceph osd map` prints "
                                               "it'\n"
                                               ">>> assert q1_ps < 10 or q1_pgid.split('.', 1)[1] != str(q1_ps), 'The part after the dot is your PG number written in hexadecimal (base 16): in "
                                               "decimal it reads as another PG'\n"
                                               '>>> assert int(q1_pgid.split(\'.\', 1)[1], 16) < P[\'q1_pg_num\'], "Fold the hash with stable_mod onto the pool\'s PGs: the PG number is below '
                                               'pg_num"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
