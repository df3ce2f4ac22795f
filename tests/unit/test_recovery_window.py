"""rh.recovery_window: the room around lab 08's no-sleep recovery model under mClock."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cephlab.helpers import recovery as rh


def test_window_adds_a_step_the_hand_offs_and_the_pushes():
    # Reef's run of 686e91e: 1064 objects in 7 PGs, hand-off 0.3 s, 3 pushes at a time
    lat = [0.004] * 95 + [0.010] * 5            # 95th percentile: 0.004 s (numpy's linear rule)
    room = rh.recovery_window(1064, 7, lat, 3, 0.3)
    assert room["push_s"] == pytest.approx(0.0043, abs=1e-4)
    assert room["pushes_s"] == pytest.approx(1064 * room["push_s"] / 3)
    assert room["grain"][0] == 2.0
    assert room["grain"][1] == pytest.approx(2.0 + 7 * 0.3 + room["pushes_s"])


def test_the_sleep_model_stays_outside_the_window_of_a_measured_run():
    # what the lab's control needs: the configured 0.1 s sleep for 1064 objects is ~106 s, far
    # above a model of 1.4 s plus its room, with the client's writes of tens of ms
    room = rh.recovery_window(1064, 7, [0.02] * 100, 3, 0.3)
    assert 1.4 + room["grain"][1] < 1064 * 0.1 - room["grain"][0]


@given(objects=st.integers(0, 5000), pgs=st.integers(0, 64), in_flight=st.integers(1, 16),
       handoff=st.floats(0, 2), lat=st.lists(st.floats(0.0005, 0.5), min_size=1, max_size=50))
def test_more_in_flight_never_widens_the_window(objects, pgs, in_flight, handoff, lat):
    one = rh.recovery_window(objects, pgs, lat, in_flight, handoff)
    more = rh.recovery_window(objects, pgs, lat, in_flight + 1, handoff)
    assert more["grain"][1] <= one["grain"][1] + 1e-12
    assert one["grain"][1] >= one["grain"][0] == 2.0


@pytest.mark.parametrize("kw, name", [(dict(in_flight=0), "in_flight"), (dict(objects=-1), "objects"),
                                      (dict(handoff_s=-0.1), "handoff_s"), (dict(push_latencies=[]), "push_latencies")])
def test_invalid_input_names_the_parameter(kw, name):
    args = dict(objects=10, pgs=2, push_latencies=[0.01], in_flight=3, handoff_s=0.3) | kw
    with pytest.raises(ValueError, match=name):
        rh.recovery_window(**args)
