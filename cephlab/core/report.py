"""Where the lab's messages appear. Library code logs, never prints:

    log = logging.getLogger(__name__)
    log.info("deleted 2 pool(s)")                     # progress, what a step did
    log.warning("could not unmount /x; continuing")   # something was wrong, and it goes on

and the program the user runs decides where that shows, once, as plain lines:

* the `cephlab` command: show_messages("stderr"), so stdout stays the command's own output
  (`eval "$(cephlab env)"` reads it);
* notebooks and scripts: what they call first (LabSession, Cluster.connect / start) calls
  show_messages_by_default(): info on stdout and warnings on stderr, where a notebook cell
  showed these messages when they were print()s. An earlier choice (the CLI's, or the user's
  own handler on the "cephlab" logger) stays.

A helper's result shown in a notebook (Comparison.assert_agree's verdict, RunFigures.check's
sentence) is a display, not a message: it stays a print.
"""
from __future__ import annotations

import logging
import sys
from typing import TextIO

LOGGER = "cephlab"


class _Lines(logging.StreamHandler):
    """Plain "%(message)s" lines on "stdout" / "stderr", looked up at each message as print()
    does (a notebook kernel, pytest's capture or redirect_stdout replace them), or on a file."""

    def __init__(self, stream: str | TextIO, level: int = logging.NOTSET) -> None:
        logging.Handler.__init__(self, level)       # not StreamHandler's: it would fix the stream
        self.target = stream
        self.setFormatter(logging.Formatter("%(message)s"))

    @property
    def stream(self) -> TextIO:
        return getattr(sys, self.target) if isinstance(self.target, str) else self.target


def show_messages(stream: str | TextIO | None = "stderr", level: int = logging.INFO) -> None:
    """Show the lab's messages at `level` and above as plain lines on `stream` ("stdout",
    "stderr" or an open file); stream=None: below WARNING on stdout, the rest on stderr.

    Idempotent: a second call replaces the first one's handlers, so messages never show twice.
    """
    if isinstance(stream, str) and stream not in ("stdout", "stderr"):
        raise ValueError(f"stream must be 'stdout', 'stderr', None or a file, got {stream!r}")
    logger = logging.getLogger(LOGGER)
    for old in [h for h in logger.handlers if isinstance(h, _Lines)]:
        logger.removeHandler(old)
    if stream is None:
        info = _Lines("stdout", level)
        info.addFilter(lambda record: record.levelno < logging.WARNING)
        logger.addHandler(info)
        logger.addHandler(_Lines("stderr", max(level, logging.WARNING)))
    else:
        logger.addHandler(_Lines(stream, level))
    logger.setLevel(level)


def show_messages_by_default() -> None:
    """What an entry point of the library calls: show_messages(None), unless the "cephlab"
    logger has a handler already (the CLI chose, or the user configured it)."""
    if not logging.getLogger(LOGGER).handlers:
        show_messages(None)
