OK_FORMAT = True

test = {   'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [{'code': ">>> assert abs(q5_tb_per_day - 27.5) < 0.01, 'Device bytes = client bytes x WAF'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
