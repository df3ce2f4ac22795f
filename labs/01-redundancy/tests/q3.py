OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert q3_nines_rep3 == 7 and q3_nines_ec42 == 6, 'Use red.durability_nines(scheme, afr=0.05, replacement_days=7) for each scheme'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q3_more_durable == 'replicated size 3', 'Both lose data on a third failure in the window, but EC 4+2 has 6 disks that can fail, replication "
                                               "3'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
