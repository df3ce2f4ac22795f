OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q4_args, tuple) and len(q4_args) == 4, 'q4_args should be a tuple of four: (net ms, disk ms, OSD ms, size)'\n"
                                               '>>> assert q4_args[3] == P[\'q4_size\'], "The size in q4_args should be this question\'s own size, not Q2\'s: only the net, disk and OSD work come '
                                               'from Q2"\n'
                                               '>>> assert tuple(q4_args[:3]) == (P[\'q2_net_ms\'], P[\'q2_disk_ms\'], P[\'q2_osd_ms\']), "The first three parts of q4_args are Q2\'s network hop, '
                                               'disk commit and OSD work, in that order"\n'
                                               ">>> _one = 2 * P['q2_net_ms'] + P['q2_osd_ms'] + P['q2_disk_ms']\n"
                                               ">>> assert P['q2_disk_ms'] < q4_saved_ms < P['q4_size'] * _one, 'One by one, every copy adds a full round trip (net + osd + disk + net); in parallel "
                                               "only the slowest one counts, so more than a disk commit is saved'\n"
                                               '>>> assert q4_saved_ms < (P[\'q4_size\'] - 1) * _one - P[\'q2_osd_ms\'] / 2, "The parallel write is more than one copy\'s time: it also waits for one '
                                               'replica\'s round trip, so less than size - 1 whole copies is saved"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
