"""The smoke test of a multi-host cluster (`cephlab smoke`, run by vagrant/up-and-check.sh and the
cephadm container tests): the checks a lab relies on, through the same API the labs use."""
from __future__ import annotations

from typing import Any

from cephlab.core.errors import ClusterError
from cephlab.core.poll import PollTimeout, poll_until

SMOKE_POOL = "cephlab-smoke"


def smoke_check(cluster, osds=None, hosts=None, failure_domain="host", bench_seconds=5,
                faults=True, health_timeout=120):
    """Check a cluster through the API a lab uses; returns {check: result}, raises ClusterError.

    HEALTH_OK (within `health_timeout` s: a cluster just brought up, or whose OSD just came
    back, passes through a warning while its PGs peer); `osds` OSDs up and in; `hosts` hosts in
    the CRUSH map; the default rule picks leaves of type `failure_domain`; a size-3 pool takes
    checksummed objects and reads them back; `rados bench` writes; (faults) the last OSD stops
    and starts again; the pool is removed.
    """
    try:
        poll_until(lambda: cluster.health() == "HEALTH_OK", health_timeout, "HEALTH_OK", interval=2)
    except PollTimeout:
        raise ClusterError(f"health is {cluster.health()} after {health_timeout} s: "
                           f"{cluster.health_detail()}") from None
    out: dict[str, Any] = {"health": "HEALTH_OK"}
    osdmap = cluster.ceph("osd", "dump")["osds"]
    out["osds_up_in"] = sum(1 for o in osdmap if o["up"] and o["in"])
    if osds is not None and out["osds_up_in"] != osds:
        raise ClusterError(f"{out['osds_up_in']} OSDs up and in, expected {osds}")
    tree = cluster.ceph("osd", "tree")["nodes"]
    out["hosts"] = sorted(n["name"] for n in tree if n["type"] == "host")
    if hosts is not None and len(out["hosts"]) != hosts:
        raise ClusterError(f"CRUSH has hosts {out['hosts']}, expected {hosts}")
    rule = cluster.ceph("osd", "crush", "rule", "dump", "replicated_rule")
    out["failure_domain"] = next((s["type"] for s in rule["steps"] if s["op"].startswith("choose")), None)
    if failure_domain is not None and out["failure_domain"] != failure_domain:
        raise ClusterError(f"replicated_rule picks by {out['failure_domain']}, expected {failure_domain}")
    with cluster.resources() as r:
        r.replicated_pool(SMOKE_POOL, size=3, pg_num=16)
        manifest = cluster.write_checked_objects(SMOKE_POOL, count=20)
        bad = cluster.verify_objects(SMOKE_POOL, manifest)
        if bad:
            raise ClusterError(f"objects read back wrong or missing: {bad[:5]}")
        out["objects_verified"] = len(manifest)
        bench = cluster.rados_bench(SMOKE_POOL, bench_seconds, block_size=4096, threads=8)
        out["bench_write_iops"] = round(bench.iops, 1)
        if faults:
            last = max(cluster.state["osds"])
            cluster.stop_osd(last)
            cluster.start_osd(last)
            out["osd_stopped_and_started"] = last
    return out
