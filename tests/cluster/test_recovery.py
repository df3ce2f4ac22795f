"""cephlab.helpers.recovery (lab 08): PG-state bookkeeping on recorded samples, and the parallel
checksummed writes and the client load on the test cluster."""
import pytest

from cephlab.cluster import checksums
from cephlab.helpers import recovery as rh

# A status line of seed 002 (J. Neudecker, HAW Hamburg 2021), as {state: PGs}
SEED002 = {"undersized+peered": 1, "active+undersized": 3, "active+clean": 42, "active+clean+laggy": 7,
           "stale+active+clean": 7, "peering": 20, "undersized+degraded+peered": 5,
           "active+undersized+degraded": 12}


def test_is_active_reads_the_flags():
    assert rh.is_active("active+undersized+degraded")
    assert rh.is_active("active+clean+laggy")
    assert not rh.is_active("undersized+degraded+peered")      # peered: below min_size, no I/O
    assert not rh.is_active("stale+active+clean")               # last report too old
    assert not rh.is_active("peering")


def test_state_categories_on_the_seed_line():
    cats = rh.state_categories(SEED002)
    assert sum(cats.values()) == sum(SEED002.values()) == 97     # every PG counted once
    assert cats == {"stale": 7, "peering": 26, "recovering": 0, "waiting": 0, "degraded": 15,
                    "active+clean": 49}


def test_state_categories_prefers_the_most_urgent_flag():
    cats = rh.state_categories({"active+recovering+degraded": 2, "active+recovery_wait+degraded": 5,
                                "active+undersized+remapped+backfill_wait": 1, "activating+degraded": 3})
    assert cats["recovering"] == 2 and cats["waiting"] == 6 and cats["peering"] == 3 and cats["degraded"] == 0


@pytest.mark.cluster
def test_parallel_writes_verify_and_detect_damage(lab_cluster):
    c = lab_cluster
    with c.resources() as r:
        pool = r.replicated_pool("t_recovery", size=3, pg_num=8)
        manifest = rh.write_objects(c, pool, count=24, size=65536, prefix="p")
        assert len(manifest) == 24 and len(set(manifest.values())) == 24
        assert rh.verify_objects(c, pool, manifest) == []
        checksums.put(c, pool, "p-000003", b"changed")          # one object no longer matches
        bad = dict(manifest, **{"p-missing": manifest["p-000000"]})
        assert rh.verify_objects(c, pool, bad) == ["p-000003", "p-missing"]
        with rh.WriteLoad(c, pool, pause=0.01) as load:
            while len(load.ops) < 20:
                load.join(0.1)
        assert len(load.manifest) >= 20 and rh.verify_objects(c, pool, load.manifest) == []
        pgs, objects, size = rh.objects_on_osd(c, pool, int(c.ceph("osd", "ls")[0]))
        assert 0 < pgs <= 8 and objects <= 24 + len(load.manifest) and size >= 0
