OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert int(q3_writes_4k) == q3_writes_4k and int(q3_writes_64k) == q3_writes_64k, 'Count whole device writes per replica write'\n"
                                               ">>> assert 0 < q3_writes_64k <= q3_writes_4k, 'Every replica write reaches the device at least once, and a small write never costs fewer device writes "
                                               "than a large one'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert 0 < q3_cluster_4k < P['q3_disk_iops'] * P['q3_disks'] / P['q3_size'], 'Each client write costs one replica write per copy, and each replica "
                                               "write more than one device write (its data and its commit): fewer IOPS than disks x IOPS / replicas'\n"
                                               ">>> assert q3_cluster_4k < 0.75 * P['q3_disk_iops'] * P['q3_disks'] / P['q3_size'], 'Your IOPS count one device write per replica write: each replica "
                                               "write also writes its commit to the disk, with its data or after it'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
