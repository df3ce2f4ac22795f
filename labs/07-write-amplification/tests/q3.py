OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q3_jewel_4k > 3, 'The 4 KiB of data is padded to a whole allocation unit on each of 3 replicas, plus metadata: pass "
                                               "**waf.BLUESTORE_JEWEL_HDD'\n"
                                               ">>> assert q3_space > 1, 'Space used / object size, more than 1: the object is rounded up to whole allocation units'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
