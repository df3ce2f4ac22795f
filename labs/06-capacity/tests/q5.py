OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(my_objects, (int, np.integer)) and (not isinstance(my_objects, bool)) and (48 <= my_objects <= 160), 'Choose a whole number of "
                                               "objects from 48 to 160'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> assert 0 < q5_avail_drop_mib < 100 * my_objects, "In MiB, a drop (before minus after): think about what MAX AVAIL counts, the client\'s data or '
                                               'the raw space its copies take"\n'
                                               '>>> assert q5_avail_drop_mib < 2 * 4 * my_objects, "Your drop counts every copy\'s raw space: MAX AVAIL is already divided by the pool\'s size, it is '
                                               'what clients can still store"\n'
                                               ">>> assert q5_avail_drop_mib > 2 * my_objects, 'Your osd_used grew by one copy of each object only: each OSD stores its share of every copy (copies x "
                                               "objects x 4 MiB), and MAX AVAIL divides by the copies after that'\n"
                                               '>>> assert q5_avail_before > q5_avail_after > 0 and abs((q5_avail_before - q5_avail_after) / 2 ** 20 - q5_avail_drop_mib) <= 1e-06 * '
                                               "abs(q5_avail_drop_mib), 'q5_avail_before and q5_avail_after are MAX AVAIL in bytes, before and after: q5_avail_drop_mib is their difference in MiB'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
