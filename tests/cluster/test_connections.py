"""cephlab.helpers.connections on the real cluster: each librados client adds exactly one TCP connection
to every OSD it writes to, and AsyncMessenger OSDs keep their thread count."""
import os

import pytest

from cephlab.helpers.connections import (
    ClientCrowd,
    _endpoint,
    connection_counts,
    primary_object_names,
    process_threads,
    tcp_table,
)

pytestmark = pytest.mark.cluster


def test_endpoint_parsing():
    # /proc/net/tcp prints 127.0.0.1:18500 as 0100007F:4844 (address in host byte order).
    assert _endpoint("0100007F:4844") == ("0100007F", 18500)


def test_tcp_table_parses_this_machine(tmp_path):
    (tmp_path / "tcp").write_text(
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
        "   0: 0100007F:4844 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000     0        0 4242 1\n")
    assert tcp_table(tmp_path) == {4242: (("0100007F", 18500), ("0100007F", 41394), "01")}


def test_clients_add_one_connection_each(lab_cluster):
    c = lab_cluster
    with c.resources() as r, ClientCrowd(c) as crowd:
        pool = r.replicated_pool("t_conn", size=3, pg_num=16)
        names = primary_object_names(c, pool)
        assert all(c.client.mon("osd map", pool=pool, object=n)["acting_primary"] == osd
                   for osd, n in names.items())
        # Only this process's connections: a ceph CLI or another test's client closing in the
        # meantime once made the all-clients count move by 4.
        base = connection_counts(c, client_pid=os.getpid())
        threads0 = c.thread_counts()
        own0 = process_threads()
        crowd.grow(5)
        assert crowd.touch(pool, names.values()) == 5 * len(names)
        after = connection_counts(c, client_pid=os.getpid())
        for osd_id in names:
            d = f"osd.{osd_id}"
            assert after[d]["from_pid"] - base[d]["from_pid"] == 5
            assert after[d]["daemons"] == base[d]["daemons"]
        # AsyncMessenger: the OSDs' threads do not follow the clients; the clients' threads do.
        assert {d: n for d, n in c.thread_counts().items() if d.startswith("osd")} == \
               {d: n for d, n in threads0.items() if d.startswith("osd")}
        assert process_threads() - own0 >= 5 * 3
    assert len(crowd) == 0


def test_max_threads_during_sees_a_short_lived_thread(lab_cluster):
    import time

    from cephlab.helpers.connections import max_threads_during
    result, peak = max_threads_during(lab_cluster, lambda: time.sleep(0.2) or 42)
    assert result == 42 and set(peak) >= {"mon.a", "osd.0"}
    with pytest.raises(ZeroDivisionError):
        max_threads_during(lab_cluster, lambda: 1 / 0)
