"""cephlab.helpers.waf.seed003_claims: the seed's stated points and its "> 13x" headline."""
from cephlab.helpers.waf import seed003_claims


def test_each_stated_point_is_judged_by_its_relation():
    rows = seed003_claims({("filestore", 4096): 9.2, ("filestore", "large"): 6.3,
                           ("bluestore", "large"): 3.6, ("bluestore", 4096): 14.0})
    by = {(r["backend"], r["write size"], r["seed 003"]): r["holds here"] for r in rows}
    assert by[("filestore", 4096, "greater than 40")] is False
    assert by[("filestore", 4096, "greater than 13")] is False
    assert by[("filestore", "large", "converges to 6")] is True        # 6.3 is within 10 %
    assert by[("bluestore", "large", "converges to 3")] is False       # 3.6 is 20 % off
    assert by[("bluestore", 4096, "greater than 13")] is True


def test_points_without_a_measurement_are_left_out():
    rows = seed003_claims({("bluestore", "large"): 3.0})
    assert [(r["backend"], r["write size"]) for r in rows] == [("bluestore", "large")]
    assert rows[0]["holds here"] is True and rows[0]["this run"] == 3.0
