"""The one way cephlab runs a program: timeouts, a clear error, and one place tests patch.

    from cephlab.core import run
    out = run.run(["ceph-mon", "--mkfs", ...], what="mon mkfs").stdout

A failure raises CommandFailed naming the program, its exit code and the last lines of what it
printed; a missing program raises ProgramMissing with an install hint; a timeout kills the
process and raises CommandTimeout. A process that ignores the kill (stuck in the kernel, e.g. an
unmount of a dead FUSE server) is left behind instead of waited for, so a tear-down never hangs.
Tests replace `run.RUNNER` (a callable with the signature of `_subprocess_run`) to see or fake
every command without starting one.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from cephlab.core.errors import ClusterError, SetupError

DEFAULT_TIMEOUT_S = 120.0
KILL_GRACE_S = 5.0
TAIL_LINES = 5
# The Debian/Ubuntu package that installs each program cephlab runs, for "not installed" messages
# (run(), spawn() and the tear-down's one-line reports). A hint= given to run() wins.
PACKAGES = {
    "ceph": "ceph-common", "rados": "ceph-common", "rbd": "ceph-common", "fio": "fio",
    "rbd-fuse": "rbd-fuse", "ceph-fuse": "ceph-fuse", "fusermount": "fuse", "fusermount3": "fuse3",
    "mount": "mount", "umount": "mount", "losetup": "mount", "mkfs.ext4": "e2fsprogs",
    "runuser": "util-linux", **dict.fromkeys(("pg_ctl", "initdb", "pgbench"), "postgresql postgresql-contrib"),
}


def install_hint(program: str) -> str:
    """`sudo apt-get install <package>` for a program in PACKAGES (by name or path), else ""."""
    package = PACKAGES.get(Path(program).name)
    return f"sudo apt-get install {package}" if package else ""


@dataclass
class CommandResult:
    """What a finished program left: its exit code and output (text)."""

    cmd: list[str]
    returncode: int
    stdout: Any          # str, or bytes with run(..., text=False)
    stderr: str


class CommandFailed(ClusterError):
    """A program exited non-zero; .result holds its output."""

    def __init__(self, message: str, result: CommandResult):
        super().__init__(message)
        self.result = result


class CommandTimeout(ClusterError):
    """A program ran longer than its timeout and was killed."""


class ProgramMissing(SetupError):
    """The program is not installed (not on PATH)."""


def tail(text: str, lines: int = TAIL_LINES, sep: str = " | ") -> str:
    """The last `lines` non-empty lines of `text`, joined by `sep`."""
    kept = [line for line in text.strip().splitlines() if line.strip()]
    return sep.join(kept[-lines:]) or "no output"


def _subprocess_run(cmd: list[str], *, timeout: float, cwd: str | None,
                    env: Mapping[str, str] | None, input: str | bytes | None,
                    stdout_file: IO[str] | None = None, show: bool = False,
                    text: bool = True) -> CommandResult:
    stdin = subprocess.PIPE if input is not None else subprocess.DEVNULL
    out = stdout_file if stdout_file is not None else None if show else subprocess.PIPE
    err = subprocess.STDOUT if stdout_file is not None else None if show else subprocess.PIPE
    proc = subprocess.Popen(cmd, stdin=stdin, stdout=out, stderr=err, text=text, cwd=cwd,
                            env=None if env is None else dict(env))
    try:
        stdout, stderr = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        try:
            proc.communicate(timeout=KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            pass                    # stuck in the kernel: leave it rather than hang
        raise CommandTimeout(f"{Path(cmd[0]).name} did not finish within {timeout:g} s "
                             f"and was killed ({' '.join(cmd)[:200]})") from None
    if not text:
        return CommandResult(cmd, proc.returncode, stdout or b"", (stderr or b"").decode(errors="replace"))
    return CommandResult(cmd, proc.returncode, stdout or "", stderr or "")


RUNNER: Callable[..., CommandResult] = _subprocess_run


def run(cmd: Sequence[str | os.PathLike], *, what: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S, cwd: str | os.PathLike | None = None,
        env: Mapping[str, str] | None = None, input: str | bytes | None = None,
        check: bool = True, hint: str = "", log: str | os.PathLike | None = None,
        show: bool = False, text: bool = True) -> CommandResult:
    """Run `cmd` to its end and return a CommandResult.

    what: how errors name the step (default: the program's name); hint: what to do, appended
    to a ProgramMissing message (default: install_hint(program)); log: a file that receives
    stdout and stderr instead of the CommandResult (for long, chatty programs such as `vagrant
    up`); show: let the program write to this terminal as it goes (its progress), the
    CommandResult then holds no output; check=False returns a failed CommandResult instead of
    raising; text=False: stdin/stdout are bytes (objects through `rados put/get -`).
    """
    argv = [os.fspath(a) for a in cmd]
    name = Path(argv[0]).name
    hint = hint or install_hint(name)
    if shutil.which(argv[0]) is None and not Path(argv[0]).is_file():
        raise ProgramMissing(f"{name} is not installed" + (f": {hint}" if hint else ""))
    what = what or name
    kwargs = dict(timeout=timeout, cwd=None if cwd is None else os.fspath(cwd), env=env,
                  input=input)
    if log is not None:
        with open(log, "w") as f:
            result = RUNNER(argv, stdout_file=f, **kwargs)
        result.stdout = Path(log).read_text(errors="replace")
    elif show:
        result = RUNNER(argv, show=True, **kwargs)
    elif not text:
        result = RUNNER(argv, text=False, **kwargs)
    else:
        result = RUNNER(argv, **kwargs)
    if check and result.returncode != 0:
        where = f" (log: {log})" if log is not None else " (messages above)" if show else ""
        raise CommandFailed(f"{what} failed (exit {result.returncode}): "
                            f"{tail(result.stderr or str(result.stdout))}{where}", result)
    return result


def spawn(cmd: Sequence[str | os.PathLike], cwd: str | os.PathLike | None = None,
          output: IO[Any] | None = None, new_session: bool = False,
          env: Mapping[str, str] | None = None) -> subprocess.Popen:
    """Start a program in the background and return at once: a one-shot tool to finish() later
    (OSD mkfs in parallel), or a daemon that forks itself (output: its start-up log file;
    new_session: it leaves our process group, so a Ctrl-C here does not reach it)."""
    argv = [os.fspath(a) for a in cmd]
    if shutil.which(argv[0]) is None and not Path(argv[0]).is_file():
        hint = install_hint(argv[0])
        raise ProgramMissing(f"{Path(argv[0]).name} is not installed" + (f": {hint}" if hint else ""))
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                            stdout=output if output is not None else subprocess.PIPE,
                            stderr=output if output is not None else subprocess.STDOUT,
                            text=output is None, cwd=None if cwd is None else os.fspath(cwd),
                            start_new_session=new_session, env=None if env is None else dict(env))


def finish(proc: subprocess.Popen, what: str, timeout: float = 300) -> str:
    """Wait for a spawn()ed program; CommandFailed with its last lines when it failed."""
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise CommandTimeout(f"{what} did not finish within {timeout:g} s and was killed") from None
    if proc.returncode != 0:
        result = CommandResult([str(a) for a in proc.args], proc.returncode, out or "", "")  # type: ignore[union-attr]
        raise CommandFailed(f"{what} failed (exit {proc.returncode}): {tail(out or '')}", result)
    return out or ""
