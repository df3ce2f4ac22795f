OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q1_journal_share < 1, 'q1_journal_share is a fraction of the total, between 0 and 1'\n"
                                               ">>> assert abs(q1_journal_share - 0.7003) < 0.001, 'Add ceph_journal and fs_journal and divide by the total WAF of 13.75'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
