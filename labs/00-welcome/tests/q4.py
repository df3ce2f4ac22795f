OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert abs(q4_saved_ms - 10.7) < 1e-06, 'One by one, every copy adds a full round trip (net + osd + disk + net); in parallel only the slowest one "
                                               "counts'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
