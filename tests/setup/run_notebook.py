"""Run a student notebook top to bottom as Jupyter would (nbclient, the python3 kernel of the
interpreter running this), the way tests/notebooks/test_labs.py does: every cell runs even after
an error, so the lab's cleanup cell still undoes what it changed. Exit 1 if any cell raised or
a self-check printed nothing, printing each with its cell. Used by tests/setup/bare_inside.sh inside the bare root.

    python run_notebook.py labs/NN-topic/NN-topic.ipynb executed.ipynb [CELL_TIMEOUT_S]

CELL_TIMEOUT_S (default 600, set for native speed) bounds each cell: an emulated system
(container/arm64-system/proof.sh) gives 3600.
"""
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def execute(path, executed=None, timeout=600):
    """The notebook at path, run top to bottom; every cell runs even after an error (saved to
    executed, when given, also if the run itself fails)."""
    nb = nbformat.read(path, as_version=4)
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(Path(path).parent)}}).execute()
    finally:
        if executed:
            nbformat.write(nb, executed)
    return nb


def error_outputs(nb):
    """[(cell index, cell, error output)] of an executed notebook."""
    return [(i, c, o) for i, c in enumerate(nb.cells) if c.cell_type == "code"
            for o in c.outputs if o.output_type == "error"]


def silent_checks(nb):
    """Indexes of the self-check cells that printed nothing: such a check tells the learner nothing."""
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
            and "grader.check(" in c.source and not c.outputs]


def main(path, executed, timeout=600):
    nb = execute(path, executed, float(timeout))
    code = [c for c in nb.cells if c.cell_type == "code"]
    errors, silent = error_outputs(nb), silent_checks(nb)
    print(f"{path}: {sum(1 for c in code if c.execution_count)} of {len(code)} code cells run, "
          f"{len(errors)} raised, {len(silent)} self-checks printed nothing")
    for i, cell, out in errors:
        print(f"--- cell {i}: {out.ename}: {out.evalue}\n{cell.source[:400]}\n"
              + ANSI.sub("", "\n".join(out.traceback))[-3000:])
    for i in silent:
        print(f"--- cell {i}: a self-check printed nothing:\n{nb.cells[i].source[:400]}")
    return 1 if errors or silent else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
