OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q2_tps_4 < 4 / 0.002, 'Transactions per second: each of the 4 clients needs more than the 2 ms of other work per transaction'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q2_tps_4 < q2_tps_20 < 20 / 0.002, 'More clients get more tps, each still needing more than 2 ms per transaction; then mind the CPU "
                                               "ceiling'\n"
                                               ">>> assert 1024 / (4 / 0.002) < q2_batch_s < 1024 / 100, 'In seconds: 1,024 transactions at the 4-client rate'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
