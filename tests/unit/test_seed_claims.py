"""What the labs say a seed said, or what a model table shows, is what it says (issue 46).

Each test reads the text learners and graders get: the lab's source (solutions/NN.py), its
executed solution and its student notebook (the cells' sources, not their outputs), and the book.
The wrong phrase must be gone from every copy and the right one present in each."""
import json

import numpy as np
import pytest

from models import iops
from models import recovery as rec
from tests.claims_text import ROOT, check, lab_files, plain  # noqa: F401

MiB = 1024 * 1024








# 1. Lab 08 W1: raising osd_max_backfills alone halves the small cluster's recovery only.
SMALL = dict(data=200 * MiB, osds=6, pgs=6, object_size=MiB, per_pg=30 * MiB, device=30 * MiB)
BIG = dict(data=0.6 * 8e12, osds=200, pgs=100, object_size=4 * MiB, per_pg=50e6, device=150e6)


def recovery_s(cl, max_backfills, sleep=rec.OSD_RECOVERY_SLEEP_HDD):
    """The lab 08 model table's `recovery s` for one of its two example clusters."""
    backfill = bool(rec.is_backfilled(cl["data"] / cl["object_size"] / cl["pgs"], cl["pgs"]))
    return float(rec.reservation_time(cl["data"], cl["osds"], cl["pgs"], cl["per_pg"], max_backfills, sleep,
                                      object_size=cl["object_size"], device_rate=cl["device"], backfill=backfill))


def test_lab08_rubric_says_what_the_model_table_shows():
    """The model and the executed table give what the rubric now states, and not "half on both"."""
    assert recovery_s(SMALL, 1) == pytest.approx(10.0, abs=0.01)
    assert recovery_s(SMALL, 4) == pytest.approx(5.42, abs=0.01)
    assert recovery_s(BIG, 1) == pytest.approx(1453.11, abs=0.01)
    assert recovery_s(BIG, 4) == pytest.approx(recovery_s(BIG, 1))       # the sources, not the slots
    assert recovery_s(BIG, 4, sleep=0.0) == pytest.approx(960.0)
    assert np.isclose(rec.recovery_sources(BIG["osds"], BIG["pgs"]), 78.76, atol=0.01)
    nb = json.loads((ROOT / "solutions" / "08-failure-and-recovery.ipynb").read_text(encoding="utf-8"))
    table = next("".join(o["data"]["text/plain"]) for c in nb["cells"] if c["cell_type"] == "code"
                 and "model_table = pd.DataFrame" in "".join(c["source"])
                 for o in c["outputs"] if "text/plain" in o.get("data", {}))
    assert table.count("1453.11") == 2 and "5.42" in table and "10.00" in table and "960.00" in table
    check([ROOT / "book" / "rubrics.md"],
          absent=["roughly half the time on both example clusters"],
          present=["10 s becomes 5.4 s", "stays at 1,453 s, with the defaults and with 4 slots",
                   "the big cluster gains nothing is right"])


# 2. Lab 07: the case-4 cluster (WBThrottle tuned) is seed 000's (NAVER), not seed 003's.
def test_lab07_case4_is_seed_000s():
    check(lab_files("07-write-amplification"), absent=["seed 003's case-4"],
          present=["seed 000's case-4 cluster fast until the cache was full"])


# 3. Lab 10: seed 002's HDD and SSD were not local; the thesis mounted them over the network.
def test_lab10_seed002_disks_were_mounted_not_local():
    check(lab_files("10-database-on-ceph"),
          absent=["on a local HDD and on a local SSD", "slower than a local SSD", "ten times its local HDD"],
          present=['"a physically separate machine, which had the storage mounted by either NFS or the ceph '
                   'kernel-module"', '"were discrete disks"', "slower than an SSD (mounted over NFS)",
                   "ten times its HDD (mounted over NFS)"])
    check([ROOT / "models" / "database.py"], absent=["a local HDD and a local SSD"],
          present=["mounted by either NFS or the ceph kernel-module"])


# 4. Lab 03: seed 001 ran queue depth 16 in each of 24 jobs; the lab runs one job of 16.
def test_lab03_says_what_seed001_ran():
    check(lab_files("03-disk-iops"), absent=["16 in flight, as in seed 001", "(fio, 8 KiB, QD 16)"],
          present=['"relatively high queue-depth (16), small block size (8kB), and some parallelism (24)"',
                   "This lab runs one job of 16, because its machine has only two cores",
                   "queue depth 16 in each of 24 parallel jobs"])


# 5. Seed 004: "10^4 IOPS per CPU (CPU: Xeon E5-2630 v3)", which the lab reads per core.
SEED004 = '"10^4 IOPS per CPU (CPU: Xeon E5-2630 v3)"'
MISQUOTED = ["~10^4 IOPS per core", "10^4 IOPS per core", "IOPS per CPU core", "seed 004's \"IOPS per core\"",
             "(seed 004: 10,000)", "really CPU consuming"]


def test_lab03_quotes_seed004_exactly():
    check(lab_files("03-disk-iops"), absent=MISQUOTED,
          present=[SEED004, '"really cpu consuming"', "This lab reads it per core; an E5-2630 v3 has 8 cores",
                   "read per socket, it gives each core 8 times fewer IOPS",
                   "seed 004's \"10^4 IOPS per CPU\", read per core as in this lab",
                   "(seed 004: 10,000 per CPU, read per core)"])


def test_book_quotes_seed004_as_per_cpu():
    check([ROOT / "book" / "syllabus.md", ROOT / "book" / "rubrics.md"],
          absent=["~10^4 IOPS per core", "seed 004's 10^4 writes per second", "Qihoo: IOPS per core"],
          present=['seed 004\'s "10^4 IOPS per CPU"'])


def test_cpu_ceiling_docstring_quotes_seed004_and_states_its_reading():
    doc = " ".join(iops.cpu_ceiling_iops.__doc__.split())
    assert SEED004 in doc and "per core" in doc and "8 cores" in doc and "per socket" in doc
    assert "IOPS per CPU core" not in doc and "~10^4 IOPS per core" not in " ".join(iops.__doc__.split())
    assert iops.cpu_ceiling_iops(16) == pytest.approx(160000)         # the numbers stay as they were
