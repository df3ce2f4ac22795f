"""Shared fixtures of the fast tier."""
import logging

import pytest

from cephlab.core import poll, report


@pytest.fixture(autouse=True)
def messages_as_in_a_notebook():
    """The lab's log messages show as a notebook shows them (info on stdout, warnings on stderr),
    so capsys sees what a learner sees; whatever a test configures (the CLI's main) is undone."""
    logger = logging.getLogger(report.LOGGER)
    handlers, level = logger.handlers[:], logger.level
    report.show_messages(None)
    yield
    logger.handlers[:] = handlers
    logger.setLevel(level)


@pytest.fixture
def clock(monkeypatch):
    """core.poll on a fake clock: sleeping advances it, nothing waits. The list holds 'now'."""
    now = [0.0]
    monkeypatch.setattr(poll, "CLOCK", lambda: now[0])
    monkeypatch.setattr(poll, "SLEEP", lambda s: now.__setitem__(0, now[0] + s))
    return now
