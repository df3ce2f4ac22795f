OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert q3_writes_4k == 2 and q3_writes_64k == 1, 'Writes below bluestore_prefer_deferred_size_hdd (64 KiB, strict <) go through the WAL first'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {'code': ">>> assert abs(q3_cluster_4k - 600) < 1, 'Disk IOPS x disks / (replicas x device writes per write)'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
