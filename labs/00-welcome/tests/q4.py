OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q4_saved_ms < P['q4_size'] * (2 * P['q2_net_ms'] + P['q2_disk_ms'] + P['q2_osd_ms']), 'One by one, every copy adds a full round trip "
                                               "(net + osd + disk + net); in parallel only the slowest one counts, so more than a disk commit is saved'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
