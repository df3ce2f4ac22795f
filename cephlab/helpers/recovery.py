"""Lab 08 helpers: fill a pool fast, keep a client writing during a failure, fail an OSD and time
the cluster's way back to active+clean from the PG-state timeline.

    manifest = write_objects(c, pool, count=128, size=2**20)     # parallel, {name: md5}
    with WriteLoad(c, pool) as load:                               # a client writing 4 KiB objects
        run = fail_and_recover(lab, osd_id)                        # kill, out, sample until clean
    restore(lab, osd_id)                                           # start, in, wait until clean
    verify_objects(c, pool, manifest) + verify_objects(c, pool, load.manifest)   # [] = nothing lost
"""
from __future__ import annotations

import os
import threading
import time

import numpy as np

from cephlab.cluster import checksums
from cephlab.core.errors import ClusterError
from cephlab.core.poll import PollTimeout, poll_until

# -- objects with checksums, written and read in parallel ---------------------------------------
# The one checksummed write/verify (cephlab/cluster/checksums.py), under the names lab 08 uses.
write_objects = checksums.write_objects
verify_objects = checksums.verify_objects


# -- a client that keeps writing --------------------------------------------------------------------
class WriteLoad(threading.Thread):
    """Writes small new objects back to back (one at a time, `pause` s apart) until stopped.

    ops: [(t_s, latency_s)] per write; manifest: {name: md5} of everything written. A write that
    lands in a PG that is peering waits until the PG is active again: the latency shows it.
    """

    def __init__(self, cluster, pool, size=4096, pause=0.02, prefix="load"):
        super().__init__(daemon=True)
        self.cluster, self.pool, self.size, self.pause, self.prefix = cluster, pool, size, pause, prefix
        self.ops, self.manifest, self.error = [], {}, None
        self._stop_event = threading.Event()

    def run(self):
        t0 = time.monotonic()
        try:
            with self.cluster.ioctx(self.pool) as io:
                while not self._stop_event.is_set():
                    name, data = f"{self.prefix}-{len(self.ops):06d}", os.urandom(self.size)
                    start = time.monotonic()
                    io.write_full(name, data)
                    self.ops.append((round(start - t0, 3), time.monotonic() - start))
                    self.manifest[name] = checksums.md5(data)
                    self._stop_event.wait(self.pause)
        except Exception as e:      # reported by stop(): a client error is a lab finding
            self.error = e

    def stop(self):
        self._stop_event.set()
        self.join()
        if self.error:
            raise ClusterError(f"the client writing into {self.pool} failed: {self.error}")
        return self

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


# -- failure and recovery ---------------------------------------------------------------------------
def is_active(state):
    """A PG serves I/O only in an 'active' state that is not stale (last report too old)."""
    parts = state.split("+")
    return "active" in parts and "stale" not in parts


def other_pools_with_objects(cluster, pool):
    """{pool: objects} of every other pool that holds objects: their recovery shares the OSDs'
    reservation slots and recovery throttles with `pool`'s, from `ceph df detail`."""
    return {name: v["objects"] for name, v in cluster.df().items() if name != pool and v["objects"]}


def _pool_id(cluster, pool):
    return cluster.ceph("osd", "pool", "get", pool, "size")["pool_id"]


def objects_on_osd(cluster, pool, osd_id):
    """(PGs, objects, bytes) of `pool` that have a copy on osd.N, from the mgr's PG stats."""
    pool_id = _pool_id(cluster, pool)
    pgs = [p for p in cluster.pg_stats(osd=osd_id) if p["pgid"].split(".")[0] == str(pool_id)]
    return (len(pgs), sum(p["stat_sum"]["num_objects"] for p in pgs),
            sum(p["stat_sum"]["num_bytes"] for p in pgs))


def _brief_rows(cluster, pool_id=None):
    return [pg for pg in cluster.pgs_brief() if pool_id is None or pg["pgid"].split(".")[0] == str(pool_id)]


def pg_brief(cluster, rows=None):
    """({state: PG count}, {OSDs in some PG's up set}) from one `pg dump pgs_brief` of the mgr,
    or from `rows` of one (e.g. one pool's)."""
    pgs = cluster.pgs_brief() if rows is None else rows
    states: dict[str, int] = {}
    for pg in pgs:
        states[pg["state"]] = states.get(pg["state"], 0) + 1
    return states, {osd for pg in pgs for osd in pg.get("up", [])}


def osds_in_up_sets(cluster):
    """The OSDs that the mgr's latest PG stats place in some PG's up set."""
    return pg_brief(cluster)[1]


def fail_and_recover(lab, osd_id, interval=0.5, timeout=180, progress=None, pool=None):
    """Kill osd.N (a crash), mark it out at once, sample PG states until all are active+clean.

    pool: count only that pool's PGs (the ones a model of its objects describes); another pool's
    data on the cluster still recovers and competes for the same reservations and throttles.

    Returns {"series": [(t, {state: n})], "down_s", "out_s", "remapped", "active", "clean",
    "receivers", "backfills"}: the times (s after the kill) when the monitors marked it down, when it was
    marked out, and the first samples in which the mgr's PG stats had moved every PG off the OSD
    ("remapped"), showed every PG active (serving I/O) and every PG active+clean; receivers: the
    OSDs that took its place in the up sets of its PGs (the ones the recovery writes to);
    backfills: {pgid: (acting primary, [targets])} of every PG seen backfilling or waiting to.

    Samples come from the mgr's own PG stats, states and up sets in one call, so "all clean" is
    never the picture from before the failure; c.record_pg_states stops only after it has seen
    an unclean sample, and a tuned recovery can finish between two samples.
    progress: called with (seconds waited, False) after each sample (core.poll's progress).
    """
    c = lab.cluster
    pool_id = None if pool is None else _pool_id(c, pool)
    series: list[tuple[float, dict[str, int]]] = []
    times: dict[str, float | None] = {"remapped": None, "active": None, "clean": None}
    before = {pg["pgid"]: set(pg.get("up", [])) for pg in _brief_rows(c, pool_id)}
    receivers: set[int] = set()
    pairs: dict[str, tuple[int, list[int]]] = {}
    t0 = time.monotonic()
    lab.kill_osd(osd_id)
    down = time.monotonic() - t0
    c.osd_out(osd_id)
    out = time.monotonic() - t0

    def sample():
        t = round(time.monotonic() - t0, 3)
        rows = _brief_rows(c, pool_id)
        states, up = pg_brief(c, rows=rows)
        series.append((t, states))
        for pg in rows:          # who pushes (the acting primary) to whom (up, not yet acting)
            if "backfill" in pg["state"] and pg["pgid"] not in pairs:
                pairs[pg["pgid"]] = (pg["acting_primary"], sorted(set(pg["up"]) - set(pg["acting"])))
        if times["remapped"] is None and osd_id not in up:
            times["remapped"] = t
        if times["remapped"] is not None:
            if times["active"] is None and all(is_active(s) for s in states):
                times["active"] = t
            if set(states) <= {"active+clean"}:
                times["clean"] = t
                # the final up sets: a down OSD only leaves them, the `out` brings its successor
                receivers.update(*(set(pg.get("up", [])) - before.get(pg["pgid"], set()) for pg in rows
                                   if osd_id in before.get(pg["pgid"], ())))
        return times["clean"] is not None
    poll_until(sample, timeout, f"all PGs{'' if pool is None else ' of ' + pool} active+clean "
               f"after osd.{osd_id} went out",
               interval=interval, progress=progress, describe=lambda: str(series[-1][1]),
               hint="check `ceph health detail`")
    return {"series": series, "down_s": down, "out_s": out, **times, "receivers": sorted(receivers),
            "backfills": pairs}


def reservations(cluster, osds):
    """{osd: (PGs holding a local slot, PGs holding a remote slot)} now, from each OSD's
    `ceph tell osd.N dump_recovery_reservations`: the reservers osd_max_backfills sizes. A PG
    backfills or recovers only while it holds its primary's local slot and its targets' remote
    ones. An OSD that does not answer (down) is left out."""
    return {osd: tuple(sorted(item["item"] for item in dump[side]["in_progress"])
                       for side in ("local_reservations", "remote_reservations"))
            for osd, dump in _reserver_dumps(cluster, osds).items()}


def _reserver_dumps(cluster, osds):
    """{osd: `ceph tell osd.N dump_recovery_reservations`} of the OSDs that answer (a down OSD
    holds no slot and is left out)."""
    out = {}
    for osd in osds:
        try:
            out[osd] = cluster.client.send({"prefix": "dump_recovery_reservations"}, ("osd", osd), timeout=5)
        except ClusterError:
            continue
    return out


def reserver_slots(cluster, osds):
    """{osd: (local slots, remote slots)}: the max_allowed of each OSD's two reservers now, from
    `ceph tell osd.N dump_recovery_reservations`. This is the osd_max_backfills the OSD works
    with, whatever the config database holds: under mClock it stays at its default unless
    osd_mclock_override_recovery_settings is true. An OSD that does not answer is left out."""
    return {osd: (int(dump["local_reservations"]["max_allowed"]), int(dump["remote_reservations"]["max_allowed"]))
            for osd, dump in _reserver_dumps(cluster, osds).items()}


def slots_text(slots):
    """reserver_slots() as "osd.0 1/1, osd.1 1/1 (local/remote slots)"."""
    pairs = ", ".join(f"osd.{osd} {local}/{remote}" for osd, (local, remote) in sorted(slots.items()))
    return f"{pairs or 'no OSD answered'} (local/remote slots)"


def wait_for_slots(cluster, osds, slots, timeout=10.0):
    """reserver_slots() once every OSD gives `slots` on both sides, or when `timeout` s have
    passed (a config change reaches the OSDs within about a second; one that never applies it,
    e.g. under mClock's hold, is what the caller measures)."""
    def settled():
        now = reserver_slots(cluster, osds)
        return now if now and all(pair == (slots, slots) for pair in now.values()) else None
    try:
        return poll_until(settled, timeout, f"every OSD giving {slots} backfill slots", interval=0.5)
    except PollTimeout:
        return reserver_slots(cluster, osds)


def config_entries(cluster, option):
    """[(section, value)] of `option` in the monitors' config database (`ceph config dump`)."""
    return [(e["section"], e["value"]) for e in cluster.ceph("config", "dump") if e["name"] == option]


def wait_config_gone(cluster, option, timeout=30.0):
    """Seconds until the config database holds no entry of `option`. Under mClock without
    osd_mclock_override_recovery_settings each OSD removes a changed osd_max_backfills
    (`config rm` for "osd" and "osd.N", OSD.cc@v18.2.7:10203-10246); PollTimeout, naming the
    entries left, when that does not happen within `timeout` s."""
    t0 = time.monotonic()
    poll_until(lambda: not config_entries(cluster, option), timeout, f"no {option} in the config database",
               interval=0.5, describe=lambda: f"entries: {config_entries(cluster, option)}")
    return time.monotonic() - t0


# What mClock's profile gives each class, as the OSD reports it (`config show`): the reservation
# and limit of a class are fractions of the OSD's capacity from Reef on (0 as a limit: none).
MCLOCK_OPTIONS = ("osd_op_queue", "osd_mclock_profile", "osd_mclock_override_recovery_settings",
                  "osd_mclock_scheduler_client_res", "osd_mclock_scheduler_client_wgt",
                  "osd_mclock_scheduler_client_lim", "osd_mclock_scheduler_background_recovery_res",
                  "osd_mclock_scheduler_background_recovery_wgt",
                  "osd_mclock_scheduler_background_recovery_lim", "osd_mclock_max_capacity_iops_hdd",
                  "osd_mclock_max_capacity_iops_ssd", "osd_max_backfills", "osd_recovery_sleep_hdd",
                  "osd_recovery_max_active_hdd", "osd_recovery_max_active_ssd")


def mclock_settings(cluster, osd):
    """{option: value} of MCLOCK_OPTIONS as osd.N runs them (those this release has)."""
    shown = cluster.config_show(f"osd.{osd}")
    return {option: shown[option] for option in MCLOCK_OPTIONS if option in shown}


def recovery_window(objects, pgs, push_latencies, in_flight, handoff_s, step_s=2.0):
    """The room (below, above) in seconds around a recovery-time model that charges no sleep
    (lab 08 under mClock), from what the model leaves out:
    below: one PG-stats step (`step_s`): a recovery that ends within it can read as 0 s;
    above: one more step, each of the `pgs` PGs' reservation hand-off (`handoff_s`, measured), and
    the pushes: `objects` round trips, `in_flight` at a time (osd_recovery_max_active), each
    charged the 95th percentile of `push_latencies` (the client's writes during the run, s).
    Returns {"grain": (below, above), "push_s": p95, "pushes_s": objects x p95 / in_flight}."""
    if objects < 0 or pgs < 0:
        raise ValueError(f"objects and pgs must be >= 0, got {objects} and {pgs}")
    if in_flight < 1:
        raise ValueError(f"in_flight must be >= 1 (osd_recovery_max_active), got {in_flight}")
    if handoff_s < 0 or step_s < 0:
        raise ValueError(f"handoff_s and step_s must be >= 0 s, got {handoff_s} and {step_s}")
    if len(push_latencies) == 0:
        raise ValueError("push_latencies is empty: the client wrote nothing during the run")
    push_s = float(np.percentile(push_latencies, 95))
    pushes_s = objects * push_s / in_flight
    return {"grain": (step_s, step_s + handoff_s * pgs + pushes_s), "push_s": push_s, "pushes_s": pushes_s}


class ReservationWatch(threading.Thread):
    """Samples reservations(cluster, osds) every `interval` s until stopped: samples [(t, {osd:
    (local, remote)})]. copying() counts the PGs holding every slot they need."""

    def __init__(self, cluster, osds, interval=0.2):
        super().__init__(daemon=True)
        self.cluster, self.osds, self.interval = cluster, list(osds), interval
        self.samples: list = []
        self._stop_event = threading.Event()

    def run(self):
        t0 = time.monotonic()
        while not self._stop_event.is_set():
            self.samples.append((round(time.monotonic() - t0, 3), reservations(self.cluster, self.osds)))
            self._stop_event.wait(self.interval)

    def copying(self, remotes, pgs=None):
        """The most PGs seen copying at once: holding a local slot and `remotes` remote slots (the
        other replicas for recovery from the log, size - 1; the new OSD for a backfill, 1). One
        sample asks every OSD within milliseconds, so the count is nearly instantaneous, unlike
        the mgr's PG states, which reach it 1-2 s late and can show a finished PG still copying.
        pgs: count only these PG ids (e.g. the backfilled ones, when others recover from the log)."""
        def now(sample):
            local = {pg for held, _ in sample.values() for pg in held if pgs is None or pg in pgs}
            granted: dict[str, int] = {}
            for _, held in sample.values():
                for pg in held:
                    granted[pg] = granted.get(pg, 0) + 1
            return sum(1 for pg in local if granted.get(pg, 0) >= remotes)
        return max((now(s) for _, s in self.samples), default=0)

    def most_slots(self):
        """(most local, most remote) slots one OSD held in any sample."""
        sides = [(len(local), len(remote)) for _, s in self.samples for local, remote in s.values()]
        return tuple(max((x[i] for x in sides), default=0) for i in (0, 1))

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self._stop_event.set()
        self.join()
        return False


def restore(lab, osd_id, timeout=180):
    """Start osd.N again and mark it in; wait until the cluster is active+clean. Returns seconds.

    An OSD that comes back with its data catches up from the PG logs in about a second, often
    between two PG-stat reports, so "all clean" alone could be the stale picture from before the
    `in`: first wait until the mgr's PG stats place the OSD in an up set again.
    """
    c = lab.cluster
    t0 = time.monotonic()
    lab.start_osd(osd_id)
    c.osd_in(osd_id)
    try:
        poll_until(lambda: osd_id in osds_in_up_sets(c), 30, f"osd.{osd_id} in an up set",
                   interval=0.25)
    except PollTimeout:
        pass                                # wait_for_clean below still has the last word
    c.wait_for_clean(timeout=timeout, progress=False, interval=0.5)
    return time.monotonic() - t0


def undo_interrupted_run(cluster, options=()):
    """Undo what an interrupted run of the lab left behind: start OSDs that are down, mark in
    OSDs that are out, and remove `options` [(who, option)] from the config database.

    Runs before LabSession records anything, so its clean-up does not put the leftovers back.
    Returns a list of what it changed (empty when the cluster was as expected).
    """
    done = []
    for osd in cluster.ceph("osd", "dump")["osds"]:
        if not osd["up"]:
            cluster.start_osd(osd["osd"])
            done.append(f"started osd.{osd['osd']}")
        if not osd["in"]:
            cluster.osd_in(osd["osd"])
            done.append(f"marked osd.{osd['osd']} in")
    for who, option in options:
        if cluster.config_db(who, option) is not None:
            cluster.ceph("config", "rm", who, option)
            done.append(f"removed {who} {option}")
    if done:
        cluster.wait_for_clean(progress=False)
    return done


def state_categories(states):
    """Collapse Ceph's combined states into the few a learner follows, counting PGs in each.

    A PG counts once, under the first of: stale, peering/activating (not serving I/O),
    recovering/backfilling (copying now), waiting (recovery_wait/backfill_wait), degraded or
    undersized (serving I/O with fewer copies), active+clean.
    """
    order = [("stale", ("stale",)), ("peering", ("peering", "activating", "peered", "unknown")),
             ("recovering", ("recovering", "backfilling")),
             ("waiting", ("recovery_wait", "backfill_wait")),
             ("degraded", ("degraded", "undersized", "remapped"))]
    counts = {name: 0 for name, _ in order} | {"active+clean": 0}
    for state, n in states.items():
        parts = set(state.split("+"))
        name = next((name for name, keys in order if parts & set(keys)), "active+clean")
        counts[name] += n
    return counts
