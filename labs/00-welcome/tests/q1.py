OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert q1_stateful is not ..., 'an answer is still `...`: put your value in its place and run its cell'\n"
                                               '>>> assert isinstance(q1_stateful, set), \'q1_stateful should be a set of names, e.g. {"a", "b"}\'\n'
                                               ">>> assert q1_stateful <= {'nginx front end', 'MySQL database', 'CI repository data', 'stateless API worker', 'secret keys'}, 'Use exactly the names "
                                               "given in the question (same spelling), one entry per container'\n"
                                               ">>> assert 'nginx front end' not in q1_stateful and 'stateless API worker' not in q1_stateful, 'A container that writes nothing it needs later can be "
                                               "killed and replaced: it is stateless'\n"
                                               ">>> assert len(q1_stateful) >= 2, 'Name every container that keeps state, not just one: the Background lists several kinds of data that must outlive "
                                               "their container'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
