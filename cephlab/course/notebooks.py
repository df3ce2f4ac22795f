"""Student notebooks from solutions, and executing solutions against a lab cluster.

    python -m cephlab.course.notebooks student [SOLUTION.ipynb ...]   # regenerate labs/ (make student)
    python -m cephlab.course.notebooks execute [SOLUTION.ipynb ...]   # re-run solutions in place (make solutions)

Solutions are otter-grader master notebooks (raw cells `# BEGIN QUESTION`, `# BEGIN SOLUTION`,
`# BEGIN TESTS`, ...). `otter assign` makes the student version: answers become `...`, each
question gets a `grader.check("qN")` self-check cell, and public tests go to tests/. Each lab gets
its own folder, labs/NN-topic/, so question names can repeat across labs.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from cephlab.core import run
from cephlab.core.project import ROOT

SOLUTIONS = ROOT / "solutions"
LABS = ROOT / "labs"
AUTOGRADER = ROOT / "build" / "autograder"


def solution_notebooks():
    return sorted(SOLUTIONS.glob("[0-9][0-9]-*.ipynb"))


def otter_assign(solution, out):
    """`otter assign` of one solution into out/ (student/ and autograder/ folders): the one
    place otter is asked to split a solution (`make student` and `cephlab grade` both call it)."""
    cmd = [sys.executable, "-m", "otter", "assign", "--no-run-tests", "--no-pdfs", str(solution), str(out)]
    result = run.run(cmd, what=f"otter assign of {Path(solution).name}", timeout=600, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"otter assign failed for {Path(solution).name}:\n{result.stdout}\n{result.stderr}")
    return Path(out)


# otter assign replaces `# SOLUTION` lines only inside questions; the learner's own-experiment
# cells after a measurement are not questions, so the same rule is applied to them here.
SOLUTION_LINE = re.compile(r"^(?P<indent>\s*)(?P<target>[A-Za-z_][\w.]*)\s*=(?!=).*#\s*SOLUTION\s*$")


def strip_solution_lines(source):
    """`name = answer  # SOLUTION` -> `name = ...`; any other `# SOLUTION` line is dropped."""
    out = []
    for line in source.split("\n"):
        if not re.search(r"#\s*SOLUTION\s*$", line):
            out.append(line)
        elif m := SOLUTION_LINE.match(line):
            out.append(f"{m['indent']}{m['target']} = ...")
    return "\n".join(out)


def _normalise(nb_path):
    """Make the student notebook byte-stable: no outputs, counts, random cell ids or timings;
    no `# SOLUTION` line left anywhere."""
    nb = json.loads(nb_path.read_text())
    for i, cell in enumerate(nb["cells"]):
        cell["id"] = f"cell-{i:03d}"
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and "SOLUTION" in source:
            cell["source"] = strip_solution_lines(source).splitlines(keepends=True)
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)
    nb["metadata"].pop("widgets", None)
    nb_path.write_text(json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n")


def generate_student(solution, labs_dir=LABS, autograder_dir=AUTOGRADER, assigned=None):
    """Write labs_dir/<stem>/<stem>.ipynb (+ tests/) from one solution; returns the folder.
    assigned: the folder of an `otter assign` of this solution already made (the tests make one
    per lab and share it), read and left as it is; None runs otter assign here."""
    solution = Path(solution).resolve()
    stem = solution.stem
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(assigned) if assigned else otter_assign(solution, Path(tmp) / "dist")
        target = Path(labs_dir) / stem
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(out / "student", target)
        _normalise(target / f"{stem}.ipynb")
        zips = sorted((out / "autograder").glob("*.zip"))
        if zips and autograder_dir:
            Path(autograder_dir).mkdir(parents=True, exist_ok=True)
            shutil.copy(zips[-1], Path(autograder_dir) / f"{stem}.zip")
    return target


def execute(solution, timeout=900):
    """Run a solution top to bottom in place (outputs saved), as nbval will compare them."""
    import nbformat
    from nbclient import NotebookClient
    nb = nbformat.read(solution, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(Path(solution).parent)}}).execute()
    nbformat.write(nb, solution)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m cephlab.course.notebooks", description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=["student", "execute"])
    ap.add_argument("notebooks", nargs="*", type=Path)
    args = ap.parse_args(argv)
    notebooks = args.notebooks or solution_notebooks()
    for nb in notebooks:
        if args.action == "student":
            print(f"student version of {nb.name} -> {generate_student(nb).relative_to(ROOT)}")
        else:
            print(f"executing {nb.name} ...", flush=True)
            execute(nb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
