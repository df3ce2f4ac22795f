"""Run a student notebook top to bottom as Jupyter would (nbclient, the python3 kernel of the
interpreter running this), the way tests/notebooks/test_labs.py does: every cell runs even after
an error, so the lab's cleanup cell still undoes what it changed. Exit 1 if any cell raised,
printing each error with its cell. Used by tests/setup/bare_inside.sh inside the bare root.

    python run_notebook.py labs/NN-topic/NN-topic.ipynb executed.ipynb
"""
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def main(path, executed):
    nb = nbformat.read(path, as_version=4)
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(Path(path).parent)}}).execute()
    finally:
        nbformat.write(nb, executed)
    code = [c for c in nb.cells if c.cell_type == "code"]
    errors = [(i, c, o) for i, c in enumerate(nb.cells) if c.cell_type == "code"
              for o in c.outputs if o.output_type == "error"]
    # as tests/notebooks/test_labs.py: a self-check that prints nothing tells the learner nothing
    silent = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
              and "grader.check(" in c.source and not c.outputs]
    print(f"{path}: {sum(1 for c in code if c.execution_count)} of {len(code)} code cells run, "
          f"{len(errors)} raised, {len(silent)} self-checks printed nothing")
    for i, cell, out in errors:
        print(f"--- cell {i}: {out.ename}: {out.evalue}\n{cell.source[:400]}\n"
              + ANSI.sub("", "\n".join(out.traceback))[-3000:])
    for i in silent:
        print(f"--- cell {i}: a self-check printed nothing:\n{nb.cells[i].source[:400]}")
    return 1 if errors or silent else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
