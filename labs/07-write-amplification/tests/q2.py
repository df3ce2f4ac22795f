OK_FORMAT = True

test = {   'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q2_4k - 10.0) < 0.01, 'Use waf.bluestore_waf(4096): a deferred 4 KiB write lands in the WAL and again in place'\n"
                                               ">>> assert abs(q2_64k - 3.25) < 0.01, 'At 64 KiB (= prefer_deferred_size) the write is no longer deferred: data once, plus metadata'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
