OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q3_seconds_4 < q3_seconds_1, 'More backfill slots let more PGs recover at once: 4 slots must be faster than 1'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q3_seconds_1 > 0.75 * 4000000000000.0 / (99 * 50000000.0 * 4), 'No faster than 99 OSDs at 4 full PG streams each: check the units (bytes, "
                                               "B/s)'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q3_bottleneck in ('backfills', 'device', 'sleep'), 'Store one of the names rec.recovery_bottleneck returns'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
