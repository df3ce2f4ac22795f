OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(my_objects, (int, np.integer)) and 128 <= my_objects <= 256, 'Choose a whole number of objects from 128 to 256'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert my_objects / 4 < q5_mib <= my_objects, 'Each of your objects has 3 copies spread over 4 OSDs: one OSD holds more than a quarter of them, "
                                               "less than all'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert q5_mib / 30 <= q5_seconds < 3600, 'In seconds, and no faster than the disks (q5_mib at 30 MiB/s). Mind how many PGs may recover at once "
                                               "with the defaults, and the sleep'\n"
                                               ">>> assert q5_seconds > q5_mib / 20, 'Too fast for one PG at a time: several PGs copying in parallel is what the reservations prevent here'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
