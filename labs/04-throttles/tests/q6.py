OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q6',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert int(my_delay_multiple) == my_delay_multiple and 2 <= my_delay_multiple <= 20, 'Choose a whole number from 2 to 20 for both delay "
                                               "multiples'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert 1 <= q6_cap_ops < 200, 'A rate in transactions per second (1 / delay, not the delay itself), below the expected throughput once every "
                                               "transaction waits'\n"
                                               '>>> assert abs(3 * q6_cap_ops * my_delay_multiple / 200 - 1) > 0.01, "Do not divide the rate among the OSDs: the run\'s pool has size 3 on 3 OSDs, so '
                                               'each OSD sees every client write and one OSD\'s cap is the client\'s"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
