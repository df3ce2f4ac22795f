"""Lab 11 helpers: a cephadm cluster (container hosts or Vagrant VMs) seen as containers and hosts.

    ok, why = cephadm_ready()                      # the lab's cluster part runs only when ok
    orch_ps(c)                                     # one row per daemon container (`ceph orch ps`)
    redeploy(c, "osd.3")                           # new container, same data: before/after rows
    placement = pool_placement(c, pool)            # up sets: the cluster's and models.crush's
    host_down(c, "ceph3") ... host_up(c, "ceph3")  # stop / start one whole host

The placement functions work on any cluster (tests run them on the native one); the rest needs
cephadm (`ceph orch`) and Vagrant.
"""
from __future__ import annotations

import os
import re
import time
from datetime import datetime, timedelta, timezone

from cephlab.cluster.api import Cluster
from cephlab.core import run
from cephlab.core.errors import ClusterError
from cephlab.core.poll import poll_until
from models.crush import objects, parse_json


def cephadm_ready():
    """(True, "") when this notebook should use a cephadm cluster ($CEPHLAB_BACKEND names one
    and it runs), else (False, the reason)."""
    return Cluster.backend_ready(os.environ.get("CEPHLAB_BACKEND"), orchestrated=True)


# -- daemons as containers -------------------------------------------------------------------------
def orch_ps(cluster, refresh=False, timeout=180):
    """One dict per daemon from `ceph orch ps` (host, daemon, container id, status, started).

    refresh: cephadm's answer is its cache; `--refresh` only asks for a new look, so wait until
    every host has been looked at since the call (a host that just came back shows its
    daemons as stopped until then)."""
    since = datetime.now(timezone.utc) - timedelta(seconds=1)
    if refresh:
        def fresh():
            daemons = cluster.ceph("orch", "ps", "--refresh", timeout=60)
            return daemons if all(_when(d.get("last_refresh")) >= since for d in daemons) else None
        daemons = poll_until(fresh, timeout, "cephadm's fresh look at every host (`ceph orch ps --refresh`)",
                             interval=3.0)
    else:
        daemons = cluster.ceph("orch", "ps", timeout=60)
    rows = []
    for d in daemons:
        rows.append({"host": d["hostname"], "daemon": f"{d['daemon_type']}.{d['daemon_id']}",
                     "container": (d.get("container_id") or "")[:12],
                     "status": d.get("status_desc", "?"), "started": d.get("started"),
                     "image": d.get("container_image_name", "")})
    return sorted(rows, key=lambda r: (r["host"], r["daemon"]))


def _when(stamp):
    """cephadm's ISO time stamp ("2026-11-24T23:01:17.457275Z") as an aware datetime."""
    if not stamp:
        return datetime.min.replace(tzinfo=timezone.utc)
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def daemon_counts(rows):
    """{daemon type: count} of orch_ps rows that are running."""
    counts: dict[str, int] = {}
    for r in rows:
        if r["status"] == "running":
            kind = r["daemon"].split(".")[0]
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def _row(cluster, daemon):
    return next((r for r in orch_ps(cluster, refresh=True) if r["daemon"] == daemon), None)


def redeploy(cluster, daemon, timeout=300, interval=2.0):
    """`ceph orch daemon redeploy DAEMON`: cephadm removes its container and starts a new one
    from the image, on the same host data dir. Waits until `ceph orch ps` shows a running
    container with a new id (and, for an OSD, until it is up again).
    Returns (row before, row after, seconds)."""
    before = _row(cluster, daemon)
    if before is None:
        raise ClusterError(f"`ceph orch ps` lists no {daemon}: pick one of its daemons")
    t0 = time.monotonic()
    cluster.ceph("orch", "daemon", "redeploy", daemon, timeout=120)

    def new_container():
        row = _row(cluster, daemon)
        ok = row and row["status"] == "running" and row["container"] not in ("", before["container"])
        return row if ok else None
    after = poll_until(new_container, timeout, f"{daemon} running in a new container", interval=interval,
                       describe=lambda: str(_row(cluster, daemon)),
                       hint="see `ceph orch ps` and `ceph health detail`")
    if daemon.startswith("osd."):
        cluster.wait_osd(int(daemon.split(".")[1]), up=True, timeout=timeout)
    return before, after, time.monotonic() - t0


def osd_uuid(cluster, osd_id):
    """The OSD's own uuid from the osdmap: written in its data dir at creation, so a new
    container that finds it again is the same OSD."""
    return next(o["uuid"] for o in cluster.ceph("osd", "dump")["osds"] if o["osd"] == int(osd_id))


# -- hosts and placement ----------------------------------------------------------------------------
def hosts(cluster):
    """{host: [osd ids]} from the CRUSH tree."""
    nodes = cluster.ceph("osd", "tree")["nodes"]
    return {n["name"]: sorted(n.get("children", [])) for n in nodes if n["type"] == "host"}


def osd_host(cluster, osd_id):
    """The host that runs osd.N (its CRUSH location)."""
    return cluster.ceph("osd", "find", str(int(osd_id)))["crush_location"]["host"]


def pool_placement(cluster, pool):
    """{pgid: (cluster's up set, models.crush's up set)} for every PG of `pool`: the monitors'
    `ceph pg map` (computed from the current osdmap) next to models.crush on the same `osd dump`
    and `osd crush dump`. Not the mgr's PG stats: right after a pool changes its rule they
    still show the old up sets for a while."""
    cmap = parse_json.parse(cluster.ceph("osd", "crush", "dump"))
    pools, state = objects.from_osd_dump(cluster.ceph("osd", "dump"))
    p = pools[pool]
    model = {m["pgid"]: m["up"] for m in objects.pgs_to_osds(cmap, p, range(p.pg_num), state)}
    live = {}
    for pgid in model:
        live[pgid] = list(cluster.ceph("pg", "map", pgid)["up"])
    return {pgid: (live[pgid], model[pgid]) for pgid in sorted(model)}


def pool_states(cluster, pool):
    """{pgid: state} of the PGs of `pool` (the mgr's view)."""
    pgs = cluster.pg_stats(pool=pool)
    return {pg["pgid"]: pg["state"] for pg in pgs}


def pool_stat(cluster, pool, key):
    """Sum of one stat_sum counter (e.g. "num_objects_recovered") over the PGs of `pool`."""
    pgs = cluster.pg_stats(pool=pool)
    return sum(pg["stat_sum"].get(key, 0) for pg in pgs)


def wait_states(cluster, pool, done, timeout=180, interval=1.0):
    """Poll pool_states until done(states) is true; returns (states, seconds)."""
    t0 = time.monotonic()
    last = {}

    def settled():
        last["states"] = pool_states(cluster, pool)
        return last["states"] and done(last["states"])
    poll_until(settled, timeout, f"PGs of {pool} settled", interval=interval,
               describe=lambda: str(sorted(set(last.get("states", {}).values()))))
    return last["states"], time.monotonic() - t0


def wait_settled(cluster, pool, gone, timeout=180, interval=1.0):
    """After the OSDs `gone` stop: wait until the mgr's PG stats of `pool` no longer place any of
    them in an up set (so the states are not the picture from before) and no PG is peering.
    Returns ({pgid: state}, seconds)."""
    gone = {int(o) for o in gone}
    busy = ("peering", "activating", "unknown")
    t0 = time.monotonic()
    last = {}

    def settled():
        pgs = cluster.pg_stats(pool=pool)
        last["states"] = {pg["pgid"]: pg["state"] for pg in pgs}
        return pgs and not any(gone & set(pg["up"]) for pg in pgs) and \
            not any(b in s for s in last["states"].values() for b in busy)
    poll_until(settled, timeout, f"PGs of {pool} off {sorted(gone)} and not peering",
               interval=interval, describe=lambda: str(sorted(set(last.get("states", {}).values()))))
    return last["states"], time.monotonic() - t0


def osds_down(cluster, osds):
    """True when every OSD in `osds` is marked down in the osdmap."""
    up = {o["osd"]: o["up"] for o in cluster.ceph("osd", "dump")["osds"]}
    return all(not up.get(int(o), 0) for o in osds)


def wait_osds(cluster, osds, up, timeout=300, interval=1.0):
    """Wait until every OSD of `osds` is up (or down); returns the seconds waited."""
    t0 = time.monotonic()

    def reached():
        states = {o["osd"]: bool(o["up"]) for o in cluster.ceph("osd", "dump")["osds"]}
        return all(states.get(int(o)) == up for o in osds)
    poll_until(reached, timeout, f"OSDs {sorted(osds)} all {'up' if up else 'down'}", interval=interval)
    return time.monotonic() - t0


# -- a whole node -----------------------------------------------------------------------------------
def host_down(cluster, host, timeout=300):
    """Stop one whole host cleanly (`vagrant halt`, or the container host's shutdown): its OSDs
    tell the monitors they stop. Waits until they are marked down; returns seconds."""
    return _switch_host(cluster, host, up=False, timeout=timeout)


def host_up(cluster, host, timeout=600):
    """Start the host again (no provisioning); systemd starts its daemons' containers again.
    Waits until its OSDs are up; returns seconds."""
    return _switch_host(cluster, host, up=True, timeout=timeout)


def _switch_host(cluster, host, up, timeout):
    osds = hosts(cluster)[host]
    t0 = time.monotonic()
    (cluster.start_host if up else cluster.stop_host)(host)
    wait_osds(cluster, osds, up=up, timeout=timeout)
    return time.monotonic() - t0


def monitor_address(cluster):
    """The IP address of the first monitor in the monmap (a node's address on the cluster's
    network: what a client's round trip crosses)."""
    mon = cluster.ceph("mon", "dump")["mons"][0]
    return mon["public_addr"].split("/")[0].rsplit(":", 1)[0]


def ping_ms(address, count=5):
    """Average round-trip time to `address` in ms (`ping`), or None when ping is missing."""
    try:
        out = run.run(["ping", "-c", str(count), "-i", "0.2", "-q", address], timeout=30,
                      check=False).stdout
    except (OSError, ClusterError):      # ping missing, or no answer in time
        return None
    m = re.search(r"= [\d.]+/([\d.]+)/", out)
    return float(m.group(1)) if m else None
