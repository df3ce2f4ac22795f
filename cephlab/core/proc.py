"""The one reader of /proc: what the lab learns about processes and the host from the kernel.

Every function takes the process id (or nothing, for the host) and reads one file; a process
that has gone raises FileNotFoundError/ProcessLookupError-like OSError, except where noted.
Parsers (`parse_*`) take the file's text, so tests feed them fixed texts.
"""
from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")
GIB = 1024 ** 3


def _read(*parts: object) -> str:
    return PROC.joinpath(*map(str, parts)).read_text()


# -- parsers (text in, numbers out) ------------------------------------------------------------
def parse_fields(text: str) -> dict[str, str]:
    """`Key: value` lines (/proc/meminfo, /proc/<pid>/status, /proc/<pid>/io) as {key: value}."""
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in text.splitlines()) if _}


def parse_stat_cpu_ticks(text: str) -> int:
    """utime + stime (clock ticks) from a /proc/<pid>/stat line (the command may hold spaces)."""
    fields = text.rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def parse_host_cpu(text: str) -> tuple[int, int]:
    """(busy, total) clock ticks from the first ("cpu") line of /proc/stat."""
    values = [int(v) for v in text.split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]                # idle + iowait
    total = sum(values[:8])                     # guest time is already inside user
    return total - idle, total


# -- processes --------------------------------------------------------------------------------------
def cmdline(pid: int | str) -> list[str]:
    """The command line of `pid` ([] when it has gone)."""
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return raw.decode(errors="replace").split("\0")


def status(pid: int | str | None = None) -> dict[str, str]:
    """/proc/<pid>/status as {field: value} (default: this process)."""
    return parse_fields(_read(pid or os.getpid(), "status"))


def status_field(pid: int | str, field: str) -> int:
    """One number of /proc/<pid>/status (Threads, VmRSS in kB, ...)."""
    return int(status(pid)[field].split()[0])


def io_field(pid: int | str, field: str) -> int:
    """One counter of /proc/<pid>/io (write_bytes, read_bytes, ...), in bytes."""
    return int(parse_fields(_read(pid, "io"))[field])


def threads(pid: int | str | None = None) -> int:
    """Threads of process `pid` (default: this one)."""
    return status_field(pid or os.getpid(), "Threads")


def is_zombie(pid: int | str) -> bool:
    """True when pid has exited (a zombie whose parent never reaps it counts as exited).

    A multi-threaded daemon killed by SIGKILL shows state Z for its main thread while its
    other threads still exit and hold its files; it is gone only when one thread is left.
    """
    try:
        fields = status(pid)
    except OSError:
        return True
    state = fields.get("State", "").split()
    n = int(fields.get("Threads", "1").strip() or 1)
    return bool(state) and state[0] in ("Z", "X") and n <= 1


def cpu_seconds(pid: int | str) -> float:
    """User + system CPU seconds process `pid` has used so far (all its threads)."""
    return parse_stat_cpu_ticks(_read(pid, "stat")) / os.sysconf("SC_CLK_TCK")


def schedstat(pid: int | str) -> tuple[int, int]:
    """(ns on a CPU, ns waiting in a run queue) summed over every thread of process `pid`."""
    cpu = wait = 0
    for task in (PROC / str(pid) / "task").iterdir():
        try:
            fields = (task / "schedstat").read_text().split()
        except OSError:          # the thread ended while we looked
            continue
        cpu += int(fields[0])
        wait += int(fields[1])
    return cpu, wait


def fds(pid: int | str) -> list[Path]:
    """The open file descriptors of `pid` (links under /proc/<pid>/fd)."""
    return list((PROC / str(pid) / "fd").iterdir())


def pids() -> list[int]:
    """Every process id on this machine now."""
    return [int(e.name) for e in PROC.iterdir() if e.name.isdigit()]


# -- the host -------------------------------------------------------------------------------------
def host_cpu_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole host since boot, summed over cores."""
    busy, total = parse_host_cpu(_read("stat"))
    tick = os.sysconf("SC_CLK_TCK")
    return busy / tick, total / tick


def mem_available_gib() -> float | None:
    """MemAvailable of /proc/meminfo in GiB; None when the kernel does not say."""
    try:
        kib = parse_fields(_read("meminfo")).get("MemAvailable")
    except OSError:
        return None
    return int(kib.split()[0]) * 1024 / GIB if kib else None


def meminfo_mib(field: str = "MemAvailable") -> float:
    """One /proc/meminfo field in MiB."""
    return int(parse_fields(_read("meminfo"))[field].split()[0]) / 1024
