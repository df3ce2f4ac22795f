"""Rule execution: invariants (hypothesis) on generated maps, and the unsupported cases."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.crush import analysis, mapper, parse_text
from models.crush.crushmap import ITEM_NONE

ONE = 0x10000


TUNABLES = "\n".join(f"tunable {k} {v}" for k, v in {
    "choose_total_tries": 50, "chooseleaf_descend_once": 1, "chooseleaf_vary_r": 1,
    "chooseleaf_stable": 1, "choose_local_tries": 0, "choose_local_fallback_tries": 0}.items())


def host_map(hosts, rule_steps="step chooseleaf firstn 0 type host", extra=""):
    """A root of hosts; hosts = list of lists of 16.16 weights (one list per host)."""
    lines = [TUNABLES, "type 0 osd", "type 1 host", "type 2 root"]
    osd, roots = 0, []
    for h, weights in enumerate(hosts):
        items = []
        for w in weights:
            lines.append(f"device {osd} osd.{osd}")
            items.append(f"item osd.{osd} weight {w / ONE:.5f}")
            osd += 1
        lines += [f"host h{h} {{", f"id {-2 - h}", "alg straw2", "hash 0", *items, "}"]
        roots.append(f"item h{h}")
    lines += ["root default {", "id -1", "alg straw2", "hash 0", *roots, "}",
              "rule r {", "id 0", "type replicated", "step take default", rule_steps,
              "step emit", "}", extra]
    return parse_text.parse("\n".join(lines))


hosts_strategy = st.lists(st.lists(st.sampled_from([0, ONE // 4, ONE, 2 * ONE, 3 * ONE]),
                                   min_size=1, max_size=5), min_size=1, max_size=6)


@settings(max_examples=30, deadline=None)
@given(hosts_strategy, st.integers(1, 7), st.sampled_from(["firstn", "indep"]), st.data())
def test_results_are_short_distinct_and_avoid_zero_weight(hosts, num_rep, mode, data):
    """No duplicate OSDs, never more than num_rep, firstn never emits ITEM_NONE (indep keeps
    positions with it); devices reweighted to 0 (`ceph osd out`) are never chosen, nor are
    devices of CRUSH weight 0 while the map holds any weight (if every item of a bucket
    weighs 0, straw2 returns the first: CRUSH has to return something)."""
    cmap = host_map(hosts, f"step chooseleaf {mode} 0 type host")
    flat = [w for h in hosts for w in h]
    out = data.draw(st.sets(st.integers(0, len(flat) - 1), max_size=2))
    weights = cmap.device_weights({i: 0 for i in out})
    result, length = mapper.do_rule(cmap, 0, np.arange(500), num_rep, weights)
    zero = {i for i, w in enumerate(flat) if w == 0} if sum(flat) else set()
    for row, n in zip(result.tolist(), length.tolist()):
        got = row[:n]
        osds = [o for o in got if o != ITEM_NONE]
        assert n <= num_rep
        assert len(osds) == len(set(osds))
        assert not zero.intersection(osds)
        assert not out.intersection(osds)
        if mode == "firstn":
            assert ITEM_NONE not in got
        else:
            assert n == num_rep


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([ONE // 2, ONE, 2 * ONE]), min_size=1, max_size=8),
       st.sampled_from([ONE // 2, ONE, 3 * ONE]))
def test_adding_an_osd_moves_data_only_to_it(weights, new_weight):
    """One straw2 choice per input (`choose firstn 1 type osd` from a flat root): adding an
    OSD only moves inputs onto it."""
    text = "\n".join(
        [TUNABLES, "type 0 osd", "type 1 root"]
        + [f"device {i} osd.{i}" for i in range(len(weights))]
        + ["root default {", "id -1", "alg straw2", "hash 0"]
        + [f"item osd.{i} weight {w / ONE:.5f}" for i, w in enumerate(weights)]
        + ["}", "rule r {", "id 0", "step take default", "step choose firstn 1 type osd",
           "step emit", "}"])
    before = parse_text.parse(text)
    after = analysis.add_osd(before, "default", 50, new_weight)
    x = np.arange(3000)
    a, _ = mapper.do_rule(before, 0, x, 1)
    b, _ = mapper.do_rule(after, 0, x, 1)
    moved = a[:, 0] != b[:, 0]
    assert (b[moved, 0] == 50).all()


def test_chunks_and_threads_do_not_change_results():
    cmap = host_map([[ONE] * 3, [2 * ONE, ONE], [ONE] * 4, [3 * ONE]])
    x = np.arange(20_000)
    one, _ = mapper.do_rule(cmap, 0, x, 3, chunk=len(x), threads=1)
    many, _ = mapper.do_rule(cmap, 0, x, 3, chunk=1000, threads=4)
    assert (one == many).all()


def test_is_out_partial_weight_keeps_that_fraction():
    """A device reweighted to 0.25 stays in for ~25 % of inputs (hash-decided)."""
    x = np.arange(100_000)
    weight = np.array([ONE // 4], dtype=np.uint32)
    kept = ~mapper.is_out(weight, np.zeros(len(x), int), x)
    assert abs(kept.mean() - 0.25) < 0.005
    assert mapper.is_out(weight, np.array([1]), np.array([0]))[0]     # beyond the vector


def test_unsupported_bucket_algorithm_is_named():
    bad = "type 0 osd\ntype 1 root\ndevice 0 osd.0\nroot r {\nid -1\nalg straw\nhash 0\n" \
          "item osd.0 weight 1.0\n}\nrule x {\nid 0\nstep take r\nstep emit\n}\n"
    cmap = parse_text.parse(bad)
    with pytest.raises(ValueError, match="alg straw: not supported, only straw2"):
        mapper.do_rule(cmap, 0, [1], 1)


def test_legacy_tunables_are_refused_with_the_fix():
    cmap = parse_text.parse("type 0 osd\ntype 1 root\ndevice 0 osd.0\nroot r {\nid -1\n"
                            "alg straw2\nhash 0\nitem osd.0 weight 1.0\n}\n"
                            "rule x {\nid 0\nstep take r\nstep emit\n}\n")
    with pytest.raises(ValueError, match="tunables optimal"):
        mapper.do_rule(cmap, 0, [1], 1)


def test_parse_errors_give_the_line():
    with pytest.raises(ValueError, match="line 3: item 'osd.9' is not a device"):
        parse_text.parse("type 0 osd\ntype 1 root\nroot r { id -1 alg straw2 item osd.9 }\n")
    with pytest.raises(ValueError, match="line 1: unexpected 'rack'"):
        parse_text.parse("rack r1 {\n}\n")
