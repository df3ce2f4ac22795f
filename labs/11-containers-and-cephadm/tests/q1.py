OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(q1_data_dir, str), 'q1_data_dir should be a path as a string'\n"
                                               ">>> assert q1_data_dir.startswith('/var/lib/ceph/'), 'cephadm keeps daemon state under /var/lib/ceph on the host, not inside the container'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
