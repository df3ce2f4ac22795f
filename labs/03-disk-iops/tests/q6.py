OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q6',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert 30 < q6_disk_iops < 500, 'IOPS of one spinning disk: 1000 ms divided by the milliseconds one random I/O takes (seek + half a rotation)'\n"
                                               ">>> assert q6_disk_iops < 0.97 * 1000 / P['q6_seek_ms'], 'Your I/O takes about the seek alone: add half a rotation, in milliseconds (one rotation "
                                               "lasts 60,000 ms / rpm)'\n"
                                               '>>> assert abs(q6_overstated * q6_disk_iops - 600) < 1e-06, "The factor is 600 divided by your disk\'s IOPS"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
