OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert q3_hosts == 4, 'Three copies on three different hosts need three hosts that are up: how many must the cluster have when one is down?'\n"
                                               ">>> assert q3_vagrant_heals is False or q3_vagrant_heals == False, 'With 3 hosts and one down, where would CRUSH put the third copy?'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
