"""Step timings of tests/unprivileged, printed at the end of the session and kept in
test-artifacts/unprivileged/steps.json."""
import json
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "unprivileged"
STEPS: list[dict] = []


def pytest_terminal_summary(terminalreporter):
    if not STEPS:
        return
    terminalreporter.write_sep("-", "unprivileged user: steps (seconds)")
    for s in STEPS:
        terminalreporter.write_line(f"{s['s']:7.1f}  {s['step']}  (exit {s['rc']})")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "steps.json").write_text(json.dumps(STEPS, indent=1))
