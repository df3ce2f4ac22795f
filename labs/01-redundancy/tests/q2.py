OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q2_usable_tb, (int, float)), 'q2_usable_tb should be a number of TB'\n"
                                               ">>> assert P['q2_raw_tb'] / 3 < q2_usable_tb < P['q2_raw_tb'] * P['q2_fill'], 'EC stores less than the raw TB but more than 3-way replication would; "
                                               "and mind the planned fill'\n"
                                               ">>> assert q2_usable_tb < 0.9 * P['q2_raw_tb'] * P['q2_k'] / (P['q2_k'] + P['q2_m']), 'Your TB fill the EC pool to the brim: keep only the planned "
                                               "fill of its usable capacity, to leave room before nearfull'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
