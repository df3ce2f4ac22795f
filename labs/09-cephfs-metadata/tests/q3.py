OK_FORMAT = True

test = {   'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q3_four_private - 2000) < 0.5, '4 clients are below the knee: each completes one creation per round trip'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert abs(q3_seventy_shared - 1077.8) < 0.5, '70 clients saturate the MDS; 4 requests per creation divide its capacity by 4'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
