OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert isinstance(q4_means, dict) and set(q4_means) == {\'none\', \'backoff\'}, \'q4_means is a dict from each setting\\\'s name, "none" and '
                                               '"backoff", to its mean IOPS\'\n'
                                               '>>> assert q4_best in (\'none\', \'backoff\'), \'q4_best is the throttle\\\'s name: "none" or "backoff"\'\n'
                                               ">>> assert q4_means[q4_best] == max(q4_means.values()), 'Your q4_best is not the setting with the larger mean in your q4_means: the whole two minutes "
                                               "count, not only the fast first seconds'\n"
                                               ">>> assert 0 < q4_backoff_iops < 14264, 'Client IOPS averaged over the whole two minutes (0 to 120 s), as for q4_means'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
