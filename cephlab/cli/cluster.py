"""`cephlab up | down | status | env | smoke`: thin wrappers on the cluster API (cephlab.cluster.api),
for whichever backend --backend names (cephlab.backends)."""
from __future__ import annotations

import argparse
import shlex
import sys

from cephlab import backends
from cephlab.cluster.api import Cluster
from cephlab.core import ceph_version, diskspace, releases
from cephlab.core.errors import ClusterError, FolderUnusable
from cephlab.core.names import DEFAULT_NAME, check_name, default_cluster_name
from cephlab.helpers import cleanup, smoke


def _osd_count(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 16, got {text!r}") from None
    if not 1 <= n <= 16:
        raise argparse.ArgumentTypeError(f"must be from 1 to 16, got {n}")
    return n


def _name(text):
    try:
        return check_name(text)
    except ClusterError as e:
        raise argparse.ArgumentTypeError(str(e)) from e


def _where(p):
    p.add_argument("--name", type=_name, default=default_cluster_name(),
                   help="cluster name (default: %(default)s; $CEPHLAB_NAME)")
    p.add_argument("--dir", help="cluster folder (default: $CEPHLAB_DIR/<name>, else "
                                 "$XDG_STATE_HOME/cephlab/<name> or ~/.local/state/cephlab/<name>)")
    p.add_argument("--backend", choices=backends.names(), default=backends.default_name(),
                   help="; ".join(f"{n}: {backends.get(n).summary}" for n in backends.names())
                        + " (default: %(default)s; $CEPHLAB_BACKEND)")


def register(sub):
    p = sub.add_parser("up", help="start the mini cluster (or repair it; no-op when it runs)")
    _where(p)
    p.add_argument("--osds", type=_osd_count, default=3, help="number of OSDs (default 3)")
    p.add_argument("--objectstore", choices=("bluestore", "filestore"), default="bluestore")
    p.add_argument("--mds", action="store_true", help="also start an MDS with a CephFS")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=cmd_up)

    p = sub.add_parser("down", help="stop the cluster's daemons and remove its folder")
    _where(p)
    p.add_argument("--keep", action="store_true", help="keep the folder (data, logs) for a later up")
    p.add_argument("--destroy", action="store_true",
                   help="vagrant backend: destroy the VMs instead of halting them")
    p.set_defaults(func=cmd_down)

    p = sub.add_parser("status", help="health, daemons, pools and usage")
    _where(p)
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("smoke", help="check a running cluster through the labs' API (HEALTH_OK, "
                                     "OSDs, hosts, failure domain, checksummed objects, a bench)")
    _where(p)
    p.add_argument("--osds", type=int, help="expected OSDs up and in")
    p.add_argument("--hosts", type=int, help="expected hosts in the CRUSH map")
    p.add_argument("--failure-domain", default="host",
                   help="the leaf type the default rule must pick (default: %(default)s)")
    p.set_defaults(func=cmd_smoke)

    p = sub.add_parser("env", help='print exports for ceph/rados/rbd/fio: eval "$(cephlab env)"')
    _where(p)
    p.set_defaults(func=cmd_env)


def _fail(e):
    """One line on stderr; status 2 for a --dir that cannot hold a cluster (a usage error, as
    argparse's), else 1."""
    print(f"cephlab: error: {e}", file=sys.stderr)
    return 2 if isinstance(e, FolderUnusable) else 1


def cmd_up(args):
    try:
        b = backends.get(args.backend)
        d, state, what = b.up(
            args.name, args.dir, osds=args.osds, objectstore=args.objectstore, mds=args.mds,
            progress=not args.quiet)
    except ClusterError as e:
        return _fail(e)
    if what == "running":
        print(f"cluster {args.name} is already running in {d} (nothing changed)")
        asked = (args.osds, args.objectstore, args.mds)
        has = (len(state["osds"]), state["objectstore"], state["mds"])
        if asked != has:
            print(f"note: it has {has[0]} {has[1]} OSDs{' and an MDS' if has[2] else ''}; "
                  f"`cephlab down --name {args.name}` first to change that")
    elif b.up_message(args.name, d, what):
        print(b.up_message(args.name, d, what))
    print(f'use it from a shell with: eval "$(cephlab env{_flags(args)})"')
    return 0


def _flags(args):
    out = "" if args.name == DEFAULT_NAME else f" --name {args.name}"
    out += f" --backend {args.backend}" if args.backend != backends.DEFAULT else ""
    return out + (f" --dir {shlex.quote(args.dir)}" if args.dir else "")


def cmd_down(args):
    """Free what the labs attached here (mounts, loop devices), then the backend's own down."""
    try:
        stopped = cleanup.down(args.name, args.dir, args.backend, keep=args.keep,
                               destroy=args.destroy)
    except ClusterError as e:
        return _fail(e)
    b = backends.get(args.backend)
    print(b.down_message(args.name, b.folder(args.name, args.dir), stopped, args.keep, args.destroy))
    return 0


def _connect(args):
    return Cluster.connect(args.name, args.dir, backend=args.backend)


def cmd_env(args):
    try:
        c = _connect(args)
    except ClusterError as e:
        return _fail(e)
    for key, value in c.env().items():
        print(f"export {key}={shlex.quote(value)}")
    c.close()
    return 0


def cmd_smoke(args):
    try:
        c = _connect(args)
        try:
            result = smoke.smoke_check(c, osds=args.osds, hosts=args.hosts,
                                       failure_domain=args.failure_domain)
        finally:
            c.close()
    except FolderUnusable as e:
        return _fail(e)
    except ClusterError as e:
        print(f"smoke test FAILED: {e}", file=sys.stderr)
        return 1
    for key, value in result.items():
        print(f"  {key}: {value}")
    print(f"smoke test passed (local_daemons={c.local_daemons})")
    return 0


def cmd_status(args):
    try:
        c = _connect(args)
    except ClusterError as e:       # not running, or (vagrant) the VMs do not answer
        code = _fail(e)
        if not isinstance(e, FolderUnusable):
            _host_disk_note(args)
        return code
    try:
        _print_status(c)
    except ClusterError as e:
        return _fail(e)
    finally:
        c.close()
    return 0


def _gib(n):
    return f"{n / 1024 ** 3:.2f} GiB"


def _release_line(c) -> str:
    """The mon's Ceph release, and a pointer to the caveats when it is not Pacific."""
    try:
        major, minor, patch, codename = ceph_version.parse_version(c.client.mon("version")["version"])
    except (ClusterError, KeyError, TypeError, ValueError):
        return "ceph: release unknown (the mon did not say)"
    line = f"ceph: {major}.{minor}.{patch} {codename}"
    if releases.lab_differences(releases.for_major(major), major):
        line += " (the labs were written for 16.2 pacific; `cephlab up` lists what differs here)"
    return line


def _print_status(c):
    st = c.status()
    health = st["health"]
    title = f"{c.backend.title} cluster" if c.backend.title else "cluster"
    print(f"{title} {c.name}: {health['status']}  ({c.dir})")
    print(f"  {_release_line(c)}")
    for name, check in health.get("checks", {}).items():
        print(f"  {name}: {check['summary']['message']}")
    for line in c.status_lines():
        print(line)
    pgmap = st["pgmap"]
    print(f"PGs: {pgmap.get('num_pgs', 0)} " +
          ", ".join(f"{s['count']} {s['state_name']}" for s in pgmap.get("pgs_by_state", [])))
    pools = c.df()
    print("pools:" if pools else "pools: none")
    for name, p in pools.items():
        print(f"  {name:20s} stored {_gib(p['stored'])}, used {_gib(p['used'])}, "
              f"{p['objects']} objects, max avail {_gib(p['max_avail'])}")
    print(f"usage: {_gib(pgmap.get('bytes_used', 0))} used of {_gib(pgmap.get('bytes_total', 0))}")
    _print_space(c)


def _print_space(c):
    """Fill ratios, what is (near)full and the host disk under a local cluster (Cluster.full_state)."""
    try:
        space = c.full_state()
    except ClusterError as e:
        print(f"space: unknown ({e})")
        return
    ratios = ", ".join(f"{k} {f'{100 * v:.2f}'.rstrip('0').rstrip('.')} %" for k, v in space.ratios.items())
    print(f"space: fill ratios {ratios}" if ratios else "space:")
    for line in space.lines():
        print(f"  {line}")


def _host_disk_note(args):
    """When the cluster does not answer: a full host disk under its folder may be why."""
    b = backends.get(args.backend)
    folder = b.folder(args.name, args.dir)
    if not b.local_daemons or not folder.exists():
        return
    disk = diskspace.host_disk(folder)
    if disk.total and disk.level != "ok":      # total 0: /proc or /sys, no disk a cluster fills
        print(f"cephlab: host disk: {disk.summary()} -- {disk.warning()}", file=sys.stderr)
