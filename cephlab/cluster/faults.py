"""Breaking and healing a lab cluster: stop/kill/start OSDs, out/in, add or remove an OSD, wait for
recovery, and checksummed objects that prove no data was lost."""
from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import Any, TypedDict

from cephlab.backends.base import State
from cephlab.cluster import checksums
from cephlab.cluster.base import ClusterCore
from cephlab.cluster.pools import pg_list
from cephlab.core.errors import ClusterError
from cephlab.core.poll import poll_until

# PG states reach `ceph status` through the mgr (mgr_stats_period 1 s) and the mon digest
# (mon_mgr_digest_period 1 s): right after an OSD goes out/in, status can still show the old,
# clean picture. wait_for_clean trusts "clean" only this long after the last change made here.
SETTLE_S = 2.5


class _Seen(TypedDict):
    last: dict[str, int] | None         # the PG states last shown
    states: dict[str, int]              # the PG states last sampled


class Faults(ClusterCore):
    """Mixed into Cluster: uses self.client, self.state, self.backend, self.pg_states() and the
    daemon methods (ClusterCore)."""

    _map_changed = 0.0
    # declared again because remove_osd assigns it: mypy takes an assignment in a class that
    # subclasses a protocol for a new, inferred definition, unknown to code checked before it
    state: State

    def _changed(self) -> None:
        self._map_changed = time.monotonic()

    def _osd_state(self, osd_id: int) -> dict[str, Any]:
        for osd in self.client.mon("osd dump")["osds"]:
            if osd["osd"] == osd_id:
                return osd
        raise ClusterError(f"osd.{osd_id} does not exist (OSDs: {self.state['osds']})")

    def wait_osd(self, osd_id: int, up: bool = True, timeout: float | None = None) -> None:
        """Wait until the osdmap shows osd.N up (or down); timeout: the backend's default."""
        poll_until(lambda: bool(self._osd_state(osd_id)["up"]) == up,
                   timeout or self.backend.daemon_timeout_s, f"osd.{osd_id} {'up' if up else 'down'}",
                   hint=f"see {self.daemon_log(f'osd.{osd_id}')}")

    def stop_osd(self, osd_id: int, wait: bool = True) -> None:
        """Stop osd.N politely (SIGTERM: it tells the mon it is going down)."""
        self._osd_state(osd_id)
        self.stop_daemon(f"osd.{osd_id}")
        if wait:
            self.wait_osd(osd_id, up=False)

    def kill_osd(self, osd_id: int, wait: bool = True) -> None:
        """Kill osd.N (SIGKILL, a crash); its peers report it down."""
        self._osd_state(osd_id)
        self.stop_daemon(f"osd.{osd_id}", kill=True)
        if wait:
            self.wait_osd(osd_id, up=False)

    def start_osd(self, osd_id: int, wait: bool = True) -> None:
        """Start osd.N again from its data."""
        self._osd_state(osd_id)
        self.start_daemon(f"osd.{osd_id}")
        if wait:
            self.wait_osd(osd_id, up=True)

    def osd_out(self, osd_id: int) -> None:
        self.client.mon("osd out", ids=[str(osd_id)])
        self._changed()

    def osd_in(self, osd_id: int) -> None:
        self.client.mon("osd in", ids=[str(osd_id)])
        self._changed()

    def add_osd(self, wait: bool = True) -> int:
        """Format and start one more OSD; returns its id."""
        osd_id = self.backend.add_osd(self)
        self._changed()
        if wait:
            self.wait_osd(osd_id, up=True)
        return osd_id

    def remove_osd(self, osd_id: int) -> None:
        """Remove osd.N for good (the reverse of add_osd): stop it by PID, mark it out, purge
        it from the CRUSH map, auth and osdmap, delete its data folder and drop it from the
        cluster's state so `cephlab up` does not recreate it.

        Its PGs are re-placed on the remaining OSDs: call wait_for_clean() afterwards. Any
        data only it held is lost, so remove an OSD only while the others hold every copy.
        """
        self._osd_state(osd_id)
        if len(self.state["osds"]) <= 1:
            raise ClusterError(f"osd.{osd_id} is the cluster's only OSD; a cluster needs one "
                               "(add one with add_osd() first, or `cephlab down`)")
        self.stop_osd(osd_id)
        self.osd_out(osd_id)
        self.client.mgr("osd purge", id=osd_id, yes_i_really_mean_it=True)   # a mgr command
        self.state = self.backend.forget_osd(self, osd_id)

    def wait_for_clean(self, timeout: float = 300, progress: bool = True, interval: float = 1.0) -> float:
        """Wait until every PG is active+clean; ClusterError with the stuck states on timeout."""
        t0 = time.monotonic()
        seen: _Seen = {"last": None, "states": {}}

        def clean() -> bool:
            states = seen["states"] = self.pg_states()
            if not set(states) <= {"active+clean"}:
                return False
            settle = self._map_changed + SETTLE_S - time.monotonic()
            return settle <= 0              # else the picture may predate the last change

        def show(elapsed: float, _: object) -> None:
            # Progress (progress=False silences it), on stderr like core/progress.py's stages.
            if progress and seen["states"] != seen["last"]:
                print(f"[{elapsed:5.1f} s] {_fmt(seen['states'])}", file=sys.stderr, flush=True)
            seen["last"] = seen["states"]
        poll_until(clean, timeout, "all PGs active+clean", interval=interval, progress=show,
                   describe=lambda: _fmt(seen["states"]),
                   hint="check `ceph health detail` (are all OSDs up and in?)")
        if progress and seen["last"] is not None:
            print(f"[{time.monotonic() - t0:5.1f} s] all PGs active+clean", file=sys.stderr, flush=True)
        return time.monotonic() - t0

    # -- where PGs are --------------------------------------------------------------------------
    def pgs_brief(self) -> list[dict[str, Any]]:
        """The mgr's latest PG stats, one row per PG (pgid, state, up, acting, ...), from
        `ceph pg dump pgs_brief`: what the OSDs last reported."""
        return pg_list(self.client.mgr("pg dump", dumpcontents=["pgs_brief"]))

    def up_sets(self, pool_ids: Iterable[int | str], source: str = "mgr") -> dict[str, list[int]]:
        """{pgid: up set} of the pools' PGs, as the OSDs last reported them (source="mgr",
        `ceph pg dump pgs_brief`) or as the current osdmap places them (source="osdmap",
        `ceph pg map` per PG: the mon runs Ceph's own CRUSH code, under a millisecond each)."""
        if source not in ("mgr", "osdmap"):
            raise ValueError(f"source must be 'mgr' or 'osdmap', not {source!r}")
        ids = {str(p) for p in pool_ids}
        sets = {r["pgid"]: r["up"] for r in self.pgs_brief() if r["pgid"].split(".")[0] in ids}
        return self._osdmap_up(sets) if source == "osdmap" else sets

    def _osdmap_up(self, pgids: Iterable[str]) -> dict[str, list[int]]:
        return {pg: self.client.mon("pg map", pgid=pg)["up"] for pg in pgids}

    def wait_for_pg_stats(self, pool_ids: Iterable[int | str], timeout: float = 60,
                          interval: float = 0.5) -> dict[str, list[int]]:
        """Wait until the OSDs' reports (the mgr's view) place every PG of the pools where the
        current osdmap does; returns those up sets. After a map change the mgr lags by a stats
        report or two, and counting moved PGs before then undercounts (a loaded CI host once
        showed 71 of 112 changed PGs)."""
        lagging: list[str] = []

        def agree() -> dict[str, list[int]] | None:
            reported = self.up_sets(pool_ids, "mgr")
            placed = self._osdmap_up(reported)          # the same PGs, without a second dump
            lagging[:] = sorted(pg for pg in placed if reported[pg] != placed[pg])
            return None if lagging else reported
        return poll_until(agree, timeout, "the OSDs' reports placing every PG where the osdmap does",
                          interval=interval,
                          describe=lambda: f"{len(lagging)} PGs elsewhere, e.g. {lagging[:3]}",
                          hint="check `ceph -s` for down OSDs or stuck peering")

    # -- checksummed objects ----------------------------------------------------------------------
    def write_checked_objects(self, pool: str, count: int = 100, size: int = 4096, prefix: str = "obj",
                              threads: int = 8) -> dict[str, str]:
        """Write `count` objects of random bytes; returns the manifest {name: md5 hex}."""
        return checksums.write_objects(self, pool, count, size, prefix, threads)

    def verify_objects(self, pool: str, manifest: dict[str, str], threads: int = 8) -> list[str]:
        """Names in the manifest whose object is missing or differs (empty list: all intact)."""
        return checksums.verify_objects(self, pool, manifest, threads)


def _fmt(states: dict[str, int]) -> str:
    return ", ".join(f"{n} {s}" for s, n in sorted(states.items(), key=lambda x: -x[1])) or "no PGs"
