"""A learner who copies instead of working: every answer variable gets a
literal found in its question's public test (labs/NN/tests/qN.py) or printed in an output above
the question in the executed solution, and the lab's autograder must give that notebook at most
BOUND of the lab's points.

The copier is the worst case: of the literals on offer it takes the one nearest the right answer
(the answer cell runs the solution, then swaps each value for the nearest literal), so a check
that prints the expected number, or a table above the question that shows it, is found.

Literals of a public test: the constant sides of its comparisons with an answer variable
(`q3_x == 7`, `abs(q3_x - 96) < 0.01` gives 96, `0 < q1_x < 1` gives 0 and 1, constant
expressions folded: `q2 < 600 * 0.85` gives 510), strings only where compared with `==`
(a membership test lists options, it does not state the answer). Printed literals: the numbers
in the text outputs of the code cells above the question (plain text or HTML tables), except
bare integers 0-9, which every output holds (OSD ids, counts) and which would make every small
whole-number answer look copied. A variable without a literal keeps the student notebook's `...`.
"""
from __future__ import annotations

import ast
import html
import re

import yaml

from cephlab.course import grading
from cephlab.course.notebooks import LABS

BOUND = 0.10            # at most 10 % of a lab's points for copied literals
NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
TAG = re.compile(r"<[^>]+>")


def public_cases(lab, question):
    """The code of the public (not hidden) cases of labs/<lab>/tests/<question>.py."""
    scope = {}
    exec((LABS / lab / "tests" / f"{question}.py").read_text(), scope)
    codes = []
    for suite in scope["test"]["suites"]:
        for case in suite["cases"]:
            if not case.get("hidden"):
                lines = [line[4:] for line in case["code"].splitlines() if line.startswith((">>> ", "... "))]
                codes.append("\n".join(lines))
    return codes


def _constant(node):
    """The value of a constant expression (numbers, strings, arithmetic), else None."""
    if any(isinstance(n, (ast.Name, ast.Call, ast.Attribute, ast.Subscript)) for n in ast.walk(node)):
        return None
    try:
        return eval(compile(ast.Expression(node), "<literal>", "eval"), {"__builtins__": {}})
    except Exception:
        return None


def _variable(node, names):
    """The answer variable a comparison operand stands for: `x`, `float(x)`, `abs(x - c)`
    (then also c), else (None, None)."""
    if isinstance(node, ast.Name) and node.id in names:
        return node.id, None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
        inner = node.args[0]
        if node.func.id in ("float", "int", "bool", "round") and isinstance(inner, ast.Name) and inner.id in names:
            return inner.id, None
        if node.func.id == "abs" and isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub):
            for var, other in ((inner.left, inner.right), (inner.right, inner.left)):
                if isinstance(var, ast.Name) and var.id in names:
                    return var.id, _constant(other)
    return None, None


def test_literals(codes, names):
    """{variable: [literal, ...]} from the comparisons in public test code."""
    found = {}
    for code in codes:
        for node in ast.walk(ast.parse(code)):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            for i, operand in enumerate(operands):
                var, inside = _variable(operand, names)
                if var is None:
                    continue
                if isinstance(inside, (int, float)) and not isinstance(inside, bool):
                    found.setdefault(var, []).append(inside)
                for j in (i - 1, i + 1):
                    if not 0 <= j < len(operands):
                        continue
                    op = node.ops[min(i, j)]
                    value = _constant(operands[j])
                    if isinstance(value, str) and isinstance(op, ast.Eq):
                        found.setdefault(var, []).append(value)
                    elif isinstance(value, (int, float)) and not isinstance(op, (ast.In, ast.NotIn)):
                        found.setdefault(var, []).append(value)
    return found


def printed_numbers(cells):
    """Numbers in the text outputs of code cells (plain text, or an HTML table's text)."""
    numbers = set()
    for cell in cells:
        for out in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            data = out.get("data", {})
            texts = [data[k] for k in ("text/plain", "text/html", "text/markdown") if k in data]
            texts += [out["text"]] if "text" in out else []
            for text in texts:
                text = html.unescape(TAG.sub(" ", "".join(text) if isinstance(text, list) else text))
                for token in NUMBER.findall(text):
                    value = float(token.replace(",", ""))
                    if value.is_integer() and 0 <= value <= 9 and "." not in token:
                        continue
                    numbers.add(int(value) if value.is_integer() and "." not in token else value)
    return sorted(numbers)


def assigned_names(codes):
    names = []
    for code in codes:
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Assign):
                names += [t.id for t in node.targets if isinstance(t, ast.Name) and t.id not in names]
    return names


PICK = '''
def _nearest_copied(value, literals):
    """The literal a copier would take: equal to the answer if one is, else the nearest number."""
    if any(type(c) is type(value) and c == value for c in literals):
        return value
    numbers = [c for c in literals if isinstance(c, (int, float)) and not isinstance(c, bool)]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and numbers:
        return min(numbers, key=lambda c: abs(c - value))
    return literals[0] if literals else ...
'''


def copied_literals(lab, student, master):
    """(the student notebook with every question answered by copied literals,
    {question: {variable: literals on offer}})."""
    nb = grading.fill_answers(student, master, list(grading.question_points(master)))
    answers, cells = grading.solution_answers(master), grading.answer_cells(nb)
    starts = {}
    for i, cell in enumerate(master["cells"]):
        if grading._raw_directive(cell) == "BEGIN QUESTION":
            meta = yaml.safe_load(grading._source(cell).split("\n", 1)[1]) or {}
            starts[meta["name"]] = i
    offered = {}
    for q, codes in answers.items():
        names = assigned_names(codes)
        from_tests = test_literals(public_cases(lab, q), set(names))
        printed = printed_numbers(master["cells"][:starts[q]])
        offered[q] = {name: from_tests.get(name, []) + printed for name in names}
        swaps = [f"{name} = _nearest_copied({name}, {offered[q][name]!r})" if from_tests.get(name) or printed
                 else f"{name} = ..." for name in names]
        last = cells[q][-1]
        nb["cells"][last]["source"] = "\n".join([grading._source(nb["cells"][last]), PICK, *swaps])
    return nb, offered
