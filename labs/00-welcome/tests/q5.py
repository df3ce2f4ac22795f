OK_FORMAT = True

test = {   'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q5_one_left == False, 'With fewer live copies than min_size Ceph blocks the write: consistency over availability'\n"
                                               ">>> assert q5_two_left == True, 'Two copies up meets min_size 2, so the PG keeps serving I/O'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
