"""Clean-up steps that must never stop a tear-down (`cephlab down`, a test session's clean-up).

Each step (an unmount, a loop device, a database server) either works or is reported in one line
(a warning: on stderr, see core/report.py), saying what failed and what to do, and the tear-down
goes on to stop the daemons and remove the folder:

    cephlab: could not unmount /x (fusermount not found: apt-get install fuse); continuing

    attempt(f"unmount {point}", unmount, point)     # True when it worked
    run(["losetup", "-d", dev])                      # raises StepFailed with a one-line reason
"""
from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Callable

from cephlab.core import run as core_run
from cephlab.core.errors import CephLabError
from cephlab.core.poll import PollTimeout, poll_until

log = logging.getLogger(__name__)
TIMEOUT_S = 30                 # an unmount or a server stop that takes longer is hung
# The Debian package that provides each program a clean-up step runs, for "not found" lines.
PACKAGES = core_run.PACKAGES


class StepFailed(CephLabError):
    """A clean-up step failed; the message is one line: what happened (and what to do)."""


def report(message: str) -> None:
    """One warning line, prefixed like the CLI's other messages."""
    log.warning(f"cephlab: {' '.join(str(message).split())}")


def reason(error: BaseException) -> str:
    """Why a step failed, in one line, with the fix when one is known."""
    if isinstance(error, FileNotFoundError) and _is_program(error.filename):
        tool = Path(str(error.filename)).name
        pkg = PACKAGES.get(tool)
        return f"{tool} not found: " + (f"apt-get install {pkg}" if pkg else "install it or fix PATH")
    if isinstance(error, subprocess.TimeoutExpired):
        return f"{Path(str(error.cmd[0])).name} did not finish within {error.timeout:g} s"
    text = " ".join(str(error).split())
    return text if isinstance(error, StepFailed) else f"{type(error).__name__}: {text}"


def _is_program(filename: object) -> bool:
    """True when a FileNotFoundError names a program run by name (or one we know), not a file."""
    return bool(filename) and (os.sep not in str(filename) or Path(str(filename)).name in PACKAGES)


def attempt(what: str, action: Callable[..., object], *args, **kwargs) -> bool:
    """Run one clean-up step; on any error report "could not <what> (<why>); continuing".

    Returns True when the step worked. KeyboardInterrupt still stops the caller.
    """
    try:
        action(*args, **kwargs)
        return True
    except Exception as e:          # any failure: a tear-down step must not stop the tear-down
        report(f"could not {what} ({reason(e)}); continuing")
        return False


def run(cmd: Sequence[str], timeout: float = TIMEOUT_S, cwd: str | None = None) -> str:
    """Run one clean-up command (through core.run); returns its stdout, raises StepFailed (exit
    code and the last line it printed), FileNotFoundError (program missing) or TimeoutExpired.

    A process that ignores the kill after a timeout (stuck in the kernel) is left behind rather
    than waited for (core.run does so), so a hung unmount cannot hang the tear-down.
    """
    try:
        return core_run.run(list(cmd), timeout=timeout, cwd=cwd).stdout
    except core_run.ProgramMissing:
        raise FileNotFoundError(2, "No such file or directory", cmd[0]) from None
    except core_run.CommandTimeout:
        raise subprocess.TimeoutExpired(list(cmd), timeout) from None
    except core_run.CommandFailed as e:
        out = e.result
        last = ((out.stderr or str(out.stdout)).strip().splitlines() or ["no output"])[-1]
        options = "".join(f" {a}" for a in cmd[1:] if a.startswith("-"))
        raise StepFailed(f"{Path(cmd[0]).name}{options} exited {out.returncode}: {last}") from None


# -- unmounting ----------------------------------------------------------------------------------------
def _fusermount() -> str | None:
    return shutil.which("fusermount") or shutil.which("fusermount3")


def unmount_commands(point: str, fuse: bool = True) -> tuple[list[list[str]], list[str]]:
    """The ways to unmount `point`, gentle first, lazy (detach now, free when unused) last, and
    the reasons a way is missing. A FUSE mount needs fusermount as a normal user; as root (or
    where fusermount is missing) umount does it too."""
    fuser = _fusermount() if fuse else None
    missing = ["fusermount not found: apt-get install fuse"] if fuse and not fuser else []
    gentle = ([[fuser, "-u", point]] if fuser else []) + [["umount", point]]
    lazy = ([[fuser, "-u", "-z", point]] if fuser else []) + [["umount", "-l", point]]
    return gentle + lazy, missing


def unmount(point: str | os.PathLike, fuse: bool = True, remove: bool = True) -> str:
    """Unmount `point` (a busy mount is detached lazily) and remove the empty mount point.

    Returns "unmounted" or "detached" (lazily: it goes once the last process using it ends);
    raises StepFailed with every way tried when none worked.
    """
    point = str(point)
    commands, failures = unmount_commands(point, fuse)
    for cmd in commands:
        try:
            run(cmd)
        except (StepFailed, OSError, subprocess.TimeoutExpired) as e:
            failures.append(reason(e))
            continue
        if remove:
            _remove_mount_point(Path(point))
        return "detached" if "-l" in cmd or "-z" in cmd else "unmounted"
    if not os.path.ismount(point):  # someone else unmounted it meanwhile
        return "unmounted"
    raise StepFailed("; ".join(dict.fromkeys(failures)) + (
        "" if os.geteuid() == 0 else f"; as root: umount -l {point}"))


def _remove_mount_point(point: Path) -> None:
    # A FUSE daemon may need a moment after the unmount before the folder is free.
    def removed() -> bool:
        try:
            point.rmdir()
        except FileNotFoundError:
            pass
        except OSError:
            return False
        return True
    try:
        poll_until(removed, 2.0, f"{point} removed", interval=0.1)
    except PollTimeout:
        pass


def kill(pid: int) -> None:
    """SIGKILL one process that may already have gone."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
