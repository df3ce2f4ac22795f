OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert 0 < q3_usable_gib < 0.95 * 4 * P['q3_osd_gib'] / 3, 'Client GiB: less than an even spread would hold (the fullest OSD fills first), and 3 "
                                               "copies each'\n"
                                               ">>> assert q3_usable_gib < 0.97 * 0.95 * 4 * P['q3_osd_gib'] / 3, 'Your GiB fit an even spread: with these PG counts the fullest OSD reaches the full "
                                               "ratio first, while the others still have room'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {'code': ">>> assert 0 < q3_stranded < 1, 'A fraction of the fillable space (not a percentage): compare with an even spread'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
