"""models.crush.objects: a pool's up sets, PGs per OSD, what changed, a map with one more OSD
(moved out of lab 02's cells)."""
import numpy as np

from models.crush import build, objects


def _lab():
    cmap = build.hosts_map(1, 4)                       # the lab cluster: one host, 4 OSDs
    pool = objects.Pool(id=3, name="rbd", pg_num=32, size=3, crush_rule=1)
    return cmap, pool, objects.OsdState.all_up(4)


def test_pool_up_sets_are_pgs_to_osds():
    cmap, pool, state = _lab()
    sets = objects.pool_up_sets(cmap, pool, state)
    assert list(sets)[:3] == ["3.0", "3.1", "3.2"] and len(sets) == 32
    assert sets["3.1f"] == objects.pgs_to_osds(cmap, pool, [31], state)[0]["up"]
    assert all(len(set(up)) == 3 for up in sets.values())


def test_pgs_per_osd_counts_one_pool():
    sets = {"1.0": [0, 1, 2], "1.1": [1, 2, 3], "2.0": [0, 1, 2]}
    assert objects.pgs_per_osd(sets, 1, [0, 1, 2, 3]).tolist() == [1, 2, 2, 1]
    assert objects.pgs_per_osd(sets, 2, [3, 0]).tolist() == [0, 1]
    cmap, pool, state = _lab()
    assert objects.pgs_per_osd(objects.pool_up_sets(cmap, pool, state), 3, range(4)).sum() == 96


def test_up_set_changes():
    before = {"1.0": [0, 1, 2], "1.1": [1, 2, 3], "1.2": [3, 0, 1]}
    after = {"1.0": [0, 1, 2], "1.1": [1, 4, 3], "1.2": [0, 3, 1], "1.3": [4, 0, 1]}
    # 1.2 changed its order only: a changed up set, no copy moved
    assert objects.up_set_changes(before, after) == (["1.1", "1.2"], 1)


def test_with_new_osd_predicts_the_five_osd_map():
    """osd.4 joining the 4-OSD host gives the placements of the 5-OSD map built directly, and
    about 1/5 of the copies move (models.placement: the least possible is 20 %)."""
    cmap, pool, state = _lab()
    new_map, new_state = objects.with_new_osd(cmap, state, 4)
    assert new_state.weight.tolist() == [0x10000] * 5 and new_state.up.all() and new_state.exists.all()
    assert new_map.device_classes[4] == "hdd" and state.weight.size == 4
    pool = objects.Pool(id=3, name="rbd", pg_num=256, size=3, crush_rule=1)
    after = objects.pool_up_sets(new_map, pool, new_state)
    direct = objects.pool_up_sets(build.hosts_map(1, 5), pool, objects.OsdState.all_up(5))
    assert after == direct
    changed, new_copies = objects.up_set_changes(objects.pool_up_sets(cmap, pool, state), after)
    # most new copies land on osd.4 (163); a few more move between old OSDs (firstn retries)
    assert objects.pgs_per_osd(after, 3, [4])[0] == 163 and new_copies == 169
    assert abs(new_copies / (3 * 256) - 0.2) < 0.05 and len(changed) == 163
    assert np.isclose(sum(objects.pgs_per_osd(after, 3, range(5))), 768)
