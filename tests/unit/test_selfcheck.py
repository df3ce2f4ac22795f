"""What a learner sees under a `grader.check("qN")` cell (cephlab.course.selfcheck, issue 47): one
line on a pass, one hint per failed check on a failure, no traceback, no hint twice, no emoji,
while grader.check still returns otter's own result. The real lab 06 notebook's cells run in a
real kernel (nbclient) on a copy of its folder, with its self-check tests beside it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from cephlab.course import params, selfcheck

ROOT = Path(__file__).resolve().parents[2]
LAB = "06-capacity"
# What the lab's q1 and q3 self-checks say (labs/06-capacity/tests/q1.py, q3.py)
Q1_FIRST = "In GiB: more than the thin-provisioned data (the 0.7 fill leaves headroom), less than every VM disk full"
Q1_SECOND = "Raw space is usable space times the replica count"
Q3_USABLE = "Client GiB: less than an even spread would hold (the fullest OSD fills first), and 3 copies each"
Q3_STRANDED = "A fraction of the fillable space (not a percentage): compare with an even spread"
IMPORTS = "from models import capacity as cap\nfrom models.redundancy import replicated\n"
PROBE = ("import otter.test_files\n"
         "print(isinstance(_, otter.test_files.TestFile), type(_).__name__, _.grade, repr(_) == _.summary())")


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _cells(nb: dict, text: str) -> list[str]:
    return [_source(c) for c in nb["cells"] if c["cell_type"] == "code" and text in _source(c)]


def _solution(question_var: str) -> str:
    """The solution's answer cell (solutions/06-capacity.ipynb) that assigns question_var."""
    [src] = _cells(json.loads((ROOT / "solutions" / f"{LAB}.ipynb").read_text()), f"{question_var} =")
    return src


def _outputs(cell) -> dict:
    """{mime: text} of a check cell's result (its execute_result)."""
    [out] = [o for o in cell.outputs if o["output_type"] == "execute_result"]
    return dict(out["data"])


@pytest.fixture(scope="module")
def lab_run(tmp_path_factory):
    """Lab 06's own cells in a kernel: the otter cell (0), the learner-id cell (2, nothing typed),
    P, then q1 answered wrongly and q3 answered four ways, each followed by the lab's check cell."""
    folder = tmp_path_factory.mktemp("lab") / LAB
    shutil.copytree(ROOT / "labs" / LAB, folder)
    lab = json.loads((folder / f"{LAB}.ipynb").read_text())
    init, learner = _source(lab["cells"][0]), _source(lab["cells"][2])
    assert "otter.Notebook" in init and "params.learner_id(" in learner
    [p_cell] = _cells(lab, "P = params.lab_params(")
    [check_q1] = _cells(lab, 'grader.check("q1")')
    [check_q3] = _cells(lab, 'grader.check("q3")')
    usable, stranded = "q3_usable_gib", "q3_stranded"
    right_q3 = IMPORTS + _solution(usable)
    steps = {
        "q1 both asserts fail": "q1_usable_gib = 1.0\nq1_raw_gib = 0.5",
        "q3 one fails": right_q3 + f"\n{stranded} = 100 * {stranded}",
        "q3 both fail": right_q3 + f"\n{usable} = 10 * {usable}\n{stranded} = -1.0",
        "q3 not answered": f"{usable} = ...\n{stranded} = ...",
        "q3 right": right_q3,
    }
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in (init, learner, p_cell)]
    at = {}
    for name, answer in steps.items():
        nb.cells.append(nbformat.v4.new_code_cell(answer))
        nb.cells.append(nbformat.v4.new_code_cell(check_q1 if name.startswith("q1") else check_q3))
        at[name] = nb.cells[-1]
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    with pytest.MonkeyPatch.context() as mp:
        for var in ("CEPHLAB_LEARNER", "JUPYTERHUB_USER", "CEPHLAB_GRADING"):
            mp.delenv(var, raising=False)
        NotebookClient(nb, timeout=120, kernel_name="python3",
                       resources={"metadata": {"path": str(folder)}}).execute()
    return nb, at


def _clean(text: str, *hints: str) -> None:
    assert "Traceback" not in text and "Trying:" not in text and "Failed example" not in text, text
    assert all(ord(ch) <= 0xFFFF for ch in text), f"a character outside the BMP (emoji): {text!r}"
    for hint in hints:
        assert text.count(hint) == 1, f"{hint!r} not shown exactly once in {text!r}"


def test_a_failed_check_shows_its_hint_once_per_failed_case(lab_run):
    _, at = lab_run
    shown = _outputs(at["q3 one fails"])
    assert shown["text/plain"] == f"q3: 1 of 2 checks failed\n- {Q3_STRANDED}"
    _clean(shown["text/plain"], Q3_STRANDED)
    _clean(shown["text/html"], Q3_STRANDED)
    assert shown["text/html"].count("<li>") == 1 and Q3_USABLE not in shown["text/html"]

    shown = _outputs(at["q3 both fail"])
    assert shown["text/plain"] == f"q3: 2 of 2 checks failed\n- {Q3_USABLE}\n- {Q3_STRANDED}"
    _clean(shown["text/plain"], Q3_USABLE, Q3_STRANDED)
    _clean(shown["text/html"], Q3_USABLE, Q3_STRANDED)
    assert shown["text/html"].count("<li>") == 2


def test_a_case_with_two_failing_asserts_shows_its_first_failure_only(lab_run):
    _, at = lab_run
    shown = _outputs(at["q1 both asserts fail"])
    assert shown["text/plain"] == f"q1: 1 of 1 check failed\n- {Q1_FIRST}"
    _clean(shown["text/html"], Q1_FIRST)
    assert Q1_SECOND not in shown["text/html"]


def test_an_unanswered_question_says_its_answer_is_still_the_placeholder(lab_run):
    _, at = lab_run
    text = _outputs(at["q3 not answered"])["text/plain"]
    lines = text.split("\n")
    assert lines[0] == "q3: 2 of 2 checks failed" and len(lines) == 2, text    # the same error: once
    assert lines[1] == "- an answer is still `...`: put your value in its place and run its cell", text
    _clean(text)


def test_a_pass_is_one_plain_line(lab_run):
    _, at = lab_run
    shown = _outputs(at["q3 right"])
    assert shown["text/plain"] == "q3: all checks passed"
    assert "all checks passed" in shown["text/html"] and "<li>" not in shown["text/html"]
    _clean(shown["text/html"])
    assert set(shown) == {"text/plain", "text/html"}


def test_grader_check_still_returns_otters_result(lab_run):
    nb, _ = lab_run
    [out] = nb.cells[-1].outputs
    assert out["text"].split() == ["True", "OKTestFile", "1", "True"], out["text"]   # otter's, scored, its own repr


def test_the_learner_id_cell_warns_under_its_line_when_no_id_is_given(lab_run):
    nb, _ = lab_run
    text = "".join(o.get("text", "") for o in nb.cells[1].outputs if o["output_type"] == "stream")
    assert text == f"learner {params.DEFAULT_LEARNER}: the exercises use this learner's numbers\n" \
                   f"{params.FALLBACK_WARNING}\n", text


# -- the parts, without a kernel --------------------------------------------------------------------
def _outcome(message: str, passed: bool = False, failure_message: str | None = None):
    case = types.SimpleNamespace(name="q9 - 1", hidden=False, failure_message=failure_message)
    return types.SimpleNamespace(test_case=case, message=message, passed=passed)


def _doctest_failure(*lines: str) -> str:
    """otter's message for a failed doctest case, its report's lines as given (doctest's own layout)."""
    body = "\n".join(lines)
    return ("❌ Test case failed\nTrying:\n    q9_x == 1\nExpecting:\n    True\n" + "*" * 70 +
            "\nLine 1, in q9 0\nFailed example:\n    q9_x == 1\n" + body + "\n")


def test_a_doctest_whose_output_differs_does_not_show_the_expected_value():
    message = _doctest_failure("Expected:", "    1234.5", "Got:", "    17")
    hint = selfcheck.hint(_outcome(message))
    assert "1234.5" not in hint and hint == "a check's output is not what it expects"


def test_a_chained_error_shows_its_last_error_and_a_name_error_names_the_answer():
    message = _doctest_failure("Exception raised:", "    Traceback (most recent call last):",
                               "      File \"x\", line 1, in <module>", "    KeyError: 'a'", "",
                               "    During handling of the above exception, another exception occurred:", "",
                               "    Traceback (most recent call last):", "      File \"x\", line 2, in <module>",
                               "    NameError: name 'q9_x' is not defined")
    assert selfcheck.hint(_outcome(message)) == "`q9_x`: no usable answer"


def test_an_exception_style_check_and_an_authors_message_and_emoji():
    message = ("❌ Test case failed\nError at line 2 in test q9:\n  assert q9_x > 0, 'Positive 🚀'\n"
               "AssertionError: Positive 🚀")
    assert selfcheck.hint(_outcome(message)) == "Positive"
    assert selfcheck.hint(_outcome(message, failure_message="Think of the units\nmore")) == "Think of the units"
    assert selfcheck.hint(_outcome("❌ Test case failed\n" + "AssertionError")) == "a check failed"


def test_the_summary_counts_cases_and_a_result_with_no_cases():
    result = types.SimpleNamespace(name="q9", test_case_results=[])
    assert selfcheck.plain_text(result) == "q9: no checks ran"
    same = _doctest_failure("Exception raised:", "    Traceback (most recent call last):",
                            "      File \"x\", line 1", "    AssertionError: Keep it in GiB")
    result.test_case_results = [_outcome(same), _outcome("✅ Test case passed", passed=True), _outcome(same)]
    assert selfcheck.plain_text(result) == "q9: 2 of 3 checks failed\n- Keep it in GiB"


def test_install_does_nothing_outside_ipython_or_without_otter_and_never_raises(monkeypatch):
    monkeypatch.setitem(sys.modules, "IPython", None)
    assert selfcheck.install() is False
    broken = types.ModuleType("IPython")
    broken.get_ipython = lambda: (_ for _ in ()).throw(RuntimeError("no"))   # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", broken)
    assert selfcheck.install() is False
    registered = []
    formatter = types.SimpleNamespace(for_type=lambda *a: registered.append(a),
                                      for_type_by_name=lambda *a: registered.append(a))
    shell = types.SimpleNamespace(display_formatter=types.SimpleNamespace(
        formatters={"text/plain": formatter, "text/html": formatter}))
    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: shell        # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", fake)
    monkeypatch.setattr(selfcheck, "_otter_installed", lambda: False)
    assert selfcheck.install() is False and registered == []
    monkeypatch.setattr(selfcheck, "_otter_installed", lambda: True)
    assert selfcheck.install() is True and len(registered) == 2


def test_the_learner_id_cell_in_ipython_does_not_import_otter():
    """The grading sandbox runs cell 2 too: the display is registered by name, otter stays unloaded."""
    probe = ("import sys\nfrom IPython.core.interactiveshell import InteractiveShell\n"
             "shell = InteractiveShell.instance()\n"
             "shell.run_cell('from cephlab.course import params\\nLEARNER = params.learner_id(\"\")')\n"
             "html = shell.display_formatter.formatters['text/html']\n"
             "print('RESULT', 'otter' in sys.modules,\n"
             "      ('otter.test_files.abstract_test', 'TestFile') in html.deferred_printers)")
    env = {k: v for k, v in os.environ.items() if k not in ("CEPHLAB_LEARNER", "JUPYTERHUB_USER", "CEPHLAB_GRADING")}
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=120)
    assert "RESULT False True" in run.stdout, run.stdout + run.stderr
