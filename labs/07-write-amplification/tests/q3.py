OK_FORMAT = True

test = {   'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q3_jewel_4k - 52.0) < 0.01, 'The 4 KiB of data is padded to a whole 64 KiB unit on each of 3 replicas, plus metadata'\n"
                                               ">>> assert abs(q3_space - 64) < 1e-09, 'Space used is the object rounded up to whole allocation units'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
