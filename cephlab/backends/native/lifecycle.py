"""Create, repair and remove a lab cluster from Ceph's own packages (no containers, no root).

up(): nothing -> MON, MGR, N OSDs (and an MDS with a CephFS) -> HEALTH_OK, or repair a cluster
whose daemons died. down(): stop this cluster's daemons by PID, remove its folder.
Layout of the folder and the port scheme: cephlab/README.md.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import time
import uuid
from pathlib import Path

from cephlab.backends.native import conf as cconf
from cephlab.backends.native import daemons, paths
from cephlab.core import diskspace, folders, mgr_files, mounts, proc, releases, run, teardown
from cephlab.core.commands import CephClient
from cephlab.core.errors import ClusterError, SetupError
from cephlab.core.lock import cluster_lock
from cephlab.core.names import DEFAULT_NAME
from cephlab.core.poll import poll_until
from cephlab.core.progress import Progress

log = logging.getLogger(__name__)
GIB = 1024 ** 3
DISK_PER_OSD_GIB = 2           # sparse block files only take what is written; labs write < 2 GiB
MEM_PER_OSD_GIB = 1.0          # osd_memory_target minimum is 0.875 GiB, plus slack
MEM_BASE_GIB = 0.5             # mon + mgr
SUBDIRS = ("run", "log", "crash", "tmp", "mon", "mgr", "osd", "mds", "mgr-modules")
# Everything cephlab (and the labs) put in a cluster folder: a folder holding only these but no
# cluster.json is one an older version began and never finished.
OUR_NAMES = frozenset({paths.MARKER, paths.MARKER + ".tmp", "ceph.conf", "keyring", "lab-sessions",
                       *SUBDIRS})
OBJECTSTORES = ("bluestore", "filestore")
HEALTHY_TIMEOUT = 180


class MonUnusable(ClusterError):
    """The monitor does not start from its existing store."""


# -- state of a folder ----------------------------------------------------------------------
def load_state(d):
    try:
        return json.loads((Path(d) / paths.MARKER).read_text())
    except (OSError, ValueError):
        return None


def save_state(d, state):
    tmp = Path(d) / (paths.MARKER + ".tmp")
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    tmp.replace(Path(d) / paths.MARKER)


def client_for(d):
    return CephClient(Path(d) / "ceph.conf", Path(d) / "keyring",
                      ceph_bin=paths.find_binary("ceph") or "ceph")


def all_daemons(state):
    names = ["mon.a", "mgr.x"] + [f"osd.{i}" for i in state["osds"]]
    return names + (["mds.a"] if state.get("mds") else [])


def dead_daemons(d, state):
    return [n for n in all_daemons(state) if not daemons.running_pid(d, n)]


# -- checks before creating anything -------------------------------------------------------------
def check_args(osds, objectstore):
    if not isinstance(osds, int) or isinstance(osds, bool) or not 1 <= osds <= 16:
        raise SetupError(f"osds must be an integer from 1 to 16, got {osds!r} (e.g. --osds 3)")
    if objectstore not in OBJECTSTORES:
        raise SetupError(f"objectstore must be one of {', '.join(OBJECTSTORES)}, got {objectstore!r}")


def _existing_parent(path):
    path = Path(path)
    while not path.exists():
        path = path.parent
    return path


def check_resources(d, osds):
    parent = _existing_parent(d)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise SetupError(f"no permission to create {d} (cannot write {parent}); "
                         "choose a folder you own with --dir or CEPHLAB_DIR")
    need = osds * DISK_PER_OSD_GIB + 1
    free = shutil.disk_usage(parent).free / GIB
    if free < need:
        raise SetupError(f"too little disk: {osds} OSDs need ~{need} GiB free under {parent}, "
                         f"{free:.1f} GiB free; free space, use fewer --osds, or --dir elsewhere")
    need_mem = osds * MEM_PER_OSD_GIB + MEM_BASE_GIB
    avail = _mem_available_gib()
    if avail is not None and avail < need_mem:
        raise SetupError(f"too little memory: {osds} OSDs need ~{need_mem:.1f} GiB available "
                         f"(~1 GiB per OSD), {avail:.1f} GiB available; use fewer --osds")


def _mem_available_gib():
    return proc.mem_available_gib()


# -- building blocks ----------------------------------------------------------------------------
def _mgr_module_source(mgr_bin):
    for cand in (Path(mgr_bin).resolve().parent.parent / "share/ceph/mgr", Path("/usr/share/ceph/mgr")):
        if (cand / "mgr_module.py").is_file():
            return cand
    return None


def release_of(bins) -> releases.Release:
    """The table row of the installed Ceph (Pacific's when ceph-mon does not say)."""
    return releases.installed(bins.get("ceph-mon") or paths.find_binary("ceph-mon")) or releases.WRITTEN_FOR


def _class_dir(osd_bin, release):
    """The absolute object-class folder next to ceph-osd's libraries, where the release's
    default is relative (None elsewhere, or when it cannot be found: Ceph's default stays)."""
    if not release.relative_class_dir:
        return None
    prefix = Path(osd_bin).resolve().parent.parent
    found = sorted(prefix.glob("lib/*/rados-classes")) + sorted(prefix.glob("lib*/rados-classes"))
    return str(found[0]) if found else None


def _link_mgr_modules(d, mgr_bin, release):
    """Fill <d>/mgr-modules with links to the modules the lab loads (faster mgr start), the
    release's support files, and the bcrypt stand-in where the release needs it."""
    src = _mgr_module_source(mgr_bin)
    if src is None:
        raise SetupError("ceph-mgr's Python modules are missing (no mgr_module.py in "
                         f"/usr/share/ceph/mgr); reinstall with: {paths.INSTALL_HINT}")
    dest = Path(d) / "mgr-modules"
    for name in mgr_files.MGR_MODULES + release.mgr_support_files:
        if (src / name).exists() and not (dest / name).exists():
            (dest / name).symlink_to(src / name)
    mgr_files.write(release, dest)


def _start_folder(d, state):
    """The folder and its marker (status "creating") before anything else, so a start cut off
    at any point leaves a folder that `up` recreates and `down` removes."""
    d = Path(d)
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(d, 0o700)
    save_state(d, state)


def _write_folder(d, state, objectstore, release, class_dir=None):
    d = Path(d)
    for sub in SUBDIRS:
        (d / sub).mkdir(parents=True, exist_ok=True)
    (d / "ceph.conf").write_text(cconf.ceph_conf(d, state["fsid"], state["ports"], objectstore,
                                                 class_dir))
    keys = {e: cconf.make_key(release.cephx_key) for e in ("mon.", "client.admin", "mgr.x", "mds.a")}
    cconf.write_private(d / "keyring", cconf.keyring_text("client.admin", keys["client.admin"]))
    # The mon imports every entry of its mkfs keyring into its auth database.
    cconf.write_private(d / "tmp" / "mon-mkfs.keyring",
                        "".join(cconf.keyring_text(e, k) for e, k in keys.items()))
    for kind, ent in (("mgr", "x"), ("mds", "a")):
        (d / kind / ent).mkdir(exist_ok=True)
        cconf.write_private(d / kind / ent / "keyring",
                            cconf.keyring_text(f"{kind}.{ent}", keys[f"{kind}.{ent}"], caps={}))


def _mkfs_mon(d, bins, ports):
    d = Path(d)
    monmap = d / "tmp" / "monmap"
    addr = f"[v2:127.0.0.1:{ports['mon_v2']},v1:127.0.0.1:{ports['mon_v1']}]"
    fsid = load_state(d)["fsid"]
    run.run([bins["monmaptool"], "--create", "--clobber", "--enable-all-features",
             "--fsid", fsid, "--addv", "a", addr, str(monmap)], what="monmaptool")
    run.run([bins["ceph-mon"], "-c", str(d / "ceph.conf"), "--mkfs", "-i", "a",
             "--monmap", str(monmap), "--keyring", str(d / "tmp" / "mon-mkfs.keyring")],
            what="ceph-mon --mkfs")
    (d / "tmp" / "mon-mkfs.keyring").unlink()


def _spawn_osd_mkfs(d, bins, osd_id, osd_uuid):
    """Format one OSD; needs no running mon (fsid comes from ceph.conf)."""
    data = Path(d) / "osd" / str(osd_id)
    data.mkdir(parents=True, exist_ok=True)
    return run.spawn([bins["ceph-osd"], "-c", str(Path(d) / "ceph.conf"), "-i", str(osd_id),
                      "--mkfs", "--osd-uuid", osd_uuid, "--no-mon-config"])


def _register_osd(d, client, osd_id, osd_uuid, release):
    """Add the formatted OSD to the osdmap with a fresh cephx key, and write its keyring."""
    key = cconf.make_key(release.cephx_key)
    client.mon("osd new", inbuf=json.dumps({"cephx_secret": key}).encode(),
               uuid=osd_uuid, id=osd_id)
    cconf.write_private(Path(d) / "osd" / str(osd_id) / "keyring",
                        cconf.keyring_text(f"osd.{osd_id}", key, caps={}))


def _set_tunables(client, osds, only_missing=False):
    """Put the lab's tunables into the mon config database. With only_missing, set just those
    the database lacks: a cluster made by an older version of the lab gains newer tunables,
    and a value someone changed on purpose stays."""
    have = set()
    if only_missing:
        have = {(o["section"], o["name"]) for o in client.mon("config dump")}
    for who, name, value in cconf.tunables(osds):
        if (who, name) not in have:
            client.mon("config set", who=who, name=name, value=value, force=True)


def _update_tunables(d, state):
    client = client_for(d)
    try:
        _set_tunables(client, len(state["osds"]), only_missing=True)
    finally:
        client.close()


def _create_cephfs(client):
    client.mon("osd pool create", pool="cephfs_metadata", pg_num=16, pgp_num=16)
    client.mon("osd pool create", pool="cephfs_data", pg_num=32, pgp_num=32)
    client.mon("fs new", fs_name="cephfs", metadata="cephfs_metadata", data="cephfs_data")


def start_daemon(d, name, bins=None):
    """Start one daemon ("osd.3") of the cluster in folder d from its existing data."""
    kind = name.split(".", 1)[0]
    bins = bins or paths.require_binaries((f"ceph-{kind}",))
    return daemons.launch(d, bins[f"ceph-{kind}"], name)


def create_osd(d, client, osd_id=None):
    """Format, register and start a new OSD in a running cluster; returns its id."""
    state = load_state(d)
    bins = paths.require_binaries()
    if osd_id is None:
        osd_id = max(state["osds"], default=-1) + 1
    osd_uuid = str(uuid.uuid4())
    run.finish(_spawn_osd_mkfs(d, bins, osd_id, osd_uuid), f"ceph-osd --mkfs (osd.{osd_id})")
    _register_osd(d, client, osd_id, osd_uuid, release_of(bins))
    state["osds"] = sorted(set(state["osds"]) | {osd_id})
    save_state(d, state)
    daemons.launch(d, bins["ceph-osd"], f"osd.{osd_id}")
    return osd_id


# -- waiting ------------------------------------------------------------------------------------------
def health_gaps(status, state):
    """What still keeps the cluster from 'ready' (empty list when HEALTH_OK and all clean)."""
    gaps = []
    health = status.get("health", {}).get("status")
    if health != "HEALTH_OK":
        checks = ", ".join(status.get("health", {}).get("checks", {})) or "no detail yet"
        gaps.append(f"{health} ({checks})")
    osdmap = status.get("osdmap", {})
    osdmap = osdmap.get("osdmap", osdmap)     # older releases nest it
    want = len(state["osds"])
    if osdmap.get("num_up_osds") != want or osdmap.get("num_in_osds") != want:
        gaps.append(f"{osdmap.get('num_up_osds', 0)}/{want} OSDs up")
    if not status.get("mgrmap", {}).get("available"):
        gaps.append("mgr not available")
    pgmap = status.get("pgmap", {})
    clean = sum(s["count"] for s in pgmap.get("pgs_by_state", [])
                if s["state_name"] == "active+clean")
    if clean != pgmap.get("num_pgs", 0):
        gaps.append(f"{clean}/{pgmap.get('num_pgs')} PGs active+clean")
    if state.get("mds"):
        fsmap = status.get("fsmap", {})
        if fsmap.get("up", 0) < 1 or any(s.get("status") != "up:active"
                                          for s in fsmap.get("by_rank", [])):
            gaps.append("MDS not active")
    return gaps


MGR_MODULE_CHECKS = ("MGR_MODULE_ERROR", "MGR_MODULE_DEPENDENCY")


class MgrModuleFailed(ClusterError):
    """A mgr module the lab loads cannot run; waiting longer would not help."""


def mgr_module_gaps(mgr_dump, health_checks) -> list[str]:
    """What keeps the mgr's modules from 'loaded' ([] when every module the lab loads can run).

    Raises MgrModuleFailed naming each module that cannot run and why: the mgr lists its modules
    (available_modules, with can_run and error_string) once it has imported them, and reports a
    module that fails later as the health check MGR_MODULE_ERROR.
    """
    modules = [m for m in mgr_dump.get("available_modules", []) if m.get("name") in mgr_files.MGR_MODULES]
    if not mgr_dump.get("available") or not modules:
        return ["mgr modules not loaded yet"]
    failed = [f"{m['name']}: {m.get('error_string') or 'cannot run'}" for m in modules
              if not m.get("can_run", True)]
    for check in MGR_MODULE_CHECKS:
        if check in health_checks:
            failed.append(f"{check}: {health_checks[check].get('summary', {}).get('message', '')}")
    if failed:
        raise MgrModuleFailed("the mgr's modules did not load: " + "; ".join(failed[:4]) +
                              (f" (and {len(failed) - 4} more)" if len(failed) > 4 else "") +
                              ". This Ceph release needs a fix in cephlab/core/releases.py; "
                              "`ceph health detail` and the mgr log say more")
    return []


def wait_ready(d, client, state, timeout=HEALTHY_TIMEOUT, interval=0.2):
    """Wait for HEALTH_OK, every OSD up and in, the mgr with its modules loaded, all PGs
    active+clean (and the MDS); a daemon that dies or a mgr module that fails meanwhile ends the
    wait at once, naming its log or the module."""
    gaps = ["no status yet"]

    def ready():
        try:
            status = client.mon("status")
            gaps[:] = health_gaps(status, state)
            if status.get("mgrmap", {}).get("available"):
                gaps[:] += mgr_module_gaps(client.mon("mgr dump"),
                                           status.get("health", {}).get("checks", {}))
        except MgrModuleFailed:
            raise
        except ClusterError as e:
            gaps[:] = [str(e)]
        if gaps:
            dead = [n for n in all_daemons(state) if not daemons.running_pid(d, n)]
            if dead:
                raise ClusterError(f"{', '.join(dead)} stopped while starting; see "
                                   f"{daemons.log_path(d, dead[0])}")
        return not gaps
    poll_until(ready, timeout, "cluster healthy", interval=interval,
               describe=lambda: "; ".join(gaps), hint=f"logs in {Path(d) / 'log'}")


# -- up -----------------------------------------------------------------------------------------------
def _bins(mds):
    extra = ("monmaptool",) + (("ceph-mds",) if mds else ())
    return paths.require_binaries(extra)


def create(d, name, osds=3, objectstore="bluestore", mds=False, progress=None):
    """Create a cluster from nothing in folder d (which must be new or empty)."""
    progress = progress or Progress(7, enabled=False)
    progress.step, progress.total = 0, 7
    bins = _bins(mds)
    release = release_of(bins)
    if objectstore == "filestore" and not release.filestore:
        raise SetupError(f"FileStore OSDs cannot be created on Ceph {release.name}: ceph-osd refuses "
                         "them since Reef (18). Use --objectstore bluestore; a FileStore cluster "
                         "needs Ceph 16.2 Pacific (Debian 12's packages)")
    progress.stage("checking ports, disk and memory")
    check_resources(d, osds)
    state = {"name": name, "fsid": str(uuid.uuid4()), "ports": paths.choose_ports(name),
             "objectstore": objectstore, "osds": list(range(osds)), "mds": bool(mds),
             "status": "creating", "created": time.time()}
    client = None
    _start_folder(d, state)
    try:
        progress.stage(f"writing {d}/ceph.conf and keyrings (ports {state['ports']['mon_v2']}+)")
        _write_folder(d, state, objectstore, release, _class_dir(bins["ceph-osd"], release))
        _link_mgr_modules(d, bins["ceph-mgr"], release)
        uuids = {i: str(uuid.uuid4()) for i in state["osds"]}
        mkfs = {i: _spawn_osd_mkfs(d, bins, i, uuids[i]) for i in state["osds"]}
        progress.stage("creating and starting the monitor")
        _mkfs_mon(d, bins, state["ports"])
        daemons.launch(d, bins["ceph-mon"], "mon.a")
        client = client_for(d)
        _set_tunables(client, osds)
        progress.stage("starting the manager")
        daemons.launch(d, bins["ceph-mgr"], "mgr.x")
        progress.stage(f"formatting and starting {osds} {objectstore} OSDs")
        for i in state["osds"]:
            run.finish(mkfs[i], f"ceph-osd --mkfs (osd.{i})")
            _register_osd(d, client, i, uuids[i], release)
        daemons.launch_many(d, [(bins["ceph-osd"], f"osd.{i}") for i in state["osds"]])
        progress.stage("creating CephFS and starting the MDS" if mds else "no MDS (use --mds for CephFS)")
        if mds:
            _create_cephfs(client)
            daemons.launch(d, bins["ceph-mds"], "mds.a")
        progress.stage("waiting for HEALTH_OK and all PGs active+clean")
        wait_ready(d, client, state)
    except BaseException:
        teardown.attempt(f"stop what the failed start of {name} began", _kill_all, d, state)
        if load_state(d):
            save_state(d, {**state, "status": "failed"})
        raise
    finally:
        if client is not None:
            client.close()
    state["status"] = "ready"
    save_state(d, state)
    return state


def _stop_kept(d, state):
    """Stop every daemon, keeping the data: OSDs, MDS and MGR first (they tell the mon), then the mon."""
    names = sorted(set(daemons.daemon_names(d)) | set(all_daemons(state)))
    daemons.stop(d, [n for n in names if n != "mon.a"], graceful=True)
    daemons.stop(d, ["mon.a"], graceful=True)
    daemons.kill_strays(d, programs=daemons.DAEMON_PROGRAMS)


def _kill_all(d, state=None):
    names = set(daemons.daemon_names(d)) | set(all_daemons(state) if state else ())
    daemons.stop(d, sorted(names), graceful=False)
    daemons.kill_strays(d)


def wipe(d, leftover=False):
    """Remove a cluster folder, only when it carries our marker (never an arbitrary --dir), or
    with leftover=True one that unfinished_leftover() found to hold only what cephlab makes."""
    d = Path(d)
    if not d.exists():
        return
    if not leftover and not (d / paths.MARKER).exists():
        raise SetupError(f"{d} is not a cephlab cluster folder (no {paths.MARKER}); not removing it")
    shutil.rmtree(d)


def unfinished_leftover(d, command):
    """For a folder without cluster.json: nothing when it holds only what cephlab creates and no
    process uses it (a start an older version never finished, safe to remove); else SetupError
    saying why `command` ("up"/"down") leaves it alone and how to remove it safely."""
    d = Path(d)
    other = sorted(p.name for p in d.iterdir() if p.name not in OUR_NAMES and not folders.is_probe(p.name))
    if other:
        shown = ", ".join(other[:4]) + (", ..." if len(other) > 4 else "")
        if command == "up":
            raise SetupError(f"{d} exists and is not a cephlab cluster folder (it holds {shown}); "
                             "choose an empty or new folder with --dir")
        raise SetupError(f"{d} is not a cephlab cluster folder (no {paths.MARKER}; it holds {shown}, "
                         "which cephlab never creates); not touching it. If it was a lab cluster, "
                         f"move out what you want to keep, then `rm -r {d}`")
    users = daemons.processes_in(d)
    if users:
        pids = " ".join(str(p) for p in users.values())
        raise SetupError(f"{d} has no {paths.MARKER} (a start an older cephlab never finished) and "
                         f"{', '.join(users)} still use it; stop them with `kill {pids}`, then run "
                         f"`cephlab {command}` again")


def _check_host_disk(d, dead):
    """SetupError when the host disk is too full to restart `dead`: a restarted OSD would stop
    again at its first write (ENOSPC on its sparse block file), and the mon refuses to start at
    or below mon_data_avail_crit. Said before trying, because a mon that fails to start would
    otherwise count as unusable and the cluster be recreated, losing its data."""
    disk = diskspace.host_disk(d)
    mon_blocked = "mon.a" in dead and disk.free_percent <= diskspace.MON_AVAIL_CRIT_PERCENT
    if disk.level == "full" or mon_blocked:
        raise SetupError(f"cannot restart {', '.join(dead)}: the host disk is (nearly) full "
                         f"({disk.summary()}). OSDs stop when their block files find no space, and "
                         f"the mon does not start at or below {diskspace.MON_AVAIL_CRIT_PERCENT} % "
                         "free. Free space on that disk (other files, not the cluster folder), "
                         "then run `cephlab up` again: the cluster's data is kept")


def repair(d, state, progress):
    """Restart dead daemons of a created cluster; returns the daemons restarted."""
    dead = dead_daemons(d, state)
    if not dead:
        return []
    _check_host_disk(d, dead)
    bins = _bins(state.get("mds"))
    progress.total = progress.step + 2
    progress.stage(f"restarting {', '.join(dead)} from their data")
    # A daemon a killed `up` started but that had not written its pid file yet would make its
    # twin fail to start (the mon's port, the OSD's lock on its data): it goes first.
    running = {daemons.running_pid(d, n) for n in set(daemons.daemon_names(d)) | set(all_daemons(state))}
    daemons.kill_strays(d, keep={p for p in running if p}, programs=daemons.DAEMON_PROGRAMS)
    if "mon.a" in dead:
        paths.check_ports_free(state["ports"])
        try:
            daemons.launch(d, bins["ceph-mon"], "mon.a", timeout=30)
        except daemons.DaemonError as e:
            raise MonUnusable(str(e)) from e
    client = client_for(d)
    try:
        daemons.launch_many(d, [(bins[f"ceph-{n.split('.')[0]}"], n) for n in dead if n != "mon.a"])
        progress.stage("waiting for HEALTH_OK and all PGs active+clean")
        wait_ready(d, client, state)
    finally:
        client.close()
    return dead


def up(name=DEFAULT_NAME, osds=3, objectstore="bluestore", mds=False, dir=None, progress=True):
    """Start cluster `name` (or repair it, or do nothing when it runs); returns (folder, state, what).

    what is "created", "repaired" or "running".
    """
    check_args(osds, objectstore)
    d = paths.cluster_dir(name, dir)
    prog = progress if isinstance(progress, Progress) else Progress(7, enabled=bool(progress))
    # Say early (even when quiet) which labs a Ceph other than Pacific changes, not mid-lab.
    releases.note_once(paths.find_binary("ceph-mon"), log.warning)
    existed = folders.look(d)
    # the folder is made and proven writable before the lock beside it is taken (FolderUnusable)
    with cluster_lock(d, "cephlab up", name=name, doing="starting it", create=True) as held:
        try:
            return _up(d, name, osds, objectstore, mds, prog, held.previous)
        except BaseException:
            if not existed:         # a start refused before it wrote anything leaves no folder
                try:
                    d.rmdir()       # only when empty; a cluster.json (status failed) stays
                except OSError:
                    pass
            raise


def _up(d, name, osds, objectstore, mds, prog, cut_off):
    """up() holding the lock; cut_off: the lock record of a command killed while holding it."""
    state = load_state(d)
    if state is None and d.exists() and any(d.iterdir()):
        unfinished_leftover(d, "up")
        prog.note(f"{d} has no {paths.MARKER}: a start an older cephlab never finished; "
                  "removing it and starting afresh")
        wipe(d, leftover=True)
    if state and state.get("status") == "ready":
        if cut_off:
            # A `down --keep` cut off leaves daemons that got SIGTERM still exiting, a cut-off
            # repair daemons still booting: neither is a cluster to call running. Stop what
            # runs and start it all again from the data.
            prog.note(f"`{cut_off.get('what')}` (PID {cut_off.get('pid')}) was cut off; "
                      f"restarting the daemons of {name} from their data")
            _stop_kept(d, state)
        if not dead_daemons(d, state):
            _update_tunables(d, state)
            return d, state, "running"
        try:
            repair(d, state, prog)
            _update_tunables(d, state)
            prog.done(f"cluster {name} repaired: HEALTH_OK")
            return d, state, "repaired"
        except MonUnusable as e:
            prog.note(f"the monitor cannot start from its store ({e}); recreating from scratch")
    elif state and state.get("status") == "removing":
        prog.note(f"an earlier `cephlab down` of {name} did not finish; removing what it left "
                  "and creating the cluster again")
    elif state:
        prog.note(f"an earlier start of {name} did not finish; recreating it from scratch")
    if state:
        _kill_all(d, state)
        wipe(d)
    state = create(d, name, osds, objectstore, mds, prog)
    prog.done(f"cluster {name} is up: HEALTH_OK, {osds} OSDs ({objectstore}) in {d}")
    return d, state, "created"


def _stop_reported(d, names, graceful):
    """daemons.stop, or [] after reporting which daemons it could not stop."""
    stopped = []
    teardown.attempt(f"stop {', '.join(names)}", lambda: stopped.extend(daemons.stop(d, names, graceful)))
    return stopped


def down(name=DEFAULT_NAME, dir=None, keep=False):
    """Stop every daemon of the cluster (by PID) and remove its folder unless keep.

    Returns the daemons stopped. A missing folder is not an error. Always finishes: a clean-up
    step or daemon that fails is reported in one line on stderr (teardown) and the rest goes on.
    """
    d = paths.cluster_dir(name, dir)
    if not folders.look(d) and not d.parent.is_dir():     # look: FolderUnusable for a file, ...
        return []                   # no folder, and nowhere a start could be making one
    with cluster_lock(d, "cephlab down", name=name, doing="taking it down"):
        return _down(d, name, keep)


def _down(d, name, keep):
    state = load_state(d)
    if state is None:
        if d.exists():
            unfinished_leftover(d, "down")          # an empty folder, or an older version's
            wipe(d, leftover=True)
        return []
    if not keep:
        # Its data is being discarded: a down cut off from here on is finished by the next
        # `up` or `down`, never taken for a cluster to repair.
        save_state(d, {**state, "status": "removing"})
    # ceph-fuse mounts of the labs live under tmp/: a FUSE mount whose cluster is gone hangs
    # every process that touches it, so they go before the daemons.
    teardown.attempt(f"unmount the FUSE mounts of {name}", mounts.unmount_all, str(d / "tmp") + "/")
    teardown.attempt(f"stop the FUSE clients of {name}", daemons.stop_fuse_clients, d)
    names = sorted(set(daemons.daemon_names(d)) | set(all_daemons(state)))
    if keep:
        # OSDs and MDS first so they can tell the still-running mon they are going down.
        stopped = _stop_reported(d, [n for n in names if n != "mon.a"], graceful=True)
        stopped += _stop_reported(d, ["mon.a"], graceful=True)
    else:
        stopped = _stop_reported(d, names, graceful=False)   # data is discarded anyway
    # what a killed `up` or add_osd() started and no pid file names (an OSD mkfs, a daemon
    # killed before it wrote its pid file): it would write into the folder being removed
    teardown.attempt(f"stop what else of {name} runs", daemons.kill_strays, d)
    if not keep:
        teardown.attempt(f"remove {d}", wipe, d)
    return stopped
