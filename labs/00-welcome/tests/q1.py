OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> assert isinstance(q1_stateful, set), \'q1_stateful should be a set of names, e.g. {"a", "b"}\'\n'
                                               ">>> assert 'nginx front end' not in q1_stateful and 'stateless API worker' not in q1_stateful, 'A container that writes nothing it needs later can be "
                                               "killed and replaced: it is stateless'\n"
                                               ">>> assert q1_stateful == {'MySQL database', 'CI repository data', 'secret keys'}, 'Seed 000 lists databases, logs, CI config and repo data, and "
                                               "secret keys as state that must survive the container'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
