OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert int(q3_hosts) == q3_hosts >= 3, 'A whole number of hosts, at least the 3 a size-3 pool with failure domain host needs: how many must the "
                                               "cluster have when one is down?'\n"
                                               ">>> assert isinstance(q3_vagrant_heals, (bool, np.bool_)), 'Store a boolean (True/False)'\n"
                                               ">>> assert not (q3_vagrant_heals and q3_hosts > 3), 'If the 3-host cluster heals, the smallest number of hosts that heals cannot be more than 3'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
