OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert int(q2_clients) == q2_clients and 0 < q2_clients < 32768 / (P['q2_host_osds'] * 2), 'Whole clients (round down); each OSD runs 2 threads "
                                               "per client and more for its peers: fewer than pid_max / (OSDs x 2)'\n"
                                               ">>> assert q2_clients < 0.9 * 32768 / (P['q2_host_osds'] * 2), 'Your clients take every thread ID at 2 threads each: each OSD also runs threads for "
                                               "its PG peers and the monitor, whatever its clients'\n"
                                               '>>> assert P[\'q2_host_osds\'] * simple_messenger_threads(q2_clients, P[\'q2_pgs\']) <= 32768, "With your clients the host\'s threads add up to more '
                                               'than pid_max: the count must fit under it (round down)"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert int(q2_osds) == q2_osds and 0 < q2_osds < 32768 / (2 * P['q2_osd_clients']), 'Whole OSDs (round down); one OSD runs 2 threads per client, "
                                               "its PG peers add more'\n"
                                               '>>> assert q2_osds < 0.9 * 32768 / (2 * P[\'q2_osd_clients\']), "Your OSDs count only their clients\' threads: each OSD also runs threads for its PG '
                                               'peers and the monitor"\n'
                                               '>>> assert q2_osds * simple_messenger_threads(P[\'q2_osd_clients\'], P[\'q2_pgs\']) <= 32768, "Your OSDs\' threads add up to more than pid_max: the '
                                               'count must fit under it (round down)"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
