"""Which labs the browser tests open, and the part of each they run.

A lab's widget cells (LivePlot) come before its measurement cells (solutions/README.md, order of a
lab). The browser tests run only the cells up to and including the last widget cell: that is all
a slider needs, and it keeps the cluster measurements (about a minute per lab, run by nbval
elsewhere in the suite) out of the browser's time budget. They do so on a copy of the lab folder
whose notebook is cut after that cell, so "Run All Cells" in JupyterLab and Voila's full run both
execute exactly that part, through the same UI a learner uses.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LABS = ROOT / "labs"
WIDGET_MARK = "LivePlot("


def lab_notebooks(labs_dir: Path = LABS) -> list[Path]:
    """The student notebooks labs/NN-topic/NN-topic.ipynb that exist right now, in lab order."""
    return sorted(p / f"{p.name}.ipynb" for p in labs_dir.glob("[0-9][0-9]-*")
                  if (p / f"{p.name}.ipynb").is_file())


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def widget_cells(nb: dict) -> list[int]:
    """Indexes of the code cells that build a LivePlot."""
    return [i for i, c in enumerate(nb["cells"])
            if c["cell_type"] == "code" and WIDGET_MARK in _source(c)]


def trimmed(nb: dict) -> dict:
    """The notebook cut after its last widget cell, outputs cleared (a fresh run, as a learner's).

    Raises ValueError when the notebook has no LivePlot cell: every lab has one (solutions/README.md).
    """
    cells = widget_cells(nb)
    if not cells:
        raise ValueError("the notebook has no LivePlot cell; every lab shows its model with at least "
                         "one LivePlot (solutions/README.md, 'What every lab has', step 4)")
    out = json.loads(json.dumps(nb))
    out["cells"] = out["cells"][:cells[-1] + 1]
    for c in out["cells"]:
        if c["cell_type"] == "code":
            c["outputs"], c["execution_count"] = [], None
    out.get("metadata", {}).pop("widgets", None)   # saved widget state would show stale widgets
    return out


def copy_trimmed_lab(notebook: Path, dest_root: Path) -> Path:
    """Copy the lab's folder (otter's tests/ included) under dest_root with the notebook trimmed;
    returns the copied notebook's path relative to dest_root."""
    folder = dest_root / notebook.parent.name
    shutil.copytree(notebook.parent, folder, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", ".OTTER_LOG"))
    nb = json.loads(notebook.read_text())
    (folder / notebook.name).write_text(json.dumps(trimmed(nb), indent=1))
    return (folder / notebook.name).relative_to(dest_root)
