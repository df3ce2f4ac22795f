OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert 0 < q4_iops < 175000 * P[\'q4_ssds\'], "Each client write lands on 3 SSDs: fewer client IOPS than the disks\' summed IOPS; then mind the '
                                               'cores"\n'
                                               '>>> assert q4_limit in (\'disks\', \'cpu\'), \'q4_limit is one of the strings "disks" or "cpu"\'\n'
                                               '>>> assert q4_iops > 25000 * P[\'q4_servers\'], "Seed 004\'s 10^4 IOPS per CPU is per core in this lab, and each server has many cores: count them '
                                               'all"\n'
                                               ">>> assert q4_iops <= 1.001 * min(175000 * P['q4_ssds'] / 3, 10 ** 4 * P['q4_servers'] * P['q4_cores']), 'Your IOPS are above one of the two bounds: "
                                               "the cluster runs at the lower of what its SSDs allow (3 copies of each write) and what its cores allow'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
