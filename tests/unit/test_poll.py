"""cephlab.core.poll, the one poller, on a fake clock (no sleeping)."""
import pytest

from cephlab.core import poll


def test_returns_the_first_truthy_value(clock):
    values = iter([None, 0, {"osd.3": 42}])
    assert poll.poll_until(lambda: next(values), 10, "x") == {"osd.3": 42}
    assert clock[0] == pytest.approx(0.4)          # two sleeps of the default 0.2 s


def test_times_out_with_what_and_why(clock):
    with pytest.raises(poll.PollTimeout) as e:
        poll.poll_until(lambda: False, 3, "osd.3 up", interval=1, describe=lambda: "2 PGs peering",
                        hint="see its log")
    assert str(e.value) == "osd.3 up not reached after 3 s (2 PGs peering); see its log"
    assert clock[0] == pytest.approx(3.0)


def test_progress_sees_every_try(clock):
    seen = []
    values = iter([0, 0, 1])
    poll.poll_until(lambda: next(values), 10, "x", interval=0.5, progress=lambda t, v: seen.append(t))
    assert seen == [pytest.approx(0.0), pytest.approx(0.5)]


def test_the_predicate_runs_once_even_with_no_time(clock):
    assert poll.poll_until(lambda: "yes", 0, "x") == "yes"


def test_a_negative_timeout_is_refused():
    with pytest.raises(ValueError, match="timeout must be >= 0 s"):
        poll.poll_until(lambda: True, -1, "x")
