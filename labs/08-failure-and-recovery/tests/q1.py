OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_not_serving, (int, np.integer)) and 0 <= q1_not_serving <= 97, 'Count PGs: a whole number between 0 and the PGs in the status "
                                               "line'\n"
                                               ">>> assert q1_not_serving > 20, 'Peering PGs serve no I/O, and they are not the only ones: read the flag table'\n"
                                               '>>> assert q1_not_serving > 26, "A stale PG cannot be counted on either: its primary stopped reporting, so the active in its state is the monitors\' '
                                               'old picture"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert 0 < q1_degraded_fraction < 1, 'A fraction between 0 and 1 (degraded copies / all copies), not a percentage'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
