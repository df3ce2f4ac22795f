"""tests/setup/bare_report.py: a lab's row counts the verdicts its checks printed, names the
cells that raised and gives nbval's verdict against the solution; a lab whose phase failed or
whose notebook raised is not a pass."""
import json

import nbformat

from tests.setup import bare_report


def _notebook(path, texts, error=None):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=t) for t in texts]
    if error:
        cell.outputs.append(nbformat.v4.new_output("error", ename="AssertionError", evalue=error, traceback=[]))
    nb.cells = [cell]
    nbformat.write(nb, path)


def test_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(bare_report, "ARTIFACTS", tmp_path)
    monkeypatch.setattr(bare_report, "ROOT", tmp_path)
    folder, solutions = tmp_path / "trixie", tmp_path / "solutions"
    folder.mkdir()
    solutions.mkdir()
    verdicts = ["all 2 comparisons agree within their tolerance; 2 wrong models rejected\n",
                "all 3 comparisons agree within their tolerance; 1 readings make no claim\n"]
    _notebook(folder / "01-a.executed.ipynb", verdicts)
    _notebook(folder / "02-b.executed.ipynb", [], error="model and measurement disagree:\nrow x0.8")
    for lab in ("01-a", "02-b"):                         # the solutions' saved outputs
        _notebook(solutions / f"{lab}.ipynb", verdicts if lab == "01-a" else [])
    (folder / "times.json").write_text(json.dumps({
        "labs": "01-a 02-b 03-c", "result": "failed", "ceph": "ceph version 18.2.7", "cloned": "abc1234 msg",
        "phases": [{"phase": "lab 01", "s": 30.0, "exit": 0}, {"phase": "lab 02", "s": 9.5, "exit": 1}]}))
    text = bare_report.report("trixie")
    assert "| 01-a | 30.0 | pass | 2 checks passed: 5 rows agree, 2 controls rejected | - | " \
           "pass (1 of the solution's 1 code cells) |" in text
    assert "| 02-b | 9.5 | fail | - | AssertionError: model and measurement disagree: | " \
           "1 cells differ (0) (1 of the solution's 1 code cells) |" in text
    assert "| 03-c | - | not run |" in text and "commit abc1234" in text
