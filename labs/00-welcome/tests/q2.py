OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q2_ms, (int, float)), 'q2_ms should be a number of milliseconds'\n"
                                               '>>> assert P[\'q2_disk_ms\'] + P[\'q2_osd_ms\'] < q2_ms < P[\'q2_size\'] * (2 * P[\'q2_net_ms\'] + P[\'q2_disk_ms\'] + P[\'q2_osd_ms\']), "More than '
                                               'one disk commit plus the OSD\'s work, less than three copies one after another: the replicas work in parallel with the primary"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
