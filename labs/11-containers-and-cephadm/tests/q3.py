OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> assert int(q3_hosts) == q3_hosts >= P[\'q3_size\'], "A whole number of hosts, at least the pool\'s size (one host per copy): how many must the '
                                               'cluster have when one is down?"\n'
                                               ">>> assert q3_hosts > P['q3_size'], 'With exactly one host per copy, the host that is down leaves its copy nowhere to be rebuilt: count the hosts "
                                               "while one of them is down'\n"
                                               ">>> assert int(q3_osd_hosts) == q3_osd_hosts and 2 <= q3_osd_hosts <= q3_hosts, 'With failure domain osd two copies may share a host, so no more hosts "
                                               "are needed than for domain host; and one host is never enough when it is the one down'\n"
                                               ">>> assert int(q3_hosts_lost) == q3_hosts_lost and 0 <= q3_hosts_lost < P['q3_size'] + P['q3_extra_hosts'], 'A whole number of hosts, fewer than the "
                                               "cluster has (0 if no host may fail with every copy rebuilt)'\n"
                                               ">>> assert P['q3_size'] + P['q3_extra_hosts'] - q3_hosts_lost + 1 >= q3_hosts, 'Not every one of those failures can be healed: before the last of them "
                                               "the cluster must still have q3_hosts hosts'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
