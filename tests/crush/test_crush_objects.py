"""Object name -> PG -> OSDs, checked against osdmaptool and against the definitions."""
import json
import re
import shutil
import subprocess

import crush_maps as maps
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.crush import objects, parse_text
from models.crush.crushmap import ITEM_NONE

OSDMAPTOOL = shutil.which("osdmaptool")


def test_pg_mask_and_stable_mod_by_definition():
    """ceph_stable_mod (src/include/rados.h): x & bmask if < b, else x & (bmask >> 1)."""
    assert [objects.pg_mask(n) for n in (1, 2, 12, 32, 33, 96)] == [0, 1, 15, 31, 63, 127]
    assert objects.stable_mod([11, 13, 15, 16], 12).tolist() == [11, 5, 7, 0]
    with pytest.raises(ValueError, match="pg_num must be >= 1"):
        objects.pg_mask(0)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 4095))
def test_growing_pg_num_splits_one_pg(pg_num):
    """pg_num -> pg_num + 1 moves objects only from PG (pg_num & (mask >> 1)) to the new PG
    pg_num: why Ceph can split PGs in place."""
    x = np.arange(0, 2 ** 32, 2 ** 32 // 20_000, dtype=np.int64)
    before = objects.stable_mod(x, pg_num)
    after = objects.stable_mod(x, pg_num + 1)
    moved = before != after
    assert (after[moved] == pg_num).all()
    assert (before[moved] == pg_num & (objects.pg_mask(pg_num + 1) >> 1)).all()


def test_string_hash_handles_every_tail_length():
    """Names of 0..40 bytes cover every branch of lookup2's tail; vectorised by length
    equals one at a time, and str and bytes agree."""
    names = ["x" * n for n in range(41)] + ["é" * 5]
    together = objects.str_hash_rjenkins(names)
    assert together.tolist() == [objects.str_hash_rjenkins(n) for n in names]
    assert objects.str_hash_rjenkins("foo") == objects.str_hash_rjenkins(b"foo")
    assert len(set(together.tolist())) == len(names)


def test_erasure_pools_keep_positions_replicated_pools_shift():
    cmap = parse_text.parse(maps.layered_text())
    state = objects.OsdState.all_up(cmap.max_devices)
    rep = objects.Pool(1, "rep", pg_num=64, size=3, crush_rule=0)
    ec = objects.Pool(2, "ec", pg_num=64, size=4, crush_rule=2, type=objects.POOL_TYPE_ERASURE)
    before_rep = objects.pgs_to_osds(cmap, rep, range(64), state)
    before_ec = objects.pgs_to_osds(cmap, ec, range(64), state)
    down = before_ec[0]["up"][1]
    state.up[down] = False                      # down but still in: CRUSH does not change
    for old, new in zip(before_ec, objects.pgs_to_osds(cmap, ec, range(64), state)):
        assert new["up"] == [ITEM_NONE if o == down else o for o in old["up"]]
    for old, new in zip(before_rep, objects.pgs_to_osds(cmap, rep, range(64), state)):
        assert new["up"] == [o for o in old["up"] if o != down]
        assert new["up_primary"] == (new["up"][0] if new["up"] else -1)


def test_upmap_items_and_pg_temp():
    cmap = parse_text.parse(maps.layered_text())
    pool = objects.Pool(1, "rep", pg_num=8, size=3, crush_rule=0)
    state = objects.OsdState.all_up(cmap.max_devices)
    plain = objects.pgs_to_osds(cmap, pool, [3], state)[0]
    src = plain["up"][1]
    dst = next(o for o in range(cmap.max_devices) if o not in plain["up"])
    state.pg_upmap_items["1.3"] = [(src, dst)]
    state.pg_temp["1.3"] = [plain["up"][2], plain["up"][0]]
    got = objects.pgs_to_osds(cmap, pool, [3], state)[0]
    assert got["up"] == [plain["up"][0], dst, plain["up"][2]]
    assert got["acting"] == [plain["up"][2], plain["up"][0]]
    assert got["acting_primary"] == plain["up"][2]
    state.weight[dst] = 0                       # an out target cancels the swap
    assert objects.pgs_to_osds(cmap, pool, [3], state)[0]["up"][1] == src


@pytest.fixture(scope="module")
def osdmap(tmp_path_factory):
    """osdmaptool --createsimple 6 with the default pool (1, 'rbd', size 3) and a
    crushtool-built map of 3 hosts x 2 OSDs imported into it. Returns (map file, CrushMap,
    the pool as read from `osdmaptool --dump json`)."""
    if OSDMAPTOOL is None or maps.CRUSHTOOL is None:
        pytest.skip("osdmaptool/crushtool are not installed (apt-get install ceph-base)")
    work = tmp_path_factory.mktemp("osdmap")
    om = work / "om"
    subprocess.run([OSDMAPTOOL, "--createsimple", "6", str(om), "--with-default-pool"],
                   check=True, capture_output=True)
    binary, text = maps.build(work, 6, ["host", "straw2", 2, "root", "straw2", 0])
    subprocess.run([OSDMAPTOOL, str(om), "--import-crush", str(binary)], check=True,
                   capture_output=True)
    dump = subprocess.run([OSDMAPTOOL, str(om), "--dump", "json"], capture_output=True,
                          text=True, check=True).stdout
    pools, _ = objects.from_osd_dump(json.loads(dump))
    return om, parse_text.load(text), pools["rbd"]


@pytest.mark.oracle
def test_every_pg_like_osdmaptool(osdmap):
    """osdmaptool --test-map-pgs-dump, with osd.2 marked out."""
    om, cmap, pool = osdmap
    out = subprocess.run([OSDMAPTOOL, str(om), "--mark-up-in", "--mark-out", "2",
                          "--test-map-pgs-dump", "--pool", "1"],
                         capture_output=True, text=True, check=True).stdout
    want = [line for line in out.splitlines() if line.startswith("1.")]
    state = objects.OsdState.all_up(6)
    state.weight[2] = 0
    got = [f"{m['pgid']}\t[{','.join(map(str, m['up']))}]\t{m['up_primary']}"
           for m in objects.pgs_to_osds(cmap, pool, range(pool.pg_num), state)]
    assert len(want) == pool.pg_num >= 96
    assert got == want


@pytest.mark.oracle
def test_objects_like_osdmaptool(osdmap):
    """osdmaptool --test-map-object for 60 names: PG id and OSDs."""
    om, cmap, pool = osdmap
    state = objects.OsdState.all_up(6)
    for i in range(60):
        name = f"rbd_data.{i * 7919:x}.{i:016x}" if i % 2 else f"obj-{i}"
        out = subprocess.run([OSDMAPTOOL, str(om), "--mark-up-in", "--test-map-object", name,
                              "--pool", "1"], capture_output=True, text=True, check=True).stdout
        pgid, osds = re.search(r"-> (\S+) -> \[([\d,]*)\]", out).groups()
        m = objects.map_object(cmap, pool, name, state)
        assert (m["pgid"], m["up"]) == (pgid, [int(o) for o in osds.split(",") if o]), name
