OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q2_ms, (int, float)), 'q2_ms should be a number of milliseconds'\n"
                                               ">>> _one = 2 * P['q2_net_ms'] + P['q2_osd_ms'] + P['q2_disk_ms']\n"
                                               '>>> assert q2_ms > _one + P[\'q2_osd_ms\'] / 2, "More than one copy\'s write: the primary also waits for a replica\'s round trip (two hops and the '
                                               'replica\'s OSD work)"\n'
                                               ">>> assert q2_ms < 2 * _one - P['q2_disk_ms'] / 2, 'Less than two copies written one after another: the replicas commit at the same time as the "
                                               "primary, so an extra copy does not add its own commit'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
