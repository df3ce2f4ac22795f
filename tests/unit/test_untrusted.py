"""A learner's files and data as the grader meets them: every kind of file that is not a notebook
is refused with its reason, quickly and without following it; every malformed answer line or
record costs only itself; the checks' child is held to its memory and time limits."""
from __future__ import annotations

import json
import os
import resource
import threading
import time

import pytest

from cephlab.course import answers, checks, grading, limited, measured, untrusted
from cephlab.course.notebooks import LABS

LAB = "01-redundancy"


def student() -> dict:
    return grading.read(LABS / LAB / f"{LAB}.ipynb")


def refused(path) -> str:
    """The reason load_notebook gives, read in a thread so that a blocking open fails the test."""
    result: list = []

    def attempt():
        try:
            untrusted.load_notebook(path)
            result.append("accepted")
        except untrusted.UnsafeFile as err:
            result.append(str(err))
    t = threading.Thread(target=attempt, daemon=True)
    t.start()
    t.join(10)
    assert result, f"loading {path} blocked"
    return result[0]


def test_a_plain_notebook_is_read(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(student()))
    assert untrusted.load_notebook(path)["cells"] == student()["cells"]


@pytest.mark.parametrize("kind, expected", [
    ("symlink to /dev/zero", "symbolic link"), ("symlink to a secret", "symbolic link"),
    ("dangling symlink", "symbolic link"), ("fifo", "FIFO"), ("folder", "a folder"),
    ("device", "a device"), ("sparse 100 MiB", "more than the 64 MiB"),
])
def test_a_file_that_is_not_a_regular_file_is_refused_without_reading_it(tmp_path, kind, expected):
    path = tmp_path / "nb.ipynb"
    secret = tmp_path / "secret.txt"
    secret.write_text("the instructor's key")
    if kind == "symlink to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "symlink to a secret":
        path.symlink_to(secret)
    elif kind == "dangling symlink":
        path.symlink_to(tmp_path / "nowhere")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path = "/dev/zero"
    else:
        with open(path, "wb") as f:
            f.truncate(100 * 2**20)
    reason = refused(path)
    assert expected in reason, reason
    assert "instructor" not in reason


def test_reading_stops_at_the_cap_even_when_the_file_grows(tmp_path):
    path = tmp_path / "log"
    path.write_bytes(b"x" * 100)
    assert untrusted.read_regular(path, 100) == b"x" * 100
    with pytest.raises(untrusted.UnsafeFile, match="more than"):
        untrusted.read_regular(path, 99)


def test_a_log_tail_never_follows_a_link_or_reads_a_whole_huge_file(tmp_path):
    log = tmp_path / "runner.log"
    with open(log, "wb") as f:
        f.truncate(2**30)                   # 1 GiB, sparse: only its tail is read
        f.seek(2**30 - 3)
        f.write(b"end")
    assert untrusted.read_tail(log, 3) == b"end"
    link = tmp_path / "link.log"
    link.symlink_to("/proc/self/environ")
    assert untrusted.read_tail(link, 1000) == b""
    fifo = tmp_path / "fifo.log"
    os.mkfifo(fifo)
    assert untrusted.read_tail(fifo, 1000) == b""


def _without(key):
    nb = student()
    del nb[key]
    return json.dumps(nb)


def _bad_cell():
    nb = student()
    nb["cells"][3]["source"] = 5
    return json.dumps(nb)


@pytest.mark.parametrize("body, expected", [
    ('{"hello": 1}', "not a Jupyter notebook"),
    ("[1, 2, 3]", "not a Jupyter notebook"),
    (_without("metadata"), "not a Jupyter notebook"),
    (_without("cells"), "not a Jupyter notebook"),
    ('{"cells": [], "metadata": {}, "nbformat": 3, "nbformat_minor": 0}', "version-4"),
    (_bad_cell(), "not a valid Jupyter notebook"),
    ("not json at all", "not JSON"),
    ("[" * 100_000 + "]" * 100_000, "not JSON"),
    ('{"n": ' + "9" * 5000 + "}", "not JSON"),
    (b"\xff\xfe{}", "not UTF-8"),
])
def test_malformed_notebooks_are_refused_with_a_reason(tmp_path, body, expected):
    path = tmp_path / "nb.ipynb"
    path.write_bytes(body if isinstance(body, bytes) else body.encode())
    assert expected in refused(path)


def test_a_submission_folder_holding_a_link_is_graded_as_its_folder_not_the_links_target(tmp_path):
    (tmp_path / "alice").mkdir()
    (tmp_path / "mallory").mkdir()
    (tmp_path / "alice" / f"{LAB}.ipynb").write_text(json.dumps(student()))
    link = tmp_path / "mallory" / f"{LAB}.ipynb"
    link.symlink_to(tmp_path / "alice" / f"{LAB}.ipynb")
    assert grading.learner_from_folder(link) == "mallory"
    with pytest.raises(grading.GradingError, match="symbolic link"):
        grading.load_submission(link)


# -- the answer channel: any line is data ------------------------------------------------------------
def test_the_channel_keeps_good_lines_and_skips_each_bad_one():
    good = answers.encode_answers("q1", {"q1_x": 4.0}, ["q1_x"])
    lines = [
        good,
        json.dumps({"question": "q2", "values": {"q2_y": {"set": [{"tuple": [[1, 2]]}]}}, "problems": {}}),
        json.dumps({"question": "q3", "values": {"q3_z": 10**400}, "problems": {}}),
        '{"question": "q4", "values": {"a": ' + "9" * 5000 + '}, "problems": {}}',
        "[" * 50_000,
        "\x00garbage",
        answers.learner_line("bob"),
        answers.memory_line("'np.empty(1 << 40)'"),
        json.dumps({"learner": ["not", "a", "string"]}),
    ]
    got = answers.decode_channel("\n".join(lines).encode() + b"\n\xff\xfe\n")
    assert got.values["q1"] == {"q1_x": 4.0}
    assert "unhashable" in got.problems["q2"]["q2_y"]
    assert got.values["q3"] == {"q3_z": 10**400}            # an int is data: the checks judge it
    assert got.typed == "bob" and got.memory == ["'np.empty(1 << 40)'"]
    assert len(got.warnings) == 5, got.warnings
    assert answers.decode_channel(b"x\n" * 100, truncated=True).warnings[-1].startswith("the notebook wrote more")
    assert len(answers.decode_channel(b"x\n" * 100).warnings) == answers.MAX_WARNINGS + 1


def test_a_huge_integer_in_a_run_record_scores_0_with_a_hint():
    master = grading.read(grading.solution_path("03-disk-iops"))
    nb = json.loads(json.dumps(master))
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            rec = out.get("metadata", {}).get(measured.RECORD_KEY)
            if rec:
                rec["recorded"] = rec["answer"] = 10**400
    score, hints = measured.grade_gap(nb, master)
    assert score == 0 and "no usable figure" in hints[0]


# -- the checks' child: limited like the learner's sandbox -------------------------------------------
MASTER = {"cells": [
    {"cell_type": "raw", "metadata": {}, "source": "# BEGIN QUESTION\nname: q1\npoints: 1"},
    {"cell_type": "raw", "metadata": {}, "source": "# BEGIN SOLUTION"},
    {"cell_type": "code", "metadata": {}, "source": "q1_x = 4"},
    {"cell_type": "raw", "metadata": {}, "source": "# END SOLUTION"},
    {"cell_type": "raw", "metadata": {}, "source": "# BEGIN TESTS"},
    {"cell_type": "code", "metadata": {}, "source": "_hog = [0] * q1_x\nassert len(_hog) == 4"},
    {"cell_type": "raw", "metadata": {}, "source": "# END TESTS"},
    {"cell_type": "raw", "metadata": {}, "source": "# END QUESTION"},
    {"cell_type": "raw", "metadata": {}, "source": "# BEGIN QUESTION\nname: q2\npoints: 1"},
    {"cell_type": "raw", "metadata": {}, "source": "# BEGIN SOLUTION"},
    {"cell_type": "code", "metadata": {}, "source": "q2_n = 3"},
    {"cell_type": "raw", "metadata": {}, "source": "# END SOLUTION"},
    {"cell_type": "raw", "metadata": {}, "source": "# BEGIN TESTS"},
    {"cell_type": "code", "metadata": {}, "source": "_n = 0\nfor _ in range(q2_n):\n    _n += 1\nassert _n == 3"},
    {"cell_type": "raw", "metadata": {}, "source": "# END TESTS"},
    {"cell_type": "raw", "metadata": {}, "source": "# END QUESTION"},
]}


def test_a_check_that_allocates_for_an_answer_fails_that_check_only_inside_its_limit():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    got = checks.run(MASTER, "test", "alice", {"q1": {"q1_x": 10**10}, "q2": {"q2_n": 3}}, {})
    assert got["q1"].score == 0 and "out of memory" in got["q1"].feedback[0]
    assert got["q2"].score == 1
    # 10**10 list slots are 80 GB: the grader's own process never held them
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000


def test_a_check_that_loops_on_an_answer_fails_at_its_time_limit(monkeypatch):
    monkeypatch.setattr(checks, "CASE_TIMEOUT_S", 1)
    t0 = time.monotonic()
    got = checks.run(MASTER, "test", "alice", {"q1": {"q1_x": 4}, "q2": {"q2_n": 10**12}}, {})
    assert got["q1"].score == 1 and got["q2"].score == 0
    assert "longer than 1 s" in got["q2"].feedback[0]
    assert time.monotonic() - t0 < 30


def _spin():
    while True:
        pass


def _write_forever(path):
    print("printed output goes nowhere" * 10_000)
    with open(path, "w") as f:
        while True:
            f.write("x" * 10_000)


@pytest.mark.parametrize("fn, limits, expected", [
    (_spin, limited.Limits(cpu_s=1, timeout=30), "CPU time"),
    (_write_forever, limited.Limits(output_mib=1, timeout=30), "more than 1 MiB"),
    (_spin, limited.Limits(cpu_s=60, timeout=1), "did not finish in 1 s"),
    (lambda: bytearray(2**40), limited.Limits(), "more than 1024 MiB"),
    (lambda: os._exit(3), limited.Limits(), "exit status 3"),
])
def test_the_limited_child_says_which_limit_it_met(tmp_path, fn, limits, expected):
    args = (tmp_path / "out",) if fn is _write_forever else ()
    with pytest.raises(limited.LimitError, match=expected):
        limited.call(fn, args, limits, "the probe")
    assert not (tmp_path / "out").exists() or (tmp_path / "out").stat().st_size <= 2**20


def test_the_limited_child_has_no_standard_input():
    r, w = os.pipe()
    os.write(w, b"the instructor's input")
    saved = os.dup(0)
    os.dup2(r, 0)
    try:
        assert limited.call(lambda: os.read(0, 100), (), limited.Limits(), "the probe") == b""
    finally:
        os.dup2(saved, 0)
        for fd in (r, w, saved):
            os.close(fd)
