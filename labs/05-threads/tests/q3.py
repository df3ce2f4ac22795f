OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q3_big_pool % 2 == 0 and q3_small_pool % 2 == 0, 'Two threads per connection: thread counts are even'\n"
                                               ">>> assert 2 * P['q3_clients'] < q3_small_pool < q3_big_pool, 'The clients alone take 2 threads each; a small pool caps the peers an OSD can have, so "
                                               "it needs fewer threads'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
