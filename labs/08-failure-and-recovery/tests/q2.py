OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert 128 / 4 < q2_mib <= 128, 'Each object has 3 copies spread over 4 OSDs: one OSD holds more than a quarter of 128 MiB, less than all of it'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q2_seconds >= q2_mib / 30, 'Recovery cannot beat the disks: q2_mib at 30 MiB/s is a lower bound. The reservations "
                                               "(rec.concurrent_recoveries: a backfill reserves the OSD it fills) and the 0.1 s sleep only add time'\n"
                                               ">>> assert isinstance(q2_copying, (int, np.integer)) and 1 <= q2_copying <= 3, 'A whole number of PGs, at most one per surviving OSD'\n"
                                               ">>> assert q2_copying < 3, 'Every survivor copying at once ignores the reservations: count how many PGs may recover at the same time'\n"
                                               '>>> assert q2_seconds > q2_mib / 20, "Too fast for the reservations: several PGs copying at once at the sleep\'s pace is what they prevent here"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
