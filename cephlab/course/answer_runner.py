"""Run a learner's grading copy and write its answers as plain data; the sandbox's only program.

    python -m cephlab.course.answer_runner /grading/submission/01-redundancy.ipynb /grading/out

The grading copy (cephlab.course.grading.grading_copy) is the learner's code cells up to the
last question, with an export marker where each question's check stood: a cell whose metadata
`cephlab_export` names the question and the variables its checks read. The cells run in one
IPython shell (magics and display() work as in Jupyter; a cell that raises, calls sys.exit or
raises KeyboardInterrupt is reported and the next cell runs, as otter does). At each marker the
named variables are written to OUT/answers.jsonl as one line of plain data (cephlab.course.answers),
flushed at once, so the answers given before a cell that kills the process or loops forever still
count. Nothing here decides a score: the checks run in the grader's process, on those lines.
"""
from __future__ import annotations

import builtins
import io
import json
import os
import sys
from pathlib import Path

OUTPUT_CAP = 2**20          # bytes of the notebook's printed output kept for the grading log
ANSWERS = "answers.jsonl"
LEARNER = "learner.json"
MEMORY_MARKER = "MEMORY_ERROR"          # sandbox.MEMORY_MARKER: grading reports it


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


class CappedStream(io.TextIOBase):
    """sys.stdout/sys.stderr for the learner's cells: the first OUTPUT_CAP characters reach the
    log (where an error is diagnosed), the rest is counted and dropped, so a printing loop costs
    neither disk nor time. (os.write to fd 1 bypasses it; the sandbox's file-size limit holds.)"""

    def __init__(self, stream) -> None:
        self.stream, self.left, self.dropped = stream, OUTPUT_CAP, 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        kept = text[:max(self.left, 0)]
        if kept:
            self.stream.write(kept)
        self.left -= len(kept)
        self.dropped += len(text) - len(kept)
        return len(text)

    def flush(self) -> None:
        self.stream.flush()


def run(notebook: Path, out: Path) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    from cephlab.course import answers
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    out.mkdir(parents=True, exist_ok=True)
    sys.stdout, sys.stderr = CappedStream(sys.__stdout__), CappedStream(sys.__stderr__)
    shell = InteractiveShell.instance()
    pristine = dict(vars(builtins))
    with open(out / ANSWERS, "a", encoding="utf-8") as sink:
        for cell in cells:
            marker = cell.get("metadata", {}).get("cephlab_export")
            if marker:
                line = answers.encode_answers(marker["question"], shell.user_ns, marker["names"])
                sink.write(line + "\n")
                sink.flush()
            elif cell.get("cell_type") == "code":
                result = shell.run_cell(_source(cell), store_history=False)
                _restore_builtins(pristine)
                if isinstance(result.error_in_exec, MemoryError):
                    with open(out / MEMORY_MARKER, "a", encoding="utf-8") as f:
                        f.write(repr(_source(cell)[:200]) + "\n")
    _write_learner(out)


def _restore_builtins(pristine: dict) -> None:
    """Undo what a cell did to Python's builtins (`builtins.isinstance = ...`): this process
    needs them to write the answers. (What crosses is checked again by the grader anyway.)"""
    current = vars(builtins)
    for name in [n for n in current if n not in pristine]:
        del current[name]
    current.update(pristine)


def _write_learner(out: Path) -> None:
    """The learner id the notebook typed (params.learner_id("...")), for the gradebook's warning
    when it differs from the id grading used. Untrusted, like everything from this process."""
    from cephlab.course import params
    typed = params._recorded if isinstance(params._recorded, str) else ""
    (out / LEARNER).write_text(json.dumps({"typed": typed[:200]}), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    notebook, out = (argv if argv is not None else sys.argv[1:])[:2]
    os.environ.setdefault("MPLBACKEND", "Agg")
    run(Path(notebook), Path(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
