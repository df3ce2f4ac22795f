"""Full and nearly full: Ceph's fill flags and the host disk under the daemons, as one record.

Two different things fill a lab cluster:

* Ceph's own space: an OSD past its nearfull / backfillfull / full ratio (osdmap ratios a lab
  may lower with LabSession.set_full_ratios). Past the full ratio the mon flags every pool on
  that OSD full, and writes to them stop (librados would wait for ever; the lab's I/O context
  asks for an immediate ENOSPC instead). Deletes still work.
* The host file system under the cluster folder (native clusters): the OSDs' block files are
  sparse, so Ceph still sees free space when the host disk has none, and an OSD whose write
  finds no space stops with ENOSPC. Ceph shows only MON_DISK_LOW / MON_DISK_CRIT for it.

    s = c.full_state()        # FullState: flags, which OSDs and pools, the host disk
    s.full, s.lines()         # writes stop somewhere?  what `cephlab status` prints
    c.check_writable(pool)    # ClusterFull (which flag, which OSDs, what to do) when writes stop
"""
from __future__ import annotations

import errno
import os
import signal
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cephlab.cluster.base import ClusterCore
from cephlab.core import proc
from cephlab.core.diskspace import HostDisk, host_disk
from cephlab.core.errors import ClusterError, ClusterFull

try:
    import rados
except ImportError:                 # pragma: no cover - depends on the machine
    rados = None

# The health checks about space, in the order status lists them.
FILL_CHECKS = ("OSDMAP_FULL", "OSD_FULL", "POOL_FULL", "OSD_BACKFILLFULL", "POOL_BACKFILLFULL",
               "OSD_NEARFULL", "POOL_NEARFULL", "OSD_OUT_OF_ORDER_FULL", "MON_DISK_CRIT",
               "MON_DISK_LOW")
HOST_FLAG = "HOST_DISK_FULL"         # ours: the host disk under the cluster folder is full
CEPH_FULL_RATIO = 0.95               # Ceph's default full ratio, for "the lab lowered it"
LOG_TAIL_BYTES = 16384               # where a stopped OSD's log says why it stopped
ENOSPC_TEXT = "No space left on device"
FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)     # what a "full try" write gets from a full pool
WATCH_INTERVAL_S = 2.0               # how often FullWatch looks (one `osd dump`: milliseconds)


@dataclass(frozen=True)
class FullState:
    """How full the cluster is. OSD lists hold ids; pools are names."""

    checks: Mapping[str, str] = field(default_factory=dict)   # space health checks: summary
    full_osds: tuple[int, ...] = ()
    backfillfull_osds: tuple[int, ...] = ()
    nearfull_osds: tuple[int, ...] = ()
    full_pools: tuple[str, ...] = ()        # flagged full because an OSD of theirs is full
    quota_pools: tuple[str, ...] = ()       # flagged full because they reached their quota
    osdmap_full: bool = False               # the cluster-wide full flag (set by hand only)
    ratios: Mapping[str, float] = field(default_factory=dict)   # nearfull/backfillfull/full
    usage: Mapping[int, float] = field(default_factory=dict)    # % used per OSD (ceph osd df)
    host: HostDisk | None = None            # None when the daemons do not run on this machine
    enospc_osds: tuple[int, ...] = ()       # stopped OSDs whose log ends in ENOSPC

    @property
    def host_full(self) -> bool:
        return self.host is not None and self.host.level == "full"

    @property
    def full(self) -> bool:
        """True when writes stop somewhere: a full pool, the osdmap flag or the host disk."""
        return bool(self.full_pools or self.quota_pools or self.osdmap_full or self.host_full)

    @property
    def ceph_flags(self) -> tuple[str, ...]:
        """The space health checks Ceph raises now, e.g. ("OSD_FULL", "POOL_FULL")."""
        return tuple(c for c in FILL_CHECKS if c in self.checks)

    @property
    def stop_flags(self) -> tuple[str, ...]:
        """The checks behind stopped writes, from the osdmap itself (health may lag it)."""
        return ((("OSDMAP_FULL",) if self.osdmap_full else ()) + (("OSD_FULL",) if self.full_osds else ())
                + (("POOL_FULL",) if self.full_pools or self.quota_pools else ()))

    def blocks(self, pool: str) -> bool:
        """True when a write to `pool` stops now."""
        return (pool in self.full_pools or pool in self.quota_pools or self.osdmap_full
                or self.host_full)

    def _osd(self, osd: int) -> str:
        return f"osd.{osd}" + (f" ({self.usage[osd]:.1f} % used)" if osd in self.usage else "")

    def _ratio_note(self) -> str:
        """"full ratio 3.74 %, lowered from Ceph's 95 %: ..." ("" when the osdmap was not read)."""
        full = self.ratios.get("full")
        if full is None:
            return ""
        note = f"full ratio {100 * full:.2f} %"
        if full < CEPH_FULL_RATIO - 1e-6:
            note += (f", lowered from Ceph's {100 * CEPH_FULL_RATIO:.0f} %: the clean-up cell of "
                     "the lab that lowered it restores it")
        return note

    def lines(self) -> list[str]:
        """What `cephlab status` and LabSession.show_full_state() print: one line per finding."""
        out = []
        groups = (("full", self.full_osds), ("backfillfull", self.backfillfull_osds),
                  ("nearfull", self.nearfull_osds))
        for kind, osds in groups:
            if osds:
                out.append(f"{kind}: {', '.join(self._osd(o) for o in osds)}")
        if self.full_pools:
            ratio = self._ratio_note()
            out.append(f"writes stop to pool(s) {', '.join(self.full_pools)}"
                       + (f" ({ratio})" if ratio else ""))
        if self.quota_pools:
            out.append(f"pool(s) at their quota: {', '.join(self.quota_pools)}")
        if self.osdmap_full:
            out.append("the osdmap full flag is set: no pool takes writes (`ceph osd unset full`)")
        if self.full_pools or self.osdmap_full:
            out.append("to free space: " + CEPH_FULL_ADVICE)
        if self.enospc_osds:
            out.append(f"stopped with ENOSPC on the host disk: "
                       f"{', '.join(f'osd.{o}' for o in self.enospc_osds)}")
        if self.host is not None:
            warning = self.host.warning()
            out.append(f"host disk: {self.host.summary()}" + (f" -- {warning}" if warning else ""))
        return out

    def message(self, pool: str | None = None, by: str = "") -> str:
        """Why a write to `pool` (by a tool `by`, e.g. "rados bench") stops and what to do:
        ClusterFull's message."""
        target = f"pool {pool!r}" if pool else "the cluster"
        by_note = f" ({by})" if by else ""
        parts = []
        if self.host_full and self.host is not None:
            stopped = (f"; {', '.join(f'osd.{o}' for o in self.enospc_osds)} stopped with ENOSPC "
                       "writing its block file" if self.enospc_osds else "")
            parts.append(f"cannot write to {target}{by_note}: the host disk is full "
                         f"({self.host.summary()}){stopped} [{HOST_FLAG}]. The OSDs' block files "
                         "are sparse and grow on that disk, so Ceph's own full flags do not see "
                         "it coming, and an OSD whose write finds no space stops. Free space on "
                         "that disk (other files, not the cluster folder), then run `cephlab up`: "
                         "it restarts the daemons that stopped; what was written before is kept")
        quota = pool in self.quota_pools if pool else bool(self.quota_pools)
        if quota:
            parts.append(f"cannot write to {target}{by_note}: it reached its quota [POOL_FULL]. Delete "
                         "objects from it, or lift the quota the lab set: ceph osd pool set-quota "
                         f"{pool or '<pool>'} max_bytes 0 (and max_objects 0)")
        ceph_full = (pool in self.full_pools if pool else bool(self.full_pools)) or self.osdmap_full
        if ceph_full:
            osds = ", ".join(self._osd(o) for o in self.full_osds) or "an OSD"
            flags = ", ".join(self.stop_flags) or "POOL_FULL"
            ratio = self._ratio_note()
            parts.append(f"cannot write to {target}{by_note}: the cluster is full [{flags}]: {osds} "
                         f"past the full ratio{f' ({ratio})' if ratio else ''}. Ceph stops writes "
                         f"to every pool stored on a full OSD. To free space: {CEPH_FULL_ADVICE}")
        if not parts:
            return (f"cannot write to {target}{by_note}: Ceph refused it for lack of space, and no full "
                    "flag is set any more: space was freed meanwhile, so try again")
        return ". ".join(parts)

    def error(self, pool: str | None = None, by: str = "") -> ClusterFull:
        flags = tuple(dict.fromkeys(self.stop_flags + self.ceph_flags)) + ((HOST_FLAG,) if self.host_full else ())
        osds = tuple(sorted(set(self.full_osds) | set(self.enospc_osds)))
        return ClusterFull(self.message(pool, by), flags=flags, osds=osds, pool=pool)


CEPH_FULL_ADVICE = ("delete the pools or objects the lab wrote (the lab's clean-up cell, "
                    "lab.cleanup(), deletes its pools; c.delete_pool(name) deletes one); deletes "
                    "work while the cluster is full, and writes resume a few seconds after the "
                    "OSDs are below the full ratio again")


def full_try(io: Any) -> None:
    """Make writes through the librados I/O context `io` fail with ENOSPC on a full pool instead
    of waiting until space is freed (set_pool_full_try from Quincy on, the osdmap form before)."""
    (getattr(io, "set_pool_full_try", None) or io.set_osdmap_full_try)()


def _local_host(cluster: ClusterCore) -> HostDisk | None:
    return host_disk(cluster.dir) if cluster.backend.local_daemons else None


def _enospc_osds(cluster: ClusterCore) -> tuple[int, ...]:
    """Local OSDs of the cluster that do not run and whose log ends with ENOSPC."""
    if not cluster.backend.local_daemons:
        return ()
    running = cluster.pids()
    out = []
    for osd in cluster.state.get("osds") or []:
        if f"osd.{osd}" in running:
            continue
        log = Path(cluster.daemon_log(f"osd.{osd}"))
        try:
            with open(log, "rb") as f:
                f.seek(max(0, log.stat().st_size - LOG_TAIL_BYTES))
                tail = f.read().decode(errors="replace")
        except OSError:
            continue
        if ENOSPC_TEXT in tail:
            out.append(int(osd))
    return tuple(out)


def host_state(cluster: ClusterCore) -> FullState:
    """What can be known without asking the cluster: the host disk and OSDs stopped by it
    (the mon may be the daemon that stopped)."""
    return FullState(host=_local_host(cluster), enospc_osds=_enospc_osds(cluster))


def read_full_state(cluster: ClusterCore, detail: bool = True) -> FullState:
    """The cluster's fill state from the osdmap (flags, ratios), and with detail also the space
    health checks, per-OSD usage (`ceph osd df`) and OSDs stopped by ENOSPC."""
    dump = cluster.ceph("osd", "dump")
    by_state: dict[str, list[int]] = {"full": [], "backfillfull": [], "nearfull": []}
    for osd in dump.get("osds", []):
        for kind in by_state:
            if kind in osd.get("state", []):
                by_state[kind].append(int(osd["osd"]))
    full_pools, quota_pools = [], []
    for p in dump.get("pools", []):
        names = set(str(p.get("flags_names", "")).split(","))
        if "full_quota" in names:
            quota_pools.append(p["pool_name"])
        elif "full" in names:
            full_pools.append(p["pool_name"])
    flags = dump.get("flags_set") or str(dump.get("flags", "")).split(",")
    ratios = {k: float(dump[f"{k}_ratio"]) for k in ("nearfull", "backfillfull", "full")
              if f"{k}_ratio" in dump}
    checks: dict[str, str] = {}
    usage: dict[int, float] = {}
    enospc: tuple[int, ...] = ()
    if detail:
        health = cluster.ceph("health", "detail")
        checks = {name: c["summary"]["message"] for name, c in health.get("checks", {}).items()
                  if name in FILL_CHECKS}
        try:
            usage = {int(n["id"]): float(n["utilization"])
                     for n in cluster.client.mgr("osd df")["nodes"]}
        except (ClusterError, KeyError, TypeError, ValueError):
            pass                    # the mgr is away: the flags above still tell what is full
        enospc = _enospc_osds(cluster)
    return FullState(
        checks=checks, full_osds=tuple(by_state["full"]),
        backfillfull_osds=tuple(by_state["backfillfull"]), nearfull_osds=tuple(by_state["nearfull"]),
        full_pools=tuple(full_pools), quota_pools=tuple(quota_pools), osdmap_full="full" in flags,
        ratios=ratios, usage=usage, host=_local_host(cluster), enospc_osds=enospc)


def check_host(cluster: ClusterCore, pool: str | None = None, by: str = "") -> None:
    """ClusterFull when the host disk under a local cluster is full (a statvfs: cheap enough
    before every write)."""
    host = _local_host(cluster)
    if host is not None and host.level == "full":
        raise host_state(cluster).error(pool, by)


def check_writable(cluster: ClusterCore, pool: str, by: str = "") -> None:
    """ClusterFull when a write to `pool` would stop now (host disk, full or quota flags)."""
    check_host(cluster, pool, by)
    if read_full_state(cluster, detail=False).blocks(pool):
        raise read_full_state(cluster).error(pool, by)


def diagnose(cluster: ClusterCore, pool: str, error: BaseException, by: str = "") -> None:
    """After a write failed or timed out: ClusterFull (from `error`) when space is why."""
    check_host(cluster, pool, by)
    try:
        state = read_full_state(cluster)
    except ClusterError:
        return                          # the cluster does not answer: the caller's error stands
    if state.blocks(pool):
        raise state.error(pool, by) from error


def raise_if_full(cluster: ClusterCore, pool: str, error: BaseException, by: str = "") -> None:
    """Given what a librados call on `pool` raised: ClusterFull when lack of space is why (ENOSPC
    or EDQUOT from a full pool; a timeout while the host disk is full or the pool flagged)."""
    if rados is None or not isinstance(error, rados.Error):
        return
    code = abs(getattr(error, "errno", None) or 0)
    if code in FULL_ERRNOS:
        try:
            state = read_full_state(cluster)
        except ClusterError:
            state = host_state(cluster)
        raise state.error(pool, by) from error
    if code == errno.ETIMEDOUT:
        diagnose(cluster, pool, error, by)


def _kill_child(cmd: Sequence[str]) -> None:
    """SIGKILL this process's children that run exactly `cmd`, and their children (fio's jobs
    are processes of their own): a tool stuck on a full pool ignores gentler signals while it
    waits for its writes."""
    parents: dict[int, int] = {}
    for pid in proc.pids():
        try:
            parents[pid] = int(proc.status(pid).get("PPid", "0"))
        except (OSError, ValueError):
            continue                    # gone meanwhile
    doomed = set()
    for pid, parent in parents.items():
        args = proc.cmdline(pid)
        if parent == os.getpid() and (args[:-1] if args[-1:] == [""] else args) == list(cmd):
            doomed.add(pid)
    while True:
        more = {pid for pid, parent in parents.items() if parent in doomed} - doomed
        if not more:
            break
        doomed |= more
    for pid in doomed:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class FullWatch(threading.Thread):
    """While a tool writes to `pool` (rados bench, fio): look every WATCH_INTERVAL_S whether its
    writes stop (the pool flagged full, the host disk full); if so, keep the ClusterFull in
    .found and stop the tool, which would wait for ever. Use as `with FullWatch(...) as w:`."""

    def __init__(self, cluster: ClusterCore, pool: str, cmd: Sequence[str], by: str = ""):
        super().__init__(daemon=True)
        self.cluster, self.pool, self.cmd, self.by = cluster, pool, list(cmd), by
        self.found: ClusterFull | None = None
        self._done = threading.Event()

    def _blocked(self) -> ClusterFull | None:
        by = self.by
        host = _local_host(self.cluster)
        if host is not None and host.level == "full":
            return host_state(self.cluster).error(self.pool, by)
        if read_full_state(self.cluster, detail=False).blocks(self.pool):
            return read_full_state(self.cluster).error(self.pool, by)
        return None

    def run(self) -> None:
        while not self._done.wait(WATCH_INTERVAL_S):
            try:
                self.found = self._blocked()
            except ClusterError:
                continue                # the mon is busy or away: look again
            if self.found is not None:
                _kill_child(self.cmd)
                return

    def __enter__(self) -> FullWatch:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self.join()


class Fullness(ClusterCore):
    """Mixed into Cluster: full_state() and check_writable()."""

    def full_state(self) -> FullState:
        """Ceph's fill flags (which OSDs, which pools), the ratios, per-OSD usage and, for a
        cluster on this machine, the host disk under its folder."""
        return read_full_state(self)

    def check_writable(self, pool: str) -> None:
        """Raise ClusterFull (which flag, which OSDs, what to do) when writes to `pool` stop."""
        check_writable(self, pool)
