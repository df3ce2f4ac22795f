"""nbval's verdict on a notebook that was already executed: its outputs against the saved ones.

A bare root runs each lab once, with nbclient (tests/setup/run_notebook.py), so that the executed
notebook is kept for the agreement checks' report. Running nbval there too would run every lab
twice. Instead, the executed notebook's code cells are compared here with the solution's saved
outputs by nbval's own comparison (IPyNbCell.compare_outputs, its skip list, coalesce_streams),
with the markers nbval honours (nbval-ignore-output, nbval-skip, raises-exception tags and their
comment forms) and the sanitize file pyproject's addopts give it (tests/nbval_sanitize.cfg).
Cells are matched by their id. A cell that raised fails as under nbval, unless it is marked to.

A student version (labs/NN/NN.ipynb, cells renumbered by `make student`) is judged on the code
cells it shares with the solution, matched by their source: the answers and hidden tests are the
grader's. Where a measurement runs with a default because the learner's choice is still `...`, the
note saying so (cephlab.helpers.experiment.NOT_SET) is the one output the solution cannot have.

    .venv/bin/python -m tests.setup.nbval_outputs EXECUTED.ipynb solutions/NN-lab.ipynb [--student]
"""
from __future__ import annotations

import copy
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
from nbval import plugin

from cephlab.core import releases
from cephlab.helpers import experiment

ROOT = Path(__file__).resolve().parents[2]
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
# IPyNbFile's skip list under --nbval without --nbdime (nbval/plugin.py, IPyNbFile.__init__)
SKIP_COMPARE = ('metadata', 'traceback', 'prompt_number', 'output_type', 'name', 'execution_count',
                'application/vnd.jupyter.widget-view+json', 'image/png', 'image/jpeg')
NO_COLOURS = SimpleNamespace(OKBLUE="", FAIL="", ENDC="", OKGREEN="")
NOT_SET_LINE = re.compile("^" + re.escape(experiment.NOT_SET).replace(re.escape("{what}"), ".+")
                          .replace(re.escape("{default!r}"), ".+") + "(?:\n|\\Z)", re.M)


# What a release prints instead of the saved (Pacific's) output, by lab and cell id, where the
# release table says the lab measures something else there. Without FileStore (Reef, Tentacle)
# labs 04 and 07 skip their FileStore rows, so their agreement verdict counts fewer rows: these are
# the verdicts the trixie root printed (Ceph 18.2.7, CI of ac390af, 2026-11-29), every other
# checked output of the twelve solutions was the saved one. Lab 04's BlueStore rows grew from 4 to
# 6 with the two large-write rows (2026-12-02): 10 on Pacific, less its 4 FileStore rows.
NO_FILESTORE = {
    "04-throttles": {"065e8d7d": "all 6 comparisons agree within their tolerance; 6 wrong models rejected\n"},
    "07-write-amplification": {
        "1ce798e8": "all 8 comparisons agree within their tolerance; 8 wrong models rejected\n"},
}


def release_outputs(release: releases.Release, lab: str) -> dict[str, str]:
    """{cell id: the stdout `release` prints there instead of the saved one} for `lab`."""
    return {} if release.filestore else NO_FILESTORE.get(lab, {})


class _Cell:
    """What IPyNbCell.compare_outputs reads of its cell; a mismatch is kept as plain text."""
    compare_outputs = plugin.IPyNbCell.compare_outputs
    sanitize = plugin.IPyNbCell.sanitize

    def __init__(self, patterns):
        self.parent = SimpleNamespace(skip_compare=SKIP_COMPARE, sanitize_patterns=patterns)
        self.colors = NO_COLOURS
        self.comparison_traceback: list[str] = []

    def format_output_compare(self, key, left, right):
        self.comparison_traceback.append(f"mismatch {key!r}:\n  saved:    {left!r}\n  executed: {right!r}")


def options(cell) -> dict:
    """nbval's options of a cell under --nbval: check, check_exception, skip."""
    found = {"check": True, "check_exception": False, "skip": False}
    found.update(plugin.find_comment_markers(cell.source))
    found.update(plugin.find_metadata_tags(cell.metadata))
    return found


def _without_not_set(outputs):
    """The outputs less experiment.choice's notes (a stream left empty goes too)."""
    kept = []
    for o in copy.deepcopy(outputs):
        if o.output_type == "stream":
            o.text = NOT_SET_LINE.sub("", o.text)
            if not o.text:
                continue
        kept.append(o)
    return kept


def _pairs(executed: Path, saved_cells, student: bool):
    """The executed cell for each saved code cell: by id; for a student version by source (the
    k-th saved cell with a source gets the k-th executed one), None where it has no such cell."""
    ran = [c for c in nbformat.read(executed, as_version=4).cells if c.cell_type == "code"]
    if not student:
        by_id = {c.get("id"): c for c in ran}
        return [by_id.get(ref.get("id")) for ref in saved_cells]
    by_source: dict[str, list] = {}
    for c in ran:
        by_source.setdefault(c.source, []).append(c)
    return [(by_source.get(ref.source) or [None]).pop(0) for ref in saved_cells]


def shared_cells(executed: Path, saved: Path) -> tuple[int, int]:
    """(how many of the solution's code cells a student version has, which its verdict covers;
    how many code cells the solution has)."""
    code = [c for c in nbformat.read(saved, as_version=4).cells if c.cell_type == "code"]
    return sum(test is not None for test in _pairs(executed, code, student=True)), len(code)


def mismatches(executed: Path, saved: Path, instead: dict[str, str] | None = None,
               sanitize: Path = SANITIZE, student: bool = False) -> list[tuple[int, str]]:
    """[(index of the saved notebook's code cell, what nbval would report)], [] when nbval passes.
    instead: {cell id: stdout} compared in place of that cell's saved outputs (release_outputs).
    student: `executed` is a student version, judged on the cells it shares with the solution."""
    patterns = dict(plugin.get_sanitize_patterns(sanitize.read_text()))   # nbval: an OrderedDict
    code = [(i, ref) for i, ref in enumerate(nbformat.read(saved, as_version=4).cells) if ref.cell_type == "code"]
    out = []
    for (i, ref), test in zip(code, _pairs(executed, [ref for _, ref in code], student)):
        opts = options(ref)
        if student:
            if test is None:            # an answer, or a test the student version does not have
                continue
            test = nbformat.from_dict({**test, "outputs": _without_not_set(test.outputs)})
        if ref.get("id") in (instead or {}):
            ref = nbformat.v4.new_code_cell(ref.source, execution_count=ref.execution_count, outputs=[
                nbformat.v4.new_output("stream", name="stdout", text=instead[ref.get("id")])])
        if opts["skip"]:
            continue
        if test is None:
            out.append((i, "not in the executed notebook (no cell with this id)"))
            continue
        raised = [o for o in test.outputs if o.output_type == "error"]
        if raised and not opts["check_exception"]:
            out.append((i, f"raised {raised[0].ename}: {raised[0].evalue}"[:300]))
        elif opts["check"] and ref.get("execution_count") is not None:   # nbval: an unrun cell is not compared
            cell = _Cell(patterns)
            if not cell.compare_outputs(plugin.coalesce_streams(test.outputs),
                                        plugin.coalesce_streams(ref.outputs)):
                out.append((i, "\n".join(cell.comparison_traceback)[:1500]))
    return out


if __name__ == "__main__":
    found = mismatches(Path(sys.argv[1]), Path(sys.argv[2]), student="--student" in sys.argv[3:])
    for index, why in found:
        print(f"cell {index}: {why}")
    print(f"{len(found)} cells nbval would fail")
    sys.exit(1 if found else 0)
