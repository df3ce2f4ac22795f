OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q6',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> assert int(my_write_kib) == my_write_kib and my_write_kib % 4 == 0 and (4 <= my_write_kib <= 1024), "Choose a whole number of KiB, a multiple of 4 '
                                               '(BlueStore\'s 4 KiB blocks), from 4 to 1024"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> assert 3 < q6_waf < 9, "Device bytes per client byte: more than the 3 replicas\' copies of the data, less than two copies plus a 4 KiB write\'s '
                                               'metadata; pass the size to the model in bytes, not KiB"\n'
                                               '>>> assert (q6_waf > 6) == (my_write_kib * 1024 < 65536), "A write below bluestore_prefer_deferred_size_hdd (64 KiB) is deferred, so its data reaches '
                                               'each replica\'s device twice; from 64 KiB on it goes there once"\n'
                                               ">>> assert abs(q6_waf - float(waf.bluestore_waf(my_write_kib * 1024))) > 1e-06 * q6_waf, 'That is the WAF of the 30 s calibration run, with SST files "
                                               "and the BlueFS log: a 2-second run has neither (sst_bytes=0, bluefs_log_bytes=0)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
