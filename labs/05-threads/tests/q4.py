OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert int(q4_async) == q4_async > 0, "A whole number of threads: AsyncMessenger\'s per-OSD count does not depend on clients"\n'
                                               '>>> assert q4_async < q4_simple, "AsyncMessenger does not run SimpleMessenger\'s 2 threads per connection: a fixed pool of worker threads serves every '
                                               'connection"\n'
                                               '>>> assert q4_async > 3, "That is only the messenger\'s event-loop pool (ms_async_op_threads): an OSD runs many other threads too, for its op queue, '
                                               'BlueStore and RocksDB"\n'
                                               '>>> assert q4_async - 2 * P[\'q4_clients\'] != async_messenger_threads(0), "AsyncMessenger gives no client connection threads of its own: an OSD\'s '
                                               'thread count does not grow with its clients"\n'
                                               ">>> assert q4_simple > 2 * P['q4_clients'] and q4_simple % 2 == 0, 'Two threads per connection: the clients alone take 2 each, the monitor and the PG "
                                               "peers add more'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
