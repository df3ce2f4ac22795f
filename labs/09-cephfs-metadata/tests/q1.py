OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert q1_operation in (\'File Creation\', \'File Removal\', \'File Rename\'), "Name one of the table\'s three file operations exactly as it '
                                               'spells it"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q1_factor > 1, 'The factor is separate ops/s divided by shared ops/s: more than 1 when sharing a directory hurts'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
