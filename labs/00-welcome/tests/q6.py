OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q6',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(my_pool_size, (int, np.integer)) and (not isinstance(my_pool_size, bool)) and (1 <= my_pool_size <= 3), 'Choose a whole number: "
                                               "a pool size of 1, 2 or 3'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert all((isinstance(v, int) and v >= 0 for v in (q6_op_w, q6_subop_w))), 'Counters count whole operations: store two whole numbers (int), not "
                                               "ms or fractions'\n"
                                               ">>> assert q6_op_w + q6_subop_w == q6_op_w * my_pool_size, 'Count the copies: every client write is stored my_pool_size times, once by the primary "
                                               "(op_w) and once by each replica'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
