OK_FORMAT = True

test = {   'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert q3_big_pool == 2602, "In a 1,000-OSD pool 200 PGs can bring 400 distinct peers: the seed\'s 6 x PGs term holds"\n'
                                               ">>> assert q3_small_pool == 376, 'In a 30-OSD pool an OSD has at most 29 peers, whatever its PG count'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
