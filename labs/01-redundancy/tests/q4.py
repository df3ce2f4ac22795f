OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert P['q4_objects'] * P['q4_object_mib'] < q4_ec21_used_mib < 3 * P['q4_objects'] * P['q4_object_mib'], 'Raw used is more than the MiB stored "
                                               "(there is a parity chunk) but less than 3 full copies'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
