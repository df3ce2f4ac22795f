"""A throw-away normal user for tests/unprivileged: create it, run commands as it, remove it.

Needs root (useradd, runuser). The user gets a clean environment (no root variables leak in):
HOME, USER, PATH and the pip settings of this machine (PIP_*: index, certificates, timeouts).
"""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from pathlib import Path

SYSTEM_CEPH_DIRS = (Path("/etc/ceph"), Path("/var/lib/ceph"), Path("/var/log/ceph"))


class NormalUser:
    def __init__(self, name: str):
        self.name = name
        self.home = Path("/home") / name

    def create(self) -> NormalUser:
        subprocess.run(["useradd", "--create-home", "--home-dir", str(self.home), "--shell", "/bin/bash",
                        "--user-group", self.name], check=True, capture_output=True, text=True)
        entry = pwd.getpwnam(self.name)
        self.uid, self.gid = entry.pw_uid, entry.pw_gid
        return self

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if k.startswith("PIP_")}
        env.update(HOME=str(self.home), USER=self.name, LOGNAME=self.name, LANG="C.UTF-8",
                   PATH="/usr/local/bin:/usr/bin:/bin")
        return env

    def run(self, command: str, timeout: float, cwd: Path | None = None) -> subprocess.CompletedProcess:
        """bash -c command as the user (runuser: no password, no PAM session, no root rights)."""
        args = ["runuser", "-u", self.name, "--", "env", "-i", *(f"{k}={v}" for k, v in self.env().items()),
                "bash", "-c", command]
        return subprocess.run(args, cwd=cwd or self.home, capture_output=True, text=True, timeout=timeout)

    def pids(self) -> list[int]:
        out = subprocess.run(["ps", "-o", "pid=", "-u", str(self.uid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def processes(self) -> str:
        return subprocess.run(["ps", "-o", "pid,args", "-u", str(self.uid)], capture_output=True, text=True).stdout

    def give(self, path: Path):
        """chown -R path to the user."""
        subprocess.run(["chown", "-R", f"{self.uid}:{self.gid}", str(path)], check=True)

    def remove(self):
        """End what the user still runs (by PID) and delete the user with its home."""
        for pid in self.pids():
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        subprocess.run(["userdel", "--remove", self.name], capture_output=True, text=True)
        shutil.rmtree(self.home, ignore_errors=True)


def copy_repository(src: Path, dest: Path):
    """The repository's tracked files as they are in the working tree (what a clone of it gets,
    with the changes under test), without .venv, caches or clusters."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=src, check=True, capture_output=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        source = src / rel
        if not source.exists() and not source.is_symlink():
            continue   # deleted in the working tree, not yet committed
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)


def snapshot(dirs=SYSTEM_CEPH_DIRS) -> dict:
    """{path: (mtime_ns, size, uid)} of everything under the system's Ceph folders."""
    seen = {}
    for top in dirs:
        if not top.exists():
            continue
        for p in [top, *top.rglob("*")]:
            try:
                st = p.lstat()
            except FileNotFoundError:
                continue
            seen[str(p)] = (st.st_mtime_ns, st.st_size, st.st_uid)
    return seen
