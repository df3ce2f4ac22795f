OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q4_deferred == True, '16 KiB is below bluestore_prefer_deferred_size_hdd (64 KiB)'\n"
                                               ">>> assert abs(q4_data_waf - 3.0) < 1e-09, 'The data itself is written once per replica, whether in place now or later'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
