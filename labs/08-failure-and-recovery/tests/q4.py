OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert all((float(x).is_integer() and 0 <= x <= 30 for x in (q4_nines_ceph, q4_nines_late, q4_nines_cluster))), 'Nines are whole numbers "
                                               "(red.nines rounds down), and an AFR of 5 % is 0.05, not 5'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q4_nines_ceph > q4_nines_late, 'Letting Ceph heal in minutes or hours must be more durable than waiting days'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q4_nines_cluster < q4_nines_ceph, 'Thousands of PGs are thousands of sets of disks that can fail together: a whole cluster has fewer nines "
                                               "than one stripe'\n"
                                               ">>> assert 0 < q4_window_days < q4_recovery_s, 'q4_window_days is in days, not seconds: rec.window_days converts the window'\n"
                                               ">>> assert 'q3_seconds_1' not in globals() or not isinstance(q3_seconds_1, (int, float, np.number)) or abs(q4_recovery_s - 600 - q3_seconds_1) > 0.001 "
                                               '* q4_recovery_s, "That is the whole degraded window, 600 s plus the recovery: q4_recovery_s is Q3\'s recovery time alone"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
