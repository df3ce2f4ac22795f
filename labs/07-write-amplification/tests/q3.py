OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q3_jewel_4k > 3, 'The 4 KiB of data is padded to a whole allocation unit on each of 3 replicas, plus metadata: pass "
                                               "**waf.BLUESTORE_JEWEL_HDD'\n"
                                               ">>> assert q3_jewel_4k > 3 * 65536 / 4096, 'That is a write without zero fill: with the Jewel settings each of 3 replicas writes a whole zero-filled "
                                               "64 KiB unit for the 4 KiB of data'\n"
                                               ">>> assert 3 < q3_jewel_overwrite < q3_jewel_4k, 'An overwrite fills no hole: its 4 KiB goes into the WAL and later in place on each of 3 replicas, "
                                               "plus metadata, less than a whole zero-filled unit: pass overwrite=True as well'\n"
                                               ">>> assert q3_space > 1, 'Space used / object size, more than 1: the object is rounded up to whole allocation units'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
