OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert all((float(x).is_integer() and 1 <= x <= 20 for x in (q3_nines_rep3, q3_nines_ec))), 'Nines are whole numbers between 1 and 20 here: use "
                                               "red.durability_nines with AFR as a fraction (0.05 for 5 %)'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> assert q3_more_durable in (\'replicated size 3\', f"EC {P[\'q3_k\']}+{P[\'q3_m\']}"), \'Store one of the two labels exactly\'\n'
                                               ">>> assert q3_nines_rep3 == q3_nines_ec or (q3_more_durable == 'replicated size 3') == (q3_nines_rep3 > q3_nines_ec), 'Your label should name the "
                                               "scheme with more nines (on a tie, the one with the lower annual loss probability)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
