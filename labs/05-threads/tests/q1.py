OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_threads, (int, np.integer)), 'q1_threads should be a whole number of threads'\n"
                                               ">>> assert q1_threads == 1602, 'Two threads per connection: clients, one monitor, and 6 peer connections per PG'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
