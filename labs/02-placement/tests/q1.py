OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_pgid, str) and q1_pgid.startswith('5.'), 'A PG id is a string: the pool id, a dot, and the PG number in hex'\n"
                                               ">>> assert q1_pgid == '5.1e', 'Hash the name with str_hash_rjenkins, fold it with stable_mod onto 32 PGs, and print the PG number in hex'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
