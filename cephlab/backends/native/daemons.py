"""Start and stop one cluster's Ceph daemons, by the PIDs in its own pid files.

A PID is trusted only while /proc/<pid>/cmdline still names this cluster's ceph.conf, so a
recycled PID or another cluster's daemon is never signalled.
"""
from __future__ import annotations

import functools
import os
import resource
import signal
import subprocess
import time
from pathlib import Path

from cephlab.core import proc, run, teardown
from cephlab.core.errors import ClusterError
from cephlab.core.poll import PollTimeout, poll_until

GRACE_S = 30           # how long a graceful stop waits for SIGTERM before SIGKILL
KILL_WAIT_S = 10       # how long a SIGKILLed process may take to go (threads exit, files close)
FUSE_CLIENTS = ("ceph-fuse", "rbd-fuse")
DAEMON_PROGRAMS = ("ceph-mon", "ceph-mgr", "ceph-osd", "ceph-mds")
# The programs `up` and the labs run on a cluster's files: killed when found in a folder going away.
STRAY_PROGRAMS = (*DAEMON_PROGRAMS, "monmaptool", "ceph-authtool", *FUSE_CLIENTS)


# The open-file limit the daemons start with. A FileStore OSD keeps a file open per object it
# works on, beside its omap database and its sockets: under a login's usual soft limit of 1024 it
# aborted mid-lab ("(24) Too many open files", lab 04, a learner's walkthrough, 2026-12-02).
# Ceph's systemd units give 1048576; a normal user may raise its soft limit up to its hard one.
OPEN_FILES = 65536


class DaemonError(ClusterError):
    """A daemon failed to start or stop; the message names its log file."""


def raise_open_files_limit(want=OPEN_FILES):
    """Raise this process's soft RLIMIT_NOFILE to min(want, hard), never lower it; the daemons it
    starts inherit it. Returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def pid_path(d, name):
    return Path(d) / "run" / f"{name}.pid"


def log_path(d, name):
    return Path(d) / "log" / f"{name}.log"


_cmdline = proc.cmdline
_is_zombie = proc.is_zombie


def is_ours(pid, conf):
    """True while `pid` runs and its command line names the conf file `conf`."""
    return bool(pid) and not _is_zombie(pid) and str(conf) in _cmdline(pid)


def read_pid(d, name):
    try:
        return int(pid_path(d, name).read_text().strip())
    except (OSError, ValueError):
        return None


def running_pid(d, name):
    """The PID of daemon `name` (e.g. "osd.2") of the cluster in folder d, or None."""
    pid = read_pid(d, name)
    return pid if is_ours(pid, Path(d) / "ceph.conf") else None


def daemon_names(d):
    """Every daemon that has (or had) a pid file in this folder."""
    run = Path(d) / "run"
    return sorted(p.stem for p in run.glob("*.pid")) if run.is_dir() else []


def launch(d, binary, name, extra=(), timeout=60):
    """Start one daemon of the cluster in folder d; returns its PID (see launch_many)."""
    return launch_many(d, [(binary, name)], extra, timeout)[name]


def launch_many(d, daemons_to_start, extra=(), timeout=60):
    """Start daemons [(binary, "osd.0"), ...] of the cluster in folder d, all at once.

    Each forks itself once initialised (an OSD takes ~4 s) and writes its pid file, so
    starting them together costs the time of the slowest. Returns {name: pid}; raises
    DaemonError with the tail of the daemon's output and its log path when one fails.
    """
    d = Path(d)
    conf = d / "ceph.conf"
    raise_open_files_limit()
    procs = {}
    for binary, name in daemons_to_start:
        pid_path(d, name).unlink(missing_ok=True)
        with open(d / "log" / f"{name}.out", "ab") as out:
            procs[name] = run.spawn([binary, "-c", str(conf), "-i", name.split(".", 1)[1], *extra],
                                    cwd=d, output=out, new_session=True)
    deadline = time.monotonic() + timeout
    failed = []
    for name, child in procs.items():
        try:
            rc = child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            failed.append(f"{name} did not start within {timeout} s; see {log_path(d, name)}")
            continue
        if rc != 0:
            failed.append(f"{name} failed to start (exit {rc}): {tail(d / 'log' / f'{name}.out')}"
                          f"\n  see {log_path(d, name)}")
    if failed:
        raise DaemonError("\n".join(failed))
    pids = {}
    for name in procs:
        try:
            pids[name] = poll_until(functools.partial(running_pid, d, name),
                                    max(0.0, deadline - time.monotonic()), f"{name} running",
                                    interval=0.05)
        except PollTimeout:
            raise DaemonError(f"{name} exited right after starting; see {log_path(d, name)}") from None
    return pids


def tail(path, lines=5):
    try:
        text = Path(path).read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])


def signal_daemons(d, names, sig):
    """Send `sig` to each named daemon still running; returns {name: pid} of those signalled."""
    sent = {}
    for name in names:
        pid = running_pid(d, name)
        if pid:
            try:
                os.kill(pid, sig)
                sent[name] = pid
            except ProcessLookupError:
                pass
    return sent


def wait_gone(d, pids, timeout):
    """Wait until none of {name: pid} runs any more; returns those still running."""
    conf = Path(d) / "ceph.conf"
    left = dict(pids)

    def gone():
        left.update((n, 0) for n, p in list(left.items()) if not is_ours(p, conf))
        for n in [n for n, p in left.items() if p == 0]:
            del left[n]
        return not left
    try:
        poll_until(gone, timeout, "daemons gone", interval=0.05)
    except PollTimeout:
        pass
    return left


def _kill_ours(d, pids: dict[str, int]) -> None:
    """SIGKILL each of {name: pid} that still runs as this cluster's (checked right before)."""
    conf = Path(d) / "ceph.conf"
    for pid in pids.values():
        if is_ours(pid, conf):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def stop(d, names, graceful=True, timeout: float | None = None):
    """Stop the named daemons: SIGTERM and wait up to `timeout` s (GRACE_S) when graceful, then
    SIGKILL what is left (a daemon that ignores SIGTERM, or a stopped one, still ends).

    Returns the names stopped; raises DaemonError when one survives even SIGKILL (stuck in the
    kernel), naming it and its PID.
    """
    grace = GRACE_S if timeout is None else timeout
    sent = signal_daemons(d, names, signal.SIGTERM if graceful else signal.SIGKILL)
    left = wait_gone(d, sent, grace if graceful else KILL_WAIT_S)
    if left and graceful:
        teardown.report(f"{', '.join(left)} did not stop on SIGTERM within {grace:g} s; sending SIGKILL")
    if left:
        _kill_ours(d, left)
        left = wait_gone(d, left, KILL_WAIT_S)
    if left:
        raise DaemonError(f"could not stop {', '.join(left)} (PIDs {list(left.values())}) even with "
                          "SIGKILL; it is stuck in the kernel (see `cat /proc/<pid>/stack` as root)")
    for name in sent:
        pid_path(d, name).unlink(missing_ok=True)
    return list(sent)


def fuse_clients(d) -> dict[str, int]:
    """{"ceph-fuse[pid]": pid} of the FUSE clients (ceph-fuse, rbd-fuse) of the cluster in folder d:
    processes whose command line names its ceph.conf. They keep no pid file."""
    conf = str(Path(d) / "ceph.conf")
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            cmd = _cmdline(entry.name)
            prog = Path(cmd[0]).name if cmd else ""
            if prog in FUSE_CLIENTS and conf in cmd and not _is_zombie(entry.name):
                found[f"{prog}[{entry.name}]"] = int(entry.name)
    return found


def _works_in(pid: int | str, inside: str, programs: tuple[str, ...] | None) -> str:
    """The program name of `pid` when it runs one of `programs` (any when None) with a file
    under `inside` on its command line, else ""."""
    cmd = _cmdline(pid)
    prog = Path(cmd[0]).name if cmd else ""
    if prog and (programs is None or prog in programs) and any(a.startswith(inside) for a in cmd[1:]) \
            and not _is_zombie(pid):
        return prog
    return ""


def processes_in(d, programs: tuple[str, ...] | None = None) -> dict[str, int]:
    """{"ceph-osd[pid]": pid} of live processes (other than this one) whose command line names a
    file inside folder d; only those running one of `programs` when given."""
    inside = str(Path(d)) + "/"
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            prog = _works_in(entry.name, inside, programs)
            if prog:
                found[f"{prog}[{entry.name}]"] = int(entry.name)
    return found


def kill_strays(d, keep: set[int] | frozenset[int] = frozenset(),
                programs: tuple[str, ...] = STRAY_PROGRAMS) -> list[str]:
    """SIGKILL the Ceph `programs` still working in folder d, except the PIDs in `keep`: what a
    killed `cephlab up` leaves (an OSD mkfs, a daemon that had not written its pid file yet).
    Returns them; DaemonError when one survives SIGKILL."""
    inside = str(Path(d)) + "/"
    killed: list[str] = []
    for _ in range(3):              # a daemon forks as it starts: its child may come after a scan
        found = {k: p for k, p in processes_in(d, programs).items() if p not in keep}
        if not found:
            break
        for pid in found.values():
            if _works_in(pid, inside, programs):        # still that program, checked right before
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        killed += found
        pids = list(found.values())
        try:
            poll_until(lambda: not any(_works_in(p, inside, programs) for p in pids),  # noqa: B023
                       KILL_WAIT_S, "stray processes gone", interval=0.05)
        except PollTimeout:
            break
    left = {k: p for k, p in processes_in(d, programs).items() if p not in keep}
    if left:
        raise DaemonError(f"could not stop {', '.join(left)} even with SIGKILL; it is stuck in the kernel")
    return killed


def stop_fuse_clients(d, grace: float = 5) -> list[str]:
    """End the FUSE clients still running after their mounts were unmounted: a moment to exit on
    their own (an unmounted ceph-fuse closes its MDS session), then SIGKILL (one serving a lazily
    detached, busy mount would otherwise outlive its cluster). Returns those it had to kill."""
    left = wait_gone(d, fuse_clients(d), grace)
    _kill_ours(d, left)
    left_after = wait_gone(d, left, KILL_WAIT_S)
    if left_after:
        raise DaemonError(f"could not stop {', '.join(left_after)} even with SIGKILL")
    return list(left)
