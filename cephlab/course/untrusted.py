"""Read a learner's files as data, never as paths to follow: what grading does with a submission.

    nb = untrusted.load_notebook("submissions/bob/08-failure-and-recovery.ipynb")   # or UnsafeFile
    data = untrusted.read_regular(path, cap=2**20)

A handed-in file can be anything a learner's archive or folder can hold: a symbolic link (to
/dev/zero, to the instructor's key, to a classmate's file), a FIFO that blocks whoever opens it, a
device, a directory named like a notebook, gigabytes of data, JSON that is not a notebook. So a
file is opened once, without following a link (O_NOFOLLOW) and without waiting on a FIFO
(O_NONBLOCK), then checked on the descriptor itself (fstat: a regular file, not larger than the
cap) and read to at most the cap: the check and the read are of the same file, whatever the path
points to a moment later. A notebook must then be UTF-8 JSON that nbformat's own validator
accepts. Each refusal is an UnsafeFile naming the file and what was wrong, which grading turns
into that learner's row, never into a failure of the class's run.
"""
from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

from cephlab.core.errors import CourseError

NOTEBOOK_CAP = 64 * 2**20      # bytes: a lab notebook with its plots is 1-5 MB
KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a device"),
         (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


class UnsafeFile(CourseError, ValueError):
    """A file that is not plain data of the expected kind; the message says what it was."""


def _kind(mode: int) -> str:
    return next((name for test, name in KINDS if test(mode)), "not a regular file")


def _open(path: Path | str) -> int:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        return os.open(path, flags)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise UnsafeFile(f"{path} is a symbolic link: hand in the notebook file itself") from None
        raise UnsafeFile(f"{path} cannot be opened ({err.strerror})") from None


def _regular(fd: int, path: Path | str, cap: int) -> os.stat_result:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFile(f"{path} is {_kind(info.st_mode)}, not a file")
    if info.st_size > cap:
        raise UnsafeFile(f"{path} is {info.st_size / 2**20:.0f} MiB, more than the {cap / 2**20:.0f} MiB allowed")
    return info


def read_regular(path: Path | str, cap: int) -> bytes:
    """The bytes of the regular file at path (not through a link), at most cap; UnsafeFile else."""
    fd = _open(path)
    try:
        _regular(fd, path, cap)
        chunks, size = [], 0
        while size <= cap:                  # the file may grow after fstat: read one byte past the cap
            chunk = os.read(fd, min(2**20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > cap:
        raise UnsafeFile(f"{path} grew past the {cap / 2**20:.0f} MiB allowed while it was read")
    return b"".join(chunks)


def read_tail(path: Path | str, n: int) -> bytes:
    """The last n bytes of the regular file at path (b"" when it is missing or not a regular file):
    for logs, whose size a learner's process decides."""
    try:
        fd = _open(path)
    except UnsafeFile:
        return b""
    try:
        size = _regular(fd, path, 2**62).st_size
        return os.pread(fd, n, max(0, size - n))
    except UnsafeFile:
        return b""
    finally:
        os.close(fd)


def parse_json(data: bytes, what: str) -> Any:
    """JSON from untrusted bytes; UnsafeFile for anything else (bad UTF-8, too deep, huge numbers)."""
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise UnsafeFile(f"{what} is not UTF-8 text") from None
    except (ValueError, RecursionError) as err:      # ValueError also: an integer of >4300 digits
        raise UnsafeFile(f"{what} is not JSON ({type(err).__name__}: {str(err)[:120]})") from None


def validate_notebook(nb: Any, what: str) -> dict:
    """nb when nbformat's validator accepts it as a version-4 notebook; UnsafeFile else."""
    if type(nb) is not dict or type(nb.get("cells")) is not list or type(nb.get("metadata")) is not dict:
        raise UnsafeFile(f"{what} is not a Jupyter notebook (no cells or no metadata)")
    if nb.get("nbformat") != 4:
        raise UnsafeFile(f"{what} is not a version-4 Jupyter notebook (nbformat {str(nb.get('nbformat'))[:20]})")
    from nbformat import ValidationError, validator
    try:
        validator.validate(nb)       # checks only: it does not change the notebook
    except ValidationError as err:
        first = str(err.message if hasattr(err, "message") else err).splitlines()[0][:200]
        raise UnsafeFile(f"{what} is not a valid Jupyter notebook: {first}") from None
    except (RecursionError, MemoryError, ValueError, TypeError, KeyError) as err:
        raise UnsafeFile(f"{what} is not a valid Jupyter notebook ({type(err).__name__})") from None
    return nb


def load_notebook(path: Path | str, cap: int = NOTEBOOK_CAP) -> dict:
    """A handed-in notebook as a dict, checked as the module's docstring says; UnsafeFile else."""
    name = Path(path).name
    return validate_notebook(parse_json(read_regular(path, cap), name), name)
