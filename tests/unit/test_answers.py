"""What crosses from a learner's notebook to the grader (cephlab.course.answers) and how the
checks score it (cephlab.course.checks): plain values survive exactly, everything else is
refused with a reason, and a refused answer fails its question."""
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cephlab.course import answers, checks

plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20) | st.frozensets(st.integers(), max_size=3).map(set),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20)


@given(plain)
def test_plain_values_cross_unchanged(value):
    line = answers.encode_answers("q1", {"x": value}, ["x"])
    question, values, problems = answers.decode_line(line)
    assert (question, problems) == ("q1", {})
    assert values["x"] == value and type(values["x"]) is type(value)


def test_numpy_values_become_plain_numbers_and_arrays():
    ns = {"f": np.float64(2.5), "i": np.int32(7), "b": np.bool_(True),
          "a": np.array([[1, 2], [3, 4]], dtype=np.int16)}
    _, values, problems = answers.decode_line(answers.encode_answers("q2", ns, list(ns)))
    assert problems == {}
    assert values["f"] == 2.5 and type(values["f"]) is float
    assert values["i"] == 7 and type(values["i"]) is int
    assert values["b"] is True
    assert values["a"].dtype == np.int64 and values["a"].tolist() == [[1, 2], [3, 4]]


class Anything(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__


@pytest.mark.parametrize("value, why", [
    (Anything(1.0), "not a number"), (float("nan"), "finite"), (math.inf, "finite"),
    (np.array([np.nan]), "finite"), (Ellipsis, "not answered yet"), (lambda x: x, "function"),
    (np.array(["a"]), "numpy.ndarray"), ({1: 2}, "keys that are not strings"), (object(), "object"),
])
def test_what_is_not_plain_data_is_refused_with_a_reason(value, why):
    _, values, problems = answers.decode_line(answers.encode_answers("q1", {"x": value}, ["x"]))
    assert values == {} and why in problems["x"]


@pytest.mark.parametrize("line, why", [
    ('{"question": "q1", "values": {"x": NaN}, "problems": {}}', "not JSON"),
    ('{"question": "q1", "values": {"x": Infinity}, "problems": {}}', "not JSON"),
    ('[1, 2]', "not an answer line"),
    ('{"question": "q1", "values": {}, "problems": {}, "score": 9}', "not an answer line"),
])
def test_forged_lines_are_refused(line, why):
    with pytest.raises(answers.NotPlain, match=why):
        answers.decode_line(line)


@pytest.mark.parametrize("data, why", [
    ({"ndarray": [[1.0]], "dtype": "object"}, "unknown tag"),
    ({"ndarray": [[1.0], [2.0, 3.0]], "dtype": "float64"}, "rectangular"),
    ({"ndarray": [{"dict": {}}], "dtype": "float64"}, "other than numbers"),
    ({"nonfinite": "nan"}, "finite"),
    ({"__class__": "os.system"}, "unknown tag"),
])
def test_forged_values_are_refused(data, why):
    line = json.dumps({"question": "q1", "values": {"x": data}, "problems": {}})
    _, values, problems = answers.decode_line(line)
    assert values == {} and why in problems["x"]


def test_deep_nesting_is_refused_not_a_crash():
    deep = "[" * 100 + "1.0" + "]" * 100
    _, values, problems = answers.decode_line(f'{{"question": "q1", "values": {{"x": {deep}}}, "problems": {{}}}}')
    assert values == {} and "nested deeper" in problems["x"]
    deeper = "[" * 200_000 + "]" * 200_000           # past the JSON parser's own recursion limit
    with pytest.raises(answers.NotPlain, match="not JSON"):
        answers.decode_line(f'{{"question": "q1", "values": {{"x": {deeper}}}, "problems": {{}}}}')


# -- checks ------------------------------------------------------------------------------------------
def raw(text):
    return {"cell_type": "raw", "metadata": {}, "source": text}


def code(text):
    return {"cell_type": "code", "metadata": {}, "source": text, "outputs": [], "execution_count": None}


MASTER = {"cells": [
    code("import math"),
    raw("# BEGIN QUESTION\nname: q1\npoints: 2\nall_or_nothing: true"),
    raw("# BEGIN SOLUTION"), code("q1_x = math.sqrt(16)  # SOLUTION"), raw("# END SOLUTION"),
    raw("# BEGIN TESTS"), code('assert 0 < q1_x < 10, "a positive root"'),
    code('# HIDDEN\nassert abs(q1_x - math.sqrt(16)) < 1e-9, "the square root"'), raw("# END TESTS"),
    raw("# END QUESTION"),
    raw("# BEGIN QUESTION\nname: q2\npoints: 2"),
    raw("# BEGIN SOLUTION"), code("q2_y = 3  # SOLUTION"), raw("# END SOLUTION"),
    raw("# BEGIN TESTS"), code('assert q2_y > 0, "positive"'), code('assert q2_y == 3, "three"'),
    raw("# END TESTS"), raw("# END QUESTION"),
]}


def test_questions_read_names_and_the_master_imports():
    qs = checks.questions(MASTER)
    assert [(q.name, q.points, q.all_or_nothing, q.names) for q in qs] == \
        [("q1", 2.0, True, ["q1_x"]), ("q2", 2.0, False, ["q2_y"])]
    assert [c.hidden for c in qs[0].cases] == [False, True]
    assert checks.check_names(MASTER) == {}


@pytest.mark.parametrize("q1, q2, scores", [
    (4.0, 3, {"q1": 2.0, "q2": 2.0}),
    (5.0, 2, {"q1": 0.0, "q2": 1.0}),       # q2 is not all-or-nothing: one check of two
    (None, -1, {"q1": 0.0, "q2": 0.0}),
])
def test_scores_follow_otters_rules(q1, q2, scores):
    qs = checks.questions(MASTER)
    base = checks.context(MASTER, "test", "example", {"math"})
    got = checks.score(qs, {"q1": {} if q1 is None else {"q1_x": q1}, "q2": {"q2_y": q2}},
                       {"q1": {"q1_x": "not answered yet (still `...`)"} if q1 is None else {}}, base)
    assert {q: s.score for q, s in got.items()} == scores
    if q1 is None:
        assert got["q1"].feedback == ["`q1_x`: not answered yet (still `...`)"]


def test_a_check_reading_a_lab_helper_is_found():
    master = {"cells": [c if "HIDDEN" not in str(c["source"]) else
                        code("# HIDDEN\nassert helper(q1_x) == 4") for c in MASTER["cells"]]}
    assert checks.check_names(master) == {"q1": ["helper"]}


def test_checks_run_in_a_child_with_the_learners_id():
    got = checks.run(MASTER, "test", "alice", {"q1": {"q1_x": 4.0}, "q2": {"q2_y": 3}}, {})
    assert {q: s.score for q, s in got.items()} == {"q1": 2.0, "q2": 2.0}


MASTERS = sorted(Path(__file__).resolve().parents[2].glob("solutions/[0-9][0-9]-*.ipynb")) + \
    sorted(Path(__file__).resolve().parents[2].glob("book/quizzes/*-quiz.ipynb"))


@pytest.mark.parametrize("master", MASTERS, ids=lambda p: p.stem)
def test_every_check_reads_only_imports_p_and_answers(master):
    """A check reading a lab's helper or constant would have to take it from the learner's
    process (where an answer cell can replace it): write it from imports instead."""
    assert checks.check_names(json.loads(master.read_text())) == {}


def test_printed_output_past_the_cap_is_dropped_not_written():
    import io

    from cephlab.course import answer_runner
    sink = io.StringIO()
    stream = answer_runner.CappedStream(sink)
    for _ in range(5):
        assert stream.write("x" * answer_runner.OUTPUT_CAP) == answer_runner.OUTPUT_CAP
    assert len(sink.getvalue()) == answer_runner.OUTPUT_CAP
    assert stream.dropped == 4 * answer_runner.OUTPUT_CAP


def _master_importing(module):
    """MASTER with `import <module> as mod` among its imports and a check that reads it."""
    cells = [code(f"import {module} as mod")] + [
        code('assert q2_y == 3 and mod is not None, "three"') if c["source"] == 'assert q2_y == 3, "three"' else c
        for c in MASTER["cells"]]
    return {"cells": cells}


def test_preload_imports_what_the_checks_import_here_once(tmp_path, monkeypatch):
    """The grading process loads the master's imports (so each checks child need not); the
    checks still score the same."""
    import sys
    module = "cephlab_preload_probe"
    (tmp_path / f"{module}.py").write_text("LOADED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, module, raising=False)
    master = _master_importing(module)
    checks.preload(master)
    assert module in sys.modules
    got = checks.run(master, "test", "alice", {"q1": {"q1_x": 4.0}, "q2": {"q2_y": 3}}, {})
    assert {q: s.score for q, s in got.items()} == {"q1": 2.0, "q2": 2.0}
    monkeypatch.delitem(sys.modules, module)


def test_preload_leaves_a_broken_import_to_the_checks_child():
    master = _master_importing("no_such_module_for_cephlab_checks")
    checks.preload(master)                      # does not raise
    with pytest.raises(checks.CheckError, match="ModuleNotFoundError"):
        checks.run(master, "test", "alice", {"q2": {"q2_y": 3}}, {})


RUNNER_PROBE = '''
import sys
from cephlab.course import answer_runner as r
from IPython.core.interactiveshell import InteractiveShell
r.stand_in_otter()
shell = InteractiveShell.instance()
r.text_only_display(shell)

class Plot:
    drawn = 0
    def _ipython_display_(self):
        Plot.drawn += 1
    def __repr__(self):
        return "<a plot>"

shell.user_ns["Plot"] = Plot
for cell in ["import otter\\ngrader = otter.Notebook('01-redundancy.ipynb')\\nprint(grader.check('q1'))",
             "Plot()", "from IPython.display import display\\ndisplay(Plot())"]:
    result = shell.run_cell(cell, store_history=False)
    assert result.error_in_exec is None, result.error_in_exec
loaded_early = "otter.api" in sys.modules
version = shell.user_ns["otter"].__version__          # any other attribute: the real package
print("RESULT", type(shell.user_ns["grader"]).__name__, Plot.drawn, loaded_early, "otter.api" in sys.modules,
      version == __import__("importlib.metadata").metadata.version("otter-grader"))
'''


def test_the_runner_stands_in_for_otter_and_shows_text_only():
    """`import otter` and otter.Notebook cost nothing in the runner (the real package loads when
    anything else of it is used), and a result's rich display (a LivePlot's PNG) is not made."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", RUNNER_PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "<a plot>" in done.stdout
    assert done.stdout.splitlines()[-1] == "RESULT NoChecks 0 False True True", done.stdout
