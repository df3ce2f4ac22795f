OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(my_pg_num, (int, np.integer)) and (not isinstance(my_pg_num, bool)) and (my_pg_num in (16, 32, 64, 128)), 'Choose a power of two "
                                               "from 16 to 128 for my_pg_num'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> assert 0 < q5_blocked_pgs < my_pg_num, "A number of PGs, more than none and fewer than all of your pool\'s PGs: only PGs with two shards on the '
                                               'stopped host block"\n'
                                               '>>> assert q5_blocked_pgs > 1, "A count of PGs, not a fraction: how many of your pool\'s PGs is that share?"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
