"""Run a function of the grader's in a forked child with limits, as the learner's sandbox has.

    result = limited.call(score, (questions, answers), limits=Limits(memory_mib=1024), what="the checks")

The grader's own work on a learner's data (decoding the answer lines, running the lab's checks
on them) is the instructor's code, but the data decides how much memory, CPU and output it
takes: an answer shaped to make a check allocate gigabytes would otherwise do so in the
instructor's process. So that work runs in a child forked from the grader with
- RLIMIT_AS: the address space the child was forked with plus `memory_mib` (a MemoryError
  inside is the child's to report),
- RLIMIT_CPU: `cpu_s` seconds of CPU (then SIGXCPU ends it),
- RLIMIT_FSIZE: `output_mib` per file written; stdout and stderr go to /dev/null (printing
  costs only CPU time) and standard input comes from it,
- a wall-clock `timeout` after which it is killed,
and its result comes back over a pipe, pickled by the child (the grader's own code). Any way it
can end without a result raises LimitError saying which limit it met.
"""
from __future__ import annotations

import errno
import multiprocessing
import os
import resource
import signal
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cephlab.core.errors import CourseError


class LimitError(CourseError):
    """The limited child failed: it raised, met a limit, or hung; the message says which."""


@dataclass(frozen=True)
class Limits:
    memory_mib: int = 1024        # on top of what the child inherits from the grader
    cpu_s: int = 90
    output_mib: int = 16
    timeout: float = 120.0


def address_space() -> int:
    """Bytes of address space this process has mapped now (/proc/self/statm's first field)."""
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _apply(limits: Limits) -> None:
    memory = address_space() + limits.memory_mib * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
    size = limits.output_mib * 2**20
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    # and at Python's level, where a caller (pytest, a notebook) may have put an in-memory buffer
    sys.stdin, sys.stdout, sys.stderr = (open(os.devnull, mode, encoding="utf-8") for mode in "rww")


def _child(fn: Callable, args: tuple, limits: Limits, conn: Any) -> None:
    try:
        _apply(limits)
        conn.send(("ok", fn(*args)))
    except MemoryError:
        conn.send(("error", f"it needed more than {limits.memory_mib} MiB of memory"))
    except OSError as err:
        # Python ignores SIGXFSZ: a write past RLIMIT_FSIZE raises EFBIG instead
        too_big = f"it wrote more than {limits.output_mib} MiB"
        conn.send(("error", too_big if err.errno == errno.EFBIG else traceback.format_exc()[-3000:]))
    except BaseException:       # noqa: BLE001 - reported by the parent, with the traceback's end
        conn.send(("error", traceback.format_exc()[-3000:]))
    finally:
        conn.close()


def _why_no_result(exitcode: int | None, limits: Limits) -> str:
    if exitcode == -signal.SIGXCPU or exitcode == -signal.SIGKILL:
        return f"it used its {limits.cpu_s} s of CPU time"
    if exitcode == -signal.SIGXFSZ:
        return f"it wrote more than {limits.output_mib} MiB"
    return f"it ended without a result (exit status {exitcode})"


def call(fn: Callable, args: tuple = (), limits: Limits = Limits(), what: str = "the grader's child") -> Any:
    """fn(*args) in a forked child under `limits`; its result, or LimitError saying why none."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(fn, args, limits, child))
    process.start()
    child.close()
    try:
        if not parent.poll(limits.timeout):
            raise LimitError(f"{what} did not finish in {limits.timeout:g} s")
        status, payload = parent.recv()
    except EOFError:
        process.join(5)
        raise LimitError(f"{what} failed: {_why_no_result(process.exitcode, limits)}") from None
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        parent.close()
    if status != "ok":
        raise LimitError(f"{what} failed: {payload}")
    return payload
