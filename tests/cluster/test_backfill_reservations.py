"""Recovery and backfill as Ceph schedules them, on a 6-OSD cluster of this test's own (issue 25
item 3). An OSD is killed and marked out; each of its PGs gets a new OSD. A PG whose whole history
is still in its PG log (up to 10,000 entries in Pacific: every small lab pool) recovers from the
log, and its primary reserves a slot on every replica; a PG whose log was trimmed is backfilled,
and its primary reserves only the new OSD. Each reserver has osd_max_backfills slots. The oracle
is each OSD's own `ceph tell osd.N dump_recovery_reservations`, sampled every 0.2 s, and the PG
states the mgr reports:

- no OSD ever holds more than osd_max_backfills slots on either side (the scheme itself);
- log-based recovery never runs more PGs at once than every-replica reservations allow:
  floor(5 survivors x 1 slot / 2 replicas) = 2 (models.recovery.pgs_at_once, backfill=False);
- backfill never runs more than the exact bound for the PGs that moved (models.recovery.
  backfill_slots on their primaries and targets), and more than log-based recovery's 2.
"Copying" means holding every slot needed, read from the reservers themselves: the mgr's PG
states arrive 1-2 s late and once showed a finished PG still recovering beside two new ones. A
sample can miss a short burst, never invent one, so the upper bounds are strict and the lower one
(backfill > 2) holds because these PGs copy for seconds.
"""
import os

import pytest

from cephlab import Cluster
from cephlab.helpers import recovery as rh
from cephlab.helpers.lab import LabSession
from models import recovery as rec

pytestmark = pytest.mark.cluster

NAME = f"pytest-{os.getpid()}-bf"
OSDS, PG_NUM, OBJECTS = 6, 64, 1200      # 4 KiB objects: the sleep binds (10 objects/s per OSD)
HELD = PG_NUM * 3 // OSDS                # PGs on each OSD, on average


@pytest.fixture(scope="module")
def lab():
    c = Cluster.start(name=NAME, osds=OSDS, progress=False)
    try:
        session = LabSession("bf", min_osds=OSDS, cluster=c)
        # the same sleep whatever class the OSDs gave their devices
        session.config_set("osd", "osd_recovery_sleep", rec.OSD_RECOVERY_SLEEP_HDD)
        yield session
        session.cleanup()
    finally:
        c.stop()


def fill(lab, name):
    pool = lab.replicated_pool(name, size=3, pg_num=PG_NUM)
    rh.write_objects(lab.cluster, pool, OBJECTS, 4096, prefix=name)
    lab.cluster.wait_for_clean(timeout=120, progress=False)
    return pool


def fail(lab, pool, victim, slots):
    lab.config_set("osd", "osd_max_backfills", slots)
    survivors = [o for o in range(OSDS) if o != victim]
    with rh.ReservationWatch(lab.cluster, survivors) as watch:
        run = rh.fail_and_recover(lab, victim, pool=pool, interval=0.5)
    rh.restore(lab, victim)
    states = {part for _, counts in run["series"] for state in counts for part in state.split("+")}
    pairs = [(p, t) for p, targets in run["backfills"].values() for t in targets]
    # PGs copying at once: every slot they need granted (a PG waiting for a remote slot already
    # holds its local one); a backfill reserves its one new OSD, log recovery both other replicas
    copying = (watch.copying(remotes=1, pgs=set(run["backfills"])) if run["backfills"]
               else watch.copying(remotes=2))
    print(f"\nmax_backfills {slots}, osd.{victim} out: states {sorted(states)}; {len(run['backfills'])} PGs "
          f"backfilled; at most {copying} PGs copying at once; one OSD held at most {watch.most_slots()} "
          f"slots (local, remote); active -> clean {run['clean'] - run['active']:.1f} s")
    assert watch.samples and max(watch.most_slots()) <= slots, "an OSD held more slots than osd_max_backfills"
    return copying, pairs, states


@pytest.mark.timeout(600)
def test_log_based_recovery_reserves_every_replica(lab):
    pool = fill(lab, "log")
    copying, pairs, states = fail(lab, pool, victim=5, slots=1)
    lab.cluster.delete_pool(pool)           # its PGs would compete for the next test's slots
    assert "recovering" in states and not pairs, "short PGs recover from their logs, no backfill"
    assert 1 <= copying <= rec.pgs_at_once(OSDS, HELD, 3, 1, backfill=False)


@pytest.mark.timeout(900)
def test_backfill_reserves_only_the_target(lab):
    # logs trimmed to 10 entries: the new OSD cannot catch up from the log and is backfilled
    for option, value in (("osd_min_pg_log_entries", 10), ("osd_max_pg_log_entries", 10),
                          ("osd_pg_log_trim_min", 1)):
        lab.config_set("osd", option, value)
    pool = fill(lab, "bf")
    copying, pairs, states = fail(lab, pool, victim=4, slots=1)
    assert "backfilling" in states and pairs
    assert 1 <= copying <= rec.backfill_slots(*zip(*pairs), 1)
    assert copying > rec.pgs_at_once(OSDS, HELD, 3, 1, backfill=False), \
        "backfill ran no more PGs at once than every-replica reservations would allow"
