OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_data_dir, str) and isinstance(q1_container, str), 'q1_data_dir and q1_container should be strings'\n"
                                               ">>> assert q1_data_dir.startswith('/var/lib/ceph/'), 'cephadm keeps daemon state under /var/lib/ceph on the host, not inside the container'\n"
                                               '>>> assert not q1_data_dir.startswith(\'/var/lib/ceph/osd/\'), "/var/lib/ceph/osd/ceph-<id> is where the OSD\'s folder appears inside the container: '
                                               'on the host, cephadm keeps it in a folder named after the cluster\'s fsid"\n'
                                               '>>> assert q1_container.startswith(\'ceph-\') and \'.\' not in q1_container and (\'@\' not in q1_container), "That is not the container\'s name (the '
                                               'systemd unit\'s has an @ and a dot): take it from ct.cephadm_layout"\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
