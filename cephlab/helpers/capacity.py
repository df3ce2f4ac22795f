"""What the OSDs hold and what a pool can still take (lab 06), and how much dirty data the page
cache takes before writeback stalls (lab 04).

    usage = osd_usage(c)                      # DataFrame: size, used, data (bytes), weight; by OSD id
    avail, usage = steady_max_avail(c, pool)  # `ceph df` MAX AVAIL with the usage read around it
    dirty_limit_mib(0.20)                     # vm.dirty_ratio x MemAvailable of this machine
"""
from __future__ import annotations

import time

import pandas as pd

from cephlab.core import proc


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


def dirty_limit_mib(dirty_ratio=0.20):
    """How much dirty page-cache data (MiB) this machine takes before writers are throttled:
    dirty_ratio x MemAvailable (/proc/meminfo)."""
    return dirty_ratio * proc.meminfo_mib("MemAvailable")
