"""A public self-check rejects the most common wrong answer to its question, with a hint that names
the misconception and never the value (issue 47 item 3).

MISCONCEPTIONS lists, per question, the wrong answer a learner most often gives (found in the
walkthroughs) and the right one, both computed for the same inputs: the public cases (the student
release's labs/NN/tests/qN.py, exactly what the learner runs) must pass the right answer and
fail the wrong one. So far one question; the walkthrough of every lab adds the rest."""
from __future__ import annotations

import doctest
import runpy
from pathlib import Path

import numpy as np
import pytest

LABS = Path(__file__).resolve().parents[2] / "labs"

# (lab, question): (inputs, right answers, wrong answers, words the wrong answer's hint must hold)
MISCONCEPTIONS = {
    ("06-capacity", "q5"): (
        {"my_objects": 96}, {"q5_avail_drop_mib": 4 * 96},
        # the raw space of 3 copies, not the client data MAX AVAIL counts
        {"q5_avail_drop_mib": 3 * 4 * 96}, "every copy"),
}


def public_failures(lab: str, question: str, namespace: dict) -> list[str]:
    """The messages of the public cases of lab/question that fail with `namespace`."""
    test = runpy.run_path(str(LABS / lab / "tests" / f"{question}.py"))["test"]
    failed = []
    for case in (c for suite in test["suites"] for c in suite["cases"] if not c["hidden"]):
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        parsed = doctest.DocTestParser().get_doctest(case["code"], {"np": np, **namespace}, question, None, 0)
        out: list[str] = []
        if runner.run(parsed, out=out.append, clear_globs=False).failed:
            failed.append("".join(out))
    return failed


@pytest.mark.parametrize("key", list(MISCONCEPTIONS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_the_public_check_rejects_the_common_wrong_answer_and_says_why(key):
    lab, question = key
    inputs, right, wrong, words = MISCONCEPTIONS[key]
    assert public_failures(lab, question, {**inputs, **right}) == []
    failures = public_failures(lab, question, {**inputs, **wrong})
    assert failures and any(words in f for f in failures), failures
    for value in right.values():        # the hint never gives the right answer away
        assert not any(str(value) in f.split("AssertionError", 1)[-1] for f in failures), failures
