OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q4_unavailable, float) and 0 < q4_unavailable < 1, 'A fraction of the PGs (not a percentage, not a count), above 0 and below the "
                                               "one-host case: a PG is gone only if all its shards were on the stopped host'\n"
                                               ">>> _share = q4_unavailable >= 0.75 / P['q4_hosts']\n"
                                               ">>> _blocked = P['q4_size'] >= 3 and abs(q4_unavailable - fd.blocked_fraction(P['q4_hosts'], P['q4_per_host'], P['q4_size'], 2, 'osd')) <= 1e-09\n"
                                               '>>> assert not _share and (not _blocked), \' \'.join((hint for hint, wrong in (("Not the stopped host\'s share of the PGs: a PG is gone only if every '
                                               'one of its shards sat on that host, which few PGs do.", _share), (\'That is the share that stops serving I/O (fewer than min_size shards left): the '
                                               "question asks for the PGs with no shard left at all.', _blocked)) if wrong))\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
