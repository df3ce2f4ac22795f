"""Every name an answer cell assigns is asked for by its question, with its form (issue 47 item 2).

A learner met answer cells with names the question never mentioned (lab 00 `q3_slow_ms`,
`q4_args`; lab 06 `q5_avail_before`, `q5_avail_after`) and had to guess what they were and in
what form. This test reads the student notebooks (labs/NN-topic/NN-topic.ipynb; files only, no
cluster, nothing executed) and, for every answer cell (a code cell tagged `otter_answer_cell`):

- its names: every name assigned at the top level of the cell (`name = ...`, also the parts of a
  tuple target, `name: T = ...` and `name += ...`), read with `ast` (the `...` placeholders parse);
- its question text: the Markdown cells and the question strings of `params.show(...)` calls
  (their first argument, a string literal, read from the source, not executed) between the
  previous answer or check (`grader.check(...)`) cell and this answer cell, from the last cell
  there that opens a question (`**QN.**`); text above the `**QN.**` cell (a section's
  introduction) is not the question's;
- each name must occur in the question text as the exact identifier (in backticks or plain; not
  as part of a longer identifier, and a `{placeholder}` of params.show is another name);
- the sentence of the name's first mention must state its form: one of FORM_WORDS (a unit, a type
  or shape word, a ratio or count word) or one of FORM_PATTERNS (the values themselves: quoted
  string choices, `True`/`False`; or a class named as the type). A range alone ("from 48 to
  160", "1, 2 or 3") is no form: the checks want a whole number, an int, and a learner cannot
  tell that from the range.

Sentences: the text is cut at a blank line, a list item, a table row or a heading, and at a
full stop followed by a space or a line end (". " / ".\\n"; the full stops of "e.g." and "i.e."
do not count). A line that merely wraps inside a paragraph is not a sentence end: the sources
wrap at about 100 columns, and a check that depended on where a line wraps would fail or pass by
chance. A question mark does not end the sentence either, so "How long does one write take
(ms)? Store it in `q2_ms`." states `q2_ms`'s unit.

On failure it prints a table: lab, question, name, what is missing.
"""
import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDENT = sorted(p / f"{p.name}.ipynb" for p in (ROOT / "labs").glob("[0-9][0-9]-*")
                 if (p / f"{p.name}.ipynb").is_file())

# The words that state a name's form. Matched as whole words (not inside a longer word or an
# identifier, though right after a digit: "5%", "4x"); words of four or more letters ignore case,
# shorter ones ("ms", "s", "x", "TB") must match exactly.
FORM_WORDS = [
    # units of size, time and rate
    "bytes", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "MiB/s", "MB/s",
    "ms", "s", "milliseconds", "seconds", "minutes", "hours", "days",
    "%", "percent", "IOPS", "tps", "ops/s", "per second",
    # types and shapes
    "a number", "numbers", "an int", "ints", "integer", "integers", "a whole number", "whole numbers",
    "a float", "floats", "True or False", "a bool", "bool", "boolean", "booleans",
    "a string", "strings", "a list", "a dict", "a tuple", "a set", "a path",
    # ratios and counts
    "fraction", "fractions", "0-1", "between 0 and 1", "ratio", "ratios", "factor", "factors",
    "times", "x", "×", "count", "counts",
]

# The values themselves state the form: quoted string choices (`"writes"` or `"reads"`) and the
# booleans (`True` or `False`); so does a class named as the type ("a `FileStoreRun`"). A range
# ("from 48 to 160") or a list of numbers ("1, 2 or 3") does not: it says which values, not the
# type the check wants (an int, not 96.0).
FORM_PATTERNS = [
    r'`"[^`"]*"`',
    r"`True`|`False`",
    r"\ban? `[A-Z][A-Za-z]*`",
]

QUESTION = re.compile(r"\*\*(Q\d+)\.")
ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|cf|vs)\.")


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def is_answer(cell):
    return cell["cell_type"] == "code" and "otter_answer_cell" in cell.get("metadata", {}).get("tags", [])


def is_check(cell):
    return cell["cell_type"] == "code" and "grader.check(" in _source(cell)


def show_strings(source):
    """The string literals passed first to params.show(...) in a code cell's source."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr == "show"
                    and isinstance(func.value, ast.Name) and func.value.id == "params"):
                found.append(node.args[0].value)
    return found


def assigned_names(source):
    """The names assigned at the top level of an answer cell, in order."""
    names = []

    def add(target):
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                add(t)
        elif isinstance(target, ast.Starred):
            add(target.value)

    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                add(t)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            add(node.target)
    return list(dict.fromkeys(names))


def question_texts(cells):
    """[(answer cell index, question label, question text)] for a notebook's answer cells."""
    found, start = [], 0
    for i, cell in enumerate(cells):
        if is_answer(cell):
            parts = []
            for c in cells[start:i]:
                if c["cell_type"] == "markdown":
                    parts.append(_source(c))
                elif c["cell_type"] == "code":
                    parts.extend(show_strings(_source(c)))
            opens = [n for n, p in enumerate(parts) if QUESTION.search(p)]
            if opens:
                parts = parts[opens[-1]:]
            text = "\n\n".join(parts)
            label = QUESTION.search(text)
            found.append((i, label.group(1) if label else f"cell {i}", text))
        if is_answer(cell) or is_check(cell):
            start = i + 1
    return found


def sentences(text):
    """The text cut into sentences (see the module docstring)."""
    text = ABBREVIATIONS.sub(lambda m: m.group(1).replace(".", "\0") + "\0", text)
    blocks, current = [], []
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or re.match(r"([-*+]|\d+\.)\s|\||#", stripped):
            if current:
                blocks.append(" ".join(current))
            current = [stripped] if stripped else []
        else:
            current.append(stripped)
    if current:
        blocks.append(" ".join(current))
    return [s.replace("\0", ".") for b in blocks for s in re.split(r"(?<=\.)\s+", b) if s.strip()]


def _word(w):
    """A form word as a whole word; a digit may come right before it ("5%", "10 ms" or "10ms", "4x")."""
    flags = re.IGNORECASE if len(w) >= 4 else 0
    return re.compile(rf"(?<![A-Za-z_'’]){re.escape(w)}(?![\w'’])", flags)


FORM = [_word(w) for w in FORM_WORDS] + [re.compile(p) for p in FORM_PATTERNS]


def mentions(name):
    return re.compile(rf"(?<![\w{{]){re.escape(name)}(?![\w}}])")


def states_form(sentence):
    return any(f.search(sentence) for f in FORM)


def problems(nb):
    """[(question, name, what is missing)] for one notebook."""
    found = []
    cells = nb["cells"]
    for i, label, text in question_texts(cells):
        for name in assigned_names(_source(cells[i])):
            first = next((s for s in sentences(text) if mentions(name).search(s)), None)
            if first is None:
                found.append((label, name, "not in the question text"))
            elif not states_form(first):
                found.append((label, name, f"no form word in: {first!r}"))
    return found


def table(rows):
    return "\n".join(["lab | question | name | missing", "--- | --- | --- | ---",
                      *(" | ".join(map(str, r)) for r in rows)])


# ---- negative controls on synthetic notebooks ----------------------------------------------------

def _nb(*cells):
    return {"cells": list(cells)}


def _md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(text, *tags):
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": text}


def test_negative_control_an_unasked_name_and_a_formless_name_fail():
    nb = _nb(_md("## Exercises\nUse `q1_hidden` nowhere."),
             _code('params.show("""**Q1.** How long does a write of {q1_size} take? Store it in\n`q1_ms`.""", P)',
                   "nbval-ignore-output"),
             _code("q1_hidden = ...\nq1_ms = ...\nq1_size = ...", "otter_answer_cell"),
             _code('grader.check("q1")'),
             _md("**Q2.** The disks' share. Store it in `q2_share`."),
             _code("q2_share = ...", "otter_answer_cell"),
             _md("**Q3.** Choose how many objects, from 48 to 160, and store it in `my_objects`."),
             _code("my_objects = ...", "otter_answer_cell"))
    assert [(q, n, m.split(":")[0]) for q, n, m in problems(nb)] == [
        ("Q1", "q1_hidden", "not in the question text"),     # only in the text above the question
        ("Q1", "q1_ms", "no form word in"),
        ("Q1", "q1_size", "not in the question text"),       # a {placeholder} is not a mention
        ("Q2", "q2_share", "no form word in"),
        ("Q3", "my_objects", "no form word in")]                # a range says which values, not the type


def test_negative_control_stated_forms_pass():
    nb = _nb(_md("**Q1.** How long (ms)? Store it in `q1_ms`. Store the share in `q1_share` (a fraction,\n"
                 "e.g. 0.25), and `True` or `False` in `q1_ok`. Choose a size, a whole number from 1 to 3,\n"
                 "in `my_size`. Store the run in `q1_run`, a `FileStoreRun`."),
             _code("q1_ms = ...\nq1_share = ...\nq1_ok = ...\nmy_size = ...\nq1_run = ...", "otter_answer_cell"))
    assert problems(nb) == []


def test_form_words_are_whole_words():
    assert states_form("Store it in `q1_x` (5%).") and states_form("about 4x") and states_form("in 10ms")
    assert not states_form("Store it in `q1_ms_total`.") and not states_form("the OSD's times_table")


def test_the_sentences_join_wrapped_lines_and_keep_abbreviations():
    assert sentences("One, e.g. this\nline. Two?\n\n- three\nfour") == ["One, e.g. this line.", "Two?", "- three four"]


def test_there_are_student_notebooks():
    assert len(STUDENT) >= 10, "labs/NN-topic/NN-topic.ipynb: the student notebooks are missing"


@pytest.mark.parametrize("notebook", STUDENT, ids=[p.stem for p in STUDENT])
def test_every_answer_name_is_asked_for_with_its_form(notebook):
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    assert question_texts(nb["cells"]), f"{notebook.name} has no answer cells"
    found = problems(nb)
    assert not found, (f"{notebook.stem}: answer names the question does not ask for, or without their "
                       f"form (unit, type, shape):\n" + table((notebook.stem, *r) for r in found))
