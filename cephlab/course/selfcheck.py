"""How a self-check's result shows in a learner's notebook: one line, and one hint per failed check.

    from cephlab.course import selfcheck
    selfcheck.install()        # params.learner_id("") does it: cell 2 of every lab

A lab's `grader.check("q1")` cell returns otter's result (an otter.test_files TestFile), which
otter displays as a doctest report: the failing line, a traceback and the assert's message, so a
hint shows up to four times, and a pass ends in an emoji that some browsers (Debian's Chromium)
draw as a missing-glyph box. install() registers IPython display formatters (text/plain and
text/html; otter's results have no other format) for that class in the running kernel, so the
same result displays as

    q1: all checks passed

or

    q1: 1 of 2 checks failed
    - Raw space is usable space times the replica count

with each failed check's hint worded as the grader's feedback words it (cephlab.course.checks):
the assert's message, "`x`: no usable answer" for a name not defined, "the check could not use
your answer (TypeError: ...)" for any other error; no traceback, no hint twice, no character
outside Unicode's Basic Multilingual Plane. What grader.check returns is unchanged (otter's own
object, its `summary()`, `_repr_html_` and scores), so otter's export and grading still work;
only how a notebook shows it changes.

install() never imports otter (the grading sandbox's stand-in for otter stays cheap): the
formatters are registered by the class's module and name and resolved when a result is first
shown. It does nothing outside IPython or where otter is not installed, and never raises.
"""
from __future__ import annotations

import html
import importlib.util
import re
import sys
from typing import Any

RESULT_MODULE, RESULT_CLASS = "otter.test_files.abstract_test", "TestFile"   # every otter test file's base
SEPARATOR = "*" * 70        # doctest's line between failures
NOT_DEFINED = re.compile(r"name '([^']{1,100})' is not defined")
CODE_SPAN = re.compile(r"`([^`<>]+)`")
PASS_COLOUR, FAIL_COLOUR = "#1a7f37", "#b3261e"


def install() -> bool:
    """Register the self-check display in the running IPython kernel. True when registered;
    False (and nothing changed) outside IPython, without otter, or on any error."""
    try:
        ipython = sys.modules.get("IPython")        # not imported: not in an IPython kernel
        shell = ipython.get_ipython() if ipython is not None else None
        if shell is None or not _otter_installed():
            return False
        formatters = shell.display_formatter.formatters
        for mime, printer in (("text/plain", _pretty), ("text/html", html_text)):
            formatter = formatters[mime]
            loaded = getattr(sys.modules.get(RESULT_MODULE), RESULT_CLASS, None)
            if isinstance(loaded, type):
                formatter.for_type(loaded, printer)
            else:
                formatter.for_type_by_name(RESULT_MODULE, RESULT_CLASS, printer)
        return True
    except Exception:       # noqa: BLE001 - a display nicety must never break the learner's cell
        return False


def _otter_installed() -> bool:
    try:
        return importlib.util.find_spec("otter") is not None
    except (ImportError, ValueError):       # a module in sys.modules without a spec
        return "otter" in sys.modules


def plain_text(result: Any) -> str:
    """The result as text: the pass line, or the count of failed checks and one line per hint."""
    name = _bmp(str(result.name))
    outcomes = list(result.test_case_results)
    failed = [r for r in outcomes if not r.passed]
    if not outcomes:
        return f"{name}: no checks ran"
    if not failed:
        return f"{name}: all checks passed"
    lines = [f"{name}: {len(failed)} of {len(outcomes)} check{'' if len(outcomes) == 1 else 's'} failed"]
    lines += [f"- {hint}" for hint in hints(failed)]
    return "\n".join(lines)


def html_text(result: Any) -> str | None:
    """The result as HTML: the same lines as plain_text, the hints as a list."""
    try:
        first, *rest = plain_text(result).split("\n")
    except Exception:       # noqa: BLE001 - then the plain text (otter's own, if need be) shows
        return None
    colour = PASS_COLOUR if not rest else FAIL_COLOUR
    name, _, said = first.partition(": ")
    out = (f'<p style="margin: 0.2em 0"><code>{html.escape(name)}</code>: '
           f'<strong style="color: {colour}">{html.escape(said)}</strong></p>')
    if rest:
        out += ('<ul style="margin: 0.2em 0">'
                + "".join(f"<li>{_code_spans(html.escape(line[2:]))}</li>" for line in rest) + "</ul>")
    return out


def _code_spans(escaped: str) -> str:
    """`name` in an escaped hint as <code>name</code>."""
    return CODE_SPAN.sub(r"<code>\1</code>", escaped)


def _pretty(result: Any, printer: Any, cycle: bool) -> None:
    """IPython's text/plain printer (signature of IPython.lib.pretty)."""
    try:
        text = plain_text(result)
    except Exception:       # noqa: BLE001 - an unexpected result: otter's own text
        text = result.summary()
    printer.text(text)


def hints(failed: list) -> list[str]:
    """One hint per failed check (a TestCaseResult), each shown once, in order."""
    return list(dict.fromkeys(hint(r) for r in failed))


def hint(outcome: Any) -> str:
    """The hint of one failed check: its author's failure message if it has one, else from the
    error it raised (the first failure of a doctest, or an exception-style check's error)."""
    own = getattr(outcome.test_case, "failure_message", None)
    if own:
        from cephlab.course.checks import HINT_CAP  # the grader's cap, one number for both
        return _bmp(str(own).strip().splitlines()[0]).strip()[:HINT_CAP]
    message = str(outcome.message or "")
    line = error_line(message)
    if line is None:
        return "a check's output is not what it expects" if "Failed example:" in message else "a check failed"
    return _bmp(worded(line)).strip() or "a check failed"


def error_line(message: str) -> str | None:
    """ "AssertionError: ..." (the first line of the error) from otter's message for a failed
    check; None when the check failed without an error (a doctest whose output differs)."""
    if "Failed example:" in message:        # an OK (doctest) check: its first failure only
        block = message.split(SEPARATOR, 1)[-1]
        if "Exception raised:" not in block.split("Trying:", 1)[0]:
            return None
        raised = block.split("Exception raised:", 1)[1].split("\n")[1:]
        lines = []
        for line in raised:                 # doctest indents the traceback by 4
            if line and not line.startswith("    "):
                break
            lines.append(line[4:])
        return _after_traceback(lines)
    lines = message.split("\n")
    if lines and lines[0].endswith("Test case failed"):     # otter's own first line
        lines = lines[1:]
    if lines and lines[0].startswith("Error at line "):     # an exception-style check
        rest = [line for line in lines[1:] if line.strip() and not line.startswith("  ")]
        return rest[0] if rest else None
    return _after_traceback(lines)


def _after_traceback(lines: list[str]) -> str | None:
    """The error's first line: the first line at the left margin after the last traceback's
    frames (which are indented)."""
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")]
    for line in lines[starts[-1] + 1 if starts else 0:]:
        if line.strip() and not line[0].isspace():
            return line
    return None


def worded(line: str) -> str:
    """An error's first line as the grader's feedback words it (cephlab.course.checks.wording)."""
    from cephlab.course.checks import wording
    kind, _, said = line.partition(": ")
    kind, said = kind.strip().rsplit(".", 1)[-1], said.strip()
    undefined = NOT_DEFINED.search(said)
    return wording(kind, said, undefined.group(1) if undefined else None)


def _bmp(text: str) -> str:
    """text without characters outside the Basic Multilingual Plane (emoji) or variation selectors."""
    return "".join(ch for ch in text if ord(ch) <= 0xFFFF and not 0xFE00 <= ord(ch) <= 0xFE0F)
