"""The learner's choices (`my_...`): one rule per lab (cephlab.helpers.choices), applied where the
measurement runs, stating exactly what the question's public test accepts, and leaving out the
values that decide nothing."""
import ast
import re
from pathlib import Path

import numpy as np
import pytest

from cephlab.helpers import choices, experiment

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]-*.py"))
CALL = re.compile(r'experiment\.choice\((my_[a-z_]+), ([^,]+), "(my_[a-z_]+) \(Q\d\)", lab="(\d\d)"\)')
# what a learner might type: whole numbers over a wide range, floats, and things that are no number
CANDIDATES = ([*range(-3, 300), 512, 1000, 4095, 4096, 4097, 8192, 65535, 65536, 65537, 100000]
              + [4.0, 4.5, 16.0, 64.0, True, False, "8", None, [8]]
              + [np.int64(v) for v in (1, 2, 3, 4, 6, 16, 32, 64, 100, 130, 1000, 4096)])


def _calls():
    for path in SOLUTIONS:
        for m in CALL.finditer(path.read_text()):
            yield path, m.group(1), m.group(2), m.group(4)


def test_every_choice_in_the_solutions_names_its_lab_and_has_a_rule():
    found = {(lab, name) for path, name, _, lab in _calls() if path.name[:2] == lab}
    plain = sum(path.read_text().count("experiment.choice(") for path in SOLUTIONS)
    assert len(found) == plain == len(SOLUTIONS), "a choice without lab=, or a lab without a choice"
    assert found == set(choices.RULES), "rules without a choice, or choices without a rule"


def _solution_value(path: Path, name: str):
    m = re.search(rf"^{name} = (.+?)  # SOLUTION$", path.read_text(), re.M)
    return ast.literal_eval(m.group(1))


@pytest.mark.parametrize("path, name, default, lab", list(_calls()), ids=lambda x: getattr(x, "stem", str(x)))
def test_the_default_and_the_solutions_value_are_accepted_and_trivial_values_are_not(path, name, default, lab):
    rule = choices.rule(lab, name)
    assert rule.accepts(ast.literal_eval(default)) and rule.accepts(_solution_value(path, name))
    assert not any(rule.accepts(v) for v in rule.trivial)


def _public_condition(path: Path, name: str):
    """The condition of the question's first public assert on `name` (its range check)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Assert) and name in ast.unparse(node.test) and "isinstance" in ast.unparse(node.test) \
                or isinstance(node, ast.Assert) and ast.unparse(node.test).startswith(f"int({name}) =="):
            return compile(ast.Expression(node.test), str(path), "eval")
    raise AssertionError(f"{path.name}: no public range check on {name}")


@pytest.mark.parametrize("path, name, default, lab", list(_calls()), ids=lambda x: getattr(x, "stem", str(x)))
def test_the_rule_and_the_public_test_accept_the_same_values(path, name, default, lab):
    condition, rule = _public_condition(path, name), choices.rule(lab, name)
    differ = []
    for v in CANDIDATES:
        try:
            public = bool(eval(condition, {"np": np}, {name: v}))
        except (TypeError, ValueError):
            public = False
        if public != rule.accepts(v):
            differ.append((v, public))
    assert not differ, f"{path.name} {name}: (value, public test) where the rule says otherwise: {differ[:8]}"


def test_choice_refuses_a_value_the_lab_cannot_measure_and_says_what_to_choose():
    assert experiment.choice(1000, 1000, "my_object_bytes (Q6)", lab="01") == 1000
    with pytest.raises(ValueError, match=r"my_object_bytes \(Q6\) = 8192 .*from 512 to 65536, not a multiple of 4096"):
        experiment.choice(8192, 1000, "my_object_bytes (Q6)", lab="01")
    with pytest.raises(ValueError, match="other than 16"):
        experiment.choice(16, 4, "my_threads (Q7)", lab="03")
    assert experiment.choice(..., 4, "my_threads (Q7)", lab="03") == 4       # not set: the default, said so
