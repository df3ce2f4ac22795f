"""The Vagrant backend: the multi-node cephadm cluster of vagrant/, behind the same Cluster API.

    cephlab up --backend vagrant          # `vagrant up` in vagrant/ (VMs, cephadm, OSDs, HEALTH_OK)
    c = Cluster.connect(backend="vagrant")
    c.local_daemons                       # False: the daemons run in VMs, /proc here cannot see them

`vagrant up` exports the cluster's ceph.conf (mon addresses on the private network) and the
client.admin keyring to vagrant/.export/ ($CEPHLAB_VAGRANT_EXPORT); the host reaches the monitors
and OSDs over the host-only network, so librados, `ceph`, `rados`, `rbd` and fio work unchanged.

check_settings() mirrors, message for message, the Ruby check in vagrant/Vagrantfile (tests
compare the two), so a bad settings.yml gets the same answer from Python and from Vagrant.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from cephlab.core.errors import ClusterError, ClusterNotRunning, SetupError

from cephlab.core.project import VAGRANT_DIR  # noqa: E402
INSTALL_HINT = ("install Vagrant and a provider: on Debian/Ubuntu `sudo apt-get install vagrant "
                "vagrant-libvirt`, elsewhere https://developer.hashicorp.com/vagrant/downloads "
                "with VirtualBox")

# (key, kind, default, allowed): the same table as CephlabSettings::SPEC in the Vagrantfile.
SPEC = (
    ("nodes", "int", 3, (3, 9)),
    ("hostname_prefix", "hostname", "ceph", None),
    ("cpus", "int", 2, (1, 16)),
    ("memory_mb", "int", 4096, (2048, 65536)),
    ("osd_disks", "int", 2, (1, 8)),
    ("osd_disk_gb", "int", 10, (5, 2048)),
    ("private_network", "net3", "192.168.56", None),
    ("first_host", "int", 11, (2, 254)),
    ("box", "text", "debian/bookworm64", None),
    ("ceph_image", "image", "quay.io/ceph/ceph:v16.2.15", None),
    ("offline", "choice", "auto", ("auto", "always", "never")),
    ("libvirt_driver", "choice", "kvm", ("kvm", "qemu")),
    ("virtualbox_controller", "text", "SATA Controller", None),
    ("dashboard", "bool", False, None),
    ("boot_timeout_s", "int", 600, (60, 3600)),
    ("health_timeout_s", "int", 1200, (60, 7200)),
)
DEFAULTS = {key: default for key, _, default, _ in SPEC}
MIB_BASE = 1536          # OS, mon, mgr and containers on one node
MIB_PER_OSD = 1024       # provision/cluster.sh sets osd_memory_target to 1 GiB
RUBY_WHITESPACE = " \t\n\v\f\r\0"     # what Ruby's String#strip removes


class SettingsError(SetupError):
    """vagrant/settings.yml has bad values; .problems lists them."""

    def __init__(self, path, problems):
        self.problems = list(problems)
        super().__init__(f"{path} has bad values:\n" + "\n".join(f"  - {p}" for p in problems) +
                         "\nFix them (vagrant/README.md describes every setting).")


def _show(value):
    """A value as Ruby's JSON.generate writes it, so both checks print the same message."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _check_value(key, kind, allowed, v):
    if kind == "int":
        if type(v) is int and allowed[0] <= v <= allowed[1]:
            return None
        return f"{key} must be a whole number from {allowed[0]} to {allowed[1]}, got {_show(v)}"
    if kind == "bool":
        return None if type(v) is bool else f"{key} must be true or false, got {_show(v)}"
    if kind == "choice":
        if isinstance(v, str) and v in allowed:
            return None
        return f"{key} must be one of {', '.join(allowed)}, got {_show(v)}"
    if kind == "text":
        if isinstance(v, str) and v.strip(RUBY_WHITESPACE):
            return None
        return f"{key} must be a non-empty text, got {_show(v)}"
    if kind == "hostname":
        if isinstance(v, str) and re.fullmatch(r"[a-z][a-z0-9-]{0,14}", v):
            return None
        return (f"{key} must be 1-15 lower-case letters, digits or '-', starting with a letter, "
                f"got {_show(v)}")
    if kind == "net3":
        if (isinstance(v, str) and re.fullmatch(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}", v)
                and all(int(o) <= 255 for o in v.split("."))):
            return None
        return (f'{key} must be the first three numbers of an IPv4 address, e.g. "192.168.56", '
                f"got {_show(v)}")
    if kind == "image":
        if (isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/:@-]*", v)
                and ("@sha256:" in v or ":" in v.split("/")[-1])):
            return None
        return (f'{key} must be a container image with a tag or digest, e.g. '
                f'"quay.io/ceph/ceph:v16.2.15", got {_show(v)}')
    raise AssertionError(kind)


def check_settings(settings):
    """The list of problems with a settings mapping (empty when it is good), as the Vagrantfile says."""
    if not isinstance(settings, dict):
        return [f"the settings file must be a mapping of setting: value, got {_show(settings)}"]
    known = [key for key, *_ in SPEC]
    errors = [f"unknown setting {_show(k)}: known settings are {', '.join(known)}"
              for k in settings if k not in known]
    s = {**DEFAULTS, **settings}
    bad = set()
    for key, kind, _, allowed in SPEC:
        e = _check_value(key, kind, allowed, s[key])
        if e:
            errors.append(e)
            bad.add(key)
    if not bad & {"nodes", "first_host"} and s["first_host"] + s["nodes"] - 1 > 254:
        errors.append("first_host + nodes - 1 must be at most 254 (the last node's address), "
                      f"got {s['first_host'] + s['nodes'] - 1}")
    if not bad & {"memory_mb", "osd_disks"}:
        need = MIB_BASE + MIB_PER_OSD * s["osd_disks"]
        if s["memory_mb"] < need:
            errors.append(f"memory_mb must be at least {need} for {s['osd_disks']} OSD disks "
                          f"({MIB_BASE} MiB for the OS, mon and mgr + {MIB_PER_OSD} MiB per OSD), "
                          f"got {s['memory_mb']}")
    return errors


def settings_path():
    return Path(os.environ.get("CEPHLAB_VAGRANT_SETTINGS") or VAGRANT_DIR / "settings.yml")


def load_settings(path=None):
    """settings.yml with defaults filled in; SettingsError lists every bad value."""
    import yaml                      # only here: model-only notebooks never need it
    path = Path(path) if path else settings_path()
    if not path.is_file():
        raise SettingsError(path, [f"settings file {path} not found"])
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise SettingsError(path, [f"settings file {path} is not valid YAML: {e}"]) from e
    data = {} if data is None else data
    problems = check_settings(data)
    if problems:
        raise SettingsError(path, problems)
    return {**DEFAULTS, **data}


def nodes(settings):
    """[(name, private ip)] of the nodes, node 1 (the bootstrap node) first."""
    return [(f"{settings['hostname_prefix']}{i}",
             f"{settings['private_network']}.{settings['first_host'] + i - 1}")
            for i in range(1, settings["nodes"] + 1)]


def export_dir():
    """Where `vagrant up` puts ceph.conf, keyring and cluster.json for the host."""
    return Path(os.environ.get("CEPHLAB_VAGRANT_EXPORT") or VAGRANT_DIR / ".export")


# -- driving Vagrant --------------------------------------------------------------------------
def _vagrant(args, log=None):
    exe = shutil.which("vagrant")
    if not exe:
        raise SetupError(f"vagrant is not installed: {INSTALL_HINT}")
    out = open(log, "w") if log else None
    try:
        proc = subprocess.run([exe, *args], cwd=VAGRANT_DIR, stdout=out, stderr=subprocess.STDOUT
                              if out else None)
    finally:
        if out:
            out.close()
    if proc.returncode != 0:
        where = f" (log: {log})" if log else " (messages above)"
        raise ClusterError(f"`vagrant {' '.join(args)}` in {VAGRANT_DIR} failed with exit "
                           f"{proc.returncode}{where}; a failed health gate prints what is wrong. "
                           "Fix it and run `vagrant provision` there, or start over with "
                           "`vagrant destroy -f`")


def up(quiet=False):
    """`vagrant up`: VMs, cephadm cluster, HEALTH_OK, conf exported. Returns the export folder."""
    load_settings()                  # the same check as the Vagrantfile, before anything starts
    d = export_dir()
    log = None
    if quiet:
        d.mkdir(parents=True, exist_ok=True)
        log = d / "vagrant-up.log"
    _vagrant(["up"], log)
    if not (d / "ceph.conf").is_file():
        raise ClusterError(f"`vagrant up` finished but exported no ceph.conf to {d}; "
                           "run `vagrant provision` in vagrant/ to finish the cluster")
    return d


def down(destroy=False):
    """Halt the VMs (they keep their cluster), or destroy them and forget the exported conf."""
    _vagrant(["destroy", "-f"] if destroy else ["halt"])
    if destroy:
        shutil.rmtree(export_dir(), ignore_errors=True)


def connect(cls, dir=None):
    """A Cluster (class cls) on the exported conf in `dir` (default export_dir())."""
    d = Path(dir).expanduser() if dir else export_dir()
    if not (d / "ceph.conf").is_file() or not (d / "keyring").is_file():
        raise ClusterNotRunning(f"no Vagrant cluster exported in {d}: start one with "
                                "`cephlab up --backend vagrant` (or `vagrant up` in vagrant/)")
    try:
        meta = json.loads((d / "cluster.json").read_text())
    except (OSError, ValueError):
        meta = {}
    state = {"name": meta.get("name", "vagrant"), "backend": "vagrant", "status": "ready",
             "fsid": meta.get("fsid"), "nodes": meta.get("nodes", {}), "osds": []}
    (d / "tmp").mkdir(exist_ok=True)
    cluster = _vagrant_class(cls)(d, state)
    try:
        state["osds"] = sorted(cluster.client.mon("osd ls"))
    except ClusterError as e:
        cluster.close()
        raise ClusterNotRunning(f"the Vagrant cluster of {d} does not answer ({e}); are the VMs "
                                "running? `cephlab up --backend vagrant` starts them") from e
    return cluster


# -- faults on daemons in VMs: through cephadm (orchestrator) and systemd, not local PIDs ----------
def osd_host(cluster, osd_id):
    """The node that runs osd.N (from the CRUSH location)."""
    return cluster.client.mon("osd find", id=int(osd_id))["crush_location"]["host"]


def node_command(host, command):
    """Run a shell command as root on a node (`vagrant ssh`); its output."""
    exe = shutil.which("vagrant")
    if not exe:
        raise SetupError(f"vagrant is not installed: {INSTALL_HINT}")
    proc = subprocess.run([exe, "ssh", host, "-c", f"sudo {command}"], cwd=VAGRANT_DIR,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise ClusterError(f"on {host}: `{command}` failed: {(proc.stderr or proc.stdout).strip()[-300:]}")
    return proc.stdout


def _vagrant_class(base):
    """Cluster (base) with the faults that need the daemons' host done through cephadm."""

    class VagrantCluster(base):
        def stop_osd(self, osd_id, wait=True):
            """Stop osd.N politely: `ceph orch daemon stop` (systemd stops its container)."""
            self._osd_state(osd_id)
            self.ceph("orch", "daemon", "stop", f"osd.{osd_id}")
            if wait:
                self.wait_osd(osd_id, up=False, timeout=120)

        def kill_osd(self, osd_id, wait=True):
            """SIGKILL osd.N's container (a crash), then keep systemd from restarting it."""
            self._osd_state(osd_id)
            unit = f"ceph-{self.state['fsid']}@osd.{osd_id}.service"
            node_command(osd_host(self, osd_id),
                         f"sh -c 'systemctl kill --signal=SIGKILL {unit}; systemctl stop {unit}'")
            if wait:
                self.wait_osd(osd_id, up=False, timeout=120)

        def start_osd(self, osd_id, wait=True):
            self._osd_state(osd_id)
            self.ceph("orch", "daemon", "start", f"osd.{osd_id}")
            if wait:
                self.wait_osd(osd_id, up=True, timeout=180)

        def add_osd(self, wait=True):
            raise ClusterError("the Vagrant cluster makes one OSD per extra disk: raise osd_disks "
                               "in vagrant/settings.yml, then `vagrant reload --provision` in vagrant/")

    VagrantCluster.__name__ = VagrantCluster.__qualname__ = "Cluster"
    return VagrantCluster


# -- the `cephlab ... --backend vagrant` commands (dispatched from cli_cluster) ---------------
def _fail(e):
    print(f"cephlab: error: {e}", file=sys.stderr)
    return 1


def cmd_up(args):
    if (args.osds, args.objectstore, args.mds) != (3, "bluestore", False):
        print("note: --osds, --objectstore and --mds are for the native cluster; the Vagrant "
              "cluster's OSDs come from vagrant/settings.yml (nodes x osd_disks, BlueStore)")
    try:
        d = up(quiet=args.quiet)
    except ClusterError as e:
        return _fail(e)
    print(f"the Vagrant cluster is up; ceph.conf and keyring are in {d}")
    print('use it from a shell with: eval "$(cephlab env --backend vagrant)"')
    return 0


def cmd_down(args):
    try:
        down(destroy=args.destroy)
    except ClusterError as e:
        return _fail(e)
    print("Vagrant cluster: " + ("VMs destroyed, export removed" if args.destroy else
                                 "VMs halted (`cephlab up --backend vagrant` starts them again)"))
    return 0


def print_status(c):
    st = c.status()
    health = st["health"]
    print(f"Vagrant cluster {c.state.get('fsid') or ''}: {health['status']}  (conf in {c.dir})")
    for name, check in health.get("checks", {}).items():
        print(f"  {name}: {check['summary']['message']}")
    try:
        daemons = c.ceph("orch", "ps")
    except ClusterError as e:       # a cluster without cephadm (or its mgr is restarting)
        print(f"daemons: unknown ({e})")
        daemons = []
    if daemons:
        print("daemons (cephadm containers):")
    for d in sorted(daemons, key=lambda d: (d["hostname"], d["daemon_type"])):
        print(f"  {d['hostname']:10s} {d['daemon_type']}.{d['daemon_id']:14s} "
              f"{d.get('status_desc', '?')}")
    pgmap = st["pgmap"]
    print(f"PGs: {pgmap.get('num_pgs', 0)} " +
          ", ".join(f"{s['count']} {s['state_name']}" for s in pgmap.get("pgs_by_state", [])))
    gib = 1024 ** 3
    print(f"usage: {pgmap.get('bytes_used', 0) / gib:.2f} GiB used of "
          f"{pgmap.get('bytes_total', 0) / gib:.2f} GiB")


# -- the smoke test of vagrant/up-and-check.sh ------------------------------------------------
SMOKE_POOL = "cephlab-smoke"


def smoke_check(cluster, osds=None, hosts=None, failure_domain="host", bench_seconds=5,
                faults=True):
    """Check a cluster through the API a lab uses; returns {check: result}, raises ClusterError.

    HEALTH_OK; `osds` OSDs up and in; `hosts` hosts in the CRUSH map; the default rule picks
    leaves of type `failure_domain`; a size-3 pool takes checksummed objects and reads them back;
    `rados bench` writes; (faults) the last OSD stops and starts again; the pool is removed.
    """
    out = {"health": cluster.health()}
    if out["health"] != "HEALTH_OK":
        raise ClusterError(f"health is {out['health']}: {cluster.health_detail()}")
    osdmap = cluster.client.mon("osd dump")["osds"]
    out["osds_up_in"] = sum(1 for o in osdmap if o["up"] and o["in"])
    if osds is not None and out["osds_up_in"] != osds:
        raise ClusterError(f"{out['osds_up_in']} OSDs up and in, expected {osds}")
    tree = cluster.client.mon("osd tree")["nodes"]
    out["hosts"] = sorted(n["name"] for n in tree if n["type"] == "host")
    if hosts is not None and len(out["hosts"]) != hosts:
        raise ClusterError(f"CRUSH has hosts {out['hosts']}, expected {hosts}")
    rule = cluster.client.mon("osd crush rule dump", name="replicated_rule")
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


def smoke_main(argv=None):
    """`python -m cephlab.backends.vagrant.lifecycle smoke [--osds N] [--hosts N]`: smoke_check on the Vagrant cluster."""
    import argparse
    p = argparse.ArgumentParser(prog="python -m cephlab.backends.vagrant.lifecycle smoke")
    p.add_argument("--osds", type=int, help="expected OSDs (default: nodes x osd_disks of settings.yml)")
    p.add_argument("--hosts", type=int, help="expected hosts (default: nodes of settings.yml)")
    p.add_argument("--dir", help="export folder (default: vagrant/.export)")
    args = p.parse_args(argv)
    from cephlab.cluster.api import Cluster
    try:
        s = load_settings()
        c = Cluster.connect(backend="vagrant", dir=args.dir)
        try:
            result = smoke_check(c, osds=args.osds or s["nodes"] * s["osd_disks"],
                                 hosts=args.hosts or s["nodes"])
        finally:
            c.close()
    except ClusterError as e:
        print(f"smoke test FAILED: {e}", file=sys.stderr)
        return 1
    for key, value in result.items():
        print(f"  {key}: {value}")
    print(f"smoke test passed (local_daemons={c.local_daemons})")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] != ["smoke"]:
        sys.exit("usage: python -m cephlab.backends.vagrant.lifecycle smoke [--osds N] [--hosts N] [--dir DIR]")
    sys.exit(smoke_main(sys.argv[2:]))
