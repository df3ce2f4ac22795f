"""The class's integrity report: copied answers and learner ids that do not add up, for the instructor.

    found = integrity.review(outcomes, Path("grades"))    # writes grades/similarity.csv
    found[("bob", "06-capacity")]                         # ["answers 93 % similar to ann's ...", ...]

Run after grading (`cephlab grade ... --out DIR` does), on the notebooks that were graded, each
read again as data (cephlab.course.untrusted). Two kinds of flag, each a sentence that the lab's
gradebook and the course gradebook show in the learner's warnings (never in their feedback):
- **Similar answers** (cephlab.course.similarity): per lab, the pairs of notebooks whose answer
  code and written answers share most of their fingerprints once the released notebook and the
  class's common code are set aside. Every pair above the threshold is also a row of
  DIR/similarity.csv (lab, the two learners, the score, the shared fingerprints).
- **Ids that do not add up**: the id typed in the notebook's learner-id cell is not the one its
  saved output shows (the line was edited after the notebook ran), or either names another
  learner of the class.
A flag is a reason for a person to compare the notebooks, not a finding: study groups and short
answers coincide, and an id can be mistyped. Nothing here changes a score.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cephlab.course import grading, similarity, untrusted
from cephlab.course.notebooks import LABS

TYPED_ID = re.compile(r"""learner_id\(\s*["']([^"'\n]{0,200})["']\s*\)""")
REPORT = "similarity.csv"


def typed_id(nb: dict) -> str:
    """The id typed into the notebook's learner-id cell (`params.learner_id("...")`), "" if none."""
    for cell in nb.get("cells", [])[:6]:
        m = TYPED_ID.search(grading._source(cell)) if cell.get("cell_type") == "code" else None
        if m:
            return m.group(1).strip()
    return ""


def id_flags(learner: str, nb: dict, classmates: set[str]) -> list[str]:
    """The id sentences for one notebook graded as `learner`."""
    typed, shown = typed_id(nb), grading.used_learner(nb)
    found = []
    if typed and shown and typed != shown:
        found.append(f"its learner-id line types {typed!r} but its saved output shows {shown!r}: "
                     "the line was edited after the notebook ran")
    named = sorted({i for i in (typed, shown) if i and i != learner and i in classmates})
    if named:
        found.append(f"the notebook names another learner of the class ({', '.join(named)})")
    return found


def _graded(outcomes: Sequence[tuple[Path, Any]]) -> dict[str, dict[str, dict]]:
    """{lab: {learner: notebook}} of the graded submissions that still read as notebooks."""
    labs: dict[str, dict[str, dict]] = {}
    for notebook, outcome in outcomes:
        if isinstance(outcome, BaseException):
            continue
        try:
            nb = untrusted.load_notebook(notebook)
        except untrusted.UnsafeFile:
            continue
        mine = labs.setdefault(outcome.lab, {})
        key = outcome.learner if outcome.learner not in mine else f"{outcome.learner} ({Path(notebook).name})"
        mine[key] = nb
    return labs


def _base(lab: str) -> dict | None:
    path = LABS / lab / f"{lab}.ipynb"
    return grading.read(path) if path.exists() else None


def review(outcomes: Sequence[tuple[Path, Any]], out: Path | None = None) -> dict[tuple[str, str], list[str]]:
    """{(learner, lab): flag sentences} for the graded outcomes; out: also write out/REPORT."""
    flags: dict[tuple[str, str], list[str]] = {}
    rows = []
    for lab, notebooks in sorted(_graded(outcomes).items()):
        classmates = set(notebooks)
        for learner, nb in notebooks.items():
            flags.setdefault((learner, lab), []).extend(id_flags(learner, nb, classmates))
        found = similarity.pairs(notebooks, base=_base(lab))
        rows += [(lab, p) for p in found]
        for learner, sentences in similarity.flags(found).items():
            flags.setdefault((learner, lab), []).extend(sentences)
    if out is not None:
        similarity.write_csv(rows, Path(out) / REPORT)
    return {key: found for key, found in flags.items() if found}


def attach(outcomes: Sequence[tuple[Path, Any]], flags: dict[tuple[str, str], list[str]]) -> None:
    """Put each graded result's flags on it (GradeResult.flags), for the gradebooks."""
    for _, outcome in outcomes:
        if not isinstance(outcome, BaseException):
            outcome.flags = list(flags.get((outcome.learner, outcome.lab), []))
