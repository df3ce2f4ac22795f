OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_threads, (int, np.integer)), 'q1_threads should be a whole number of threads'\n"
                                               ">>> assert q1_threads > 2 * P['q1_clients'] and q1_threads % 2 == 0, 'Two threads per connection (an even count): the clients alone take 2 each, the "
                                               "monitor and the PG peers add more'\n"
                                               '>>> assert q1_threads > 2 * (P[\'q1_clients\'] + 1 + P[\'q1_pgs\']), "Your count allows at most one connection per PG: in seed 004\'s formula each PG '
                                               'brings several peer connections"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
