OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert 0 < q1_data_disk_bound < P[\'q1_disk_iops\'] * P[\'q1_disks\'], "Each client write lands on 3 of the data disks: the bound is below the '
                                               'disks\' summed IOPS"\n'
                                               ">>> assert q1_data_disk_bound > 0.75 * P['q1_disk_iops'] * P['q1_disks'] / 3, 'Your bound counts two device writes per replica write, a journal write "
                                               "too: here the journals sit on the SSDs, not on the data disks'\n"
                                               ">>> assert 0 < q1_fraction_of_plan < 1, 'A fraction (measured / planned, below 1 here), not a percentage'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
