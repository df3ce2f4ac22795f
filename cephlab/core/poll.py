"""The one way cephlab waits: poll_until(predicate, timeout, what).

    from cephlab.core.poll import poll_until
    poll_until(lambda: osd_is_up(3), timeout=60, what="osd.3 up")

The predicate's truthy return value is returned. On timeout, PollTimeout says what was awaited,
for how long and (if given) the last thing `describe()` reported, e.g. the PG states still
unclean. `progress` is called with (elapsed_s, last_value) after each try, for notebooks and
terminals that show how a wait goes.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from cephlab.core.errors import ClusterError

T = TypeVar("T")

SLEEP: Callable[[float], None] = time.sleep      # tests replace it to run without waiting
CLOCK: Callable[[], float] = time.monotonic


class PollTimeout(ClusterError):
    """What was awaited did not happen in time; .last holds the predicate's last value."""

    def __init__(self, message: str, last: object = None):
        super().__init__(message)
        self.last = last


def poll_until(predicate: Callable[[], T | None], timeout: float, what: str, *,
               interval: float = 0.2, describe: Callable[[], str] | None = None,
               progress: Callable[[float, T | None], None] | None = None,
               hint: str = "") -> T:
    """Call predicate() every `interval` s until it returns something truthy; return that.

    Raises PollTimeout after `timeout` s: "<what> not reached after <timeout> s (<describe()>);
    <hint>". The predicate runs at least once, even with timeout 0.
    """
    if timeout < 0:
        raise ValueError(f"timeout must be >= 0 s, got {timeout}")
    t0 = CLOCK()
    while True:
        value = predicate()
        if value:
            return value
        elapsed = CLOCK() - t0
        if progress is not None:
            progress(elapsed, value)
        if elapsed >= timeout:
            detail = f" ({describe()})" if describe is not None else ""
            raise PollTimeout(f"{what} not reached after {timeout:g} s{detail}"
                              + (f"; {hint}" if hint else ""), value)
        SLEEP(min(interval, max(timeout - elapsed, 0.0)) or interval)
