"""Build CRUSH maps in code: N hosts of k equal OSDs under one root, with two rules.

The one builder of the course's "hosts" map (lab 02's failure-domain map and its 10,000-OSD map of
500 hosts, lab 11's Vagrant map, the flat single-host map of the placement tests). It writes the
text `crushtool -d` prints, so the same map can be compiled by `crushtool -c` or read by `parse_text`:

    hosts_map_text(4, 3, prefix="h", first=0)    # hosts h0..h3, osd.0-2 on h0, ...
    hosts_map(3, 2)                              # the Vagrant cluster: ceph1..ceph3

Rules: 0 "by_host" (`step chooseleaf firstn 0 type host`) and 1 "by_osd" (`step choose firstn 0
type osd`). Bucket ids: root -1, host h is -2 - h. Tunables: Pacific's (profile "jewel").
Provenance: Ceph code, Pacific (16.2) src/crush/CrushCompiler.cc grammar; the builder is written
for the lab.
"""
from __future__ import annotations

from . import parse_text
from .crushmap import CrushMap

# Pacific's tunables (what `ceph osd crush dump` shows on a 16.2 cluster: profile "jewel").
PACIFIC_TUNABLES = """
tunable choose_local_tries 0
tunable choose_local_fallback_tries 0
tunable choose_total_tries 50
tunable chooseleaf_descend_once 1
tunable chooseleaf_vary_r 1
tunable chooseleaf_stable 1
tunable straw_calc_version 1
tunable allowed_bucket_algs 54
"""

MAX_HOSTS = 1000   # lab 02's 10,000-OSD map has 500 hosts; up to 100 OSDs per host

RULES = (("by_host", "chooseleaf firstn 0 type host"), ("by_osd", "choose firstn 0 type osd"))


def _count(name, value, hi=100):
    if isinstance(value, bool) or int(value) != value or not 1 <= int(value) <= hi:
        raise ValueError(f"{name} must be a whole number from 1 to {hi}, got {value!r}")
    return int(value)


def hosts_map_text(hosts, osds_per_host, weight=1.0, prefix="ceph", first=1, device_class="hdd"):
    """The `crushtool -d` text of `hosts` hosts named prefix+first, prefix+first+1, ... with
    `osds_per_host` OSDs each of weight `weight` (TiB), OSDs numbered host by host (osd.0 ..
    osd.k-1 on the first host), and the rules 0 "by_host" and 1 "by_osd". device_class: the
    class of every OSD, or None for none. Pacific tunables."""
    hosts = _count("hosts", hosts, hi=MAX_HOSTS)
    per_host = _count("osds_per_host", osds_per_host)
    weight = float(weight)
    if not weight > 0:
        raise ValueError(f"weight must be > 0, got {weight!r}")
    cls = f" class {device_class}" if device_class else ""
    names = [f"{prefix}{first + h}" for h in range(hosts)]
    # crushtool's grammar wants devices, then types, then buckets, then rules
    lines = [f"device {i} osd.{i}{cls}" for i in range(hosts * per_host)]
    lines += ["type 0 osd", "type 1 host", "type 11 root"]
    for h, name in enumerate(names):
        lines += [f"host {name} {{", f"id {-2 - h}", "alg straw2", "hash 0"]
        lines += [f"item osd.{h * per_host + j} weight {weight:.5f}" for j in range(per_host)] + ["}"]
    lines += ["root default {", "id -1", "alg straw2", "hash 0"]
    lines += [f"item {name} weight {weight * per_host:.5f}" for name in names] + ["}"]
    for rule_id, (name, step) in enumerate(RULES):
        lines += [f"rule {name} {{", f"id {rule_id}", "type replicated", "min_size 1", "max_size 10",
                  "step take default", f"step {step}", "step emit", "}"]
    return PACIFIC_TUNABLES + "\n".join(lines) + "\n"


def hosts_map(hosts, osds_per_host, weight=1.0, prefix="ceph", first=1, device_class="hdd") -> CrushMap:
    """parse_text.parse(hosts_map_text(...)): the CrushMap (same arguments)."""
    return parse_text.parse(hosts_map_text(hosts, osds_per_host, weight, prefix, first, device_class))


def host_of(hosts, osds_per_host):
    """The host index (0-based, in build order) of each OSD id 0 .. hosts x osds_per_host - 1."""
    per_host = _count("osds_per_host", osds_per_host)
    return [osd // per_host for osd in range(_count("hosts", hosts, hi=MAX_HOSTS) * per_host)]
