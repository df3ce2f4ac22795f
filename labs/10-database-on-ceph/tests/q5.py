OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(my_clients, (int, np.integer)) and 2 <= my_clients <= 16, 'Choose a whole number of clients from 2 to 16'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> assert 0.05 + 0.4 + 0.1 < q5_commit_ms < 10, "In ms: more than one hop, the OSD\'s CPU and the flush, since the primary also waits for its '
                                               'replicas"\n'
                                               '>>> assert q5_commit_ms > 4 * 0.05 + 0.4 + 0.1, "Your commit has no replica in it: the primary acknowledges only after a replica\'s round trip (two '
                                               'more hops, its CPU and its flush)"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert my_clients * 1000 / 11 < q5_tps < my_clients * 1000 / 1.0, 'Transactions per second of all your clients together; each needs the 1 ms of "
                                               "other work plus the commit'\n"
                                               '>>> assert q5_tps < my_clients * 1000 / 1.5, "Your clients\' transactions take the commit alone: each also has 1 ms of other work"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
