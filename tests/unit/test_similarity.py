"""cephlab.course.similarity on lab 06's real notebooks: a disguised copy is flagged, the released
notebook's own code is not, a different approach is not, a class's common code is not, free text
copies are, malformed notebooks do not raise, and the CSV is safe to open in a spreadsheet.

The filled notebooks are the student notebook answered with the solution's code (grading.fill_answers)."""
from __future__ import annotations

import copy
import csv
import io
import keyword
import re
import tokenize

import pytest

from cephlab.course import grading, similarity
from cephlab.course.notebooks import LABS
from cephlab.course.similarity import Pair

LAB = "06-capacity"

# A second way to answer Q1, Q3 and Q5: from first principles instead of the model's functions.
OWN_WAY = {
    "q1": '''vms, gib_each, thin = P["q1_vms"], P["q1_disk_gib"], P["q1_thin"]
written_gib = vms * gib_each / thin
q1_usable_gib = written_gib / 0.7
q1_raw_gib = P["q1_size"] * q1_usable_gib''',
    "q3": '''sizes = np.full(4, P["q3_osd_gib"], dtype=float)
shares = np.array(P["q3_pgs"], dtype=float) / sum(P["q3_pgs"])
raw_at_full = min(0.95 * sizes / shares)        # raw data stored when the fullest OSD is full
q3_usable_gib = raw_at_full / 3
q3_stranded = 1 - raw_at_full / (0.95 * sizes.sum())''',
    "q5": '''my_objects = 64
written_mib = my_objects * 4 * 3
before = 4 * (8 * 1024 * 0.95 - 300) / 3
after = 4 * (8 * 1024 * 0.95 - 300 - written_mib / 4) / 3
q5_avail_before, q5_avail_after = before, after
q5_avail_drop_mib = before - after''',
}

W1_ANSWER = """The cluster stops accepting writes as soon as any single OSD passes the full ratio, so the
OSD holding the most placement groups reaches 95 % first while the others still have free space.
With my uneven spread the fullest OSD holds far more than the average, and the stranded fraction I
found in Q3 was 0.12, which means that share of the fillable raw space can never be used until the
data is rebalanced across the OSDs."""

W1_OTHER = """Capacity is decided by the fullest OSD because Ceph checks the fill level of each OSD on
its own and blocks client writes once one of them is full. The average hides the imbalance: CRUSH
places PGs pseudo-randomly, so some disks get more of them than others. In my run about 9 % of the
space was stranded, and more PGs or the balancer module would reduce that waste."""


@pytest.fixture(scope="module")
def student():
    return grading.read(LABS / LAB / f"{LAB}.ipynb")


@pytest.fixture(scope="module")
def master():
    return grading.read(grading.solution_path(LAB))


@pytest.fixture(scope="module")
def filled(student, master):
    return grading.fill_answers(student, master, list(grading.question_points(master)))


def answer_sources(nb):
    return {q: [nb["cells"][i]["source"] for i in cells] for q, cells in grading.answer_cells(nb).items()}


def with_answers(nb, answers):
    """A copy of nb whose answer cells of the questions in answers ({q: [code, ...]}) hold that code."""
    nb = copy.deepcopy(nb)
    for q, cells in grading.answer_cells(nb).items():
        for i, code in zip(cells, answers.get(q, [])):
            nb["cells"][i]["source"] = code
    return nb


def disguise(code):
    """What a copier does: every name renamed, numbers changed, comments and blank lines added."""
    rename = lambda m: m.group() if keyword.iskeyword(m.group()) else f"my{m.group()}2"
    renamed = re.sub(r"[A-Za-z_]\w*(?![\w'\"])", rename, code)        # not a string's prefix (f"...")
    changed = re.sub(r"\b\d+(?:\.\d+)?\b", lambda m: repr(float(m.group()) * 3 + 1), renamed)
    lines = [f"{line}    # step {n}\n" for n, line in enumerate(changed.splitlines())]
    return "# I worked this out myself\n\n" + "\n".join(lines)


def test_a_disguised_copy_is_flagged(student, filled):
    original = answer_sources(filled)
    copied = with_answers(filled, {q: [disguise(code) for code in codes] for q, codes in original.items()})
    for q, codes in answer_sources(copied).items():          # no line of the original is left as it was
        assert not {line for code in codes for line in code.splitlines()} & {
            line for code in original[q] for line in code.splitlines()}, q
    found = similarity.pairs({"alice": filled, "bob": copied}, base=student)
    assert [(p.a, p.b) for p in found] == [("alice", "bob")]
    assert found[0].score >= 0.8 and found[0].shared >= 12, found
    told = similarity.flags(found)
    assert told["alice"][0].startswith(f"answers {int(found[0].score * 100)} % similar to bob's "
                                       f"({found[0].shared} shared fingerprints)")
    assert "alice's" in told["bob"][0] and "not proof of copying" in told["bob"][0]
    # Negative control: with these answers released as the base, nothing of them counts.
    assert similarity.pairs({"alice": filled, "bob": copied}, base=filled) == []


def test_the_released_notebook_against_itself_is_not_a_pair(student):
    assert similarity.pairs({"alice": student, "bob": student}, base=student) == []
    # Negative control: without the base rule its given code and question text match everywhere.
    (found,) = similarity.pairs({"alice": student, "bob": student}, base=None)
    assert found.score == 1.0 and found.shared > 100


def test_answers_written_another_way_are_not_flagged(student, filled):
    own = with_answers(filled, {q: [code] for q, code in OWN_WAY.items()})
    assert answer_sources(own)["q1"] == [OWN_WAY["q1"]] and answer_sources(own)["q2"] == answer_sources(filled)["q2"]
    assert similarity.pairs({"alice": filled, "bob": own}, base=student) == []
    (low,) = similarity.pairs({"alice": filled, "bob": own}, base=student, threshold=0.0, min_shared=0)
    assert 0.05 < low.score < 0.5, low          # Q2 and Q4 are the same code, the rest is not


def own_code(lab):
    """A learner's own, different code: another lab's solution answers, all in one cell."""
    master = grading.read(grading.solution_path(lab))
    return "\n".join(code for codes in grading.solution_answers(master).values() for code in codes)


def test_in_a_class_only_the_copied_pair_is_flagged(student, filled):
    """Six learners share Q1-Q4 (the solution's) and a pasted module in Q5; each adds code of
    their own to Q5, except frank, who hands in erin's notebook disguised."""
    common = (LABS.parent / "models" / "capacity.py").read_text()   # what every learner pasted into Q5
    q5 = len(grading.answer_cells(filled)["q5"])
    own = {"alice": "01-redundancy", "bob": "03-disk-iops", "carol": "04-throttles", "dave": "08-failure-and-recovery",
           "erin": "10-database-on-ceph"}
    cls = {who: with_answers(filled, {"q5": [own_code(lab) + "\n" + common] * q5}) for who, lab in own.items()}
    erin = answer_sources(cls["erin"])
    cls["frank"] = with_answers(cls["erin"], {q: [disguise(c) for c in codes] for q, codes in erin.items()})
    found = similarity.pairs(cls, base=student)
    assert [(p.a, p.b) for p in found] == [("erin", "frank")] and found[0].score >= 0.8
    assert set(similarity.flags(found)) == {"erin", "frank"}
    # The common block is no small part: two honest learners compared on their own share most of it,
    # and only dropping what most of the class shares (MOSS's -m) takes it out of their score.
    (alone,) = similarity.pairs({"alice": cls["alice"], "bob": cls["bob"]}, base=student, threshold=0.0)
    assert alone.score > 0.5, alone
    loose = similarity.pairs(cls, base=student, threshold=0.3, min_shared=1)
    assert [(p.a, p.b) for p in loose] == [("erin", "frank")], loose


TEN_MB = "x = 1\n" * (10_000_000 // 6)


def answer_cell(source):
    return {"cell_type": "code", "source": source, "metadata": {"tags": ["otter_answer_cell"]}}


MALFORMED = [
    {},
    [],
    None,
    {"cells": "not a list"},
    {"cells": [None, 5, "cell", []]},
    {"cells": [answer_cell(5)]},
    {"cells": [{"cell_type": "code", "source": "x = 1", "metadata": {"tags": "otter_answer_cell"}}]},
    {"cells": [{"cell_type": "code", "source": "x = 1", "metadata": "tags"}]},
    {"cells": [{"cell_type": 7, "source": "x = 1"}, {"source": "x = 1"}]},
    {"cells": [answer_cell(["x = 1", 5, None])]},
    {"cells": [answer_cell('x = """never closed\n  def (')]},
    {"cells": [answer_cell("\tif x:\n  y\n z")]},
    {"cells": [answer_cell("%timeit f(x)\n!ls ?")]},
    {"cells": [answer_cell("a\0b")]},
    {"cells": [{"cell_type": "markdown", "source": "word " * 2_000_000}]},
    {"cells": [answer_cell(TEN_MB)]},
    {"cells": [answer_cell([TEN_MB] * 3)] * 50},
]


def test_malformed_notebooks_do_not_raise(student, monkeypatch):
    (unit,) = similarity.answer_units(MALFORMED[-2])    # a 10 MB cell is read up to the cap
    assert 0 < len(unit[1]) <= similarity.MAX_CELL_CHARS
    # Smaller caps (the same code) keep the rest fast: each notebook stays within its token budget.
    monkeypatch.setattr(similarity, "MAX_CELL_CHARS", 20_000)
    monkeypatch.setattr(similarity, "MAX_TOKENS", 20_000)
    class_of = {f"n{i}": nb for i, nb in enumerate(MALFORMED)}
    assert isinstance(similarity.pairs(class_of, base=student), list)
    assert isinstance(similarity.pairs(class_of, base={"cells": 5}), list)
    assert [len(similarity.answer_units(nb)) for nb in MALFORMED[:9]] == [0] * 9
    many = similarity.answer_units(MALFORMED[-1])
    assert 0 < sum(len(tokens) for _, tokens in many) <= 20_000
    # ... and what is read still counts: two copies of a huge cell are a pair.
    (pair,) = similarity.pairs({"a": MALFORMED[-2], "b": copy.deepcopy(MALFORMED[-2])}, base=None, min_shared=1)
    assert pair.score == 1.0


def test_code_the_tokenizer_rejects_is_still_compared():
    broken = "if total > 0:\n    q3_usable_gib = total / 3  # GiB\n  q3_stranded = 0.1\n"
    fixed = broken.replace("\n  q3", "\n    q3")
    with pytest.raises(IndentationError):
        list(tokenize.generate_tokens(io.StringIO(broken).readline))
    assert similarity.code_tokens(broken) == similarity.code_tokens(fixed) == [
        "if", "ID", ">", "NUM", ":", "ID", "=", "ID", "/", "NUM", "ID", "=", "NUM"]


def with_text(nb, marker_answer="", new_cell=""):
    """nb with W1 answered after its "*Your answer:*" marker, or in a new markdown cell below it."""
    nb = copy.deepcopy(nb)
    at = next(i for i, c in enumerate(nb["cells"]) if "**W1." in "".join(c["source"]))
    nb["cells"][at]["source"] = "".join(nb["cells"][at]["source"]) + " " + marker_answer
    if new_cell:
        nb["cells"].insert(at + 1, {"cell_type": "markdown", "metadata": {}, "source": new_cell.splitlines(True)})
    return nb


def test_a_copied_paragraph_is_flagged_and_a_different_one_is_not(student):
    reflowed = "  ".join(W1_ANSWER.upper().split())          # one line, double spaces, upper case
    cls = {"alice": with_text(student, marker_answer=W1_ANSWER), "bob": with_text(student, new_cell=reflowed),
           "carol": with_text(student, marker_answer=W1_OTHER)}
    found = similarity.pairs(cls, base=student)
    assert [(p.a, p.b, p.score) for p in found] == [("alice", "bob", 1.0)]
    assert found[0].shared >= 12
    (other,) = similarity.pairs({"alice": cls["alice"], "carol": cls["carol"]}, base=student, threshold=0.0,
                                min_shared=0)
    assert other.score < 0.1, other


def test_code_and_text_fingerprints_never_collide():
    words = ["id", "num", "str", "x", "y", "z"]
    assert not similarity.fingerprints([("code", words)]) & similarity.fingerprints([("text", words)])


def test_write_csv_defuses_formulas_and_always_has_a_header(tmp_path):
    rows = [("=cmd", Pair("+alice", "@bob", 0.93456, 41)), ("06-capacity", Pair("a", "b", 1.0, 12))]
    path = similarity.write_csv(rows, tmp_path / "out" / "similarity.csv")
    rows = list(csv.reader(path.open(newline="", encoding="utf-8")))
    assert rows == [list(similarity.COLUMNS), ["'=cmd", "'+alice", "'@bob", "0.93", "41"],
                    ["06-capacity", "a", "b", "1.00", "12"]]
    empty = similarity.write_csv([], tmp_path / "empty.csv")
    assert empty.read_text(encoding="utf-8").splitlines() == ["lab,learner_a,learner_b,similarity,shared_fingerprints"]
