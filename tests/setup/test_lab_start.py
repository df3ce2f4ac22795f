"""`make lab` as a learner starts it, without the cluster (CEPHLAB_NO_CLUSTER=1): bootstrap.sh
with nothing left to set up, then the real JupyterLab of .venv, stopped once it serves the labs.
It prints bootstrap.sh's one line and JupyterLab's address, nothing else (issue 47 item 8: no
start-up chatter, no deprecation warning, no "Skipped non-installed server(s)", no "No web browser
found"), and the page it serves has JupyterLab's news box switched off. About 5-10 s."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NEWS_PLUGIN = "@jupyterlab/apputils-extension:announcements"
URL = re.compile(r"http://127\.0\.0\.1:(\d+)/lab\?token=([0-9a-f]+)")
# JupyterLab's address block ([C] is how Jupyter Server logs it, whatever the log level)
ADDRESS = re.compile(r"^\[C [\d-]+ [\d:.]+ ServerApp\]\s*$|^\s*$|^\s+To access the server|^\s+file://|"
                     r"^\s+Or copy and paste|^\s+http://127\.0\.0\.1:\d+/lab\?token=")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(300)
def test_make_lab_without_a_cluster_prints_its_line_and_the_address_only(tmp_path):
    if not (ROOT / ".venv" / "bin" / "jupyter").exists():
        pytest.skip("no .venv: run bash cephlab/bootstrap.sh setup")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_CONFIG_PATH", "PYTHONWARNINGS")}
    env.update(CEPHLAB_NO_CLUSTER="1", JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"), JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "ws"))
    proc = subprocess.Popen(["bash", str(ROOT / "cephlab" / "bootstrap.sh"), "lab", f"--port={port}",
                             "--ServerApp.port_retries=0", "--no-browser"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)
    lines, page = [], ""
    try:
        deadline = time.monotonic() + 240
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            m = URL.search(line)
            if m:
                with urllib.request.urlopen(m.group(0), timeout=60) as r:
                    page = r.read().decode()
                break
            assert time.monotonic() < deadline, "no address within 240 s:\n" + "\n".join(lines)
        time.sleep(2)        # what the server prints once it serves (the language servers' scan came here)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        rest, _ = proc.communicate(timeout=60)
    # after our SIGTERM: its "received signal 15, stopping", and no error on the way out
    lines += [line for line in rest.splitlines() if "received signal 15, stopping" not in line]
    text = "\n".join(lines)
    assert page, "JupyterLab printed no address:\n" + text
    assert NEWS_PLUGIN in page, "the page JupyterLab serves does not disable its news box"
    ours = [line for line in lines if "[cephlab]" in line]
    assert len(ours) == 1 and "opening JupyterLab on labs/" in ours[0], text
    others = [line for line in lines if "[cephlab]" not in line and not ADDRESS.search(line)]
    assert others == [], "make lab printed more than its line and the address:\n" + text
