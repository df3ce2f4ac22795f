"""cephlab.core.teardown without a cluster: a failing clean-up step is one line on stderr and the
tear-down goes on; unmount's fallbacks; daemons.stop escalates to SIGKILL, only for our PIDs."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cephlab.backends.native import daemons
from cephlab.core import teardown


def only(capsys):
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def path_with(tmp_path, *tools):
    """A PATH holding only links to `tools` (so e.g. fusermount is missing)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in tools:
        (bin_dir / tool).symlink_to(subprocess.check_output(["sh", "-c", f"command -v {tool}"],
                                                            text=True).strip())
    return str(bin_dir)


def test_a_working_step_says_nothing(capsys):
    done = []
    assert teardown.attempt("do it", done.append, 1) is True
    assert done == [1] and capsys.readouterr().err == ""


def test_a_missing_tool_is_one_line_naming_the_package(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", path_with(tmp_path))
    assert teardown.attempt("unmount /x", teardown.run, ["fusermount", "-u", "/x"]) is False
    assert only(capsys) == ("cephlab: could not unmount /x (fusermount not found: apt-get install fuse); "
                            "continuing")


def test_a_failing_command_gives_its_exit_code_and_last_line(capsys):
    cmd = ["sh", "-c", "echo first >&2; echo 'target is busy' >&2; exit 32"]
    assert not teardown.attempt("unmount /x", teardown.run, cmd)
    assert only(capsys) == "cephlab: could not unmount /x (sh -c exited 32: target is busy); continuing"


def test_a_hung_command_is_cut_off(capsys):
    t0 = time.monotonic()
    assert not teardown.attempt("unmount /x", teardown.run, ["sleep", "30"], timeout=0.3)
    assert time.monotonic() - t0 < 5
    assert only(capsys) == "cephlab: could not unmount /x (sleep did not finish within 0.3 s); continuing"


def test_any_error_is_one_line_and_interrupts_still_stop(capsys):
    def fails():
        raise RuntimeError("line one\nline two")
    assert not teardown.attempt("stop osd.0", fails)
    assert only(capsys) == "cephlab: could not stop osd.0 (RuntimeError: line one line two); continuing"

    def interrupted():
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        teardown.attempt("stop osd.0", interrupted)


def test_a_missing_file_is_not_called_a_missing_tool():
    assert teardown.reason(FileNotFoundError(2, "No such file", "/var/tmp/x/postmaster.pid")) \
        == "FileNotFoundError: [Errno 2] No such file: '/var/tmp/x/postmaster.pid'"


def test_without_fusermount_umount_does_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", path_with(tmp_path, "umount"))
    commands, missing = teardown.unmount_commands("/m")
    assert commands == [["umount", "/m"], ["umount", "-l", "/m"]]
    assert missing == ["fusermount not found: apt-get install fuse"]


def test_with_fusermount_gentle_ways_come_before_lazy_ones(tmp_path, monkeypatch):
    bin_dir = Path(path_with(tmp_path, "umount"))
    (bin_dir / "fusermount").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "fusermount").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    fuser = str(bin_dir / "fusermount")
    commands, missing = teardown.unmount_commands("/m")
    assert commands == [[fuser, "-u", "/m"], ["umount", "/m"],
                        [fuser, "-u", "-z", "/m"], ["umount", "-l", "/m"]]
    assert missing == []
    assert teardown.unmount_commands("/m", fuse=False)[0] == [["umount", "/m"], ["umount", "-l", "/m"]]


def test_a_busy_mount_is_detached_lazily(tmp_path, monkeypatch):
    tried = []

    def run(cmd, timeout=None):
        tried.append(cmd)
        if "-l" not in cmd and "-z" not in cmd:
            raise teardown.StepFailed(f"{cmd[0]} exited 32: target is busy")
        return ""
    monkeypatch.setattr(teardown, "run", run)
    monkeypatch.setattr(teardown, "_fusermount", lambda: None)
    point = tmp_path / "mnt"
    point.mkdir()
    assert teardown.unmount(point) == "detached"
    assert tried == [["umount", str(point)], ["umount", "-l", str(point)]]
    assert not point.exists()                       # the empty mount point is removed


def test_when_every_way_fails_the_reasons_are_joined(tmp_path, monkeypatch):
    def run(cmd, timeout=None):
        raise FileNotFoundError(2, "No such file or directory", cmd[0])
    monkeypatch.setattr(teardown, "run", run)
    monkeypatch.setattr(teardown, "_fusermount", lambda: None)
    monkeypatch.setattr(os.path, "ismount", lambda p: True)
    with pytest.raises(teardown.StepFailed) as e:
        teardown.unmount(tmp_path)
    assert str(e.value).startswith("fusermount not found: apt-get install fuse; umount not found: "
                                   "apt-get install mount")


# -- daemons.stop: SIGTERM, then SIGKILL after a bounded wait, only for this cluster's PIDs ---------
def fake_daemon(folder, name, names_conf=True):
    """A process that ignores SIGTERM, with a pid file like a daemon's; its command line names
    the folder's ceph.conf (as a daemon's does) unless names_conf is False."""
    (folder / "run").mkdir(exist_ok=True)
    conf = str(folder / "ceph.conf") if names_conf else "other.conf"
    proc = subprocess.Popen([sys.executable, "-c", "import signal, time; "
                             "signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); "
                             "time.sleep(120)", "-c", conf], stdout=subprocess.PIPE)
    proc.stdout.readline()                          # SIGTERM is ignored from here on
    daemons.pid_path(folder, name).write_text(str(proc.pid))
    return proc


def test_stop_kills_a_daemon_that_ignores_sigterm(tmp_path, capsys):
    proc = fake_daemon(tmp_path, "osd.0")
    try:
        t0 = time.monotonic()
        assert daemons.stop(tmp_path, ["osd.0"], graceful=True, timeout=0.5) == ["osd.0"]
        assert time.monotonic() - t0 < 0.5 + daemons.KILL_WAIT_S
        assert proc.wait(timeout=5) == -9
        assert only(capsys) == "cephlab: osd.0 did not stop on SIGTERM within 0.5 s; sending SIGKILL"
        assert not daemons.pid_path(tmp_path, "osd.0").exists()
    finally:
        proc.kill()
        proc.wait()


def test_stop_never_signals_a_process_that_does_not_name_the_conf(tmp_path):
    proc = fake_daemon(tmp_path, "osd.0", names_conf=False)
    try:
        assert daemons.stop(tmp_path, ["osd.0"], graceful=False) == []
        assert proc.poll() is None                  # still running: not ours
    finally:
        proc.kill()
        proc.wait()
