"""The grading sandbox (cephlab.course.sandbox, bubblewrap) keeps a submission from the instructor's
files, the network and the machine's memory; each claim is shown by a probe that works without
the sandbox (the negative control) and finds nothing inside it.

Fast probes run a Python snippet in a sandbox directly; the slow ones grade a lab 01 notebook
whose answers depend on what its cells could reach, sandboxed and (the control) unsandboxed."""
import re
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cephlab import cli
from cephlab.cli import grade as cli_grade
from cephlab.course import grading, sandbox
from cephlab.course.notebooks import LABS, ROOT

pytestmark = pytest.mark.skipif(not __import__("shutil").which("bwrap"),
                                reason="bwrap missing: `make setup` installs bubblewrap")
LAB01 = "01-redundancy"


@pytest.fixture
def shared(tmp_path):
    return sandbox.write_shared(tmp_path / "shared")


def run_inside(code, shared, job, box=None, timeout=60):
    """Run `python -c code` in a sandbox the way grading starts one (limits set in the child)."""
    box = box or sandbox.Sandbox()
    job.mkdir(exist_ok=True)
    argv = box.command(job, [sys.executable, "-c", code], shared)
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, preexec_fn=box.limit)


class Listener:
    """A TCP listener on the host's 127.0.0.1 that records every connection it accepts."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port, self.accepted, self.stop = self.sock.getsockname()[1], [], False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop:
            try:
                conn, peer = self.sock.accept()
                self.accepted.append(peer)
                conn.close()
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


@pytest.fixture
def listener():
    lst = Listener()
    yield lst
    lst.close()


def test_the_sandbox_command_binds_no_instructor_folder(shared, tmp_path):
    argv = sandbox.Sandbox().command(tmp_path / "job", ["true"], shared)
    assert {"--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--clearenv"} <= set(argv)
    bound = [argv[i + 1] for i, a in enumerate(argv) if a in ("--bind", "--ro-bind", "--ro-bind-try")]
    assert str(ROOT) not in bound and str(ROOT / "solutions") not in bound
    assert not [b for b in bound if b.startswith(str(Path.home()))] or str(ROOT).startswith(str(Path.home()))
    assert {str(ROOT / "cephlab"), str(ROOT / "models"), str(ROOT / "data")} <= set(bound)
    writable = [argv[i + 1] for i, a in enumerate(argv) if a == "--bind"]
    assert writable == [str(tmp_path / "job")], "the job folder is the only host folder it may write"


def test_files_outside_the_job_do_not_exist_inside(shared, tmp_path):
    secret = tmp_path / "instructor" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("the answers")
    probe = [ROOT / "solutions" / f"{LAB01}.ipynb", secret, Path.home() / ".ssh", Path.home()]
    code = f"import os; print([os.path.exists(p) for p in {[str(p) for p in probe]!r}])"
    control = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert control.stdout.startswith("[True, True,"), "the probe must see the files outside the sandbox"
    run = run_inside(code, shared, tmp_path / "job")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[False, False, False, False]"


def test_a_socket_to_the_hosts_loopback_reaches_nothing(shared, tmp_path, listener):
    code = (f"import socket\ns = socket.socket(); s.settimeout(3)\n"
            f"try:\n    s.connect(('127.0.0.1', {listener.port})); print('connected')\n"
            f"except OSError as e:\n    print('refused', e.errno)")
    run = run_inside(code, shared, tmp_path / "job")
    assert run.stdout.startswith("refused"), run.stdout + run.stderr
    assert listener.accepted == []
    control = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert control.stdout.startswith("connected") and len(listener.accepted) == 1, "negative control"


ALLOCATE = "import numpy as np\nhog = np.empty(3 << 30, dtype=np.uint8)\nprint('allocated', hog.nbytes)"


def test_an_allocation_past_the_limit_fails_inside(shared, tmp_path):
    """np.empty reserves 3 GiB without touching it: fine outside, a MemoryError under 2 GiB."""
    run = run_inside(ALLOCATE, shared, tmp_path / "job", sandbox.Sandbox(memory_mib=2048))
    assert run.returncode != 0 and "MemoryError" in run.stderr, run.stdout + run.stderr
    control = subprocess.run([sys.executable, "-c", ALLOCATE], capture_output=True, text=True, timeout=60)
    assert control.stdout.startswith("allocated"), control.stderr


WARMED_PROBE = """import errno, glob, os
from models.crush import mapper_c
print(mapper_c.status())
for path in sorted(glob.glob(os.path.expanduser("~/.cache/*/*"))):
    try:
        open(path, "a").close()
        print("writable", path)
    except OSError as e:
        print(errno.errorcode[e.errno], path)
"""


def lab02_placement_lines() -> str:
    """The lines of lab 02's student notebook that place its 10,000 OSDs, as a grading runs them."""
    nb = grading.read(LABS / "02-placement" / "02-placement.ipynb")
    sources = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in nb["cells"]]
    cell = next(s for s in sources if "BIG_COUNTS = " in s)
    lines = cell.splitlines()
    return "\n".join(lines[:next(i for i, line in enumerate(lines) if "BIG_COUNTS = " in line) + 1])


def test_warmed_caches_are_found_inside_and_read_only(shared, tmp_path):
    """Sandbox.warm builds, once per batch, the caches every grading would build in its empty
    home; each grading finds them where its programs look, and cannot change them for the next.
    Lab 02's placement is warmed only for a batch with lab 02, and its cell then computes nothing:
    the probe removes the function that would, so a cache miss raises."""
    box = sandbox.Sandbox()
    assert not [k for k in box.warm(shared) if "/pg-counts-" in k], "warmed lab 02 for a batch without it"
    warmed = box.warm(shared, labs={"02-placement", "01-redundancy"})
    fonts = [k for k in warmed if "/.cache/matplotlib/fontlist-" in k]
    mappers = [k for k in warmed if "/.cache/cephlab/crush-mapper-" in k]
    placements = [k for k in warmed if "/.cache/cephlab/pg-counts-" in k]
    assert len(fonts) == 1 and len(mappers) == (1 if shutil.which("cc") or shutil.which("gcc") else 0), warmed
    assert len(placements) == 1, warmed
    job = tmp_path / "job"
    job.mkdir()
    probe = ("from models.crush import analysis as an, build\n"
             "del an._pg_counts\n" + lab02_placement_lines() + "\nprint(BIG_COUNTS[2**19].sum())\n")
    argv = box.command(job, [sys.executable, "-c", probe + WARMED_PROBE], shared, ro=warmed)
    run = subprocess.run(argv, capture_output=True, text=True, timeout=120, preexec_fn=box.limit)
    assert run.returncode == 0, run.stderr
    placed, status, *files = run.stdout.splitlines()
    assert placed == str(2**19 * 3), "lab 02's warmed placement does not hold every copy"
    if mappers:
        assert status == f"c ({mappers[0]})", "the mapper was not loaded from the warmed cache"
    assert sorted(files) == sorted(f"EROFS {k}" for k in warmed)


def test_a_missing_bwrap_says_how_to_get_it(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(sandbox.SandboxError, match="make setup.*--no-sandbox"):
        sandbox.bwrap()


def test_no_sandbox_is_explicit_and_warns(capsys):
    args = cli.build_parser().parse_args(["grade", "x.ipynb", "--no-sandbox"])
    assert cli_grade.sandbox_of(args) is None
    assert "runs as you" in capsys.readouterr().err
    args = cli.build_parser().parse_args(["grade", "x.ipynb", "--memory", "3000"])
    assert cli_grade.sandbox_of(args) == sandbox.Sandbox(memory_mib=3000)


# -- a real grading -------------------------------------------------------------------------------
def probing_notebook(path, secret, port):
    """Lab 01 with every answer from the solution, but q1 right only if the solution file cannot
    be read, q2 only if the instructor's secret cannot, q3 (2 points) only if no connection to
    the host's loopback port succeeds: 6/6 proves the sandbox, 2/6 unsandboxed proves the probe."""
    master = grading.read(grading.solution_path(LAB01))
    nb = grading.fill_answers(grading.read(LABS / LAB01 / f"{LAB01}.ipynb"), master,
                              ["q1", "q2", "q3", "q4", "q5"])
    cells = grading.answer_cells(nb)
    probe = ("import os, socket\n"
             "def _reads(p):\n    try:\n        return bool(open(p).read())\n"
             "    except OSError:\n        return False\n"
             f"found_solution = _reads({str(grading.solution_path(LAB01))!r})\n"
             f"found_secret = _reads({str(secret)!r}) or os.path.exists({str(Path.home() / '.ssh')!r})\n"
             "_s = socket.socket(); _s.settimeout(3)\n"
             f"try:\n    _s.connect(('127.0.0.1', {port})); connected = True\n"
             "except OSError:\n    connected = False\n")
    for q, flag in (("q1", "found_solution"), ("q2", "found_secret"), ("q3", "connected")):
        cell = nb["cells"][cells[q][0]]
        cell["source"] = "".join(cell["source"]) + f"\nif {flag}:\n    {' = '.join(_names(cell))} = None"
    nb["cells"].insert(cells["q1"][0], {"cell_type": "code", "metadata": {}, "outputs": [],
                                        "execution_count": None, "source": probe})
    return grading.copy_notebook(nb, path)


def _names(cell):
    """The names an answer cell assigns (`q3_a = ...` lines)."""
    return [m.group(1) for m in re.finditer(r"^(\w+)\s*=", "".join(cell["source"]), re.M)]


def hog_notebook(path):
    master = grading.read(grading.solution_path(LAB01))
    nb = grading.fill_answers(grading.read(LABS / LAB01 / f"{LAB01}.ipynb"), master, ["q1"])
    nb["cells"].insert(grading.answer_cells(nb)["q2"][0], {
        "cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": ALLOCATE})
    return grading.copy_notebook(nb, path)


@pytest.fixture(scope="module")
def probe_gradings(tmp_path_factory):
    """Sandboxed: the probing and the memory-hog notebooks; unsandboxed: the probing one."""
    work = tmp_path_factory.mktemp("sandbox")
    secret = work / "instructor-secret.txt"
    secret.write_text("the answers")
    lst = Listener()
    try:
        zipped = grading.solution_path(LAB01)      # the master: its checks run outside the sandbox
        (work / "a").mkdir()
        (work / "b").mkdir()
        probing = probing_notebook(work / "a" / f"{LAB01}.ipynb", secret, lst.port)
        hog = hog_notebook(work / "b" / f"{LAB01}.ipynb")
        boxed = grading.run_gradings([(probing, zipped), (hog, zipped)], parallel=2, timeout=300)
        seen_boxed = list(lst.accepted)
        [open_run] = grading.run_gradings([(probing, zipped)], parallel=1, timeout=300, sandbox=None)
        return {"boxed": boxed[0], "hog": boxed[1], "open": open_run,
                "seen_boxed": seen_boxed, "seen_open": list(lst.accepted)}
    finally:
        lst.close()


@pytest.mark.timeout(900)
def test_a_sandboxed_submission_reaches_no_file_and_no_port(probe_gradings):
    boxed = probe_gradings["boxed"]
    assert isinstance(boxed, grading.GradeResult), boxed
    assert boxed.questions["q1"] == (1.0, 1.0), "a cell read the solution from inside the sandbox"
    assert boxed.questions["q2"] == (1.0, 1.0), "a cell read the instructor's file from inside the sandbox"
    assert boxed.questions["q3"] == (2.0, 2.0), "a cell connected to the host's loopback"
    assert probe_gradings["seen_boxed"] == [], "the host's listener saw a connection from the sandbox"


@pytest.mark.timeout(900)
def test_without_the_sandbox_the_same_probes_succeed(probe_gradings):
    """The negative control: the probes are real (and --no-sandbox is as open as it says)."""
    opened = probe_gradings["open"]
    assert isinstance(opened, grading.GradeResult), opened
    assert [opened.questions[q][0] for q in ("q1", "q2", "q3")] == [0, 0, 0], opened.questions
    assert len(probe_gradings["seen_open"]) == 1


@pytest.mark.timeout(900)
def test_a_submission_past_the_memory_limit_is_not_graded_and_says_why(probe_gradings):
    hog = probe_gradings["hog"]
    assert isinstance(hog, grading.GradingError), f"graded despite a MemoryError: {hog}"
    assert "ran out of memory" in str(hog) and "2048 MiB" in str(hog) and "--memory" in str(hog)
    assert "np.empty" in str(hog)
