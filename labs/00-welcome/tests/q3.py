OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> assert q3_ms > iops.disk_class(P[\'q3_slow\'])[\'latency_ms\'], "The primary acknowledges only after the slowest copy is written: the slow disk\'s '
                                               'commit is part of the latency"\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> _ssd_ms = iops.disk_class('SATA SSD')['latency_ms']\n"
                                               ">>> assert 1 < q3_slowdown < q3_ms / (_ssd_ms + P['q3_osd_ms']), 'A ratio without units, more than 1: your latency over the same write with every disk "
                                               "an SSD (which costs more than one SSD commit plus OSD work)'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
