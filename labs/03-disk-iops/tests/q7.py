OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q7',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(my_threads, (int, np.integer)) and 2 <= my_threads <= 32 and (my_threads != 16), 'Choose a whole number of writes in flight from "
                                               "2 to 32, other than the 16 your run is compared with'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> assert 0 < q7_iops_ratio <= 4 and 0 < q7_latency_ratio <= 20, "Give fractions of the 16-thread run (your run\'s figure / its figure), not IOPS or '
                                               'milliseconds"\n'
                                               '>>> assert abs(q7_latency_ratio * q7_iops_ratio - my_threads / 16) < 1e-06, "Little\'s law: latency = writes in flight / IOPS, so (latency ratio) x '
                                               '(IOPS ratio) = (your writes in flight) / 16"\n'
                                               ">>> assert abs(q7_latency_ratio - 1) > 0.01, 'An unchanged latency with IOPS that follow the writes in flight is a queue-bound cluster: the model you "
                                               "predict with assumes the cores, not the queue, set the IOPS'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
