OK_FORMAT = True

test = {   'all_or_nothing': True,
    'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(my_clients, (int, np.integer)) and 2 <= my_clients <= 16, 'Choose a whole number of clients from 2 to 16'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert int(q5_threads) == q5_threads > 0 and int(q5_client_connections) == q5_client_connections >= 0, 'Whole numbers: threads of one OSD, and TCP "
                                               "connections from clients to one OSD'\n"
                                               ">>> assert q5_threads < 2 * my_clients + async_messenger_threads(0), 'AsyncMessenger does not give each client connection its own pair of threads: "
                                               "reconsider the model you used'\n"
                                               ">>> assert q5_client_connections <= 2 * my_clients, 'Count the connections from clients to one OSD: not to the whole cluster, and not those to other "
                                               "daemons'\n"
                                               ">>> assert q5_client_connections > my_clients / 2, 'Each client writes an object to every OSD, so it connects to every OSD: its connections are not "
                                               "spread over the OSDs'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
