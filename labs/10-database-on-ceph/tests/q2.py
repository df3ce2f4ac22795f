OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert abs(q2_tps_4 - 1212.12) < 0.5, 'One client alone needs R0 = other work + commit; N clients reach N / R0'\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> assert abs(q2_tps_20 - 3000) < 0.5, '20 / 3.3 ms is more than the CPU allows: the ceiling wins'\n"
                                               ">>> assert abs(q2_batch_s - 0.8448) < 0.001, 'Seconds = transactions / tps'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
