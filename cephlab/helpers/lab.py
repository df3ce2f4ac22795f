"""What a lab notebook needs around the cluster API: one session that remembers everything
the lab changed, so its last cell can undo it all, and a re-run starts clean.

    lab = LabSession("01", min_osds=3)          # connects; removes leftovers of an earlier run
    pool = lab.replicated_pool("rep3", size=3)  # pool "lab01-rep3", deleted by cleanup()
    lab.config_set("osd", "osd_max_backfills", 4)
    lab.stop_osd(2)                             # restarted by cleanup() if still down
    lab.add_osd()                               # removed again by cleanup()
    lab.set_full_ratios(nearfull=0.1)           # osdmap ratios, restored by cleanup()
    lab.show_full_state()                       # which OSDs/pools are (near)full; the host disk
    lab.cleanup()                               # reverts config, restarts OSDs, deletes pools
"""
from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from cephlab.cluster.api import Cluster
from cephlab.cluster.pools import Resources
from cephlab.core import releases, report
from cephlab.core.errors import ClusterError
from cephlab.core.lock import Lock, LockBusy, file_lock
from cephlab.core.names import default_cluster_name
from cephlab.core.poll import PollTimeout, poll_until

log = logging.getLogger(__name__)
# The lab leases this process (a notebook's kernel) holds, by lease file: one per open lab, so the
# same lab cannot be open in two notebooks, while a re-run of its first cell here keeps it.
_LEASES: dict[str, Lock] = {}


def cluster_name():
    """The cluster labs use: $CEPHLAB_NAME (the test suite sets it), else "lab"."""
    return default_cluster_name()


def connect():
    return Cluster.connect(name=cluster_name())  # the same default Cluster.connect() uses


class LabBusy(ClusterError):
    """Another open notebook holds this lab, or changed what this lab is about to change."""


def _read_journal(path):
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError):           # removed meanwhile (its lab cleaned up)
        return None
    return state if isinstance(state, dict) else None


class LabSession:
    """A lab's changes to the cluster: pools/images (prefixed "labNN-"), config, stopped OSDs."""

    def __init__(self, lab_id, min_osds=3, cluster=None):
        report.show_messages_by_default()      # what every lab calls first: its messages show
        self.prefix = f"lab{lab_id}-"
        self.cluster = cluster or connect()
        self.journal = Path(self.cluster.dir) / "lab-sessions" / f"lab{lab_id}.json"
        self._take_lease(lab_id, own_cluster=cluster is None)
        with self._journals():
            self._undo_unfinished_runs()
        self._require_osds(min_osds)
        self._say_what_this_release_changes(lab_id)
        self._remove_leftovers()
        self.cluster.wait_for_pg_deletion()     # an earlier lab's deleted pools must not share the disk
        self.resources = Resources(self.cluster)
        self.tuning = self.cluster.tuning().__enter__()
        self.stopped = set()
        self.added_osds = []
        self.full_ratios_before = None
        self.restarted_osds = False         # run_osds_under restarted them: cleanup() does again

    def _say_what_this_release_changes(self, lab_id):
        """Print, first thing, what this lab does differently on the cluster's Ceph release
        (cephlab.core.releases); nothing on the release the labs were written for."""
        release = self.cluster.release()
        for lab, why in releases.lab_differences(release):
            if lab.split()[0] in (str(lab_id), "all"):
                log.warning(f"note: on Ceph {release.name} lab {lab}: {why}")

    def has_filestore(self) -> bool:
        """Whether this cluster's Ceph can create FileStore OSDs (cephlab.core.releases). When it
        cannot, says so in the learner's cell: the lab skips its FileStore measurement there."""
        release = self.cluster.release()
        if not release.filestore:
            print(f"Ceph {release.name} has no FileStore (its ceph-osd refuses to create one): "
                  "this lab skips its FileStore measurement; the models and the seeds' FileStore "
                  "figures carry that part, and the BlueStore measurement runs as on every release.")
        return release.filestore

    def runs_mclock_by_default(self) -> bool:
        """Whether this cluster's Ceph runs mClock by default and has its override option for the
        recovery settings (cephlab.core.releases). When not, says so in the learner's cell: the
        lab skips its mClock measurement there."""
        release = self.cluster.release()
        if not (release.mclock_default and release.mclock_override):
            print(f"Ceph {release.name} runs the {release.op_queue} scheduler by default: this lab "
                  "skips its mClock measurement (mClock is the default from Quincy 17.2.0 on; the "
                  "override of the recovery settings came with 17.2.6, the hold at 1 backfill "
                  "with 17.2.7 and Reef); the text describes it.")
            return False
        return True

    def _require_osds(self, n):
        have = len(self.cluster.ceph("osd", "ls"))
        if have < n:
            raise ClusterError(f"this lab needs at least {n} OSDs and the cluster has {have}: "
                               f"run `cephlab down` then `cephlab up --osds {n}`")

    # -- two notebooks, one cluster -----------------------------------------------------------
    def _take_lease(self, lab_id, own_cluster):
        """The lab's lease (an flock the kernel holds until cleanup() or its end): a second
        notebook of the same lab would delete this one's pools as an earlier run's leftovers."""
        path = self.journal.with_suffix(".lock")
        self._lease = str(path)
        held = _LEASES.get(self._lease)
        if held is not None and held.held():
            return                              # this kernel has it: its first cell ran again
        path.parent.mkdir(exist_ok=True)
        try:
            _LEASES[self._lease] = Lock(path, f"lab {lab_id}").take(wait=0)
        except LockBusy as e:
            if own_cluster:
                self.cluster.close()
            raise LabBusy(f"lab {lab_id} is already open in another notebook (PID "
                          f"{e.holder.get('pid', 'unknown')}); close it (Kernel > Shut Down) or run "
                          "its clean-up cell, then run this cell again") from None

    def _journals(self):
        """The journals' lock: a claim checks the other labs' journals and records itself in one step."""
        return file_lock(self.journal.parent / ".journals.lock", f"{self.prefix[:-1]} (journal)",
                         say=log.debug)

    def _open_others(self):
        """(name, pid, journal) of the other labs open in a live kernel."""
        for path in sorted(self.journal.parent.glob("lab*.json")):
            state = _read_journal(path) if path != self.journal else None
            pid = (state or {}).get("pid")
            if pid and os.path.exists(f"/proc/{pid}"):
                yield f"lab {path.stem[3:]}", pid, state

    def _refuse(self, what, other, pid):
        raise LabBusy(f"{what} was changed by {other}, still open in another notebook (PID {pid}); "
                      f"two labs changing it at once would undo each other. Run {other}'s clean-up "
                      "cell or close it (Kernel > Shut Down), then run this cell again")

    def _claim_option(self, who, option):
        """Journal (who, option) before changing it, unless another open lab changed it: a
        session never changes, nor later reverts, another live session's setting."""
        with self._journals():
            if (who, option) not in self.tuning.before:
                for other, pid, state in self._open_others():
                    if [who, option] in [c[:2] for c in state.get("config", [])]:
                        self._refuse(f"{who} {option}", other, pid)
            self.tuning.remember(who, option)
            self._save_journal()

    def _claim_stop(self, osd_id):
        """Journal a stopped OSD, unless another open lab has OSDs stopped: both at once can
        leave PGs with too few copies to serve I/O, and neither lab's clean-up would finish."""
        with self._journals():
            for other, pid, state in self._open_others():
                if state.get("stopped"):
                    stopped = ", ".join(f"osd.{i}" for i in state["stopped"])
                    raise LabBusy(f"{other}, still open in another notebook (PID {pid}), has {stopped} "
                                  f"stopped; stopping osd.{osd_id} too could leave PGs without enough "
                                  f"copies. Run {other}'s clean-up cell or close it (Kernel > Shut "
                                  "Down), then run this cell again")
            self.stopped.add(osd_id)
            self._save_journal()

    # -- the journal: what an unfinished run changed, so the next run can undo it ------------
    def _save_journal(self):
        """Write down what cleanup() would undo, after every change (a kernel may die anytime)."""
        self.journal.parent.mkdir(exist_ok=True)
        state = {"config": [[who, opt, old] for (who, opt), old in self.tuning.before.items()],
                 "full_ratios": self.full_ratios_before, "added_osds": self.added_osds,
                 "stopped": sorted(self.stopped), "restarted_osds": self.restarted_osds,
                 "pid": os.getpid()}
        tmp = self.journal.with_name(f".{self.journal.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(state))
        tmp.replace(self.journal)               # whole: other labs read it at any time

    def _undo_unfinished_runs(self):
        """A journal left behind means a run never reached cleanup(). This lab's own is undone
        (a re-run starts clean); another lab's too once its kernel is gone, because a learner
        who abandons lab 06 with its lowered full ratios expects lab 07 to find a usable cluster.
        Another lab whose kernel is still running keeps its changes."""
        for journal in sorted(self.journal.parent.glob("lab*.json")):
            state = _read_journal(journal)
            if state is None:
                continue
            pid = state.get("pid")
            if journal == self.journal or not (pid and os.path.exists(f"/proc/{pid}")):
                self._undo(journal, state)
            else:
                log.warning(f"note: {journal.stem} is still open in another notebook (pid {pid}); "
                            "its changes stay until you run its clean-up cell or shut down its kernel")

    def _undo(self, journal, state):
        down = {o["osd"] for o in self.cluster.ceph("osd", "dump")["osds"] if not o["up"]}
        for osd_id in state["stopped"]:
            if osd_id in down and osd_id not in state["added_osds"]:
                self.cluster.start_osd(osd_id)
        if state["full_ratios"]:
            self._apply_full_ratios(state["full_ratios"])
        self.cluster.restore_config([((who, option), old) for who, option, old in state["config"]])
        if state.get("restarted_osds"):     # they still run the scheduler the dead run chose
            restart_osds(self.cluster)
        for osd_id in reversed(state["added_osds"]):
            if osd_id in self.cluster.ceph("osd", "ls"):
                self.cluster.remove_osd(osd_id)
        log.info(f"undid an unfinished earlier run of {journal.stem}: "
                 f"{len(state['config'])} option(s), {len(state['added_osds'])} added OSD(s), "
                 f"{len(state['stopped'])} stopped OSD(s)"
                 + (", the full ratios" if state["full_ratios"] else ""))
        journal.unlink()

    def _remove_leftovers(self):
        """Pools named with this lab's prefix are from an earlier, unfinished run: delete them."""
        for pool in self.cluster.pools():
            if pool.startswith(self.prefix):
                self.cluster.delete_pool(pool)

    # -- what the lab creates or changes -----------------------------------------------------
    def name(self, short):
        return self.prefix + short

    def replicated_pool(self, short, **kw):
        return self.resources.replicated_pool(self.name(short), **kw)

    def ec_pool(self, short, **kw):
        return self.resources.ec_pool(self.name(short), **kw)

    def rbd_image(self, pool, image, size_mib):
        return self.resources.rbd_image(pool, image, size_mib)

    def config_set(self, who, option, value):
        self._claim_option(who, option)
        self.tuning.set(who, option, value)

    def config_rm(self, who, option):
        self._claim_option(who, option)
        self.tuning.rm(who, option)

    def stop_osd(self, osd_id):
        self._claim_stop(osd_id)
        self.cluster.stop_osd(osd_id)

    def kill_osd(self, osd_id):
        self._claim_stop(osd_id)
        self.cluster.kill_osd(osd_id)

    def start_osd(self, osd_id):
        self.cluster.start_osd(osd_id)
        self.stopped.discard(osd_id)
        self._save_journal()

    def run_osds_under(self, op_queue):
        """Run the OSDs under the op scheduler `op_queue` ("wpq", "mclock_scheduler") for this lab.
        An OSD reads osd_op_queue only when it starts, so each is restarted, one at a time, when
        they run another; cleanup() (or, after a crash, the next lab) sets the option back and
        restarts them again. Returns the scheduler they ran before."""
        before = self.cluster.config_show("osd.0")["osd_op_queue"]
        if before != op_queue:
            self.config_set("osd", "osd_op_queue", op_queue)
            self.restarted_osds = True
            self._save_journal()
            restart_osds(self.cluster)
            log.info(f"the OSDs run {op_queue} for this lab (this cluster's default: {before}); "
                     "the clean-up cell restores it")
        return before

    def add_osd(self):
        """One more OSD, as `cephlab` makes them; cleanup() removes it again."""
        osd_id = self.cluster.add_osd()
        self.added_osds.append(osd_id)
        self._save_journal()
        return osd_id

    def full_ratios(self):
        """{"nearfull": r, "backfillfull": r, "full": r} from the osdmap."""
        dump = self.cluster.ceph("osd", "dump")
        return {k: round(float(dump[f"{k}_ratio"]), 6) for k in ("nearfull", "backfillfull", "full")}

    def set_full_ratios(self, nearfull=None, backfillfull=None, full=None):
        """`ceph osd set-nearfull-ratio` etc. These live in the osdmap, not in the config
        database, so the session records the values before and cleanup() restores them.
        Returns once `ceph df` was recomputed with them (Cluster.wait_for_df_refresh)."""
        if self.full_ratios_before is None:
            with self._journals():
                for other, pid, state in self._open_others():
                    if state.get("full_ratios"):
                        self._refuse("the full ratios", other, pid)
                self.full_ratios_before = self.full_ratios()
                self._save_journal()
        self._apply_full_ratios({"nearfull": nearfull, "backfillfull": backfillfull, "full": full})
        self.cluster.wait_for_df_refresh()

    def _apply_full_ratios(self, ratios):
        for kind, ratio in ratios.items():
            if ratio is not None:
                if not 0 < ratio <= 1:
                    raise ValueError(f"{kind} ratio must be in (0, 1], got {ratio}")
                self.cluster.ceph("osd", f"set-{kind}-ratio", str(float(ratio)))

    def full_state(self):
        """How full the cluster is (Cluster.full_state): which OSDs are nearfull, backfillfull
        or full, which pools take no writes, and the host disk under a local cluster."""
        return self.cluster.full_state()

    def show_full_state(self):
        """Say what full_state() found, one line each (what `cephlab status` shows)."""
        state = self.full_state()
        for line in state.lines():
            log.info(line)
        return state

    def _wait_fill_warnings_gone(self, timeout=60):
        """OSDs re-check their fill state against the restored ratios within a few seconds."""
        def gone():
            s = self.cluster.full_state()
            return not (s.full_osds or s.backfillfull_osds or s.nearfull_osds or s.full_pools)
        try:
            poll_until(gone, timeout, "fill warnings gone", interval=1)
        except PollTimeout:
            pass                            # cleanup goes on; `ceph health` shows what is left

    # -- undo ------------------------------------------------------------------------------------
    def cleanup(self, timeout=300):
        """Undo everything: start stopped OSDs, restore full ratios, revert config, delete
        pools, remove added OSDs; wait for clean."""
        for osd_id in sorted(self.stopped):
            self.start_osd(osd_id)
        if self.full_ratios_before is not None:
            self._apply_full_ratios(self.full_ratios_before)
            log.info(f"restored full ratios: {self.full_ratios_before}")
            self.full_ratios_before = None
            self._wait_fill_warnings_gone()
        reverted = [f"{who} {opt}" for who, opt in self.tuning.before]
        self.tuning.__exit__(None, None, None)
        if self.restarted_osds:             # back to the scheduler the OSDs ran before the lab
            restart_osds(self.cluster)
            self.restarted_osds = False
        deleted = [item[-1] for item in self.resources.created]
        self.resources.__exit__(None, None, None)
        for osd_id in reversed(self.added_osds):
            self.cluster.remove_osd(osd_id)
            log.info(f"removed osd.{osd_id}")
        self.added_osds.clear()
        holding = [(other, pid, state["stopped"]) for other, pid, state in self._open_others()
                   if state.get("stopped")]
        if holding:                         # its PGs cannot all be clean before it starts them
            other, pid, stopped = holding[0]
            log.warning(f"note: not waiting for all PGs to be active+clean: {other} (PID {pid}), "
                        f"open in another notebook, has {', '.join(f'osd.{i}' for i in stopped)} stopped")
        else:
            self.cluster.wait_for_clean(timeout=timeout, progress=False)
        self.journal.unlink(missing_ok=True)
        log.info(f"reverted {len(reverted)} option(s): {', '.join(reverted) or 'none'}")
        log.info(f"deleted {len(deleted)} pool(s)/image(s): {', '.join(deleted) or 'none'}")
        log.info(f"cluster health: {self.cluster.health()}")
        lease = _LEASES.pop(self._lease, None)
        if lease is not None:
            lease.release(discard=True)     # the lab may now be opened in another notebook


def restart_osds(cluster):
    """Stop and start every OSD that is up, one at a time, each once the last one's PGs are
    active+clean again: never two copies of a PG away at once."""
    up = cluster.up_osds()
    for osd_id in up:
        cluster.stop_osd(osd_id)
        cluster.start_osd(osd_id)
        cluster.wait_for_clean(progress=False)
    log.info(f"restarted {len(up)} OSD(s)")


def wait_for_df(cluster, pool, objects, timeout=60, settle=2.0):
    """`ceph df` lags the writes by a few seconds (OSDs report stats periodically), and a pool's
    bytes can arrive a report after its object count: wait until the pool shows `objects`
    objects and its stored/used bytes held still for `settle` seconds, then return its df entry."""
    seen: dict[str, Any] = {"last": None, "entry": None}    # the last (objects, stored, used), df entry

    def still():
        entry = seen["entry"] = cluster.df()[pool]
        reached = entry["objects"] >= objects
        now = (entry["objects"], entry["stored"], entry["used"])
        if reached and now == seen["last"]:
            return True
        seen["last"] = now if reached else None
        return False
    try:
        poll_until(still, timeout, f"pool {pool} holding {objects} objects", interval=settle)
    except PollTimeout:
        pass                                # the caller reads what df shows by then
    return seen["entry"]


def io_probe(cluster, pool, name, timeout=5):
    """Try to write then read one small object with a short op timeout.

    Returns "ok", or "blocked" when the PG does not serve I/O (fewer live shards than min_size:
    the op waits until it times out). Uses its own client so the timeout does not leak.
    """
    import rados
    client = rados.Rados(conffile=cluster.conf, conf={
        "keyring": cluster.keyring, "rados_osd_op_timeout": str(timeout)})
    client.connect(timeout=10)
    try:
        with client.open_ioctx(pool) as io:
            io.write_full(name, b"probe")
            io.read(name)
        return "ok"
    except (rados.TimedOut, rados.Error):
        return "blocked"
    finally:
        client.shutdown()

