OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q1_journal_share < 1, 'q1_journal_share is a fraction of the total, between 0 and 1 (not a percentage): add the two journal parts, "
                                               "divide by the total WAF'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
