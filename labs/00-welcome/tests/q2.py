OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q2_ms, (int, float)), 'q2_ms should be a number of milliseconds'\n"
                                               '>>> assert 5.0 + 0.5 < q2_ms < 3 * (0.1 + 5.0 + 0.5 + 0.1), "More than one disk commit plus the OSD\'s work, less than three copies one after another: '
                                               'the replicas work in parallel with the primary"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
