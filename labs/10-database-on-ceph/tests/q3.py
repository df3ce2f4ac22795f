OK_FORMAT = True

test = {   'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q3_cap - 166.67) < 0.1, 'One flush at a time: 1000 ms / commit ms'\n"
                                               '>>> assert abs(q3_tps_20 - 666.67) < 0.1, "Little\'s law: tps = clients / time per transaction (in seconds)"\n'
                                               ">>> assert q3_possible is False or q3_possible == False, '666 commits per second need several commits per flush'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
