"""What the OSDs hold and what a pool can still take (lab 06), and how much dirty data the page
cache takes before writeback stalls (lab 04).

    usage = osd_usage(c)                      # DataFrame: size, used, data (bytes), weight; by OSD id
    avail, usage = steady_max_avail(c, pool)  # `ceph df` MAX AVAIL with the usage read around it
    usage = wait_for_data(c, start, added)    # until the OSDs report the data written since `start`
    checks, osds = wait_for_nearfull(c, 4)    # health checks, the OSDs OSD_NEARFULL names
    dirty_limit_mib(0.20)                     # vm.dirty_ratio x MemAvailable of this machine
"""
from __future__ import annotations

import time

import pandas as pd

from cephlab.core import proc
from cephlab.core.poll import PollTimeout, poll_until


def osd_usage_frame(rows):
    """The DataFrame of osd_usage from the rows of `ceph osd df` (nodes): OSDs that are up with
    a CRUSH weight > 0; columns size, used (kb - kb_avail), data (kb_used_data) in bytes and the
    CRUSH weight; index the OSD id."""
    rows = [o for o in rows if o["crush_weight"] > 0 and o["status"] == "up"]
    return pd.DataFrame({"size": [o["kb"] * 1024 for o in rows],
                         "used": [(o["kb"] - o["kb_avail"]) * 1024 for o in rows],
                         "data": [o["kb_used_data"] * 1024 for o in rows],
                         "weight": [o["crush_weight"] for o in rows]},
                        index=pd.Index([o["id"] for o in rows], dtype=int)).astype(float)


def osd_usage(cluster):
    """Per-OSD bytes from `ceph osd df` (OSDs up and with a weight only): osd_usage_frame."""
    return osd_usage_frame(cluster.osd_df())


def steady_max_avail(cluster, pool, tries=10, pause=1.0):
    """(`ceph df` MAX AVAIL of `pool`, osd_usage) read at the same moment: BlueFS grows and
    shrinks its share in 12-24 MiB steps, so retry until the usage did not change around the
    read (at most `tries` times, then the last read)."""
    for _ in range(tries):
        before = osd_usage(cluster)
        avail = cluster.df()[pool]["max_avail"]
        after = osd_usage(cluster)
        if before.equals(after):
            break
        time.sleep(pause)
    return avail, after


def wait_for_data(cluster, start, added, timeout=60, share=0.99):
    """osd_usage once the OSDs' data (column "data") grew by `share` of `added` bytes since the
    usage `start` (OSDs report every few seconds); after `timeout` s the last read, as is."""
    last: list[pd.DataFrame] = []

    def grown():
        last[:] = [osd_usage(cluster)]
        return (last[0]["data"] - start["data"]).sum() >= added * share
    try:
        poll_until(grown, timeout, "the OSDs reporting the data written", interval=1)
    except PollTimeout:
        pass
    return last[0]


def nearfull_osds(cluster):
    """(health checks, the OSD names the OSD_NEARFULL check lists, e.g. ["osd.0"])."""
    checks = cluster.health_detail().get("checks", {})
    return checks, [d["message"].split()[0] for d in checks.get("OSD_NEARFULL", {}).get("detail", [])]


def wait_for_nearfull(cluster, count, timeout=45):
    """nearfull_osds once OSD_NEARFULL names at least `count` OSDs: each OSD checks its own fill
    and tells the monitor on its next report, so they appear one by one. After `timeout` s the
    last read, as is (the caller compares it with its prediction)."""
    last: list[tuple[dict, list[str]]] = []

    def enough():
        last[:] = [nearfull_osds(cluster)]
        return len(last[0][1]) >= count
    try:
        poll_until(enough, timeout, f"{count} OSDs near full", interval=1)
    except PollTimeout:
        pass
    return last[0]


def dirty_limit_mib(dirty_ratio=0.20):
    """How much dirty page-cache data (MiB) this machine takes before writers are throttled:
    dirty_ratio x MemAvailable (/proc/meminfo)."""
    return dirty_ratio * proc.meminfo_mib("MemAvailable")
