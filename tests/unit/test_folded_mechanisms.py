"""The helpers folded into the one runner, poller and checksum module (one mechanism each), with
fakes for the cluster and core.poll's clock: install hints from one table, the rados-CLI path of
checksums (bytes through core.run), wait_for_option, fail_and_recover, Cluster.restore_config."""
import pytest

from cephlab.cluster import checksums
from cephlab.cluster.tuning import Tuning
from cephlab.core import poll, run, teardown
from cephlab.helpers import recovery, throttles


@pytest.fixture
def clock(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(poll, "CLOCK", lambda: now[0])
    monkeypatch.setattr(poll, "SLEEP", lambda s: now.__setitem__(0, now[0] + s))
    return now


# -- install hints: one table in core.run ---------------------------------------------------------
def test_install_hint_by_name_or_path():
    assert run.install_hint("fio") == "sudo apt-get install fio"
    assert run.install_hint("/usr/lib/postgresql/16/bin/pg_ctl") == \
        "sudo apt-get install postgresql postgresql-contrib"
    assert run.install_hint("no-such-tool") == ""


def test_a_missing_program_gets_its_package_without_a_hint(monkeypatch):
    monkeypatch.setitem(run.PACKAGES, "no-such-tool-x", "pkg-x")
    with pytest.raises(run.ProgramMissing, match=r"^no-such-tool-x is not installed: sudo apt-get install pkg-x$"):
        run.run(["no-such-tool-x", "-v"])
    with pytest.raises(run.ProgramMissing, match=r"^no-such-tool-x is not installed: do this$"):
        run.run(["no-such-tool-x"], hint="do this")
    with pytest.raises(run.ProgramMissing, match=r"^no-such-tool-x is not installed: sudo apt-get install pkg-x$"):
        run.spawn(["no-such-tool-x"])


def test_teardown_names_the_package_from_the_same_table():
    e = FileNotFoundError(2, "No such file or directory", "losetup")
    assert teardown.reason(e) == "losetup not found: apt-get install mount"
    assert teardown.PACKAGES is run.PACKAGES


# -- checksums through the rados CLI (no binding): bytes in and out of core.run ---------------------
class Conf:
    conf = "/x/ceph.conf"

    class backend:                  # daemons elsewhere: no host disk here to check
        local_daemons = False

    def ceph(self, *args):          # `osd dump`: nothing full, so the writes go ahead
        return {"osds": [], "pools": [], "flags": ""}


def test_checksums_through_the_rados_cli(monkeypatch):
    store, seen = {}, []

    def fake(cmd, **kw):
        seen.append((cmd[5], kw.get("text", True)))
        pool, verb, name = cmd[4], cmd[5], cmd[6]
        if verb == "put":
            store[(pool, name)] = kw["input"]
            return run.CommandResult(cmd, 0, b"", "")
        if (pool, name) in store:
            return run.CommandResult(cmd, 0, store[(pool, name)], "")
        return run.CommandResult(cmd, 2, b"", "error getting p/x: (2) No such file or directory")
    monkeypatch.setattr(checksums, "rados", None)
    monkeypatch.setattr(run, "RUNNER", fake)
    monkeypatch.setattr(run.shutil, "which", lambda p: "/usr/bin/" + p)
    manifest = checksums.write_objects(Conf(), "p", count=4, size=32, prefix="t", threads=2)
    assert sorted(manifest) == ["t-000000", "t-000001", "t-000002", "t-000003"]
    assert all(len(store[("p", n)]) == 32 for n in manifest)
    assert checksums.verify_objects(Conf(), "p", manifest) == []
    store[("p", "t-000002")] = bytes(32)
    del store[("p", "t-000000")]
    assert checksums.verify_objects(Conf(), "p", manifest) == ["t-000000", "t-000002"]
    assert set(seen) == {("put", False), ("get", False)}        # bytes, never text


def test_md5_is_the_hex_digest():
    assert checksums.md5(b"abc") == "900150983cd24fb0d6963f7d28e17f72"


# -- wait_for_option ---------------------------------------------------------------------------------
class OptionCluster:
    """osd.N answers `config get` from a list of values, one per ask (the last one repeats)."""

    def __init__(self, answers):
        self.answers, self.asked = answers, []

    def ceph(self, *args):
        osd, option = int(args[1].split(".")[1]), args[4]
        self.asked.append(osd)
        values = self.answers[osd]
        return {option: values.pop(0) if len(values) > 1 else values[0]}


def test_wait_for_option_waits_for_every_osd(clock):
    c = OptionCluster({0: ["1", "3.000000"], 1: ["3"]})
    throttles.wait_for_option(c, iter([0, 1]), "osd_max_backfills", 3)
    assert c.asked == [0, 0, 1] and clock[0] == pytest.approx(0.3)


def test_wait_for_option_says_which_osd_lags(clock):
    c = OptionCluster({0: ["3"], 1: ["1"]})
    with pytest.raises(poll.PollTimeout) as e:
        throttles.wait_for_option(c, [0, 1], "osd_max_backfills", 3, timeout=1)
    assert str(e.value) == ("osd_max_backfills=3 on osds [0, 1] not reached after 1 s (osd.1 still "
                            "runs osd_max_backfills=1); is the OSD up (`ceph osd tree`)?")


# -- fail_and_recover --------------------------------------------------------------------------------
class RecoveryCluster:
    def __init__(self, briefs):
        self.briefs, self.done = briefs, []

    def pgs_brief(self):
        return self.briefs.pop(0) if len(self.briefs) > 1 else self.briefs[0]

    def osd_out(self, osd):
        self.done.append(f"out {osd}")


class Lab:
    def __init__(self, cluster):
        self.cluster = cluster

    def kill_osd(self, osd):
        self.cluster.done.append(f"kill {osd}")


def pgs(*rows):
    return [{"pgid": f"1.{i}", "state": s, "up": up} for i, (s, up) in enumerate(rows)]


def test_fail_and_recover_times_each_phase(clock, monkeypatch):
    briefs = [pgs(("active+clean", [0, 1]), ("active+clean", [1, 2])),            # before the kill
              pgs(("active+clean", [0, 1]), ("active+clean", [1, 2])),            # before the stats move
              pgs(("peering", [1, 2]), ("active+clean", [1, 2])),
              pgs(("active+undersized+degraded", [1, 2]), ("active+clean", [1, 2])),
              pgs(("active+clean", [1, 2]), ("active+clean", [1, 2]))]
    c = RecoveryCluster(briefs)
    monkeypatch.setattr(recovery, "time", type("T", (), {"monotonic": staticmethod(lambda: clock[0])}))
    seen = []
    out = recovery.fail_and_recover(Lab(c), 0, interval=1, progress=lambda t, v: seen.append(t))
    assert c.done == ["kill 0", "out 0"]
    assert [states for _, states in out["series"]] == [
        {"active+clean": 2}, {"peering": 1, "active+clean": 1},
        {"active+undersized+degraded": 1, "active+clean": 1}, {"active+clean": 2}]
    assert [t for t, _ in out["series"]] == [0, 1, 2, 3]
    # the stats moved off osd.0 in the 2nd sample, every PG served I/O in the 3rd, clean in the 4th
    assert (out["remapped"], out["active"], out["clean"]) == (1, 2, 3)
    assert out["receivers"] == [2]                 # 1.0 went from [0, 1] to [1, 2]: osd.2 took over
    assert seen == [0, 1, 2]                       # one progress call per sample that is not clean yet


def test_fail_and_recover_of_one_pool_ignores_the_others(clock, monkeypatch):
    other = [{"pgid": "7.0", "state": "active+undersized+degraded", "up": [1, 2]}]   # still recovering
    c = RecoveryCluster([pgs(("active+clean", [0, 1])) + other, pgs(("peering", [1, 2])) + other,
                         pgs(("active+clean", [1, 2])) + other])
    c.ceph = lambda *args: {"pool_id": 1, "size": 3}
    monkeypatch.setattr(recovery, "time", type("T", (), {"monotonic": staticmethod(lambda: clock[0])}))
    out = recovery.fail_and_recover(Lab(c), 0, interval=1, pool="lab08-data")
    assert [states for _, states in out["series"]] == [{"peering": 1}, {"active+clean": 1}]
    assert (out["remapped"], out["active"], out["clean"]) == (0, 1, 1)
    with pytest.raises(poll.PollTimeout, match="all PGs active"):      # the whole cluster never is
        recovery.fail_and_recover(Lab(c), 0, interval=1, timeout=3)


def test_fail_and_recover_times_out_with_the_last_states(clock):
    c = RecoveryCluster([pgs(("peering", [1, 2]))])
    with pytest.raises(poll.PollTimeout, match=r"all PGs active\+clean after osd.0 went out not reached "
                                               r"after 5 s \(\{'peering': 1\}\); check `ceph health detail`"):
        recovery.fail_and_recover(Lab(c), 0, interval=1, timeout=5)


# -- Cluster.restore_config ----------------------------------------------------------------------------
class ConfigClient:
    def __init__(self):
        self.calls = []

    def mon(self, prefix, **kw):
        self.calls.append((prefix, kw))
        if prefix == "config help":          # what the mon answers for the balancer's switch
            return {"name": kw["key"], "type": "bool", "default": True}


class FakeTuning(Tuning):
    def __init__(self):
        self.client = ConfigClient()


def test_restore_config_puts_back_last_change_first():
    c = FakeTuning()
    c.restore_config([(("osd", "a"), None), (("osd.1", "b"), 4)])
    assert c.client.calls == [("config set", {"who": "osd.1", "name": "b", "value": "4"}),
                              ("config rm", {"who": "osd", "name": "a"})]


def test_restore_config_hands_a_mgr_module_its_default_before_removing_it():
    c = FakeTuning()
    c.restore_config([(("mgr", "mgr/balancer/active"), None)])
    assert c.client.calls == [("config help", {"key": "mgr/balancer/active"}),
                              ("config set", {"who": "mgr", "name": "mgr/balancer/active", "value": "true"}),
                              ("config rm", {"who": "mgr", "name": "mgr/balancer/active"})]


# -- pools.pg_list: the one unwrapping of Ceph's PG lists ------------------------------------------------
def test_pg_list_unwraps_both_shapes():
    from cephlab.cluster.pools import pg_list
    rows = [{"pgid": "1.0"}]
    assert pg_list(rows) is rows
    assert pg_list({"pg_ready": True, "pg_stats": rows}) is rows
    assert pg_list({"pg_ready": False}) == []
