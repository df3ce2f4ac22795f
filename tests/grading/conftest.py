"""Grading results per lab, printed at the end of the session (the numbers the closing notes and
an instructor want: full marks for the solution, 0 untouched, one question exactly, copied
literals at most a tenth)."""
SCORES: dict[str, dict] = {}      # lab -> {"solution": "6/6", "student": "0/6", "one": "q2 1/6", "copied": ...}
SECONDS: dict[str, float] = {}    # kind -> otter run seconds summed over the labs
ATTACKS: dict[tuple[str, str], tuple[str, float]] = {}   # (lab, attack) -> ("0/9" or "error", seconds)
HOSTILE: dict[str, float] = {}    # the hostile class run: "submissions", "seconds"


def pytest_terminal_summary(terminalreporter):
    _scores(terminalreporter)
    _attacks(terminalreporter)
    if HOSTILE:
        terminalreporter.write_line(f"grading: the hostile class run graded {HOSTILE['submissions']:.0f} "
                                    f"submissions in {HOSTILE['seconds']:.0f} s (sandboxed, two at a time)")


def _scores(terminalreporter):
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


def _attacks(terminalreporter):
    """One row per attack class: the labs it scored 0 on, the highest score it got, and the seconds
    one submission took to grade (median over the labs, sandboxed, two at a time)."""
    if not ATTACKS:
        return
    terminalreporter.write_sep("-", "grading: attacks from an answer cell (each must score 0)")
    terminalreporter.write_line("attack class | labs | labs scoring 0 | highest score | "
                                "seconds per submission (median, max)")
    for name in dict.fromkeys(name for _, name in ATTACKS):
        rows = [v for (_, n), v in ATTACKS.items() if n == name]
        zero = sum(got.startswith("0/") for got, _ in rows)
        graded = [got for got, _ in rows if got != "error"]
        highest = max(graded, key=lambda g: float(g.split("/")[0]), default="-")
        times = sorted(t for _, t in rows)
        terminalreporter.write_line(f"{name} | {len(rows)} | {zero} | {highest} | "
                                    f"{times[len(times) // 2]:.1f}, {times[-1]:.1f}")
    terminalreporter.write_line("lab | attacks | scoring 0 on what they attack | scores | "
                                "seconds per submission (median)")
    for lab in sorted({lab for lab, _ in ATTACKS}):
        rows = [v for (lb, _), v in ATTACKS.items() if lb == lab]
        times = sorted(t for _, t in rows)
        scores = ", ".join(sorted({got for got, _ in rows}))
        terminalreporter.write_line(f"{lab} | {len(rows)} | {sum(got.startswith('0/') for got, _ in rows)} | "
                                    f"{scores} | {times[len(times) // 2]:.1f}")
