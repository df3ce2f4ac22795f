"""Where a containerised Ceph daemon keeps what must survive its container.

A container is ephemeral: delete it and whatever it wrote inside is gone (seed
000_ff3932318711fad8.txt, NAVER, OpenStack Days 2017: "stateless vs stateful", "ephemeral vs
persistent storage"). A Ceph daemon is stateful, so both ways of containerising it put the state
on the host and mount it in:

* the thesis (seed 002_696ca3a238e3edbe.txt, J. Neudecker, HAW Hamburg 2021) starts every daemon
  by hand with one `docker run -d` of the ceph/daemon image, all of them sharing the host folders
  /docker/ceph/data/etc (-> /etc/ceph) and /docker/ceph/data/lib (-> /var/lib/ceph);
* cephadm (Ceph Pacific) runs each daemon as a systemd unit whose ExecStart is a `podman run
  --rm` (the container is deleted when it stops and made afresh when it starts), with the
  daemon's own folder /var/lib/ceph/<fsid>/<type>.<id> mounted at /var/lib/ceph/<type>/ceph-<id>.

`cephadm_layout` gives those names for one daemon, from cephadm's own rules (Ceph v16.2.15,
src/cephadm/cephadm: get_data_dir, get_log_dir, get_unit_name, CephContainer.cname,
get_container_mounts). `thesis_layout` gives the thesis's, for the comparison table.
"""
from __future__ import annotations

import re

DAEMON_TYPES = ("mon", "mgr", "osd", "mds", "rgw", "crash")
_FSID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_DAEMON_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def parse_daemon(name):
    """'osd.3' -> ('osd', '3'); ValueError for anything that is not <type>.<id>."""
    daemon_type, _, daemon_id = str(name).partition(".")
    if daemon_type not in DAEMON_TYPES or not _DAEMON_ID.fullmatch(daemon_id):
        raise ValueError(f"daemon must be <type>.<id> with type one of {', '.join(DAEMON_TYPES)}, "
                         f"e.g. 'osd.3', got {name!r}")
    return daemon_type, daemon_id


def cephadm_layout(fsid, daemon):
    """What cephadm (Pacific) names and mounts for one daemon, e.g. daemon="osd.3".

        unit           ceph-<fsid>@<type>.<id>.service          (systemd, on the daemon's host)
        container      ceph-<fsid>-<type>-<id>                   (podman run --rm --name ...)
        host data dir  /var/lib/ceph/<fsid>/<type>.<id>          (persistent: survives the container)
        mounted at     /var/lib/ceph/<type>/ceph-<id>            (rgw: /var/lib/ceph/radosgw/ceph-rgw.<id>)
        config         <host data dir>/config -> /etc/ceph/ceph.conf
        logs           /var/log/ceph/<fsid> -> /var/log/ceph

    The container name has '.' replaced by '-' (podman would turn dots into a domain name).
    Valid: fsid a lower-case UUID, daemon '<type>.<id>' of DAEMON_TYPES. Returns a dict of str.
    Source: Ceph v16.2.15 src/cephadm/cephadm; provenance: Ceph code, Pacific.
    """
    if not isinstance(fsid, str) or not _FSID.fullmatch(fsid):
        raise ValueError(f"fsid must be the cluster's UUID in lower case (`ceph fsid`), got {fsid!r}")
    daemon_type, daemon_id = parse_daemon(daemon)
    data = f"/var/lib/ceph/{fsid}/{daemon_type}.{daemon_id}"
    inside = (f"/var/lib/ceph/radosgw/ceph-rgw.{daemon_id}" if daemon_type == "rgw"
              else f"/var/lib/ceph/{daemon_type}/ceph-{daemon_id}")
    return {"unit": f"ceph-{fsid}@{daemon_type}.{daemon_id}.service",
            "container": f"ceph-{fsid}-{daemon_type}.{daemon_id}".replace(".", "-"),
            "host data dir": data,
            "mounted at": inside if daemon_type != "crash" else "(not mounted)",
            "config": f"{data}/config -> /etc/ceph/ceph.conf",
            "logs": f"/var/log/ceph/{fsid} -> /var/log/ceph",
            "removed on stop": "yes (podman run --rm)"}


def thesis_layout(daemon):
    """The same for the thesis's hand-made containers (seed 002, section 2.2.2): one
    `docker run -d ... --name ceph_<type>... ceph/daemon <type>` per daemon, every daemon sharing
    the host folders /docker/ceph/data/{etc,lib}. Provenance: paper (seed 002)."""
    daemon_type, daemon_id = parse_daemon(daemon)
    return {"unit": "(none: docker restarts it only with a --restart policy)",
            "container": f"ceph_{daemon_type}{daemon_id}",
            "host data dir": "/docker/ceph/data/lib (shared by every daemon)",
            "mounted at": "/var/lib/ceph",
            "config": "/docker/ceph/data/etc -> /etc/ceph (shared)",
            "logs": "inside the container (docker logs)",
            "removed on stop": "no (docker run -d without --rm)"}
