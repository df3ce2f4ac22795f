"""Grading results per lab, printed at the end of the session (the numbers the closing notes and
an instructor want: full marks for the solution, 0 untouched, one question exactly, copied
literals at most a tenth)."""
SCORES: dict[str, dict] = {}      # lab -> {"solution": "6/6", "student": "0/6", "one": "q2 1/6", "copied": ...}
SECONDS: dict[str, float] = {}    # kind -> otter run seconds summed over the labs


def pytest_terminal_summary(terminalreporter):
    if not SCORES:
        return
    terminalreporter.write_sep("-", "grading: otter run per lab (hidden tests included)")
    terminalreporter.write_line("lab | untouched student | copied literals (questions scoring) | solution | "
                                "one question answered")
    for lab, s in sorted(SCORES.items()):
        terminalreporter.write_line(f"{lab} | {s['student']} | {s.get('copied', '-')} | {s['solution']} | {s['one']}")
    if SECONDS:
        terminalreporter.write_line("otter run seconds, summed over the labs (run WORKERS at a time): "
                                    + ", ".join(f"{kind} {t:.0f}" for kind, t in SECONDS.items()))
