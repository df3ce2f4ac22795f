OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q3_seconds_4 <= q3_seconds_1, 'More backfill slots never slow a backfill down: 4 slots take no longer than 1'\n"
                                               '>>> assert q3_seconds_4 > q3_seconds_1 / 3, "Four backfill slots do not make the backfill four times faster: each source OSD\'s recovery sleep caps '
                                               'how fast it sends, however many PGs it backfills at once"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q3_seconds_1 > P['q3_fill'] * P['q3_disk_tb'] * 1000000000000.0 / ((P['q3_osds'] - 1) * P['q3_stream_mbs'] * 1000000.0 * 4), 'No faster "
                                               "than every survivor at 4 full PG streams each: check the units (bytes, B/s; 1 TB = 1e12 bytes)'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q3_bottleneck in ('bandwidth', 'sleep'), 'Store one of the names rec.reservation_bottleneck returns'\n"
                                               ">>> assert P['q3_disk_tb'] * 10000000000.0 < q3_bytes < 0.99 * P['q3_disk_tb'] * 1000000000000.0, 'In bytes, and not the whole disk: only the data the "
                                               "OSD held is backfilled, its fill times its size'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
