"""models.crush.build: the one builder of the "hosts" CRUSH map (N hosts x k OSDs, rules by_host
and by_osd), checked against crushtool and against the builders it replaced (lab 02's cell,
the flat map of tests/models/test_placement.py) for the same inputs."""
import shutil
import subprocess

import numpy as np
import pytest

from models import failure_domain as fd
from models.crush import analysis as an
from models.crush import build, mapper, parse_text

OLD_TUNABLES = """tunable choose_local_tries 0
tunable choose_local_fallback_tries 0
tunable choose_total_tries 50
tunable chooseleaf_descend_once 1
tunable chooseleaf_vary_r 1
tunable chooseleaf_stable 1
tunable straw_calc_version 1
tunable allowed_bucket_algs 54
"""


def old_four_hosts_map():
    """solutions/02-placement.py's cell before the move (no device class, no min/max_size)."""
    lines = ["type 0 osd", "type 1 host", "type 11 root"]
    lines += [f"device {i} osd.{i}" for i in range(12)]
    for h in range(4):
        lines += [f"host h{h} {{", f"id {-2 - h}", "alg straw2", "hash 0"]
        lines += [f"item osd.{3 * h + j} weight 1.000" for j in range(3)] + ["}"]
    lines += ["root default {", "id -1", "alg straw2", "hash 0"]
    lines += [f"item h{h} weight 3.000" for h in range(4)] + ["}"]
    for rule_id, (name, step) in enumerate([("by_host", "chooseleaf firstn 0 type host"),
                                            ("by_osd", "choose firstn 0 type osd")]):
        lines += [f"rule {name} {{", f"id {rule_id}", "type replicated", "step take default",
                  f"step {step}", "step emit", "}"]
    return parse_text.parse(OLD_TUNABLES + "\n".join(lines))


def old_flat_map(n):
    """tests/models/test_placement.py's flat map before the move: host "vm", rule 0 by OSD."""
    lines = ["type 0 osd", "type 1 host", "type 11 root"]
    lines += [f"device {i} osd.{i}" for i in range(n)]
    lines += ["host vm {", "id -2", "alg straw2", "hash 0"]
    lines += [f"item osd.{i} weight 1.000" for i in range(n)] + ["}"]
    lines += ["root default {", "id -1", "alg straw2", "hash 0", f"item vm weight {n}.000", "}"]
    lines += ["rule r {", "id 0", "type replicated", "step take default",
              "step choose firstn 0 type osd", "step emit", "}"]
    return parse_text.parse(OLD_TUNABLES + "\n".join(lines))


@pytest.mark.parametrize("rule", ["by_host", "by_osd"])
def test_same_placements_as_lab_02s_old_builder(rule):
    x = an.pg_inputs(1, 1024)
    old, old_len = mapper.do_rule(old_four_hosts_map(), rule, x, 3)
    new, new_len = mapper.do_rule(build.hosts_map(4, 3, prefix="h", first=0), rule, x, 3)
    np.testing.assert_array_equal(old, new)
    np.testing.assert_array_equal(old_len, new_len)


@pytest.mark.parametrize("n", [4, 5])
def test_one_host_is_the_old_flat_map(n):
    x = an.pg_inputs(7, 2048)
    old, _ = mapper.do_rule(old_flat_map(n), 0, x, 3)
    new, _ = mapper.do_rule(build.hosts_map(1, n), "by_osd", x, 3)
    np.testing.assert_array_equal(old, new)


def test_shape_names_ids_and_weights():
    m = build.hosts_map(4, 3, prefix="h", first=0)
    assert [m.item_id(f"h{h}") for h in range(4)] == [-2, -3, -4, -5]
    assert fd.host_osds(m, "h0") == [0, 1, 2] and fd.host_osds(m, "h3") == [9, 10, 11]
    assert m.rule_id("by_host") == 0 and m.rule_id("by_osd") == 1
    assert m.buckets[-1].weights == [3 * 0x10000] * 4
    assert build.host_of(4, 3) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    text = build.hosts_map_text(2, 1, weight=0.5, device_class=None)
    assert "device 0 osd.0\n" in text and "host ceph2 {" in text and "item ceph1 weight 0.50000" in text


def test_failure_domain_keeps_its_api():
    assert fd.hosts_map_text(3, 2) == build.hosts_map_text(3, 2)
    assert fd.host_osds(fd.hosts_map(3, 2), "ceph3") == [4, 5]


@pytest.mark.parametrize("call", [lambda: build.hosts_map_text(0, 3), lambda: build.hosts_map_text(2, 1.5),
                                  lambda: build.hosts_map_text(2, 2, weight=0),
                                  lambda: build.hosts_map_text(build.MAX_HOSTS + 1, 1),
                                  lambda: build.hosts_map_text(2, 101)])
def test_invalid_input(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.skipif(shutil.which("crushtool") is None, reason="crushtool not installed")
@pytest.mark.parametrize("rule", [0, 1])
def test_crushtool_compiles_it_and_maps_the_same(rule, tmp_path):
    src = tmp_path / "map.txt"
    src.write_text(build.hosts_map_text(4, 3, prefix="h", first=0))
    subprocess.run(["crushtool", "-c", str(src), "-o", str(tmp_path / "map.bin")], check=True)
    out = subprocess.run(["crushtool", "-i", str(tmp_path / "map.bin"), "--test", "--rule", str(rule),
                          "--num-rep", "3", "--min-x", "0", "--max-x", "255", "--show-mappings"],
                         capture_output=True, text=True, check=True).stdout
    theirs = [[int(o) for o in line.split("[")[1].rstrip("]").split(",")]
              for line in out.splitlines() if line.startswith("CRUSH rule")]
    ours, length = mapper.do_rule(build.hosts_map(4, 3, prefix="h", first=0), rule, np.arange(256), 3)
    assert [row[:n].tolist() for row, n in zip(ours, length)] == theirs
