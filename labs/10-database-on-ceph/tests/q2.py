OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q2_tps_few < P['q2_few'] / (P['q2_other_ms'] / 1000), 'Transactions per second: each client needs more than the other work per "
                                               "transaction'\n"
                                               ">>> assert q2_tps_few > P['q2_few'], 'Transactions per second, not per millisecond: each client finishes many transactions in one second'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q2_tps_few < q2_tps_many < P['q2_many'] / (P['q2_other_ms'] / 1000), 'More clients get more tps, each still needing more than the other "
                                               "work per transaction; then mind the CPU ceiling'\n"
                                               '>>> assert q2_tps_many <= 1.000001 * P[\'q2_cap\'], "More than the database host\'s CPU allows: its ceiling caps the many clients\' rate"\n'
                                               '>>> assert 1024 / (P[\'q2_few\'] / (P[\'q2_other_ms\'] / 1000)) < q2_batch_s < 1024 / 50, "In seconds: 1,024 transactions at the few clients\' rate"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
