"""What goes into a lab cluster's ceph.conf, its keyrings and its mon config database.

ceph.conf holds only paths and what must be known before the mon runs (bootstrap);
every tunable goes into the mon config database so `ceph config dump` shows it.
"""
from __future__ import annotations

import base64
import os
import struct
import time

# Bytes: the smallest osd_memory_target Ceph accepts, so 4-5 OSDs fit in a few GiB.
OSD_MEMORY_TARGET_MIN = 939524096
BLUESTORE_BLOCK_SIZE = "8G"       # apparent size of each OSD's sparse block file
FILESTORE_JOURNAL_MIB = 512



def make_key(kind=(1, 16)):
    """A new cephx secret: le16 type, le32 sec, le32 nsec, le16 length, then the key bytes;
    kind = (type, length) from the release table: (1, 16) AES-128, (2, 32) AES-256."""
    key_type, length = kind
    raw = struct.pack("<HIIH", key_type, int(time.time()), 0, length) + os.urandom(length)
    return base64.b64encode(raw).decode()


CAPS = {
    "mon.": {"mon": "allow *"},
    "client.admin": {"mon": "allow *", "osd": "allow *", "mds": "allow *", "mgr": "allow *"},
    "mgr.x": {"mon": "allow profile mgr", "osd": "allow *", "mds": "allow *"},
    "mds.a": {"mon": "allow profile mds", "osd": "allow *", "mds": "allow *", "mgr": "allow profile mds"},
}


def keyring_text(entity, key, caps=None):
    caps = CAPS.get(entity, {}) if caps is None else caps
    lines = [f"[{entity}]", f"\tkey = {key}"]
    lines += [f'\tcaps {kind} = "{cap}"' for kind, cap in caps.items()]
    return "\n".join(lines) + "\n"


def write_private(path, text):
    """Write a secret file readable by its owner only (0600 from the start)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)


def ceph_conf(d, fsid, ports, objectstore="bluestore", class_dir=None):
    """The text of <d>/ceph.conf: every path under the folder `d`, ports from `ports`;
    class_dir: the OSD's object-class folder, set only where the release's default is relative."""
    mon_host = f"[v2:127.0.0.1:{ports['mon_v2']},v1:127.0.0.1:{ports['mon_v1']}]"
    text = f"""# Written by cephlab: paths and bootstrap only. Tunables live in the mon config
# database (ceph config dump). Everything below stays inside {d}.
[global]
fsid = {fsid}
mon host = {mon_host}
mon initial members = a
# both messengers (and so the OSDs' heartbeats) on loopback: nothing reachable from elsewhere
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv4 = true
ms bind ipv6 = false
ms bind port min = {ports['bind_min']}
ms bind port max = {ports['bind_max']}
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
run dir = {d}/run
admin socket = $run_dir/$name.asok
pid file = $run_dir/$name.pid
crash dir = {d}/crash
tmp dir = {d}/tmp
log file = {d}/log/$name.log
mon cluster log file = {d}/log/cluster.log
mon data = {d}/mon/$id
mgr data = {d}/mgr/$id
osd data = {d}/osd/$id
mds data = {d}/mds/$id
mgr module path = {d}/mgr-modules
# read when the mon store and the first maps are created
osd crush chooseleaf type = 0
mgr initial modules = iostat

[mon]
keyring = $mon_data/keyring
[mgr]
keyring = $mgr_data/keyring
[mds]
keyring = $mds_data/keyring
# a new file system's root belongs to the lab's user (not root): a ceph-fuse mount by a user
# without root (a container's learner, a normal user) can create files in it
mds root ino uid = {os.getuid()}
mds root ino gid = {os.getgid()}
[osd]
keyring = $osd_data/keyring
osd objectstore = {objectstore}
"""
    if class_dir:
        text += f"""# this release's default is a relative path: daemons started in {d} would not find them
osd class dir = {class_dir}
"""
    if objectstore == "bluestore":
        text += f"""bluestore block create = true
bluestore block size = {BLUESTORE_BLOCK_SIZE}
bluestore fsck on mkfs = false
"""
    else:
        text += f"""osd journal = $osd_data/journal
osd journal size = {FILESTORE_JOURNAL_MIB}
# ext4 limits object names; FileStore refuses to mkfs without these
osd max object name len = 256
osd max object namespace len = 64
"""
    text += f"""
[client]
keyring = {d}/keyring
log file = {d}/log/$name.log
admin socket = $run_dir/$name.$pid.asok
"""
    return text


def tunables(osds):
    """(who, option, value) set in the mon config database when the cluster is created."""
    size = min(3, osds)
    items = [
        # one mon: commit map changes after 0.1 s instead of batching them for 1 s, so each
        # pool create/delete or config change takes ~0.1 s instead of ~1 s
        ("mon", "paxos_propose_interval", "0.1"),
        ("global", "osd_pool_default_pg_autoscale_mode", "off"),   # deterministic PG counts
        ("global", "osd_pool_default_size", str(size)),
        ("global", "osd_pool_default_min_size", str(max(1, size - 1))),
        ("mon", "mon_allow_pool_delete", "true"),
        ("global", "mgr_stats_period", "1"),      # PG states reach the mgr within 1 s, not 5
        ("mon", "mon_mgr_digest_period", "1"),    # ...and `ceph status` within 1 s
        ("mon", "auth_allow_insecure_global_id_reclaim", "false"),
        ("mon", "mon_data_avail_warn", "2"),                         # host disks are often full-ish
        ("mon", "mon_osd_reporter_subtree_level", "osd"),           # all OSDs share one host
        ("osd", "osd_memory_target", str(OSD_MEMORY_TARGET_MIN)),
        ("mgr", "mgr/devicehealth/enable_monitoring", "false"),    # no device_health_metrics pool
        # A deleted pool's space comes back at once, not at 30 objects per 5 s (HDD default):
        # labs delete their pools in cleanup and the next lab measures usage (lab 06 measured
        # 84 MiB too little while earlier labs' pools were still being freed).
        ("osd", "osd_delete_sleep_hdd", "0"),
        ("osd", "osd_delete_sleep_ssd", "0"),
        ("osd", "osd_delete_sleep_hybrid", "0"),
    ]
    if size < 2:
        items.append(("global", "mon_warn_on_pool_no_redundancy", "false"))
    return items
