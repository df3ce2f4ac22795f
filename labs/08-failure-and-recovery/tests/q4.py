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
                                               "than one stripe'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
