OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert 0 < q5_lost < 1, "A share of the PGs, between 0 and 1, not a count of PGs: host_failure(\'by_osd\') gives shares"\n'
                                               '>>> assert q5_lost < 0.05, "Use host_failure(\'by_osd\'): it counts the PGs whose 3 copies all sit on h0\'s OSDs"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {'code': ">>> assert q5_safe_rule in ('by_host', 'by_osd'), 'Store the name of one of the two rules of the map above'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
