OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q3_private > P['q3_private_clients'], 'Operations per second (not per ms): where are your private-directory clients relative to the knee of "
                                               "Q2?'\n"
                                               '>>> assert 1e-05 < q3_s < 0.01, "q3_s is the MDS\'s time per operation in seconds, not in ms"\n'
                                               ">>> assert q3_private <= 1.000001 / q3_s, 'More than the MDS can serve: one MDS serves at most 1 / S requests a second, however many clients ask'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert 0 < q3_shared < P['q3_shared_clients'] / (P['q2_rtt_ms'] / 1000), 'Operations per second: saturated clients complete less than one "
                                               "operation per round trip each, and each operation costs several MDS requests'\n"
                                               ">>> assert q3_shared < 0.75 / q3_s, 'One operation in the shared folder is several MDS requests, one after the other: the MDS serves at most 1 / S "
                                               "requests a second, so fewer operations'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
