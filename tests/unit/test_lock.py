"""core.lock (one lock per cluster) across processes, and what the native lifecycle does with a
folder before any daemon runs: the marker first, an older version's leftover folder. Fast tier:
no cluster; the other holders are child processes."""
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cephlab.backends.native import daemons
from cephlab.backends.native import lifecycle as native
from cephlab.core import lock
from cephlab.core.errors import SetupError
from cephlab.core.poll import poll_until

ROOT = Path(__file__).resolve().parents[2]
HOLDER = textwrap.dedent("""
    import sys
    from cephlab.core.lock import cluster_lock
    with cluster_lock(sys.argv[1], sys.argv[2]):
        print("held", flush=True)
        sys.stdin.readline()                # hold it until told
""")
TRY = textwrap.dedent("""
    import sys
    from cephlab.core.lock import LockBusy, cluster_lock
    try:
        with cluster_lock(sys.argv[1], "try", wait=0):
            print("took")
    except LockBusy as e:
        print("busy", e.holder.get("pid"))
""")


def python(code, *args, **kw):
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, **kw)


def hold(folder, what="cephlab up"):
    """A child process holding the cluster lock of `folder` until its stdin gets a line."""
    child = python(HOLDER, folder, what)
    assert child.stdout.readline() == "held\n"
    return child


def let_go(child):
    child.stdin.write("\n")
    child.stdin.flush()


def try_from_another_process(folder):
    out, _ = python(TRY, folder).communicate(timeout=60)
    return out.strip()


def test_a_second_command_waits_says_for_whom_then_holds_it_alone(tmp_path):
    folder = tmp_path / "cc-a"
    first = hold(folder)
    assert try_from_another_process(folder) == f"busy {first.pid}"
    said = []

    def say(text):
        said.append(text)
        let_go(first)                      # the first command finishes once the second waits
    try:
        with lock.cluster_lock(folder, "cephlab up", name="cc-a", doing="starting it", say=say) as held:
            assert first.wait(timeout=60) == 0
            # the first removed the lock file as it let go (no folder): this one holds the new one
            assert held.held()
            assert try_from_another_process(folder) == f"busy {os.getpid()}"
    finally:
        first.kill()
    assert len(said) == 1, said
    assert said[0].startswith(f"waiting for another `cephlab up` (PID {first.pid}, started ")
    assert said[0].endswith(" ago) of cc-a to finish (at most 10 min) ...")
    assert try_from_another_process(folder) == "took"


def test_a_down_waiting_for_an_up_names_the_up(tmp_path):
    folder = tmp_path / "cc-b"
    up = hold(folder, "cephlab up")
    said = []
    try:
        with pytest.raises(lock.LockBusy) as busy:
            with lock.cluster_lock(folder, "cephlab down", doing="taking it down", wait=0.5,
                                   say=said.append):
                pass
    finally:
        let_go(up)
        up.wait(timeout=60)
    assert said[0].startswith(f"waiting for `cephlab up` (PID {up.pid}, started ")
    assert "to finish before taking it down" in said[0]
    assert f"still holds the lock of cc-b after 0.5 s of waiting; if it is stuck, stop it " \
           f"(`kill {up.pid}`) and run this again" in str(busy.value)


def test_a_lock_whose_holder_died_is_taken_over_and_says_so(tmp_path):
    folder = tmp_path / "cc-c"
    dead = hold(folder, "cephlab up")
    os.kill(dead.pid, signal.SIGKILL)
    dead.wait()
    said = []
    with lock.cluster_lock(folder, "cephlab down", wait=0, say=said.append):
        pass
    assert len(said) == 1
    assert said[0].startswith(f"the previous holder of cc-c, `cephlab up` (PID {dead.pid}, started ")
    assert said[0].endswith("is gone; taking over")


def test_the_lock_file_is_private_beside_the_folder_and_goes_with_it(tmp_path):
    folder = tmp_path / "cc-d"
    with lock.cluster_lock(folder, "cephlab up") as held:
        assert held.path == tmp_path / ".cc-d.lock"
        assert stat.S_IMODE(held.path.stat().st_mode) == 0o600
        assert held.holder()["pid"] == os.getpid() and held.holder()["what"] == "cephlab up"
        with lock.cluster_lock(folder, "cephlab up", wait=0):     # the same thread: re-entrant
            pass
        folder.mkdir()
    assert held.path.read_text() == ""          # let go: no record (a record means a holder died)
    folder.rmdir()
    with lock.cluster_lock(folder, "cephlab down"):
        pass
    assert not held.path.exists()


# -- the folder: the marker first, an older version's leftovers ---------------------------------
def test_the_marker_is_written_before_anything_else(tmp_path, monkeypatch):
    seen = []

    def cut_off(d, state, objectstore, *release):  # the first step after the marker
        seen.append((native.load_state(d), sorted(p.name for p in Path(d).iterdir())))
        raise KeyboardInterrupt
    monkeypatch.setattr(native, "_bins", lambda mds: {"ceph-osd": "/usr/bin/ceph-osd"})
    monkeypatch.setattr(native, "check_resources", lambda d, osds: None)
    monkeypatch.setattr(native, "_write_folder", cut_off)
    with pytest.raises(KeyboardInterrupt):
        native.create(tmp_path / "cc-e", "cc-e", osds=1)
    [(state, names)] = seen
    assert state["status"] == "creating" and names == ["cluster.json"]


def leftover(tmp_path, name, *extra):
    """A folder an older cephlab began: its files but no cluster.json."""
    d = tmp_path / name
    for sub in ("mon/a", "osd/0", "log", "run", "tmp"):
        (d / sub).mkdir(parents=True)
    (d / "ceph.conf").write_text("[global]\n")
    (d / "keyring").write_text("")
    for e in extra:
        (d / e).write_text("mine")
    return d


def test_down_removes_an_older_versions_leftover_folder(tmp_path):
    d = leftover(tmp_path, "cc-f")
    assert native.down("cc-f", dir=d) == []
    assert not d.exists() and not (tmp_path / ".cc-f.lock").exists()


def test_a_folder_with_files_cephlab_never_makes_is_left_alone(tmp_path):
    d = leftover(tmp_path, "cc-g", "thesis.tex")
    with pytest.raises(SetupError, match=r"not a cephlab cluster folder \(no cluster.json; it holds "
                                         r"thesis.tex, which cephlab never creates\); not touching it"):
        native.down("cc-g", dir=d)
    with pytest.raises(SetupError, match="exists and is not a cephlab cluster folder"):
        native.up("cc-g", osds=1, dir=d, progress=False)
    assert (d / "thesis.tex").read_text() == "mine"


def test_a_leftover_folder_in_use_says_which_processes_to_stop(tmp_path):
    d = leftover(tmp_path, "cc-h")
    (d / "log" / "mon.a.log").write_text("")
    user = subprocess.Popen(["tail", "-f", str(d / "log" / "mon.a.log")])
    try:
        poll_until(lambda: daemons.processes_in(d), 30, "tail running")     # exec'd, not just forked
        with pytest.raises(SetupError) as e:
            native.down("cc-h", dir=d)
    finally:
        user.kill()
        user.wait()
    assert f"tail[{user.pid}] still use it; stop them with `kill {user.pid}`, then run " \
           "`cephlab down` again" in str(e.value)
    assert d.exists()


def test_the_cephadm_and_vagrant_backends_lock_up_and_down_beside_their_export(tmp_path):
    from types import SimpleNamespace

    from cephlab.backends.base import OrchestratorBackend
    export = tmp_path / "export"
    seen = []

    def holder():
        record = lock.Lock(tmp_path / ".export.lock", "").holder()
        return record.get("pid"), record.get("what")

    def bring_up(quiet):
        seen.append(holder())
        export.mkdir()
        (export / "ceph.conf").write_text("")
        (export / "keyring").write_text("")
        return export

    class Orchestrated(OrchestratorBackend):
        name = title = "orchestrated"
        lifecycle = SimpleNamespace(export_dir=lambda: export, up=bring_up)

        def take_down(self, destroy):
            seen.append(holder())
    b = Orchestrated()
    b.up("x", None)
    b.down("x", None)
    assert seen == [(os.getpid(), "cephlab up"), (os.getpid(), "cephlab down")]
