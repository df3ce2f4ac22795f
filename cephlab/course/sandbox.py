"""The sandbox `cephlab grade` runs each submission in: bubblewrap (bwrap), no container engine.

    box = Sandbox(memory_mib=2048)
    box.check()                                        # SandboxError says what is missing
    argv = box.command(job, ["python", "-m", "cephlab.course.answer_runner", ...], shared)

A learner's notebook is code the instructor runs. Each grading gets its own namespaces
(bwrap --unshare-all: user, pid, network, ipc, uts, cgroup) and sees only:

- read-only: /usr (with /bin, /lib, ... as its symlinks), the Python environment (sys.prefix and
  its base), the project's public packages cephlab/, models/ and data/, a generated /etc (hosts,
  passwd, nsswitch) and a few system files programs need (ld.so.cache, fonts, localtime);
- read-write: the job folder (/grading: the grading copy; no test, hidden or public, is ever in
  it), and a size-capped tmpfs for /tmp and the home folder;
- one inherited file descriptor (3), an answers file the grader opened outside the sandbox: the
  only way anything comes back (cephlab.course.answer_runner). Standard input is /dev/null, and
  every other descriptor of the grader's is closed before bwrap starts.

Nothing else exists inside: not solutions/, not the instructor's home or keys, not other
submissions. The network namespace has only its own loopback, so nothing outside is reachable,
not even a port on the host's 127.0.0.1. The process runs as uid 65534 with no capabilities, and
cannot make further user namespaces. Memory: RLIMIT_AS (what `prlimit --as` sets) on every process
of the sandbox; a MemoryError in a cell is recorded by the answer runner on descriptor 3, and
grading reports it instead of a score. RLIMIT_FSIZE caps what a
cell can write (an output flood ends the run; the answers written before it still count). Time: the caller's timeout
kills bwrap, and with it (--die-with-parent, pid namespace) everything inside.

Caches a notebook's programs would build in the empty home at every start (matplotlib's font
list, the compiled CRUSH mapper of models.crush, lab 02's large placement) are built once per
batch by `warm`, in a sandbox of their own running only the project's code, and bound read-only
into each grading's home (`ro`): a grading can read them, not change them for the next one.
"""
from __future__ import annotations

import os
import resource
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from cephlab.core import run
from cephlab.core.errors import ClusterError, CourseError
from cephlab.course.notebooks import ROOT

JOB = "/grading"                   # the job folder, as the sandbox sees it
HOME = "/home/grader"
UID = 65534                        # "nobody": owns nothing that is bound in
PUBLIC_PACKAGES = ("cephlab", "models", "data")    # what the autograder's tests import or read
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
                "/etc/localtime", "/etc/fonts", "/etc/mime.types", "/etc/ssl/certs")
# Run by `Sandbox.warm` (the project's code only, never a learner's): the caches it leaves in
# its folder's cache/, named as a grading's home names them.
WARM = ("import matplotlib.font_manager\n"
        "from models.crush import mapper_c\n"
        "mapper_c.available()\n")
# And for a batch that grades the lab, what one lab computes before its questions at every run:
# lab 02's 10,000-OSD placement (3-10 s; models.crush.cache keeps it). The same call as the lab's
# cell, or each grading misses the cache and computes its own (tests/grading/test_sandbox.py
# runs the cell's lines against the warmed cache).
WARM_LABS = {"02-placement": (
    "from models.crush import analysis as an, build\n"
    "an.pg_counts_by_pg_num(build.hosts_map(500, 20, prefix='h', first=0), 'by_host', 3,"
    " [2**k for k in range(14, 20)])\n")}
WARMED = ("matplotlib/fontlist-*.json", "cephlab/crush-mapper-*.so",     # under cache/, and ~/.cache/
          "cephlab/pg-counts-*.npy")
ENV = {  # besides HOME and PATH; fewer threads keep the kernel's address space and CPU share small
    "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    "MALLOC_ARENA_MAX": "2", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
}
ETC = {
    "hosts": "127.0.0.1 localhost\n::1 localhost\n",      # otter's log server binds "localhost"
    "nsswitch.conf": "passwd: files\ngroup: files\nhosts: files\n",
    "passwd": f"grader:x:{UID}:{UID}:grader:{HOME}:/bin/sh\n",
    "group": f"grader:x:{UID}:\n",
}
class SandboxError(CourseError):
    """The sandbox cannot run here (bwrap missing, or namespaces not allowed)."""


def bwrap() -> str:
    path = shutil.which("bwrap")
    if not path:
        raise SandboxError("bwrap (Debian package bubblewrap) is not installed: run `make setup`, which "
                           "installs it, or grade with --no-sandbox (learners' code then runs as you, "
                           "with your files and network)")
    return path


def python_roots() -> list[Path]:
    """The Python environment's folders outside /usr (a venv, a conda env), read-only inside."""
    roots = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return sorted(p for p in roots if not p.is_relative_to("/usr"))


def write_shared(folder: Path) -> Path:
    """The files every sandbox of a batch shares read-only: /etc's few files."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in ETC.items():
        (folder / name).write_text(body, encoding="utf-8")
    return folder


@dataclass(frozen=True)
class Sandbox:
    memory_mib: int = 2048            # address space per process; a kernel needs ~0.6 GiB
    tmp_mib: int = 256                # each of /tmp and the home folder (tmpfs, counted as memory)
    file_mib: int = 256               # the largest file a process may write (RLIMIT_FSIZE)
    root: Path = ROOT

    def binds(self, job: Path, shared: Path, ro: dict) -> list[str]:
        args = ["--ro-bind", "/usr", "/usr"]
        for link in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            target = Path("/") / link
            if target.is_symlink():                      # merged /usr: /lib -> usr/lib
                args += ["--symlink", os.readlink(target), str(target)]
            elif target.is_dir():
                args += ["--ro-bind", str(target), str(target)]
        for path in SYSTEM_FILES:
            args += ["--ro-bind-try", path, path]
        for name in ETC:
            args += ["--ro-bind", str(shared / name), f"/etc/{name}"]
        size = str(self.tmp_mib * 2**20)
        # the tmpfs first: a checkout (and its .venv) under /tmp is bound on top of it, not hidden
        args += ["--proc", "/proc", "--dev", "/dev", "--size", size, "--tmpfs", "/tmp",
                 "--size", size, "--tmpfs", HOME]
        for folder in python_roots() + [self.root / p for p in PUBLIC_PACKAGES]:
            args += ["--ro-bind", str(folder), str(folder)]
        args += ["--bind", str(job), JOB]
        for inside, outside in ro.items():               # after JOB: files inside it, read-only
            args += ["--ro-bind", str(outside), inside]
        return args

    def command(self, job: Path, argv: list[str], shared: Path, env: dict | None = None,
                ro: dict | None = None) -> list[str]:
        """bwrap's command line running argv in JOB (job/ outside), with env (plus ENV, HOME, PATH)
        and ro {path inside: file outside} bound read-only (e.g. the autograder)."""
        path = f"{Path(sys.executable).parent}:/usr/bin:/bin"
        setenv = {**ENV, **(env or {}), "HOME": HOME, "PATH": path}
        return [bwrap(), "--unshare-all", "--unshare-user", "--disable-userns", "--uid", str(UID),
                "--gid", str(UID), "--cap-drop", "ALL", "--die-with-parent", "--new-session",
                *self.binds(Path(job), Path(shared), ro or {}), "--chdir", JOB, "--clearenv",
                *[a for k, v in sorted(setenv.items()) for a in ("--setenv", k, v)], "--", *argv]

    def limit(self) -> None:
        """Set the memory and file-size limits on this process (call in the child before exec):
        bwrap and everything inside inherit them."""
        memory, size = self.memory_mib * 2**20, self.file_mib * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    def warm(self, shared: Path, labs=(), timeout: float = 120) -> dict[str, Path]:
        """Build the caches of WARMED once, in a sandbox (see the module's docstring), with
        WARM_LABS' of `labs` (the lab stems of the batch); returns {path in a grading's home: file
        outside} for command's `ro`. {} when that fails: each grading then builds its own, as
        without it."""
        job = shared / "warm-job"
        job.mkdir(exist_ok=True)
        env = {"XDG_CACHE_HOME": f"{JOB}/cache", "MPLCONFIGDIR": f"{JOB}/cache/matplotlib"}
        code = WARM + "".join(WARM_LABS[lab] for lab in sorted(set(labs)) if lab in WARM_LABS)
        try:
            result = run.run(self.command(job, [sys.executable, "-c", code], shared, env),
                             timeout=timeout, check=False)
        except (OSError, ClusterError):
            return {}
        if result.returncode != 0:
            return {}
        return {f"{HOME}/.cache/{f.relative_to(job / 'cache')}": f
                for pattern in WARMED for f in sorted((job / "cache").glob(pattern)) if f.is_file()}

    def check(self, shared: Path) -> None:
        """Start an empty sandbox once: raises SandboxError with the reason when it cannot."""
        job = shared / "check-job"
        job.mkdir(exist_ok=True)
        try:
            result = run.run(self.command(job, ["/bin/true"], shared), timeout=60, check=False)
        except (OSError, ClusterError) as err:       # bwrap missing, or hung
            raise SandboxError(f"bwrap could not start: {err}") from err
        if result.returncode != 0:
            raise SandboxError(
                f"bwrap cannot make a sandbox here: {result.stderr.strip()[:300]}\n"
                "It needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
                "or root). In a container without them, grade with --no-sandbox on a machine you do "
                "not mind learners' code running on.")
