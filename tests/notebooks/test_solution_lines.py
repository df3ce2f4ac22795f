"""A `# SOLUTION` line must be a whole statement: otter's student version replaces each such line
on its own (an assignment by `name = ...`, anything else by `...`), so a statement continued on a
second `# SOLUTION` line leaves an indented `...` behind and the student notebook stops with an
IndentationError (lab 04, found by CI's top-to-bottom run of the student version)."""
import re
from pathlib import Path

import pytest

from cephlab.course.grading import SOLUTION_TAIL

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]-*.py"))


def open_brackets(code):
    code = re.sub(r"(['\"]).*?\1", "", code)        # brackets inside strings do not count
    return sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")


def continued(text):
    """[(line number, line)] of the `# SOLUTION` lines whose statement goes on to the next line."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        code = SOLUTION_TAIL.sub("", line).rstrip()
        if SOLUTION_TAIL.search(line) and (open_brackets(code) > 0 or code.endswith("\\")):
            found.append((n, line.strip()))
    return found


def test_the_check_finds_a_continued_statement():
    bad = 'x = f(1,  # SOLUTION\n      2)  # SOLUTION\ny = g("(")  # SOLUTION\n'
    assert [n for n, _ in continued(bad)] == [1]


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_solution_lines_are_whole_statements(path):
    assert not continued(path.read_text()), f"{path.name}: put each '# SOLUTION' statement on one line"
