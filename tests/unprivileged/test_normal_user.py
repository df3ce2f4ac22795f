"""What a JupyterHub or Binder user has: no root. A new normal user sets the lab up in a copy of
the repository in its home, starts its own mini cluster, runs lab 01 (the student version, as a
learner gets it) end to end, and stops the cluster. Afterwards none of that user's processes run,
its cluster folder is gone, and nothing under /etc/ceph, /var/lib/ceph or /var/log/ceph was
written. The user is removed at the end.

Needs root to create the user (skipped otherwise) and the OS packages installed already (a normal
user cannot apt-get; bootstrap.sh says so and stops). The user's .venv is built from PyPI like a
learner's (~3 minutes on 2 cores; the PyPI mirror here sends nothing pip can cache, so a shared
pip cache would not shorten it).
"""
import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest

from tests.unprivileged import normal_user as nu
from tests.unprivileged.conftest import ARTIFACTS, STEPS

ROOT = Path(__file__).resolve().parents[2]
LAB = "01-redundancy"
CLUSTER = "hubuser"

# nbclient runs the student notebook as Jupyter would; the executed copy is kept for a look.
RUN_LAB = f"""
import nbformat, sys
from nbclient import NotebookClient
path = "labs/{LAB}/{LAB}.ipynb"
nb = nbformat.read(path, as_version=4)
try:
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={{"metadata": {{"path": "labs/{LAB}"}}}}).execute()
finally:
    nbformat.write(nb, "{LAB}.executed.ipynb")
errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
print("code cells run:", sum(1 for c in nb.cells if c.cell_type == "code" and c.execution_count))
sys.exit(1 if errors else 0)
"""


def _require_root_tools():
    if os.geteuid() != 0:
        pytest.skip("needs root to create a throw-away user (useradd); run the suite as root, "
                    "e.g. in CI, or create a user by hand and follow README's set-up as it")
    for tool in ("useradd", "userdel", "runuser"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is missing (Debian package passwd/util-linux)")


@pytest.fixture(scope="module")
def user():
    _require_root_tools()
    u = nu.NormalUser(f"cephlab-u{os.getpid()}").create()
    yield u
    u.remove()


def _run_step(user, what, command, timeout, cwd=None):
    t0 = time.perf_counter()
    r = user.run(command, timeout=timeout, cwd=cwd)
    STEPS.append({"step": what, "s": round(time.perf_counter() - t0, 1), "rc": r.returncode})
    return r


def _step(user, what, command, timeout, cwd=None):
    r = _run_step(user, what, command, timeout, cwd)
    assert r.returncode == 0, (f"as user {user.name}: {what} failed ({command!r}, exit {r.returncode}):\n"
                               f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


@pytest.mark.unprivileged
@pytest.mark.timeout(1500)
def test_normal_user_sets_up_runs_lab01_and_leaves_nothing(user, tmp_path):
    before = nu.snapshot()
    repo = user.home / "ceph-storage-lab"
    nu.copy_repository(ROOT, repo)
    user.give(user.home)

    _step(user, "bash cephlab/bootstrap.sh setup", "bash cephlab/bootstrap.sh setup", 1200, cwd=repo)
    venv = repo / ".venv"
    assert (venv / "bin" / "cephlab").exists() and venv.stat().st_uid == user.uid

    cephlab = f"{venv}/bin/cephlab"
    try:
        _step(user, "cephlab up", f"{cephlab} up --name {CLUSTER} --quiet", 600, cwd=repo)
        status = _step(user, "cephlab status", f"{cephlab} status --name {CLUSTER}", 120, cwd=repo).stdout
        assert "osd" in status.lower(), status
        folder = user.home / ".local" / "state" / "cephlab" / CLUSTER
        assert folder.is_dir() and folder.stat().st_uid == user.uid, "the cluster lives in the user's home"
        daemons = user.processes()
        assert "ceph-mon" in daemons and "ceph-osd" in daemons, daemons
        conf = (folder / "ceph.conf").read_text()
        assert not [d for d in nu.SYSTEM_CEPH_DIRS if str(d) in conf], f"ceph.conf points at a system folder:\n{conf}"

        _another_user_is_kept_out(folder)

        _step(user, f"run labs/{LAB} (student version) with nbclient",
              f"CEPHLAB_NAME={CLUSTER} {venv}/bin/python - <<'EOF'\n{RUN_LAB}\nEOF", 900, cwd=repo)
        executed = json.loads((repo / f"{LAB}.executed.ipynb").read_text())
        assert all(c.get("execution_count") for c in executed["cells"] if c["cell_type"] == "code")
    finally:
        down = _run_step(user, "cephlab down", f"{cephlab} down --name {CLUSTER}", 300, cwd=repo)
        if (repo / f"{LAB}.executed.ipynb").exists():
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            shutil.copy(repo / f"{LAB}.executed.ipynb", ARTIFACTS)
    assert down.returncode == 0, f"cephlab down failed:\n{down.stdout[-3000:]}\n{down.stderr[-3000:]}"

    deadline = time.monotonic() + 30
    while user.pids() and time.monotonic() < deadline:   # daemons and the kernel may take a moment
        time.sleep(0.5)
    assert not user.pids(), f"still running as {user.name} after cephlab down:\n{user.processes()}"
    assert not (user.home / ".local" / "state" / "cephlab" / CLUSTER).exists(), "cephlab down left the folder"

    # Never wrote to the system's Ceph folders: it cannot (no write permission), it owns nothing
    # there, and nothing there changed while it ran. Other programs on a shared machine may write
    # there too, so a change by root or ceph is reported, not failed on.
    writable = user.run(" ; ".join(f"test -w {d} && echo {d}" for d in nu.SYSTEM_CEPH_DIRS) + " ; true", 30)
    assert writable.stdout.strip() == "", f"{user.name} may write to {writable.stdout.split()}"
    after = nu.snapshot()
    theirs = sorted(p for p, (_, _, uid) in after.items() if uid == user.uid)
    assert not theirs, f"{user.name} owns files in the system's Ceph folders: {theirs[:5]}"
    changed = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    STEPS.append({"step": "changes under /etc/ceph, /var/lib/ceph, /var/log/ceph (by others)", "s": 0,
                  "rc": len(changed), "paths": changed[:10]})


def _another_user_is_kept_out(folder: Path):
    """Learner B on the same machine (a hub without containers shares one loopback) can reach A's
    daemons' ports but not use them: A's folder (keyring, data, logs) is closed to B, and the
    mon refuses B without A's cephx key. B tries with the plain `ceph` of the OS packages."""
    other = nu.NormalUser(f"cephlab-b{os.getpid()}").create()
    try:
        mon = re.search(r"mon host = (\S+)", (folder / "ceph.conf").read_text()).group(1)
        peek = other.run(f"ls {folder}; cat {folder}/keyring; head -c 1 {folder}/osd/0/block", 30)
        assert peek.stdout == "" and peek.stderr.count("Permission denied") == 3, peek.stdout + peek.stderr
        ask = "timeout 60 ceph -c /dev/null -m '{mon}' -n client.admin --keyring {key} --connect-timeout 15 status"
        refused = other.run(ask.format(mon=mon, key="/dev/null"), 90)
        denied = refused.returncode != 0 and "permission denied" in refused.stderr.lower()
        assert denied, refused.stdout + refused.stderr
        # control: the same command with A's key (read by root here) is answered
        shutil.copy(folder / "keyring", other.home / "a-keyring")
        other.give(other.home / "a-keyring")
        answered = other.run(ask.format(mon=mon, key=other.home / "a-keyring"), 90)
        assert answered.returncode == 0 and "health" in answered.stdout.lower(), answered.stdout + answered.stderr
    finally:
        other.remove()
