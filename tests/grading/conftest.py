"""Grading results per lab, printed at the end of the session (the numbers the closing notes and
an instructor want: full marks for the solution, 0 untouched, one question exactly)."""
SCORES: dict[str, dict] = {}      # lab -> {"solution": "6/6", "student": "0/6", "one": "q2 1/6"}


def pytest_terminal_summary(terminalreporter):
    if not SCORES:
        return
    terminalreporter.write_sep("-", "grading: otter run per lab (hidden tests included)")
    terminalreporter.write_line("lab | solution | untouched student | one question answered")
    for lab, s in sorted(SCORES.items()):
        terminalreporter.write_line(f"{lab} | {s['solution']} | {s['student']} | {s['one']}")
