OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert P['q1_vms'] * P['q1_disk_gib'] / P['q1_thin'] < q1_usable_gib < P['q1_vms'] * P['q1_disk_gib'], 'In GiB: more than the thin-provisioned "
                                               "data (the 0.7 fill leaves headroom), less than every VM disk full'\n"
                                               ">>> assert q1_usable_gib > 1.2 * P['q1_vms'] * P['q1_disk_gib'] / P['q1_thin'], 'Your capacity holds little more than the thin-provisioned data: with "
                                               "the 0.7 fill the data may take only 70 % of what you buy, so divide by 0.7'\n"
                                               ">>> assert q1_usable_gib < q1_raw_gib < 10 * q1_usable_gib, 'Raw space is usable space times the replica count'\n"
                                               '>>> assert P[\'q1_size\'] == 3 or abs(q1_raw_gib - 3 * q1_usable_gib) > 1e-06 * q1_raw_gib, "Your raw space holds 3 copies of the usable space, but '
                                               'this pool\'s size is not 3: it keeps as many copies as its size"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
