OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q1_journal_share < 1, 'q1_journal_share is a fraction of the total, between 0 and 1 (not a percentage): add the two journal parts, "
                                               "divide by the total WAF'\n"
                                               ">>> _parts = waf.longterm_breakdown('filestore')\n"
                                               ">>> assert q1_journal_share > 0.5, 'Your share holds one journal only: the Ceph journal and the file system journal both count' if "
                                               'min((abs(q1_journal_share - _parts[k] / _parts[\'total\']) for k in (\'ceph_journal\', \'fs_journal\'))) < 0.01 else "Too small: add both journals, '
                                               'then divide by the \'total\' entry alone. A sum over every entry of the dict counts the total twice"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
