"""models.failure_domain: PGs that lose 1 vs 2+ shards when a host stops, by failure domain."""
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models import failure_domain as fd
from models.crush import mapper

# Golden values: hypergeometric counts on the Vagrant cluster's shape (3 hosts x 2 OSDs, size 3;
# C(6,3) = 20 OSD triples: 4 avoid the host, 12 hold one of its OSDs, 4 hold both) and on 4 hosts.
GOLDEN = {
    # (hosts, osds/host, size, domain): P(0..size shards on the failed host)
    (3, 2, 3, "host"): [0, 1, 0, 0],
    (3, 2, 3, "osd"): [0.2, 0.6, 0.2, 0],
    (4, 2, 3, "host"): [0.25, 0.75, 0, 0],
    (4, 3, 3, "osd"): [84 / 220, 108 / 220, 27 / 220, 1 / 220],   # C(9,3), 3*C(9,2), 3*9, 1
    (2, 1, 2, "osd"): [0, 1, 0],
}


@pytest.mark.parametrize("case", GOLDEN, ids=str)
def test_distribution_golden(case):
    np.testing.assert_allclose(fd.shard_loss_distribution(*case), GOLDEN[case], atol=1e-12)


def test_blocked_and_unavailable_golden():
    assert fd.blocked_fraction(3, 2, 3, 2, "host") == 0
    assert fd.blocked_fraction(3, 2, 3, 2, "osd") == pytest.approx(0.2)
    assert fd.blocked_fraction(3, 2, 3, 1, "osd") == 0              # min_size 1 keeps serving
    assert fd.blocked_fraction(4, 3, 3, 2, "osd") == pytest.approx(28 / 220)
    assert fd.unavailable_fraction(4, 3, 3, "osd") == pytest.approx(1 / 220)
    np.testing.assert_allclose(fd.blocked_fraction([3, 4, 6], 2, 3, 2, "osd"),
                               [0.2, 6 / 56, 10 / 220], atol=1e-12)   # C(K,2) C(N-K,1) / C(N,3)


def test_recovers_without_host():
    # Ceph docs (CRUSH maps): a host-domain size-3 pool needs a 4th host to heal without the 3rd
    assert not fd.recovers_without_host(3, 2, 3, "host")
    assert fd.recovers_without_host(4, 2, 3, "host")
    assert fd.recovers_without_host(3, 2, 3, "osd")
    np.testing.assert_array_equal(fd.recovers_without_host([2, 3, 4], 1, 3, "osd"), [False, False, True])


@pytest.mark.parametrize("call, name", [
    (lambda: fd.shard_loss_distribution(2, 2, 3, "host"), "size"),
    (lambda: fd.shard_loss_distribution(0, 2, 3), "hosts"),
    (lambda: fd.shard_loss_distribution(3, 1.5, 3), "osds_per_host"),
    (lambda: fd.shard_loss_distribution(3, 2, 3, "rack"), "domain"),
    (lambda: fd.blocked_fraction(3, 2, 3, 4, "osd"), "min_size"),
    (lambda: fd.loss_counts([0, 4], 3), "shards_lost"),
    (lambda: fd.host_osds(fd.hosts_map(3, 2), -99), "host"),
])
def test_invalid_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@settings(max_examples=60, deadline=None)
@given(hosts=st.integers(1, 12), per_host=st.integers(1, 6), size=st.integers(1, 6),
       domain=st.sampled_from(fd.DOMAINS))
def test_distribution_is_a_distribution(hosts, per_host, size, domain):
    units = hosts if domain == "host" else hosts * per_host
    if size > units:
        with pytest.raises(ValueError):
            fd.shard_loss_distribution(hosts, per_host, size, domain)
        return
    p = fd.shard_loss_distribution(hosts, per_host, size, domain)
    assert p.sum() == pytest.approx(1.0)
    assert (p >= -1e-15).all()
    # the mean is size x the host's share of the units
    assert (p * np.arange(size + 1)).sum() == pytest.approx(size / hosts)
    if domain == "host":
        assert p[2:].sum() == pytest.approx(0.0)      # never two shards on one host


def test_hosts_map_shape():
    m = fd.hosts_map(3, 2)
    assert fd.host_osds(m, "ceph1") == [0, 1] and fd.host_osds(m, "ceph3") == [4, 5]
    assert m.rule_id("by_host") == 0 and m.rule_id("by_osd") == 1


def test_crush_close_to_the_uniform_model():
    """Exact CRUSH on 1024 PGs against the hypergeometric shares (straw2 is pseudo-random)."""
    m = fd.hosts_map(3, 2)
    for rule, domain in (("by_host", "host"), ("by_osd", "osd")):
        for host in ("ceph1", "ceph2", "ceph3"):
            counts = fd.loss_counts(fd.crush_shards_on(m, rule, fd.host_osds(m, host), 3, 1024), 3)
            np.testing.assert_allclose(counts / 1024, fd.shard_loss_distribution(3, 2, 3, domain),
                                       atol=0.04)
    by_host = fd.crush_shards_on(m, "by_host", fd.host_osds(m, "ceph2"), 3, 256)
    assert (by_host == 1).all(), "chooseleaf type host puts exactly one shard on each of 3 hosts"


def test_shards_on_lists_and_arrays():
    assert fd.shards_on([[0, 1, 4], [2, 3, 5], [1]], {0, 1}).tolist() == [2, 0, 1]
    arr = np.array([[0, 1, mapper.PAD], [5, 4, 0]])
    assert fd.shards_on(arr, [4, 5]).tolist() == [0, 2]


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which("crushtool") is None, reason="crushtool not installed")
@pytest.mark.parametrize("rule", [0, 1])
def test_hosts_map_matches_crushtool(rule, tmp_path):
    """crushtool compiles our text and maps x = 0..511 exactly as models.crush does."""
    src = tmp_path / "map.txt"
    src.write_text(fd.hosts_map_text(3, 2))
    subprocess.run(["crushtool", "-c", str(src), "-o", str(tmp_path / "map.bin")], check=True)
    out = subprocess.run(["crushtool", "-i", str(tmp_path / "map.bin"), "--test", "--rule", str(rule),
                          "--num-rep", "3", "--min-x", "0", "--max-x", "511", "--show-mappings"],
                         capture_output=True, text=True, check=True).stdout
    theirs = [[int(o) for o in line.split("[")[1].rstrip("]").split(",")]
              for line in out.splitlines() if line.startswith("CRUSH rule")]
    ours, length = mapper.do_rule(fd.hosts_map(3, 2), rule, np.arange(512), 3)
    assert [row[:n].tolist() for row, n in zip(ours, length)] == theirs
