"""cephlab.helpers.capacity (labs 04 and 06) on a fake cluster and a fake /proc/meminfo."""
import pytest

from cephlab.core import proc
from cephlab.helpers import capacity

GIB = 2**30


def osd(i, kb_avail, data_kb, weight=0.0078, status="up"):
    return {"id": i, "kb": 8 * 2**20, "kb_avail": kb_avail, "kb_used_data": data_kb,
            "crush_weight": weight, "status": status}


ROWS = [osd(0, 8 * 2**20 - 1024, 512), osd(1, 8 * 2**20 - 2048, 1536),
        osd(2, 8 * 2**20, 0, weight=0.0), osd(3, 8 * 2**20, 0, status="down")]


class FakeCluster:
    def __init__(self, usages):
        self.usages = list(usages)
        self.reads = 0

    def osd_df(self):
        self.reads += 1
        return self.usages.pop(0) if len(self.usages) > 1 else self.usages[0]

    def df(self):
        return {"rbd": {"max_avail": 5 * GIB}}


def test_osd_usage_in_bytes_for_up_weighted_osds():
    usage = capacity.osd_usage(FakeCluster([ROWS]))
    assert usage.index.tolist() == [0, 1]                 # osd.2 has no weight, osd.3 is down
    assert usage.loc[0].tolist() == [8 * GIB, 1024 * 1024, 512 * 1024, 0.0078]
    assert usage.loc[1, "used"] == 2 * 2**20 and usage.dtypes.unique().tolist() == [float]


def test_steady_max_avail_retries_until_the_usage_holds(monkeypatch):
    monkeypatch.setattr(capacity.time, "sleep", lambda s: None)
    moved = [dict(r, kb_avail=r["kb_avail"] - 12 * 1024) for r in ROWS]   # BlueFS took 12 MiB
    fake = FakeCluster([ROWS, moved, moved, moved])
    avail, usage = capacity.steady_max_avail(fake, "rbd")
    assert avail == 5 * GIB and fake.reads == 4            # changed around the 1st read, held on the 2nd
    assert usage.loc[0, "used"] == (1024 + 12 * 1024) * 1024


def test_steady_max_avail_gives_up_after_tries(monkeypatch):
    monkeypatch.setattr(capacity.time, "sleep", lambda s: None)
    rows = [[dict(r, kb_avail=r["kb_avail"] - n) for r in ROWS] for n in range(10)]
    fake = FakeCluster(rows)
    avail, usage = capacity.steady_max_avail(fake, "rbd", tries=2)
    assert fake.reads == 4 and avail == 5 * GIB


def test_dirty_limit_is_the_ratio_of_memavailable(monkeypatch):
    monkeypatch.setattr(proc, "_read", lambda *p: "MemTotal:  16384000 kB\nMemAvailable:   8192000 kB\n")
    assert capacity.dirty_limit_mib() == pytest.approx(0.20 * 8000)
    assert capacity.dirty_limit_mib(0.1) == pytest.approx(800)



def test_wait_for_data_until_the_osds_report_it(clock):
    start = capacity.osd_usage_frame(ROWS)
    grown = [dict(r, kb_used_data=r["kb_used_data"] + 4096) for r in ROWS]     # 4 MiB more each
    fake = FakeCluster([ROWS, ROWS, grown])
    usage = capacity.wait_for_data(fake, start, added=8 * 2**20)
    assert (usage["data"] - start["data"]).sum() == 8 * 2**20 and clock[0] == pytest.approx(2.0)
    # never enough: the last read after the timeout, no exception
    usage = capacity.wait_for_data(FakeCluster([ROWS]), start, added=2**30, timeout=5)
    assert usage.equals(start)


class Health:
    def __init__(self, reads):
        self.reads = list(reads)

    def health_detail(self):
        names = self.reads.pop(0) if len(self.reads) > 1 else self.reads[0]
        if not names:
            return {"checks": {}}
        return {"checks": {"OSD_NEARFULL": {"detail": [{"message": f"{n} is near full"} for n in names]},
                           "POOL_NEARFULL": {}}}


def test_wait_for_nearfull_collects_the_osds_one_by_one(clock):
    checks, osds = capacity.wait_for_nearfull(Health([[], ["osd.1"], ["osd.1", "osd.0"]]), 2)
    assert osds == ["osd.1", "osd.0"] and set(checks) == {"OSD_NEARFULL", "POOL_NEARFULL"}
    assert clock[0] == pytest.approx(2.0)
    checks, osds = capacity.wait_for_nearfull(Health([["osd.3"]]), 4, timeout=3)
    assert osds == ["osd.3"]
    assert capacity.nearfull_osds(Health([[]])) == ({}, [])
