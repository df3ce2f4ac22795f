OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q4_deferred, (bool, np.bool_)), 'Store a boolean (True/False): compare 16 KiB with bluestore_prefer_deferred_size_hdd'\n"
                                               ">>> assert 0 < q4_data_waf < float(waf.bluestore_waf(16384)), 'Data only: less than the total WAF, which adds the WAL and metadata'\n"
                                               ">>> assert q4_data_waf > 2, 'Count the data on every replica: the WAF counts the device bytes of all replicas per client byte, and each replica writes "
                                               "the data'\n"
                                               '>>> assert q4_data_waf < 4.5, "Your data counts the WAL\'s copy too: count the data where it lands (direct plus the deferred copy), not its copy in '
                                               'the WAL"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
