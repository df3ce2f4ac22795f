OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q5_budget % 2 ** 20 == 0, 'A MiB is 2^20 bytes (1,048,576), not a million: the budget in bytes is a whole number of MiB'\n"
                                               ">>> assert int(q5_hdd) == q5_hdd and int(q5_ssd) == q5_ssd, 'Count whole transactions (round down)'\n"
                                               ">>> assert 0 < q5_hdd < q5_ssd < P['q5_budget_mib'] * 2 ** 20 // (P['q5_kib'] * 1024), 'Each transaction costs ios x cost_per_io + bytes: an SSD I/O "
                                               "is charged less than an HDD one, and the data bytes alone cap the count'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
