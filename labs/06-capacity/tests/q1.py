OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q1_usable_gib - 57142.86) < 1, 'C_total = N_vm x C_per_vm / (thin_ratio x 0.7)'\n"
                                               ">>> assert abs(q1_raw_gib - 3 * 57142.86) < 3, 'Raw space is usable space times the replica count'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
