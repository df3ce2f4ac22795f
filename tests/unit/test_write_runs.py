"""cephlab.helpers.waf.measure_writes on a fake cluster: it starts only once the OSDs are idle, and
a run in which RocksDB wrote SST files (a flush or compaction, not the write path) is run again."""
import contextlib
from types import SimpleNamespace

import pytest

from cephlab.core import releases
from cephlab.helpers import waf

MIB = waf.MIB


class FakeCluster:
    local_daemons = True

    def __init__(self, background_mib_s, sst_per_run):
        self.background = list(background_mib_s)    # MiB/s the OSDs write, one per idle sample
        self.sst = list(sst_per_run)                # SST bytes RocksDB writes in each fio run
        self.totals = {"rocksdb_sst": 0, "rocksdb_wal": 0}
        self.runs = 0

    @contextlib.contextmanager
    def measure_device_writes(self):
        w = {"delta": {}, "total": 0}
        yield w
        rate = self.background.pop(0) if self.background else 0.0
        w["delta"] = {0: rate * MIB * 0.5, 1: 0}              # over the 0.5 s sampling window

    def release(self):
        return releases.WRITTEN_FOR

    def perf_dump(self, osd):
        return {"bluefs": {"bytes_written_sst": self.totals["rocksdb_sst"] if osd == 0 else 0,
                           "bytes_written_wal": self.totals["rocksdb_wal"] if osd == 0 else 0}}

    def fio_rbd(self, *a, **kw):
        self.runs += 1
        self.totals["rocksdb_sst"] += self.sst.pop(0)
        self.totals["rocksdb_wal"] += MIB
        return SimpleNamespace(raw={"jobs": [{"write": {"io_bytes": 4 * MIB}}]})


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch, clock):
    monkeypatch.setattr(waf.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
    monkeypatch.setattr(waf.time, "monotonic", lambda: clock[0])


def test_waits_while_the_osds_still_write(clock):
    c = FakeCluster(background_mib_s=[20, 5, 0.2], sst_per_run=[])
    assert waf.wait_until_quiet(c, [0, 1]) == pytest.approx(1.5)     # three 0.5 s samples


def test_gives_up_quietly_after_the_timeout(clock, capsys):
    c = FakeCluster(background_mib_s=[20] * 100, sst_per_run=[])
    waf.wait_until_quiet(c, [0, 1], timeout=2)
    assert "still 20.0 MiB/s" in capsys.readouterr().err         # a warning: the run goes on


def test_a_run_with_a_rocksdb_flush_is_run_again(capsys):
    c = FakeCluster(background_mib_s=[], sst_per_run=[64 * MIB, 0])
    run = waf.measure_writes(c, "p", "img", 4096, osds=[0, 1], settle=0)
    assert (c.runs, run.repeats, run.counters["rocksdb_sst"]) == (2, 1, 0)
    assert "running it again" in capsys.readouterr().out


def test_a_clean_run_is_kept_and_attempts_are_bounded():
    assert waf.measure_writes(FakeCluster([], [0]), "p", "img", 4096, osds=[0, 1], settle=0).repeats == 0
    c = FakeCluster([], [MIB, MIB, MIB])
    run = waf.measure_writes(c, "p", "img", 4096, osds=[0, 1], settle=0, attempts=2)
    assert (c.runs, run.repeats, run.counters["rocksdb_sst"]) == (2, 1, MIB)
