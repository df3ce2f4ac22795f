OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert P['q5_write_iops'] < q5_iops_70 < P['q5_read_iops'], 'A mix of reads and writes runs between the write IOPS and the read IOPS; each op "
                                               "costs 1/R or 1/W of the time'\n"
                                               ">>> assert abs(q5_iops_70 / (0.7 * P['q5_read_iops'] + 0.3 * P['q5_write_iops']) - 1) > 0.005, 'That is the linear mix, 70 % of the read IOPS plus 30 "
                                               "% of the write IOPS: each op takes its share of the time, so add up the time per op (1/R or 1/W), not the rates'\n"
                                               '>>> assert q5_closer_to in (\'writes\', \'reads\'), \'Answer with "writes" or "reads"\'\n'
                                               ">>> assert (q5_closer_to == 'writes') == (q5_iops_70 - P['q5_write_iops'] < P['q5_read_iops'] - q5_iops_70), 'Name the side your mixed IOPS is closer "
                                               "to'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
