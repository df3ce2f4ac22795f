"""cephlab.core.proc, the one /proc reader: parsers on fixed texts, readers on this process."""
import os

import pytest

from cephlab.core import proc

MEMINFO = "MemTotal:       24576000 kB\nMemFree:         1000 kB\nMemAvailable:   20971520 kB\n"
STAT = "1234 (ceph-osd (x)) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 60 0\n"
HOST = "cpu  100 5 50 800 20 0 25 0 0 0\ncpu0 1 2 3 4\n"


def test_fields_of_meminfo():
    f = proc.parse_fields(MEMINFO)
    assert f["MemAvailable"] == "20971520 kB" and len(f) == 3


def test_cpu_ticks_of_a_command_with_spaces_and_parentheses():
    assert proc.parse_stat_cpu_ticks(STAT) == 300


def test_host_cpu_busy_and_total():
    assert proc.parse_host_cpu(HOST) == (180, 1000)     # idle 800 + iowait 20 are not busy


def test_this_process():
    assert proc.threads() >= 1
    assert proc.status_field(os.getpid(), "VmRSS") > 1000       # kB
    assert proc.cmdline(os.getpid())[0].endswith(("python", "python3")) or "python" in proc.cmdline(os.getpid())[0]
    assert proc.cpu_seconds(os.getpid()) > 0
    cpu, wait = proc.schedstat(os.getpid())
    assert cpu > 0 and wait >= 0
    assert proc.io_field(os.getpid(), "rchar") > 0
    assert os.getpid() in proc.pids()


def test_a_gone_process_reads_as_empty_or_exited():
    assert proc.cmdline(2 ** 22 + 1) == [] and proc.is_zombie(2 ** 22 + 1)


def test_host_memory_and_cpu():
    assert 0 < proc.mem_available_gib() < 4096
    busy, total = proc.host_cpu_seconds()
    assert 0 < busy < total
    assert proc.meminfo_mib("MemTotal") > 100


@pytest.mark.parametrize("bad", ["", "no colon here"])
def test_fields_ignore_lines_without_a_colon(bad):
    assert proc.parse_fields(bad) == {}
