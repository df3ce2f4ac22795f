OK_FORMAT = True

test = {   'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q5_hdd == 99, 'Each transaction costs ios x cost_per_io + bytes; divide the 64 MiB budget by that and round down'\n"
                                               ">>> assert q5_ssd == 8289, 'On SSD an I/O is charged only 4,000 bytes, so far more transactions fit'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
