"""`cephlab up | down | status | env`: thin wrappers on cephlab.backends.native.lifecycle and cephlab.cluster.api."""
from __future__ import annotations

import argparse
import os
import shlex
import sys

from cephlab.backends.native import lifecycle as native
from cephlab.backends.native import paths
from cephlab.core import release
from cephlab.core.errors import ClusterError

DEFAULT_NAME = os.environ.get("CEPHLAB_NAME", "lab")
DEFAULT_BACKEND = os.environ.get("CEPHLAB_BACKEND", "native")


def _osd_count(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 16, got {text!r}")
    if not 1 <= n <= 16:
        raise argparse.ArgumentTypeError(f"must be from 1 to 16, got {n}")
    return n


def _name(text):
    try:
        return paths.check_name(text)
    except ClusterError as e:
        raise argparse.ArgumentTypeError(str(e))


def _where(p):
    p.add_argument("--name", type=_name, default=DEFAULT_NAME,
                   help="cluster name (default: %(default)s; $CEPHLAB_NAME)")
    p.add_argument("--dir", help="cluster folder (default: $CEPHLAB_DIR/<name>, else "
                                 "$XDG_STATE_HOME/cephlab/<name> or ~/.local/state/cephlab/<name>)")
    p.add_argument("--backend", choices=("native", "vagrant"), default=DEFAULT_BACKEND,
                   help="native: the mini cluster on this machine; vagrant: the cephadm VMs "
                        "of vagrant/ (default: %(default)s; $CEPHLAB_BACKEND)")


def register(sub):
    p = sub.add_parser("up", help="start the mini cluster (or repair it; no-op when it runs)")
    _where(p)
    p.add_argument("--osds", type=_osd_count, default=3, help="number of OSDs (default 3)")
    p.add_argument("--objectstore", choices=native.OBJECTSTORES, default="bluestore")
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

    p = sub.add_parser("env", help='print exports for ceph/rados/rbd/fio: eval "$(cephlab env)"')
    _where(p)
    p.set_defaults(func=cmd_env)


def _fail(e):
    print(f"cephlab: error: {e}", file=sys.stderr)
    return 1


def cmd_up(args):
    if args.backend == "vagrant":                  # the cephadm VMs: cephlab/backends/vagrant/lifecycle.py
        from cephlab.backends.vagrant import lifecycle as vagrant
        return vagrant.cmd_up(args)
    try:
        d, state, what = native.up(args.name, args.osds, args.objectstore, args.mds,
                                   args.dir, progress=not args.quiet)
    except ClusterError as e:
        return _fail(e)
    if what == "running":
        print(f"cluster {args.name} is already running in {d} (nothing changed)")
        asked = (args.osds, args.objectstore, args.mds)
        has = (len(state["osds"]), state["objectstore"], state["mds"])
        if asked != has:
            print(f"note: it has {has[0]} {has[1]} OSDs{' and an MDS' if has[2] else ''}; "
                  f"`cephlab down --name {args.name}` first to change that")
    print(f'use it from a shell with: eval "$(cephlab env{_flags(args)})"')
    return 0


def _flags(args):
    out = "" if args.name == "lab" else f" --name {args.name}"
    return out + (f" --dir {shlex.quote(args.dir)}" if args.dir else "")


def cmd_down(args):
    if args.backend == "vagrant":                  # the cephadm VMs: cephlab/backends/vagrant/lifecycle.py
        from cephlab.backends.vagrant import lifecycle as vagrant
        return vagrant.cmd_down(args)
    try:
        stopped = native.down(args.name, args.dir, keep=args.keep)
    except ClusterError as e:
        return _fail(e)
    d = paths.cluster_dir(args.name, args.dir)
    what = f"stopped {len(stopped)} daemons" if stopped else "nothing was running"
    print(f"cluster {args.name}: {what}; " + (f"kept {d}" if args.keep else f"removed {d}"))
    return 0


def _connect(args):
    from cephlab.cluster.api import Cluster
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


def cmd_status(args):
    from cephlab.backends.vagrant import lifecycle as vagrant
    try:
        c = _connect(args)
    except ClusterError as e:       # not running, or (vagrant) the VMs do not answer
        return _fail(e)
    try:
        (vagrant.print_status if args.backend == "vagrant" else _print_status)(c)
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
        major, minor, patch, codename = release.parse_version(c.client.mon("version")["version"])
    except (ClusterError, KeyError, TypeError, ValueError):
        return "ceph: release unknown (the mon did not say)"
    line = f"ceph: {major}.{minor}.{patch} {codename}"
    if major != release.WRITTEN_FOR:
        line += " (the labs are written for 16.2 pacific; `cephlab up` lists which labs differ)"
    return line


def _print_status(c):
    st = c.status()
    health = st["health"]
    print(f"cluster {c.name}: {health['status']}  ({c.dir})")
    print(f"  {_release_line(c)}")
    for name, check in health.get("checks", {}).items():
        print(f"  {name}: {check['summary']['message']}")
    print(f"  ports: mon v2 {c.state['ports']['mon_v2']}, v1 {c.state['ports']['mon_v1']}, "
          f"daemons {c.state['ports']['bind_min']}-{c.state['ports']['bind_max']}")
    print("daemons:")
    running = c.pids()
    for name in native.all_daemons(native.load_state(c.dir)):
        pid = running.get(name)
        print(f"  {name:8s} {'pid ' + str(pid) if pid else 'NOT RUNNING'}")
    pgmap = st["pgmap"]
    print(f"PGs: {pgmap.get('num_pgs', 0)} " +
          ", ".join(f"{s['count']} {s['state_name']}" for s in pgmap.get("pgs_by_state", [])))
    pools = c.df()
    print("pools:" if pools else "pools: none")
    for name, p in pools.items():
        print(f"  {name:20s} stored {_gib(p['stored'])}, used {_gib(p['used'])}, "
              f"{p['objects']} objects, max avail {_gib(p['max_avail'])}")
    print(f"usage: {_gib(pgmap.get('bytes_used', 0))} used of {_gib(pgmap.get('bytes_total', 0))}")
