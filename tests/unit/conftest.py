"""Shared fixtures of the fast tier."""
import pytest

from cephlab.core import poll


@pytest.fixture
def clock(monkeypatch):
    """core.poll on a fake clock: sleeping advances it, nothing waits. The list holds 'now'."""
    now = [0.0]
    monkeypatch.setattr(poll, "CLOCK", lambda: now[0])
    monkeypatch.setattr(poll, "SLEEP", lambda s: now.__setitem__(0, now[0] + s))
    return now
