OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [{'code': '>>> assert 2 < q5_tb_per_day < 2 * 100, "TB per day, more than the clients\' 2 TB: device bytes = client bytes x WAF"\n', 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
