"""LabSession: cleanup() undoes everything, and a run that died before cleanup() is undone by the
next run of the same lab, or by any other lab once its kernel is gone (the journal in the
cluster's folder)."""
import json
import subprocess

import pytest

from cephlab.core.poll import poll_until
from cephlab.helpers.lab import LabSession

pytestmark = pytest.mark.cluster
OPTION = ("osd", "osd_max_backfills")


def _db_value(cluster):
    return cluster.config_db(*OPTION)


def test_cleanup_reverts_config_and_deletes_pools(lab_cluster):
    before = _db_value(lab_cluster)
    lab = LabSession("98", cluster=lab_cluster)
    pool = lab.replicated_pool("p", size=3, pg_num=8)
    lab.config_set(*OPTION, 7)
    assert _db_value(lab_cluster) == "7"
    lab.cleanup()
    assert _db_value(lab_cluster) == before
    assert pool not in lab_cluster.pools()
    assert not lab.journal.exists()


def test_next_run_undoes_an_interrupted_run(lab_cluster):
    before = _db_value(lab_cluster)
    osd = lab_cluster.ceph("osd", "ls")[-1]
    crashed = LabSession("99", cluster=lab_cluster)
    pool = crashed.replicated_pool("p", size=3, pg_num=8)
    crashed.config_set(*OPTION, 9)
    crashed.stop_osd(osd)
    assert crashed.journal.exists()
    del crashed                                   # the kernel died: no cleanup()

    rerun = LabSession("99", cluster=lab_cluster)
    assert _db_value(lab_cluster) == before, "the interrupted run's option was not reverted"
    assert lab_cluster.pids().get(f"osd.{osd}"), "the stopped OSD was not started again"
    assert pool not in lab_cluster.pools(), "the interrupted run's pool was left behind"
    assert not rerun.journal.exists()
    rerun.cleanup()


def _dead_pid():
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_another_lab_undoes_an_abandoned_run_but_not_an_open_one(lab_cluster):
    before = _db_value(lab_cluster)
    abandoned = LabSession("97", cluster=lab_cluster)
    abandoned.config_set(*OPTION, 5)
    state = json.loads(abandoned.journal.read_text())
    abandoned.journal.write_text(json.dumps({**state, "pid": _dead_pid()}))   # its kernel died

    other = LabSession("98", cluster=lab_cluster)
    assert _db_value(lab_cluster) == before, "the abandoned lab's option was not reverted"
    assert not abandoned.journal.exists()

    still_open = LabSession("97", cluster=lab_cluster)     # journal pid: this live process
    still_open.config_set(*OPTION, 6)
    LabSession("96", cluster=lab_cluster).cleanup()
    assert _db_value(lab_cluster) == "6", "a lab still open in a live kernel lost its changes"
    still_open.cleanup()
    other.cleanup()
    assert _db_value(lab_cluster) == before


def test_run_osds_under_restarts_them_and_cleanup_restores_the_scheduler(lab_cluster):
    def running():
        return {lab_cluster.config_show(f"osd.{o}")["osd_op_queue"] for o in lab_cluster.ceph("osd", "ls")}
    default = running()
    assert len(default) == 1
    other = "wpq" if default != {"wpq"} else "mclock_scheduler"
    lab = LabSession("95", cluster=lab_cluster)
    assert lab.run_osds_under(other) == next(iter(default))
    assert running() == {other}, "an OSD still runs the scheduler it started with"
    assert json.loads(lab.journal.read_text())["restarted_osds"], "a crash now would leave them on it"
    assert lab.run_osds_under(other) == other          # already: no second round of restarts
    lab.cleanup()
    assert running() == default
    assert lab_cluster.config_db("osd", "osd_op_queue") is None
    assert set(lab_cluster.pg_states()) <= {"active+clean"}


def test_set_full_ratios_returns_when_ceph_df_uses_them(lab_cluster):
    """MAX AVAIL is the mgr's figure from its copy of the OSD map. Lab 06 in the image (CI,
    2026-12-02) read it 2 s after `set-full-ratio` and got the old ratio's 10,303 MiB instead of
    965: set_full_ratios now waits for the mgr. Read at once, MAX AVAIL must scale as the room
    below the ratio does (used is a few % of each OSD, so 0.5 -> about half of 0.95's)."""
    lab = LabSession("98", cluster=lab_cluster)
    pool = lab.replicated_pool("p", size=3, pg_num=8)
    # a new pool reaches `ceph df` with the mgr's next digest (CI, 2026-12-02: not yet listed)
    before = poll_until(lambda: lab_cluster.df().get(pool, {}).get("max_avail"), 30, f"{pool} in `ceph df`")
    full_before = lab.full_ratios()["full"]
    lab.set_full_ratios(full=0.5)
    after = lab_cluster.df()[pool]["max_avail"]      # no sleep: the point of the wait
    lab.cleanup()
    assert lab.full_ratios()["full"] == pytest.approx(full_before)
    # room below the ratio: (0.5 - u) / (0.95 - u) for a fill u of 0-10 %: 0.47-0.53
    assert 0.4 < after / before < 0.6, (before, after)
    mon = lab_cluster.ceph("osd", "dump")["epoch"]
    assert lab_cluster.wait_for_mgr_osdmap() >= mon
