"""cephlab.helpers.latency on the real cluster: write timings, fdatasync timings, OSD CPU from schedstat."""
import os

import pytest

from cephlab.helpers.latency import cpu_time, fsync_latencies_ms, schedstat, write_latencies_ms, write_parts

pytestmark = pytest.mark.cluster


def test_schedstat_of_this_process_grows_with_work():
    cpu0, _ = schedstat(os.getpid())
    sum(i * i for i in range(200_000))
    cpu1, _ = schedstat(os.getpid())
    assert cpu1 > cpu0


def test_fsync_latencies(tmp_path):
    lat = fsync_latencies_ms(tmp_path, count=5)
    assert len(lat) == 5 and all(ms > 0 for ms in lat)
    assert list(tmp_path.iterdir()) == []          # the scratch file is removed


def test_writes_cost_osd_cpu(lab_cluster):
    c = lab_cluster
    with c.resources() as r:
        pool = r.replicated_pool("t_lat", size=3, pg_num=8)
        with cpu_time(c) as t:
            lat = write_latencies_ms(c, pool, count=20)
        assert len(lat) == 20 and all(ms > 0 for ms in lat)
        # 20 writes x 3 copies: every OSD that holds a copy spent CPU on it
        assert set(t["cpu_ms"]) == {d for d in c.pids() if d.startswith("osd.")}
        assert sum(t["cpu_ms"].values()) > 0 and all(v >= 0 for v in t["wait_ms"].values())


def test_write_parts_count_each_copy_and_the_primary_waits_for_its_commit(lab_cluster):
    """20 writes (and the warm-up write) to a size-3 pool: 21 client ops on primaries, 42 sub-ops
    on replicas, at least 63 BlueStore commits (a copy each; the OSDs may commit more of their own),
    and a primary replies only after its own commit, so its mean op outlasts the mean commit."""
    c = lab_cluster
    with c.resources() as r:
        pool = r.replicated_pool("t_parts", size=3, pg_num=8)
        with write_parts(c) as parts:
            write_latencies_ms(c, pool, count=20)
    assert parts["op_w ms count"] == 21 and parts["subop_w ms count"] == 42, parts
    assert parts["commit ms count"] >= 63, parts
    assert parts["op_w ms"] > parts["commit ms"] > 0, parts
