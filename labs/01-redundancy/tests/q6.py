OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q6',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> assert isinstance(my_object_bytes, (int, np.integer)) and (not isinstance(my_object_bytes, bool)) and (512 <= my_object_bytes <= 65536) and '
                                               "(my_object_bytes % 4096 != 0), 'Choose a whole number of bytes from 512 to 65536, not a multiple of 4 KiB (such a size needs no padding, so it shows "
                                               "nothing)'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> assert not (3 * 4 <= q6_rep3_kib < 16 * my_object_bytes * 3 / 1024 or 3 * 4 <= q6_ec21_kib < 16 * my_object_bytes * 1.5 / 1024), "For all the '
                                               'objects, not one: each pool\'s raw KiB add up the 16 objects the measurement writes"\n'
                                               ">>> assert q6_ec21_kib >= 16 * my_object_bytes * 1.5 / 1024 and q6_rep3_kib >= 16 * my_object_bytes * 3 / 1024, 'Padding and allocation never make an "
                                               "object take less than its size times raw/usable'\n"
                                               ">>> assert min(q6_rep3_kib, q6_ec21_kib) >= 16 * 3 * 4, 'Padding: every copy, and every EC chunk, takes at least one whole 4 KiB allocation unit, "
                                               "however small the object'\n"
                                               ">>> assert q6_ec21_kib % 4 == 0 and q6_rep3_kib % 4 == 0, 'BlueStore allocates whole 4 KiB units: raw KiB is a multiple of 4'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
