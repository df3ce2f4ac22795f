"""A private JupyterLab server and the OS's Chromium for the browser tests.

JupyterLab runs from this repository's .venv on a free loopback port with a random token, its own
settings, workspaces and config folders (a learner's ~/.jupyter changes nothing here), on a
folder of trimmed lab copies. Voila is served by the same server (its server extension,
/voila/render/<path>: the URL Binder and JupyterHub users open), so no second server starts.
"""
from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
# Without the background-networking flags Chromium keeps dialling Google's hosts, which this
# kind of closed machine refuses (polyglot machine notes, "Known to work").
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# JupyterLab settings: render every cell (JupyterLab 4 otherwise leaves off-screen cells
# unrendered), and no news or update toasts over the notebook.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
}


def chromium_path() -> str | None:
    return next((p for p in CHROMIUM_CANDIDATES if os.access(p, os.X_OK)), None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JupyterLabServer:
    """`jupyter lab` on root_dir; .url(path) gives an address with the token."""

    def __init__(self, root_dir: Path, state_dir: Path, jupyter: Path | None = None):
        self.root_dir, self.state_dir = Path(root_dir), Path(state_dir)
        self.jupyter = jupyter or Path(sys.executable).with_name("jupyter")
        self.port, self.token = free_port(), secrets.token_hex(16)
        self.log_path = self.state_dir / "jupyterlab.log"
        self.proc = None
        self.startup_s = None

    def _write_settings(self) -> Path:
        settings = self.state_dir / "settings"
        for rel, values in LAB_SETTINGS.items():
            path = settings / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        return settings

    def start(self, timeout: float = 120.0) -> JupyterLabServer:
        settings = self._write_settings()
        args = [str(self.jupyter), "lab", "--no-browser", f"--port={self.port}",
                "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root_dir}",
                f"--LabApp.user_settings_dir={settings}",
                f"--LabApp.workspaces_dir={self.state_dir / 'workspaces'}",
                "--LabApp.expose_app_in_browser=True"]   # window.jupyterapp: open files, read cells
        if os.geteuid() == 0:
            args.append("--allow-root")
        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(self.state_dir / "config")}
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(args, stdout=self.log_path.open("w"), stderr=subprocess.STDOUT,
                                     env=env, start_new_session=True)
        while not self._ready():
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {self.proc.returncode} before serving; "
                                   f"its log: {self.log_path}")
            if time.perf_counter() - t0 > timeout:
                self.stop()
                raise RuntimeError(f"JupyterLab did not answer within {timeout:.0f} s; log: {self.log_path}")
            time.sleep(0.3)
        self.startup_s = time.perf_counter() - t0
        return self

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(self.url("api/status"), timeout=2):
                return True
        except OSError:
            return False

    def url(self, path: str = "lab", **query) -> str:
        q = "&".join([f"{k}={v}" for k, v in query.items()] + [f"token={self.token}"])
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}?{q}"

    def api(self, method: str, path: str):
        req = urllib.request.Request(self.url(f"api/{path}"), method=method)
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self):
        """End every kernel this server started (one lab's kernel must not slow the next)."""
        for kernel in self.api("GET", "kernels"):
            self.api("DELETE", f"kernels/{kernel['id']}")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)   # its own session: the server and its kernels
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
