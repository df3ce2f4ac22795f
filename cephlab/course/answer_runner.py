"""Run a learner's grading copy and write its answers as plain data; the sandbox's only program.

    python -m cephlab.course.answer_runner /grading/submission/01-redundancy.ipynb 3

The grading copy (cephlab.course.grading.grading_copy) is the learner's code cells up to the
last question, with an export marker where each question's check stood: a cell whose metadata
`cephlab_export` names the question and the variables its checks read. The cells run in one
IPython shell (magics work as in Jupyter, display() too, as text; a cell that raises, calls
sys.exit or raises KeyboardInterrupt is reported and the next cell runs, as otter does). At each marker the
named variables are written as one line of plain data (cephlab.course.answers) to the file
descriptor given (3: a file the grader opened outside the sandbox and holds itself, so no path a
cell can replace, link or turn into a FIFO is ever read back), flushed at once, so the answers
given before a cell that kills the process or loops forever still count. The id the notebook
typed and the cells that ran out of memory go the same way. Nothing here decides a score: the
checks run in the grader's limited child, on those lines.

What grading does not use is not paid for (each costs every graded notebook a fresh process's
time): `import otter` in the init cell gets a stand-in whose Notebook does nothing (no check cell
is left to call it, and no test is in the sandbox); any other attribute of otter loads the real
package. Results are displayed as text only (the log is the only place they go), so a plot's
PNG snapshot is not rendered. When the last cell has run the process ends at once (os._exit),
without the interpreter's teardown of the notebook's modules.
"""
from __future__ import annotations

import builtins
import importlib.util
import io
import json
import os
import sys
from pathlib import Path

OUTPUT_CAP = 2**20          # bytes of the notebook's printed output kept for the grading log
CHANNEL_FD = 3              # where the sandboxed runner finds the grader's answers file


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


def run(notebook: Path, fd: int) -> None:
    """Run the grading copy's cells, writing the answer lines to the open file descriptor fd."""
    from IPython.core.interactiveshell import InteractiveShell

    from cephlab.course import answers
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    sys.stdout, sys.stderr = CappedStream(sys.__stdout__), CappedStream(sys.__stderr__)
    stand_in_otter()
    shell = InteractiveShell.instance()
    text_only_display(shell)
    pristine = dict(vars(builtins))
    with os.fdopen(os.dup(fd), "a", encoding="utf-8") as sink:
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
                    sink.write(answers.memory_line(repr(_source(cell)[:200])) + "\n")
                    sink.flush()
        sink.write(answers.learner_line(_typed_learner()) + "\n")


class NoChecks:
    """otter.Notebook while grading: every method does nothing and returns None. The grading
    copy has no check cell left (each became an export marker) and the sandbox holds no test."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


def stand_in_otter() -> None:
    """Make `import otter` cheap: sys.modules gets a module for the installed otter package whose
    Notebook is NoChecks; the first other attribute asked for runs the real otter/__init__.py
    into it (submodules import as usual). Importing otter costs ~1 s (nbconvert and the rest),
    and its Notebook could not start in the sandbox anyway (no notebook file in the working
    folder). Nothing if otter is already loaded (free then) or not installed (then `import
    otter` fails as it would have)."""
    if "otter" in sys.modules:
        return
    spec = importlib.util.find_spec("otter")
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader
    loaded: list[bool] = []         # [True] once the real package ran

    def load_real(name: str):
        if not loaded:
            loaded.append(True)
            loader.exec_module(module)      # the package's own __init__, once
        try:
            return module.__dict__[name]
        except KeyError:
            raise AttributeError(f"module 'otter' has no attribute {name!r}") from None

    vars(module).update(__getattr__=load_real, Notebook=NoChecks)
    sys.modules["otter"] = module


def text_only_display(shell) -> None:
    """Results and display() calls as text/plain only: nobody sees the rich formats here, and a
    LivePlot's PNG snapshot (its _ipython_display_) costs ~0.3 s a plot."""
    formatter = shell.display_formatter
    formatter.active_types = ["text/plain"]
    formatter.ipython_display_formatter.enabled = False
    formatter.mimebundle_formatter.enabled = False


def _restore_builtins(pristine: dict) -> None:
    """Undo what a cell did to Python's builtins (`builtins.isinstance = ...`): this process
    needs them to write the answers. (What crosses is checked again by the grader anyway.)"""
    current = vars(builtins)
    for name in [n for n in current if n not in pristine]:
        del current[name]
    current.update(pristine)


def _typed_learner() -> str:
    """The learner id the notebook typed (params.learner_id("...")), for the gradebook's warning
    when it differs from the id grading used. Untrusted, like everything from this process."""
    from cephlab.course import params
    return params._recorded if type(params._recorded) is str else ""


def main(argv: list[str] | None = None) -> int:
    notebook, fd = (argv if argv is not None else sys.argv[1:])[:2]
    os.environ.setdefault("MPLBACKEND", "Agg")
    run(Path(notebook), int(fd))
    return 0


def _exit_now(code: int) -> None:
    """End the process without the interpreter's teardown (~0.6 s for a notebook's ~2,000
    modules): the answer lines are written and closed, the output is flushed."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except Exception:       # noqa: BLE001, S110 - a cell may have replaced or closed it
            pass
    os._exit(code)


if __name__ == "__main__":
    _exit_now(main())
