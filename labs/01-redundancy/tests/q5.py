OK_FORMAT = True

test = {   'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert q5_default is True or q5_default == True, "Pacific\'s default min_size for EC 2+1 is k + min(1, m-1) = 2, and 2 shards are still up"\n'
                                               ">>> assert q5_strict is False or q5_strict == False, 'With min_size 3 every shard must be up: one down OSD makes the PG stop serving I/O'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
