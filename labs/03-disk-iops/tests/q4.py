OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q4_iops - 200000) < 1, 'The cluster gets the lower of the disk bound and the CPU bound (cores x IOPS per core)'\n"
                                               ">>> assert q4_limit == 'cpu', 'Compare 175,000 x 10 / 3 with 20 cores x 10^4'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
