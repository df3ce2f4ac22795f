OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q4_nines_ceph == 12, 'red.nines(rec.annual_loss_with_recovery(replicated(3), afr, recovery_seconds)) adds the 600 s itself'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q4_nines_7days == 7, 'A 7-day window is ~300 times longer than 600 s + recovery: use red.durability_nines(scheme, afr, days)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
