OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q4_unavailable, float) and 0 < q4_unavailable and (q4_unavailable * 100 <= 100), 'A fraction of the PGs, at most 100 % (not a "
                                               "percentage, not a count): how many shards of any PG keep running on other hosts?'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
