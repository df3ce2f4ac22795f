"""The daemons start with a raised open-file limit (cephlab/backends/native/daemons.py): a FileStore
OSD under a login's soft limit of 1024 aborted mid-lab 04 with "Too many open files"."""
from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          check=True).stdout.split()


def test_a_low_soft_limit_is_raised_to_the_cap_or_the_hard_limit_and_children_inherit_it():
    out = _run("""
        import resource, subprocess
        from cephlab.backends.native import daemons
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        got = daemons.raise_open_files_limit()
        want = daemons.OPEN_FILES if hard == resource.RLIM_INFINITY else min(daemons.OPEN_FILES, hard)
        child = subprocess.run(["sh", "-c", "ulimit -n"], capture_output=True, text=True).stdout.strip()
        print(got == want, child == str(want), want > 1024)
    """)
    assert out == ["True", "True", "True"]


def test_a_higher_soft_limit_is_never_lowered():
    out = _run("""
        import resource
        from cephlab.backends.native import daemons
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (4096, hard))
        print(daemons.raise_open_files_limit(want=512) == 4096,
              resource.getrlimit(resource.RLIMIT_NOFILE)[0] == 4096)
    """)
    assert out == ["True", "True"]
