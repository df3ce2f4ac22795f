"""cephlab.helpers.compare: one-sided rows (a model that is a ceiling, e.g. a disk bound on IOPS)."""
import pytest

from cephlab.helpers.compare import Comparison


def test_bound_row_agrees_only_below_the_ceiling():
    cmp = Comparison()
    cmp.add_bound("far below", bound=9000, measured=984)          # lab 03: disk bound vs rados bench
    cmp.add_bound("just over, inside tolerance", bound=100, measured=109, rel_tol=0.1)
    assert [r.agrees for r in cmp.rows] == [True, True]
    assert list(cmp.table()["tolerance"]) == ["<= +0%", "<= +10%"]
    cmp.assert_agree()
    cmp.add_bound("over the ceiling", bound=100, measured=111, rel_tol=0.1, why="a cache in the way")
    with pytest.raises(AssertionError, match=r"over the ceiling.*x1\.11.*<= \+10%.*a cache in the way"):
        cmp.assert_agree()


def test_two_sided_rows_unchanged():
    cmp = Comparison().add("x", model=100, measured=89, rel_tol=0.1)
    assert not cmp.rows[0].agrees and cmp.table()["tolerance"].iloc[0] == "±10%"


def test_a_negative_control_must_fail_the_same_tolerance():
    """Issue 15: every agreement check names a plausibly wrong model that its tolerance rejects."""
    cmp = Comparison().add("recovery", model=9.6, measured=12.1, unit="s", rel_tol=0.5,
                           control=("no recovery sleep", 0.3))
    row = cmp.rows[0]
    assert row.agrees and row.control_fails is True
    assert cmp.table()["control fails"].iloc[0] == True       # noqa: E712 (a numpy bool in a frame)
    cmp.assert_agree()
    wide = Comparison().add("recovery", model=9.6, measured=12.1, rel_tol=5.0, control=("half", 4.8))
    with pytest.raises(AssertionError, match=r"(?s)cannot tell the model from a wrong one.*'half'"):
        wide.assert_agree()


def test_rows_without_controls_keep_the_old_table():
    cmp = Comparison().add("x", model=1, measured=1)
    assert "control" not in cmp.table().columns and cmp.rows[0].control_fails is None


def test_room_below_the_model_is_one_sided():
    cmp = Comparison()
    cmp.add("mix", model=100, measured=70, rel_tol=0.1, below=0.25)
    cmp.add("mix", model=100, measured=120, rel_tol=0.1, below=0.25)
    cmp.add("mix", model=100, measured=60, rel_tol=0.1, below=0.25)
    assert [r.agrees for r in cmp.rows] == [True, False, False]
    assert cmp.rows[0].tolerance == "-35%/+10%"
    with pytest.raises(ValueError, match="below"):
        cmp.add("mix", model=100, measured=70, below=1.5)


def test_recorded_rows_are_plain_json_even_from_numpy_inputs():
    import json

    import numpy as np

    from cephlab.helpers.compare import recorded
    Comparison().add("threads", model=5, measured=np.float64(5.0), rel_tol=np.float64(0.2),
                     control=("one more", 7))
    row = json.loads(json.dumps(recorded()))[-1]
    assert row == {"quantity": "threads", "unit": "", "model": 5.0, "measured": 5.0, "ratio": 1.0,
                   "tolerance": "±20%", "agrees": True, "control": "one more", "control_value": 7.0,
                   "control_fails": True, "claim": True}


def test_room_above_the_model_is_one_sided():
    # lab 08: the recovery model leaves out waits that only add time, so 0 s must not pass
    def row(measured):
        return Comparison().add("recovery", model=10, measured=measured, unit="s", rel_tol=0.2,
                                above=0.8, control=("reservations ignored", 10 / 3)).rows[0]
    assert [row(m).agrees for m in (0.0, 7.9, 8.1, 17.0, 20.0, 20.5)] == [False, False, True, True, True, False]
    assert row(12).tolerance == "-20%/+100%"
    assert row(12).control_fails is True and row(5.0).control_fails is False
    with pytest.raises(ValueError, match="above"):
        Comparison().add("x", model=1, measured=1, above=-0.1)


def test_a_reading_makes_no_claim_and_is_never_checked(capsys):
    """A row that cannot tell its model from the wrong one is shown, not checked: even far off,
    assert_agree passes and says how many readings there are; recorded() marks it."""
    from cephlab.helpers import compare
    cmp = Comparison()
    cmp.add("checked", model=10, measured=10.5, rel_tol=0.1, control=("double", 20))
    cmp.add_reading("journal 64 KiB", model=3.19, measured=9.0, control=("data alone", 3.0))
    row = cmp.rows[1]
    assert row.agrees is None and row.control_fails is None and row.tolerance == "no claim"
    cmp.assert_agree()
    assert capsys.readouterr().out.strip() == ("all 1 comparisons agree within their tolerance; "
                                                "1 wrong models rejected; 1 readings make no claim")
    assert cmp.table().loc["journal 64 KiB", "control"] == "data alone: 3"
    assert [r["claim"] for r in compare.recorded()[-2:]] == [True, False]


def test_an_absolute_grain_accepts_a_reading_of_zero_and_still_rejects_a_far_control():
    """A time read in 2 s steps can read 0 s for a 1.5 s model; a relative window wide enough for
    that (-100 %) would also accept any larger wrong model around itself. The grain is absolute:
    the same +-seconds around the model and around the control (lab 08's recovery under mClock)."""
    def row(measured, control=114.0):
        return Comparison().add("recovery", model=1.5, measured=measured, unit="s", rel_tol=0,
                                grain=(2.0, 4.1), control=("the sleep applies", control)).rows[0]
    assert row(0.0).agrees and row(4.0).agrees and row(5.6).agrees
    assert not row(5.7).agrees
    assert row(4.0).control_fails is True
    assert row(4.0, control=6.0).control_fails is False          # a wrong model within the grain
    assert row(4.0).tolerance == "-2 s/+4.1 s"
    both = Comparison().add("t", model=10, measured=12, unit="s", rel_tol=0.1, grain=(1, 1)).rows[0]
    assert both.tolerance == "-10% -1 s/+10% +1 s" and both.agrees      # 10 x 1.1 + 1 = 12
    with pytest.raises(ValueError, match="grain"):
        Comparison().add("t", model=1, measured=1, grain=(-1, 0))
