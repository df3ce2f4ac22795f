"""An unusable cluster folder (`--dir`): `cephlab up`, `cephlab down` and the commands that only
read a cluster (status, env, smoke) say so in one line and exit with status 2, never with a
traceback, and make nothing: no folder, no lock file. Fast tier, no cluster: the check
(cephlab.core.folders.check_folder, which cluster_lock runs first) refuses the folder before the
lock is taken. CEPHLAB_BIN_DIR names an empty folder besides, so a check that let a bad folder
through would stop at "Ceph is not installed" (and fail here), never start a daemon."""
from __future__ import annotations

import errno
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from cephlab import cli
from cephlab.backends.native import lifecycle as native
from cephlab.core import folders, lock
from cephlab.core.errors import FolderUnusable

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534
ENOENT, EACCES, TOO_LONG = (os.strerror(n) for n in (errno.ENOENT, errno.EACCES, errno.ENAMETOOLONG))


@pytest.fixture(autouse=True)
def no_ceph(tmp_path, monkeypatch):
    """No Ceph to start, and no folder but the one each test names."""
    (tmp_path / "no-ceph").mkdir()
    monkeypatch.setenv("CEPHLAB_BIN_DIR", str(tmp_path / "no-ceph"))
    for var in ("CEPHLAB_DIR", "CEPHLAB_NAME", "CEPHLAB_BACKEND"):
        monkeypatch.delenv(var, raising=False)


def tree(top: Path) -> list[str]:
    """Every path under `top` with its mode: what a command must not change."""
    return sorted(f"{p.relative_to(top)} {oct(p.lstat().st_mode)}" for p in [top, *top.rglob("*")])


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """The `cephlab` entry point in this process: (exit status, stdout, stderr)."""
    try:
        code = cli.main(list(argv))
    except BaseException:                   # a traceback is what the test is about: show it
        out, err = capsys.readouterr()
        return -1, out, err + traceback.format_exc()
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(code: int, out: str, err: str, path: str, reason: str) -> None:
    """Exit status 2, one line naming the path, the reason and what to do; no traceback."""
    assert "Traceback" not in out + err, err
    assert code == 2, (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("cephlab: error: cluster folder "), lines[0]
    if len(path) <= folders.SHOWN_CHARS:
        assert f"cluster folder {path}: " in lines[0]
    else:                                   # a long path: its start, its end and its length
        assert f"cluster folder {path[:60]}" in lines[0] and path[-30:] in lines[0]
        assert f"({len(path)} characters)" in lines[0]
    assert reason in lines[0], lines[0]
    assert "--dir" in lines[0]                                  # what to do
    assert "Ceph is not installed" not in err                   # stopped by the check, not later


# -- the cases: (--dir, what `up` says, what `down` says) ---------------------------------------------
def make_case(case: str, tmp: Path) -> tuple[str, str, str]:
    if case == "proc":                      # the issue's: FileNotFoundError '/proc/.cannot-write-here.lock'
        return ("/proc/cannot-write-here", f"cannot create it in /proc ({ENOENT})",
                f"cannot write in /proc, where its lock file goes ({ENOENT})")
    if case == "procfs-folder":             # a folder no one, root neither, can create a file in
        return "/proc/1", "cannot write in it (", "cannot write in it ("
    if case in ("regular-file", "parent-is-a-file"):
        (tmp / "afile").write_text("mine")
        if case == "regular-file":
            return str(tmp / "afile"), "it is a file, not a folder", "it is a file, not a folder"
        said = f"{tmp / 'afile'} is a file, not a folder"
        return str(tmp / "afile" / "sub"), said, said
    if case == "5000-chars":
        path = str(tmp / "/".join(["d" * 99] * 50))
        assert len(path) > 5000
        return path, f"the path is too long ({TOO_LONG}", f"the path is too long ({TOO_LONG}"
    if case == "300-char-name":
        return str(tmp / ("c" * 300)), f"a name in it is too long ({TOO_LONG}", f"a name in it is too long ({TOO_LONG}"
    if case == "300-char-name-below-a-new-folder":      # the kernel would say ENOENT first
        return (str(tmp / "new" / ("c" * 300) / "x"), f"a name in it is too long ({TOO_LONG}",
                f"a name in it is too long ({TOO_LONG}")
    raise AssertionError(case)


CASES = ["proc", "procfs-folder", "regular-file", "parent-is-a-file", "5000-chars", "300-char-name",
         "300-char-name-below-a-new-folder"]


def nothing_made_in_proc():
    for name in ("cannot-write-here", ".cannot-write-here.lock", ".1.lock"):
        assert not os.path.lexists(f"/proc/{name}")


@pytest.mark.parametrize("command", ["up", "down"])
@pytest.mark.parametrize("case", CASES)
def test_up_and_down_refuse_an_unusable_dir_in_one_line(case, command, tmp_path, capsys):
    path, up_says, down_says = make_case(case, tmp_path)
    before = tree(tmp_path)
    code, out, err = run_cli(capsys, command, "--name", "dirtest", "--dir", path)
    assert_refused(code, out, err, path, up_says if command == "up" else down_says)
    assert out == ""
    assert tree(tmp_path) == before                 # no folder, no lock file
    nothing_made_in_proc()


@pytest.mark.parametrize("command", ["status", "env", "smoke"])
@pytest.mark.parametrize("case", CASES)
def test_the_commands_that_read_a_cluster_say_so_in_one_line(case, command, tmp_path, capsys):
    path, _, says = make_case(case, tmp_path)
    before = tree(tmp_path)
    code, out, err = run_cli(capsys, command, "--dir", path)
    assert "Traceback" not in out + err, err
    if case.startswith("proc"):             # a folder that can be read: there is no cluster there
        assert code == 1 and len(err.splitlines()) == 1, (code, err)
        assert f"no lab cluster named 'lab' (looked in {path})" in err
    else:
        assert_refused(code, out, err, path, says)
    assert tree(tmp_path) == before
    nothing_made_in_proc()


@pytest.mark.parametrize("command", ["up", "down"])
def test_the_cephlab_program_says_it_in_one_line(command, tmp_path):
    """The same through the installed entry point (a process of its own), and through
    $CEPHLAB_DIR instead of --dir."""
    env = {**os.environ, "CEPHLAB_BIN_DIR": str(tmp_path / "no-ceph")}
    for args, extra in ((["--dir", "/proc/cannot-write-here"], {}), ([], {"CEPHLAB_DIR": "/proc"})):
        out = subprocess.run([sys.executable, "-m", "cephlab.cli", command, "--name", "cannot-write-here",
                              *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                             env={**env, **extra})
        assert out.returncode == 2, out
        assert "Traceback" not in out.stdout + out.stderr
        assert len(out.stderr.splitlines()) == 1, out.stderr
        assert out.stderr.startswith("cephlab: error: cluster folder /proc/cannot-write-here: ")
        assert ENOENT in out.stderr
    nothing_made_in_proc()


def test_a_home_that_does_not_exist_is_a_usage_error_too(capsys):
    code, out, err = run_cli(capsys, "up", "--dir", "~no-such-user-here/lab")
    assert_refused(code, out, err, "~no-such-user-here/lab", "cannot expand ~no-such-user-here")


# -- folders this user may not write (tests run as root, which writes through any mode) -------------
@pytest.fixture
def shared(monkeypatch):
    """A folder in /tmp that uid 65534 can enter (pytest's tmp_path is root's alone), with the
    empty CEPHLAB_BIN_DIR in it."""
    base = Path(tempfile.mkdtemp(prefix="cephlab-dir-test-"))
    base.chmod(0o755)
    (base / "no-ceph").mkdir()
    monkeypatch.setenv("CEPHLAB_BIN_DIR", str(base / "no-ceph"))
    yield base
    for p in [base, *base.rglob("*")]:
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)
    shutil.rmtree(base)


def as_normal_user(argv: list[str]) -> tuple[int, str, str]:
    """cephlab's main(argv) as a user without root's rights: as root, in a forked child switched
    to uid and gid 65534 (a fork, not a new program: the interpreter lives under /root, which
    65534 cannot enter, and the child keeps what this process imported); as anyone else, here."""
    if os.geteuid() != 0:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(argv)
        return code, out.getvalue(), err.getvalue()
    cli.build_parser()                      # every command module and backend imported before the fork
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                            # the child: never returns into pytest
        status = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = cli.main(argv)
                except BaseException:
                    traceback.print_exc()
                    code = -1
            data = json.dumps({"code": code, "out": out.getvalue(), "err": err.getvalue(),
                               "uid": os.getuid()}).encode()
            while data:
                data = data[os.write(write, data):]
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    assert status == 0 and data, "the child as uid 65534 failed before it could report"
    result = json.loads(data)
    assert result["uid"] == NOBODY
    return result["code"], result["out"], result["err"]


def give_to_nobody(path: Path) -> None:
    if os.geteuid() == 0:
        os.chown(path, NOBODY, NOBODY)


NORMAL_USER_CASES = ["read-only-folder", "in-a-read-only-folder", "in-roots-folder", "own-folder-in-roots-folder"]


def make_normal_user_case(case: str, base: Path, command: str) -> tuple[str, str]:
    """(--dir, what it says) for a folder the normal user cannot write."""
    ro = base / "ro"
    ro.mkdir()
    give_to_nobody(ro)
    ro.chmod(0o500)
    roots = base / "roots"                  # root's, 0755: the normal user can only read it
    roots.mkdir()
    mine = roots / "mine"
    mine.mkdir(mode=0o700)
    give_to_nobody(mine)
    if case == "read-only-folder":
        return str(ro), f"cannot write in it ({EACCES})"
    if case == "in-a-read-only-folder":
        if command == "up":
            return str(ro / "c"), f"cannot create it in {ro} ({EACCES})"
        return str(ro / "c"), f"cannot write in {ro}, where its lock file goes ({EACCES})"
    if case == "in-roots-folder":
        if os.geteuid() != 0:
            roots = Path("/")
        if command == "up":
            return str(roots / "c"), f"cannot create it in {roots} ({EACCES})"
        return str(roots / "c"), f"cannot write in {roots}, where its lock file goes ({EACCES})"
    if case == "own-folder-in-roots-folder":                # like --dir $HOME with /home root's
        return str(mine), f"cannot write in {roots}, where its lock file goes ({EACCES})"
    raise AssertionError(case)


@pytest.mark.parametrize("command", ["up", "down"])
@pytest.mark.parametrize("case", NORMAL_USER_CASES)
def test_a_folder_the_user_may_not_write(case, command, shared):
    if os.geteuid() != 0 and case == "own-folder-in-roots-folder":
        pytest.skip("needs root, to give a folder inside root's folder to another user")
    if os.geteuid() != 0 and (os.stat("/").st_uid != 0 or os.access("/", os.W_OK)):
        pytest.skip("needs root, or a / owned by root that this user cannot write")
    path, says = make_normal_user_case(case, shared, command)
    before = tree(shared)
    code, out, err = as_normal_user([command, "--name", "dirtest", "--dir", path])
    assert_refused(code, out, err, path, says)
    assert tree(shared) == before                   # no folder, no lock file
    assert not os.path.lexists("/.c.lock") and not os.path.lexists("/c")


# -- the check itself --------------------------------------------------------------------------------
def test_a_writable_folder_passes_and_is_made_private(tmp_path):
    """The positive control: a folder that can be made passes, as does one that exists; no
    probe file stays behind, and without create nothing is made."""
    folder = tmp_path / "state" / "lab"
    assert folders.check_folder(folder) is False            # not there, not made: `down`'s check
    assert not (tmp_path / "state").exists()
    assert folders.check_folder(folder, create=True) is True
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert list(folder.iterdir()) == [] and [p.name for p in folder.parent.iterdir()] == ["lab"]
    assert folders.check_folder(folder) is True and folders.look(folder) is True
    assert folders.look(tmp_path / "elsewhere") is False


def test_without_o_tmpfile_the_probe_is_a_named_file_that_goes(tmp_path, monkeypatch):
    monkeypatch.setattr(folders.os, "O_TMPFILE", os.O_DIRECTORY)   # open() refuses it: EISDIR
    assert folders.check_folder(tmp_path / "lab", create=True) is True
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lab", "no-ceph"]
    assert list((tmp_path / "lab").iterdir()) == []


def test_the_folder_is_checked_before_any_lock_is_taken(tmp_path, monkeypatch):
    def no_lock(*args, **kw):
        raise AssertionError("a lock was taken for an unusable folder")
    monkeypatch.setattr(lock, "file_lock", no_lock)
    (tmp_path / "afile").write_text("mine")
    for dir in ("/proc/cannot-write-here", tmp_path / "afile", tmp_path / "afile" / "sub"):
        with pytest.raises(FolderUnusable) as e:
            native.up("dirtest", osds=1, dir=dir, progress=False)
        assert e.value.path == str(dir)
        with pytest.raises(FolderUnusable):
            native.down("dirtest", dir=dir)
        with pytest.raises(FolderUnusable):
            lock.cluster_lock(dir, "cephlab up", create=True)


def test_a_start_refused_later_leaves_no_folder_and_no_lock(tmp_path, capsys):
    """A usable new folder is made by the check; `up` failing before it writes anything (no
    Ceph here) takes it away again, as before the check existed."""
    code, out, err = run_cli(capsys, "up", "--name", "dirtest", "--dir", str(tmp_path / "new" / "lab"))
    assert code == 1 and "Ceph is not installed" in err and "Traceback" not in err
    left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    assert left in (["no-ceph"], ["new", "no-ceph"]), left     # the parent stays, as the lock's did


def test_a_probe_left_by_a_killed_check_does_not_make_a_folder_foreign(tmp_path):
    d = tmp_path / "lab"
    d.mkdir()
    (d / f"{folders.PROBE_PREFIX}abc123").write_text("")
    assert native.down("lab", dir=d) == []
    assert not d.exists()
