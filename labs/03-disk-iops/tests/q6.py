OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q6',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert 30 < q6_disk_iops < 500, 'IOPS of one spinning disk: 1000 ms divided by the milliseconds one random I/O takes (seek + half a rotation)'\n"
                                               ">>> assert q6_disk_iops < 0.97 * 1000 / P['q6_seek_ms'], 'Your I/O takes about the seek alone: add half a rotation, in milliseconds (one rotation "
                                               "lasts 60,000 ms / rpm)'\n"
                                               ">>> assert q6_disk_iops > 1.03 * 1000 / (P['q6_seek_ms'] + 60000 / P['q6_rpm']), 'Your I/O waits a full rotation after its seek: on average the sector "
                                               "it wants is half a rotation away'\n"
                                               '>>> assert abs(q6_overstated * q6_disk_iops - 600) < 1e-06, "The factor is 600 divided by your disk\'s IOPS"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
