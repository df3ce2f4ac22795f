"""A Docker Engine of the test's own: Debian's `docker.io` (the engine Docker Desktop runs in its VM),
started for one test session and stopped by its PID at the end, with nothing left behind.

It never touches a system Docker: its own socket, data and run folders under one temporary folder,
and its own bridge on a private /24 that this module creates and deletes. `--iptables=false` and
`--ip-masq=false`: the engine writes no firewall rule and its containers reach no other address;
a port published with `-p 127.0.0.1::8888` goes through docker-proxy on the host's loopback, which
needs neither. The image comes from podman (`podman save | docker load`): the same bytes the podman
tests ran, not a second build.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from cephlab.core import run
from cephlab.core.poll import poll_until

BRIDGE = "cephlabdk0"
SUBNET = "10.89.201.1/24"      # beside class-hub.sh's 10.89.200.0/24; cephadm's is 192.168.56.0/24
# Debian's client, of the engine's own version (a newer client on PATH would negotiate down)
CLIENT = "/usr/bin/docker" if Path("/usr/bin/docker").exists() else "docker"


def missing() -> str:
    """Why this machine cannot run the engine, or ''."""
    if os.geteuid() != 0:
        return "the Docker tests start their own dockerd: run them as root"
    for tool in ("dockerd", "docker-proxy", "ip"):
        if shutil.which(tool) is None and not Path(f"/usr/sbin/{tool}").exists():
            return f"{tool} is missing: apt-get install docker.io iproute2 (make test installs them)"
    return ""


class Engine:
    """dockerd on a private socket; `docker(...)` runs Debian's client (/usr/bin/docker) against it."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="cephlab-docker-", dir="/var/tmp"))
        self.sock = self.dir / "docker.sock"
        self.proc: subprocess.Popen | None = None

    def docker(self, *args: str, timeout: float = 600, check: bool = True,
               input: str | None = None) -> run.CommandResult:
        return run.run([CLIENT, "-H", f"unix://{self.sock}", *args], what=f"docker {args[0]}",
                       timeout=timeout, check=check, input=input)

    def start(self) -> None:
        _bridge_down()
        run.run(["ip", "link", "add", BRIDGE, "type", "bridge"], what="the engine's bridge")
        run.run(["ip", "addr", "add", SUBNET, "dev", BRIDGE], what="the engine's bridge address")
        run.run(["ip", "link", "set", BRIDGE, "up"], what="the engine's bridge up")
        dockerd = shutil.which("dockerd") or "/usr/sbin/dockerd"
        log = open(self.dir / "dockerd.log", "w")
        env = {**os.environ, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}   # Debian's docker-proxy, runc, containerd
        self.proc = subprocess.Popen(
            [dockerd, "-H", f"unix://{self.sock}", "--data-root", str(self.dir / "data"),
             "--exec-root", str(self.dir / "exec"), "--pidfile", str(self.dir / "dockerd.pid"),
             "--bridge", BRIDGE, "--iptables=false", "--ip-masq=false", "--ip6tables=false"],
            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        poll_until(self._answers, 60, "dockerd answering on its socket", interval=0.5,
                   hint=f"see {self.dir / 'dockerd.log'}")

    def _answers(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise RuntimeError(f"dockerd ended at start: {(self.dir / 'dockerd.log').read_text()[-2000:]}")
        return self.docker("version", check=False, timeout=10).returncode == 0

    def load_from_podman(self, tag: str) -> float:
        """`podman save | docker load`; returns its seconds."""
        t0 = time.monotonic()
        save = subprocess.Popen(["podman", "save", "--format", "docker-archive", tag], stdout=subprocess.PIPE)
        load = subprocess.run([CLIENT, "-H", f"unix://{self.sock}", "load"], stdin=save.stdout,
                              capture_output=True, text=True, timeout=900)
        assert save.wait(timeout=60) == 0 and load.returncode == 0, f"podman save | docker load: {load.stderr}"
        return round(time.monotonic() - t0, 1)

    def stop(self) -> None:
        """Containers, the engine (by its PID, then its process group), its files and its bridge."""
        if self.proc is not None and self.proc.poll() is None:
            ids = self.docker("ps", "-aq", check=False, timeout=30).stdout.split()
            if ids:
                self.docker("rm", "-f", *ids, check=False, timeout=120)
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)
        for mnt in _mounts_under(self.dir):      # overlay mounts a killed engine may leave
            subprocess.run(["umount", "-l", mnt], check=False)
        shutil.rmtree(self.dir, ignore_errors=True)
        _bridge_down()


def _mounts_under(path: Path) -> list[str]:
    with open("/proc/self/mounts") as f:
        points = [line.split()[1] for line in f]
    return sorted((p for p in points if p.startswith(str(path))), key=len, reverse=True)


def _bridge_down() -> None:
    if Path(f"/sys/class/net/{BRIDGE}").exists():
        subprocess.run(["ip", "link", "del", BRIDGE], check=False)
