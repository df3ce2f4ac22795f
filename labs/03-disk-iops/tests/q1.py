OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q1_data_disk_bound - 1800) < 1, 'The data disks are 9 SAS disks of 600 IOPS and each write lands on 3 of them'\n"
                                               ">>> assert abs(q1_fraction_of_plan - 0.1515) < 0.001, 'Divide what was measured by what was planned'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
