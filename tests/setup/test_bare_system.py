"""README.md's set-up, proved on a bare Debian of each release the lab supports.

One run per Debian suite, each with the Ceph it ships (cephlab.core.releases): bookworm (Debian 12,
Pacific 16.2), trixie (Debian 13, Reef 18.2) and sid (unstable, Tentacle 20.2). `debootstrap
--variant=minbase SUITE` builds a minimal root (no sudo, no git, no Python, no Ceph) in a work
folder under /var/tmp. Inside it, as a new user following README.md would, as root: the README's
by-hand line, the README's clone line (a clean clone of this checkout's committed HEAD), `make
setup`, `cephlab up --osds 4`, labs top to bottom with nbclient, `cephlab down`; then nothing of
the lab may be left running, mounted or attached to a loop device. The steps inside the root
are tests/setup/bare_inside.sh, run as PID 1 of its own PID and mount namespace, so that
whatever the lab leaves behind ends with the namespace; the leftover checks run inside it first,
so they prove `cephlab down` cleaned up, not the namespace. The work folder is removed
afterwards, also when the test fails.

The suites run side by side, each in a thread of its own: debootstrap, apt and pip wait mostly on
the network. Only the phase from `cephlab up` to `cephlab down` takes a lock
(/var/cache/cephlab-bare/labs.lock), so the roots' clusters run one at a time and a lab never
measures beside another root's cluster (the other roots may still be installing). Under `make
test` the roots start as soon as collection ends (start_early, from tests/conftest.py), so their
3-4 minutes of set-up run beside the first parts of the suite, and the session holds the lab lock
until this test begins: no root's cluster runs while the host's own tests measure. CI's budget
is why; CEPHLAB_BARE_EARLY=0 starts them with this test instead.

The root gets /usr/sbin/policy-rc.d answering "no" (what Debian's container images ship): a
chroot has no systemd, and sid's ceph-mon postinst fails when it tries to restart its service.

Repeated runs cost minutes: debootstrap's .debs, apt's .debs (this host's apt deletes its own
after each install), per suite, and pip's cache live in /var/cache/cephlab-bare/, mounted into
the root. Phase times are printed (pytest -s) and kept in test-artifacts/bare-system/SUITE/
times.json with the Ceph version, the executed notebooks and the full log.
CEPHLAB_BARE_REVISION=<commit> runs an older commit's set-up; CEPHLAB_BARE_LABS="01 02 ..." runs
other labs (all: every lab), and CEPHLAB_BARE_NOTEBOOKS=solutions their solutions instead of the
student versions, e.g. to write a release's row of the README's table (each executed notebook is
kept in test-artifacts/bare-system/SUITE-solutions/).

Which labs (DEFAULT_LABS, DEFAULT_NOTEBOOKS), so that every lab runs on every release and each
student version once per CI: on trixie (Reef, the current Debian stable) every lab's solution,
with its agreement checks, so CI proves each lab on the release most learners install; on sid
(Tentacle) every lab's student version, its agreement checks included; on bookworm lab 00's:
Pacific's solutions run natively. The image (tests/container) is a bare Debian 13 set up by the
same bootstrap.sh, and runs the student versions of labs 00, 01, 06 and 09 on Reef. The student versions the roots
run are not run natively or on the cephadm cluster too (student_runs; tests/notebooks and
tests/cephadm test_labs.py), but for lab 11's, whose cephadm half only a cephadm cluster
runs (Reef's, tests/cephadm_releases).

    bash cephlab/bootstrap.sh test tests/setup/test_bare_system.py -s     # or: make test
    bash cephlab/bootstrap.sh test tests/setup/test_bare_system.py -s -k trixie
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cephlab.core import ceph_version, releases
from tests.setup import nbval_outputs

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
ARTIFACTS_ALL = ROOT / "test-artifacts" / "bare-system"
CACHE = Path(os.environ.get("CEPHLAB_BARE_CACHE", "/var/cache/cephlab-bare"))
MIRROR = "http://deb.debian.org/debian"
WORK_PREFIX = "cephlab-bare-"
# The apt sources of an installation of each suite: a stable release with its updates and
# security suites (Debian 12's Ceph 16.2.15+ds-0+deb12u2 comes from bookworm-updates/-security),
# unstable alone.
_SUITE = """\
Types: deb
URIs: http://deb.debian.org/{archive}
Suites: {suites}
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


def sources(suite: str) -> str:
    if suite == "sid":
        return _SUITE.format(archive="debian", suites="sid")
    return (_SUITE.format(archive="debian", suites=f"{suite} {suite}-updates") + "\n" +
            _SUITE.format(archive="debian-security", suites=f"{suite}-security"))


SUITES = tuple(r.debian for r in releases.TABLE.values())      # bookworm, trixie, sid
# bookworm: the set-up, a kernel and `cephlab down` (the other labs natively); sid: every lab as
# a learner runs it
DEFAULT_LABS = {"bookworm": "00-welcome", "trixie": "all", "sid": "all"}
DEFAULT_NOTEBOOKS = {"trixie": "solutions"}         # the others: the student versions
POLICY_RC_D = "#!/bin/sh\n# written by tests/setup/test_bare_system.py: no service starts in this root\nexit 101\n"
# bootstrap.sh's own report of its two phases
SETUP_STEP = re.compile(r"\[cephlab\].*?(OS packages|Python environment) ready in (\d+) s")
# This machine's own network settings, which any new user of it has too, so the root gets
# them (only those the host has; none is about the project): the apt settings for its mirror
# (date checks off: its clock runs ahead), the CA certificates of its HTTPS egress proxy (picked
# up when the README's install brings ca-certificates, then used by pip) and its pip.conf.
HOST_NETWORK_FILES = ("/etc/apt/apt.conf.d/99artifact-registry", "/usr/local/share/ca-certificates",
                      "/etc/pip.conf")


def _why_not() -> str:
    """Why the roots cannot be built here ("" when they can)."""
    if os.geteuid() != 0:
        return "needs root (debootstrap, chroot, mount namespaces); CI runs the suite as root"
    for tool in ("debootstrap", "unshare", "chroot", "mount"):
        if shutil.which(tool) is None:
            return f"{tool} is missing (make test installs debootstrap from packages-test.txt)"
    return ""


def readme_lines():
    """The README's by-hand install line and clone line, as a new user copies them."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Set-up.*?```sh\n(.*?)```", text, re.S)
    assert block, "README.md has no set-up code block"
    lines = [ln.split("#")[0].strip() for ln in block.group(1).splitlines()]
    by_hand = next((ln for ln in lines if "apt-get" in ln), None)
    clone = next((ln for ln in lines if ln.startswith("git clone")), None)
    assert by_hand and clone, f"README's set-up block lacks the apt-get or the git clone line:\n{block.group(1)}"
    return by_hand, clone


def _mounts_under(folder: Path) -> list[str]:
    points = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].encode().decode("unicode_escape")
        if point == str(folder) or point.startswith(f"{folder}/"):
            points.append(point)
    return points


def remove_work_folder(work: Path):
    """rm -rf the work folder, but never through a mount (a bind mount there would be the host's
    own folder): refuse and fail when anything is mounted under it."""
    left = _mounts_under(work)
    assert not left, f"mounts remain under {work}, not removing it: {left}"
    subprocess.run(["rm", "-rf", "--one-file-system", str(work)], check=True)
    assert not work.exists(), f"{work} could not be removed"


def _sweep_stale_work_folders(max_age_s=6 * 3600):
    """Work folders of runs killed too hard for their finally (SIGKILL, power loss)."""
    for old in Path("/var/tmp").glob(f"{WORK_PREFIX}*"):
        if time.time() - old.stat().st_mtime > max_age_s and not _mounts_under(old):
            subprocess.run(["rm", "-rf", "--one-file-system", str(old)], check=False)


def _interrupt(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


class Phases:
    def __init__(self, suite: str):
        self.suite = suite
        self.times: list[dict] = []
        self.t0 = time.monotonic()

    def add(self, name, seconds, rc):
        self.times.append({"phase": name, "s": round(float(seconds), 1), "exit": int(rc)})
        if _quiet.is_set():
            return
        print(f"[bare {self.suite} {time.monotonic() - self.t0:7.1f} s] phase {name}: {float(seconds):.1f} s"
              f"{'' if int(rc) == 0 else f' FAILED (exit {int(rc)})'}", flush=True)

    def table(self):
        return "\n".join(f"{p['s']:8.1f} s  {p['phase']}" + ("" if p["exit"] == 0 else f"  (exit {p['exit']})")
                         for p in self.times)


_children: set[subprocess.Popen] = set()     # the running namespaces of every suite's thread
_children_lock = threading.Lock()


def _killpg(proc: subprocess.Popen):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:   # it ended meanwhile
        pass


def _kill_children():
    """End every running root's namespace (its PID 1 takes the rest with it)."""
    with _children_lock:
        for proc in _children:
            _killpg(proc)


def _stream(args, phases: Phases, log, env=None, timeout=None, result=None):
    """Run args, echo (with the suite's name) and log every line, collect @@phase and @@leftover
    markers (and the commit the root cloned into result["cloned"]: HEAD may move on while the
    test runs). After timeout seconds the process group is killed."""
    leftovers, tail = [], []
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace", env=env, start_new_session=True)
    with _children_lock:
        _children.add(proc)
    timed_out = threading.Event()

    def kill_on_timeout():
        timed_out.set()
        _killpg(proc)
    timer = threading.Timer(timeout, kill_on_timeout) if timeout else None
    if timer:
        timer.start()

    def echo(text):
        if not _quiet.is_set():
            print(f"[{phases.suite}] {text}", end="", flush=True)
    try:
        for line in proc.stdout:
            log.write(line)
            tail = (tail + [line])[-200:]
            if line.startswith("@@phase "):
                name, secs, rc = line[len("@@phase "):].rsplit(" ", 2)
                phases.add(name, secs, rc)
            elif line.startswith("@@leftover "):
                leftovers.append(line[len("@@leftover "):].strip())
                echo(line)
            elif m := SETUP_STEP.search(line):   # bootstrap.sh's own "... ready in N s"
                phases.add(f"make setup: {m[1]}", m[2], 0)
            elif line.startswith("ceph version ") and result is not None:
                result["ceph"] = line.strip()
                echo(line)
            elif line.startswith("cloned ") and result is not None:
                result["cloned"] = line[len("cloned "):].strip()
                echo(line)
            elif line.startswith("[bare]") or "[cephlab]" in line:
                echo(line)
        rc = proc.wait()
    finally:
        if timer:
            timer.cancel()
        if proc.poll() is None:   # an error here: end the namespace with it
            _killpg(proc)
            proc.wait()
        with _children_lock:
            _children.discard(proc)
    if timed_out.is_set():
        tail.append(f"\n(killed after the {timeout} s timeout)\n")
    return rc, leftovers, "".join(tail)


def notebook_kind(kind: str) -> str:
    """CEPHLAB_BARE_NOTEBOOKS: "student" (the default: what a learner runs) or "solutions" (the
    reference notebooks with their answers and checks, e.g. to write a release's row of a lab)."""
    assert kind in ("student", "solutions"), f"CEPHLAB_BARE_NOTEBOOKS={kind!r}: student or solutions"
    return kind


def artifacts_name(suite: str, notebooks: str) -> str:
    """The run's folder under test-artifacts/bare-system/: SUITE for the student versions (what CI
    runs), SUITE-solutions for the solutions, so a CI run does not clear a release's table."""
    return suite if notebooks == "student" else f"{suite}-{notebooks}"


def lab_folders(spec: str) -> str:
    """CEPHLAB_BARE_LABS ("01 09", "all") -> the labs/ folder names bare_inside.sh runs."""
    folders = sorted(p.name for p in (ROOT / "labs").iterdir() if p.is_dir() and p.name[:2].isdigit())
    if spec.strip() == "all":
        return " ".join(folders)
    wanted = spec.split()
    chosen = [f for f in folders if f in wanted or f[:2] in wanted]
    assert len(chosen) == len(wanted), f"CEPHLAB_BARE_LABS={spec!r}: labs are {', '.join(folders)}"
    return " ".join(chosen)


def suite_labs(suite: str) -> tuple[str, str]:
    """(the labs' folders, "student" or "solutions") a suite's root runs: the defaults above, or
    CEPHLAB_BARE_LABS and CEPHLAB_BARE_NOTEBOOKS."""
    labs = lab_folders(os.environ.get("CEPHLAB_BARE_LABS", DEFAULT_LABS[suite]))
    notebooks = notebook_kind(os.environ.get("CEPHLAB_BARE_NOTEBOOKS", DEFAULT_NOTEBOOKS.get(suite, "student")))
    return labs, notebooks


def student_runs(items) -> dict[str, str]:
    """{lab: where} for the student versions this session's roots run (the suites it selected,
    when the roots can be built here), for tests/notebooks/test_labs.py, which runs before them
    and need not run those natively too (tests/notebook_plugin.py's STUDENT_RAN_ELSEWHERE)."""
    if _why_not():
        return {}
    runs = {}
    for suite in selected_suites(items):
        labs, notebooks = suite_labs(suite)
        release = releases.for_suite(suite)
        if notebooks == "student":
            for lab in labs.split():
                runs.setdefault(lab, f"in the bare {suite} root ({release.codename.title()} {release.major}, "
                                     "tests/setup, later in this session)")
    return runs


def selected_suites(items) -> list[str]:
    """The suites whose test this session runs (-k trixie selects one), from the session's items:
    test functions, and under `make test` also nbval's notebook cells, which have neither an
    originalname nor a callspec."""
    name = test_readme_setup_on_bare_debian_runs_the_labs_and_down_leaves_nothing.__name__
    return [item.callspec.params["suite"] for item in items
            if getattr(item, "originalname", None) == name and hasattr(item, "callspec")]


# The roots started at the end of collection (start_early): their futures, their thread pool, the
# host's hold on the lab lock and the SIGTERM handler to restore. While _quiet is set (the host's
# other tests are running) the roots write to their logs only, not into those tests' output.
_early: dict = {}
_quiet = threading.Event()
LOCK_WAIT_S = 2400              # a root's wait for the lab lock: the other roots' labs
LOCK_WAIT_EARLY_S = 4 * 3600    # started early: also the rest of the suite, before this test


def _start(suites: list[str], lock_wait: int) -> tuple[dict, ThreadPoolExecutor]:
    """Every suite's run_suite at once, in a thread of its own, and the pool they run in."""
    _sweep_stale_work_folders()
    for suite in suites:
        for sub in (f"debootstrap-{suite}", f"apt-{suite}/partial"):
            (CACHE / sub).mkdir(parents=True, exist_ok=True)
    (CACHE / "pip").mkdir(parents=True, exist_ok=True)
    pool = ThreadPoolExecutor(max_workers=max(1, len(suites)), thread_name_prefix="bare")
    return {suite: pool.submit(run_suite, suite, lock_wait) for suite in suites}, pool


def _stop(futures_pool: tuple[dict, ThreadPoolExecutor]):
    """End every root's namespace and wait for their threads (each removes its work folder)."""
    _kill_children()
    futures_pool[1].shutdown(wait=True)


def _release_lab_lock():
    hold = _early.pop("hold", None)
    if hold is not None:
        hold.close()            # closing the file drops the flock


def start_early(config, items):
    """From tests/conftest.py once collection is done: start the selected suites' roots now and
    hold their lab lock, so their set-up runs beside the other tests and their labs wait for
    this test. Nothing starts when the roots cannot be built here (the test then skips), under
    --collect-only, with CEPHLAB_BARE_EARLY=0, or when another run holds the lab lock."""
    suites = selected_suites(items)
    if (not suites or _why_not() or config.option.collectonly
            or os.environ.get("CEPHLAB_BARE_EARLY", "1") == "0"):
        return
    CACHE.mkdir(parents=True, exist_ok=True)
    hold = open(CACHE / "labs.lock", "a")
    try:
        fcntl.flock(hold, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        hold.close()
        print(f"\n[bare] {CACHE / 'labs.lock'} is held by another run: the roots start with their test")
        return
    _quiet.set()
    _early.update(hold=hold, t0=time.monotonic(), sigterm=signal.signal(signal.SIGTERM, _interrupt),
                  runs=_start(suites, LOCK_WAIT_EARLY_S))
    config.add_cleanup(_stop_early)
    print(f"\n[bare] {', '.join(suites)}: the roots' set-up starts now, beside the other tests; "
          "their labs wait for tests/setup/test_bare_system.py")


def _stop_early():
    """At the end of the session (also after Ctrl-C or SIGTERM): nothing of the roots stays."""
    runs = _early.pop("runs", None)
    _release_lab_lock()
    _quiet.clear()
    if runs is not None:
        _stop(runs)
    if "sigterm" in _early:
        signal.signal(signal.SIGTERM, _early.pop("sigterm"))


@pytest.fixture(scope="module")
def bare_runs(request):
    """{suite: future of run_suite(suite)}. Started early (start_early): the host lets go of the
    lab lock, and the roots' clusters run one after another while this module's tests wait.
    Otherwise every selected suite starts now. A CI job cancelled with SIGTERM still cleans up:
    the signal unwinds this fixture (or the session, for early roots), which ends every root's
    namespace; each run then removes its own work folder."""
    if reason := _why_not():
        pytest.skip(reason)
    if "runs" in _early:
        _quiet.clear()
        _release_lab_lock()
        print(f"\n[bare] the roots set up beside the rest of the suite for "
              f"{time.monotonic() - _early['t0']:.0f} s; their labs start now", flush=True)
        try:
            yield _early["runs"][0]
        finally:
            _stop_early()
        return
    sigterm = signal.signal(signal.SIGTERM, _interrupt)
    runs = _start(selected_suites(request.session.items), LOCK_WAIT_S)
    try:
        yield runs[0]
    finally:
        _stop(runs)
        signal.signal(signal.SIGTERM, sigterm)


@pytest.mark.baresystem
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("suite", SUITES)
def test_readme_setup_on_bare_debian_runs_the_labs_and_down_leaves_nothing(suite, bare_runs):
    result = bare_runs[suite].result()
    assert result["result"] == "passed"


def nbval_verdicts(folder: Path, release: releases.Release, labs: str,
                   student: bool) -> dict[str, list[tuple[int, str]]]:
    """{lab: the cells nbval would fail}: each executed notebook's outputs against the solution's
    saved ones (tests/setup/nbval_outputs.py; a student version on the cells it shares with the
    solution), so every lab a root runs is held to nbval without running twice; where the release
    table says a lab prints otherwise on `release`, that is expected."""
    out = {}
    for lab in labs.split():
        executed = folder / f"{lab}.executed.ipynb"
        out[lab] = (nbval_outputs.mismatches(executed, ROOT / "solutions" / f"{lab}.ipynb",
                                             nbval_outputs.release_outputs(release, lab), student=student)
                    if executed.exists() else [(-1, "no executed notebook was kept")])
    return out


def run_suite(suite: str, lock_wait: int = LOCK_WAIT_S) -> dict:
    """One suite's run from debootstrap to the leftover checks (raises AssertionError on a
    failure); the work folder is removed whatever happens. lock_wait: how long the root may wait
    for the lab lock (seconds)."""
    labs, notebooks = suite_labs(suite)
    ARTIFACTS = ARTIFACTS_ALL / artifacts_name(suite, notebooks)
    by_hand, clone = readme_lines()
    by_hand_as_root = by_hand.replace("sudo ", "")   # the README: as root, without sudo
    clone = clone.replace("<this repository>", "file:///mnt/origin.git")
    if os.environ.get("CEPHLAB_BARE_REVISION"):   # replay an older commit, e.g. to bisect a set-up gap
        clone += f" && git checkout -q {os.environ['CEPHLAB_BARE_REVISION']}"
    origin = Path(subprocess.run(["git", "rev-parse", "--absolute-git-dir"], cwd=ROOT, check=True,
                                 capture_output=True, text=True).stdout.strip())
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*"):
        old.unlink()
    work = Path(tempfile.mkdtemp(prefix=WORK_PREFIX, dir="/var/tmp"))
    rootfs = work / "root"
    phases = Phases(suite)
    result = {"suite": suite, "head_at_start": head, "by_hand": by_hand_as_root, "clone": clone,
              "labs": labs, "notebooks": notebooks}
    try:
        with open(ARTIFACTS / "log.txt", "w") as log:
            # debootstrap in a mount namespace of its own: the /proc and /sys it mounts in the
            # root go away with it even if it fails halfway.
            t = time.monotonic()
            rc, _, tail = _stream(["unshare", "--mount", "--propagation", "private",
                                   "debootstrap", "--variant=minbase",
                                   f"--cache-dir={CACHE / f'debootstrap-{suite}'}",
                                   suite, str(rootfs), MIRROR], phases, log, timeout=900)
            phases.add("debootstrap", time.monotonic() - t, rc)
            assert rc == 0, f"{suite}: debootstrap failed:\n{tail[-4000:]}"

            (rootfs / "etc/apt/sources.list").unlink(missing_ok=True)
            (rootfs / "etc/apt/sources.list.d/debian.sources").write_text(sources(suite))
            (rootfs / "usr/sbin/policy-rc.d").write_text(POLICY_RC_D)
            (rootfs / "usr/sbin/policy-rc.d").chmod(0o755)
            for host_file in map(Path, HOST_NETWORK_FILES):
                if host_file.is_dir():
                    shutil.copytree(host_file, rootfs / host_file.relative_to("/"), dirs_exist_ok=True)
                elif host_file.exists():
                    shutil.copy(host_file, rootfs / host_file.relative_to("/"))

            env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
                   "BARE_ROOT": str(rootfs), "BARE_CACHE": str(CACHE), "BARE_APT": f"apt-{suite}",
                   "BARE_LABS": labs, "BARE_NOTEBOOKS": notebooks, "BARE_ORIGIN": str(origin),
                   "BARE_OUT": str(ARTIFACTS), "BARE_BY_HAND": by_hand_as_root, "BARE_CLONE": clone,
                   "BARE_LOCK_WAIT": str(lock_wait)}
            # the timeout covers the wait for the lab lock (bare_inside.sh), set-up and labs
            rc, leftovers, tail = _stream(
                ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--mount",
                 "--propagation", "private", "bash", str(HERE / "bare_inside.sh")],
                phases, log, env=env, timeout=lock_wait + 2400, result=result)
        result["leftovers"] = leftovers
        failed = [p["phase"] for p in phases.times if p["exit"] != 0]
        want = releases.for_suite(suite)
        assert "ceph" in result and ceph_version.parse_version(result["ceph"])[0] == want.major, (
            f"{suite} should bring Ceph {want.name}, the root has {result.get('ceph', 'no ceph')}")
        assert rc == 0 and not failed and not leftovers, (
            f"{suite}: bare-system run failed (phases: {failed or 'none'}; leftovers: {leftovers or 'none'}):\n"
            f"{phases.table()}\n--- last lines (whole log: {ARTIFACTS / 'log.txt'}):\n{tail[-8000:]}")
        if not os.environ.get("CEPHLAB_BARE_REVISION"):
            differ = nbval_verdicts(ARTIFACTS, want, labs, student=notebooks == "student")
            result["nbval"] = {lab: len(bad) for lab, bad in differ.items()}
            assert not any(differ.values()), f"{suite}: nbval would fail these cells of the {notebooks}:\n" + \
                "\n".join(f"{lab} cell {i}: {why}" for lab, bad in differ.items() for i, why in bad)
        result["result"] = "passed"
        return result
    finally:
        t, removed = time.monotonic(), False
        try:
            remove_work_folder(work)
            removed = True
        finally:
            phases.add("remove the work folder", time.monotonic() - t, 0 if removed else 1)
            result.setdefault("result", "failed")
            result["phases"] = phases.times
            (ARTIFACTS / "times.json").write_text(json.dumps(result, indent=1))
            print(f"{suite}: bare system phases ({result['result']}):\n{phases.table()}", flush=True)
