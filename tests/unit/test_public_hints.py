"""Public self-checks give hints, never the answer (issue 24), for every question of every lab:

- no message a public check shows for a wrong answer states the right answer: a number in it
  within 0.5 % of the solution's value is a leak, unless the question itself gives that number
  (its prompt or the learner's parameters);
- no public check pins the answer: each numeric answer moved by 5 % (or by one, for integers)
  must still pass the public checks, so passing them does not tell a learner they have it.

The wrong answers are the solution's own values moved by factors a learner's slip makes (x0.1,
x0.61, x1.37, x10, the sign); each assert of a public cell runs on its own, so a message behind a
first failing assert is read too. The solution's namespace comes from tests/unit/test_params.py
(its cells run in-process as learner alice)."""
from __future__ import annotations

import ast
import copy
import itertools
import math
import numbers
import re

import jupytext
import pytest

from cephlab.course import params
from tests.unit.test_params import ALICE, PARAMETERISED, ROOT, _directive, notebook_as

LABS = sorted(PARAMETERISED)
SLIPS = (0.1, 0.61, 1.37, 10.0, -1.0)
NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:[eE]-?\d+)?")


def numeric(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(float(value))


def numbers_in(text: str) -> list[float]:
    found = []
    for match in NUMBER.findall(text):
        try:
            found.append(float(match.replace(",", "")))
        except ValueError:
            pass
    return found


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=0.005, abs_tol=1e-12)


def assigned(sources: list[str]) -> list[str]:
    names = []
    for src in sources:
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Assign):
                names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return list(dict.fromkeys(names))


def prompts(lab: str) -> dict[str, str]:
    """Each question's text: its cells between BEGIN QUESTION and BEGIN SOLUTION."""
    text, question, open_ = {}, None, False
    for cell in jupytext.read(ROOT / "solutions" / f"{lab}.py").cells:
        d = _directive(cell)
        if d == "BEGIN QUESTION":
            question = cell.source.split("name:", 1)[1].split()[0]
            text[question], open_ = "", True
        elif d == "BEGIN SOLUTION":
            open_ = False
        elif question and open_:
            text[question] += cell.source + "\n"
    return text


def asserts(public: list[str]) -> list[str]:
    """Each public cell as statements: everything but the asserts first (the cell's own set-up),
    then one source per assert."""
    pieces = []
    for src in public:
        body = ast.parse(src).body
        setup = [s for s in body if not isinstance(s, ast.Assert)]
        pieces += [ast.unparse([*setup, s]) for s in body if isinstance(s, ast.Assert)]
    return pieces


def messages(checks: list[str], env: dict) -> list[str]:
    shown = []
    for src in checks:
        try:
            exec(compile(src, "public", "exec"), copy.copy(env))     # noqa: S102 - the course's own checks
        except AssertionError as err:
            shown.append(str(err))
        except Exception:       # noqa: BLE001 - a slip may break a check; the learner sees no number then
            pass
    return shown


def passes(checks: list[str], env: dict) -> bool:
    try:
        for src in checks:
            exec(compile(src, "public", "exec"), copy.copy(env))     # noqa: S102
    except Exception:       # noqa: BLE001
        return False
    return True


def answers(lab, monkeypatch):
    env, found = notebook_as(lab, ALICE, monkeypatch)
    for q, (solution, public, _) in found.items():
        names = [n for n in assigned(solution) if n in env]
        yield q, env, asserts(public), {n: env[n] for n in names}


@pytest.fixture(autouse=True)
def _as_alice(monkeypatch):
    monkeypatch.setattr(params, "_recorded", None)
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)


def leaks(env: dict, checks: list[str], values: dict, known: list[float]) -> list[str]:
    """Messages the public checks show for slipped answers that state a right answer not given."""
    secret = {n: float(v) for n, v in values.items() if numeric(v) and not any(close(float(v), k) for k in known)}
    found = []
    for name, value in values.items():
        if not numeric(value):
            continue
        for slip in SLIPS:
            wrong = {**env, name: type(value)(value * slip) if isinstance(value, float) else value * slip}
            found += [f"{n}={v:g} shown as {x:g} in: {message}" for message in messages(checks, wrong)
                      for x in numbers_in(message) for n, v in secret.items()
                      if close(x, v) and not close(x, float(wrong[name]))]
    return list(dict.fromkeys(found))


@pytest.mark.parametrize("lab", LABS)
def test_no_public_message_states_the_answer(lab, monkeypatch):
    text = prompts(lab)
    given = [float(v) for v in params.lab_params(lab, ALICE).values() if numeric(v)]
    found = [f"{q} {leak}" for q, env, checks, values in answers(lab, monkeypatch)
             for leak in leaks(env, checks, values, given + numbers_in(text.get(q, "")))]
    assert not found, "\n".join(found)


def others(value) -> list:
    """Values a public check that only hints should also accept for some answers."""
    if isinstance(value, numbers.Integral):
        return [v for v in (value + 1, value - 1, value + 2, value - 2, 2 * value, value // 2) if v != value]
    return [value * f for f in (0.95, 1.05, 0.9, 1.1, 0.8, 1.2, 0.5, 2.0)]


def tied(name: str, free: dict):
    """Answers a check ties together (one is the other times the size, or 600 over it) move
    together: `name` by a factor f, each other answer by f or 1/f."""
    rest = [n for n in free if n != name]
    for f in (2.0, 0.5, 1.1):
        for powers in itertools.product((1, -1), repeat=len(rest)):
            moved = {name: free[name] * f, **{n: free[n] * f ** p for n, p in zip(rest, powers)}}
            yield {n: round(v) if isinstance(free[n], numbers.Integral) else type(free[n])(v)
                   for n, v in moved.items()}


def pins(env: dict, checks: list[str], values: dict) -> list[str]:
    """Answers the public checks accept alone: no other value near them, moved alone or with the
    answers tied to them. A learner's choice (my_...) is checked by its rule instead
    (tests/unit/test_choices.py)."""
    if not checks or not passes(checks, env):
        return []               # no public check, or one that needs the cluster's run
    free = {n: v for n, v in values.items() if numeric(v) and not n.startswith("my_")}
    return [f"{name}={value:g}: the public checks accept no other value near it"
            for name, value in free.items()
            if not any(passes(checks, {**env, name: m}) for m in others(value))
            and not any(passes(checks, {**env, **moved}) for moved in tied(name, free))]


@pytest.mark.parametrize("lab", LABS)
def test_no_public_check_pins_the_answer(lab, monkeypatch):
    found = [f"{q} {pin}" for q, env, checks, values in answers(lab, monkeypatch)
             for pin in pins(env, checks, values)]
    assert not found, "\n".join(found)


# -- negative controls: the two checks above find what they are for ----------------------------
LEAKY = ['assert abs(q9_gib - 1234.5) < 1, "Close: the answer is 1,234.5 GiB"']
PINNING = ['assert round(q9_gib, 1) == 1234.5, "Keep the units in GiB"']
HONEST = ['assert 100 < q9_gib < 10_000, "In GiB: more than the data, less than every disk full"']


def test_a_message_that_states_the_answer_is_found():
    env = {"q9_gib": 1234.5}
    assert leaks(env, LEAKY, env, known=[]) and not leaks(env, HONEST, env, known=[])
    assert not leaks(env, LEAKY, env, known=[1234.5]), "a number the question gives is no leak"


def test_a_check_that_accepts_only_the_answer_is_found():
    env = {"q9_gib": 1234.5}
    assert pins(env, PINNING, env) and not pins(env, HONEST, env)
