"""What the labs and helpers say Ceph's code does is what the code at v16.2.15, v18.2.7 and v20.2.4
does (issue 46), and book/ceph-facts.md cites it as `path@tag:line`.

The tests read this repository's files, not Ceph's source: the lab's source (solutions/NN.py), its
executed solution and its student notebook (cell sources, not outputs), the helpers, README.md
and the book. book/ceph-facts.md says where each line comes from."""
import re
from types import SimpleNamespace

import pytest

from cephlab.core import releases
from cephlab.helpers import waf
from cephlab.helpers.lab import LabSession
from tests.claims_text import ROOT, check, lab_files, plain  # noqa: F401

FACTS = ROOT / "book" / "ceph-facts.md"








# 1. The deferred pair: Pacific's bluestore_write_deferred_bytes is counted where the write path
# makes the deferred op (_get_deferred_op), Reef's issued_deferred_write_bytes; Pacific's
# deferred_write_bytes just before the in-place aio_write (_deferred_submit_unlock), Reef's
# submitted_deferred_write_bytes. BlueStore.cc@v18.2.7:13860 and :13976, @v20.2.4:15424 and :15540.
@pytest.mark.parametrize("major", [18, 20])
def test_reef_names_the_deferred_pair_by_the_moment_each_is_counted(major):
    release = releases.TABLE[major]
    assert release.counter("bluestore_write_deferred_bytes") == "issued_deferred_write_bytes"
    assert release.counter("deferred_write_bytes") == "submitted_deferred_write_bytes"
    assert release.counter("bluestore_write_big_bytes") == "write_big_bytes"
    assert releases.TABLE[16].counter("deferred_write_bytes") == "deferred_write_bytes"


def fake_cluster(major, dump):
    return SimpleNamespace(release=lambda: releases.TABLE[major], perf_dump=lambda osd: dump)


@pytest.mark.parametrize("major", [18, 20])
def test_lab07_columns_read_the_submitted_bytes_as_deferred_data(major):
    """deferred_data is what was written in place (submitted); data is big + small minus what the
    write path made deferred (issued), both counted as the transaction is prepared."""
    dump = {"bluestore": {"write_big_bytes": 0, "write_small_bytes": 1000,
                          "issued_deferred_write_bytes": 900, "submitted_deferred_write_bytes": 600}}
    got = waf.counters(fake_cluster(major, dump), [0])
    assert got["deferred_data"] == 600 and got["write_deferred"] == 900
    run = waf.WriteRun(block_size=4096, client_bytes=1000, device_bytes={0: 0}, counters=got)
    assert run.component_waf()["data"] == pytest.approx(0.1)        # 1000 - 900, not 1000 - 600


def test_the_counter_comments_say_which_moment_each_counts():
    source = (ROOT / "cephlab" / "core" / "releases.py").read_text(encoding="utf-8")
    assert "data written in place when a deferred write is issued" not in source
    assert "bytes put into the deferred queue at\n# submit" not in source
    for cite in ("BlueStore.cc@v18.2.7:13860", "@v20.2.4:15424", "BlueStore.cc@v18.2.7:13976",
                 "@v20.2.4:15540", "BlueStore.cc@v16.2.15:12794"):
        assert cite in source, cite
    helper = " ".join(re.sub(r"(?m)^\s*# ?", "", (ROOT / "cephlab" / "helpers" / "waf.py").read_text(
        encoding="utf-8")).split())
    assert "counted at submit (Reef: submitted_deferred_write_bytes)" in helper
    assert "counted as the transaction is prepared, as big and small are (Reef: issued_deferred_write_bytes)" \
        in helper
    assert "Ceph sends some writes below prefer_deferred direct" not in helper


def test_lab07_says_when_each_deferred_counter_counts():
    check(lab_files("07-write-amplification"),
          absent=["and direct data (big + small writes − deferred)", "rename the deferred pair",
                  "since Ceph sends part of the 16 KiB overwrites direct"],
          present=["`deferred_write_bytes` counts deferred data as it is written in place",
                   "`bluestore_write_deferred_bytes` counts it earlier, as each transaction is prepared",
                   "call the deferred pair `submitted_deferred_write_bytes` and `issued_deferred_write_bytes`",
                   "the deferred share is measured: the counters see part of the 16 KiB overwrites as direct"])


# 2. mClock is Quincy's default from 17.2.0; the override came with 17.2.6 (PR 49437), the hold at
# 1 backfill with 17.2.7 (PR 49973) and Reef: doc/releases/quincy.rst@v20.2.4:1820 and :1269.
def test_quincy_is_described_by_its_point_release(capsys):
    session = SimpleNamespace(cluster=SimpleNamespace(release=lambda: releases.TABLE[16]))
    lab = ROOT / "cephlab" / "helpers" / "lab.py"
    assert "and its override of the recovery settings came with it" not in plain(lab)
    assert LabSession.runs_mclock_by_default(session) is False
    said = capsys.readouterr().out
    assert "the default from Quincy 17.2.0 on" in said and "came with 17.2.6" in said
    assert "with 17.2.7 and Reef" in said
    doc = " ".join(releases.for_major.__doc__.split())
    assert "Quincy matches Reef's row from 17.2.7 on" in doc and "raised to 1000" in doc
    check([ROOT / "README.md"],
          present=["Quincy matches Reef's row from 17.2.7 on. 17.2.0 to 17.2.5 raise the recovery slots to "
                   "1000 and have no `osd_mclock_override_recovery_settings`; 17.2.6 has it but holds "
                   "`osd_max_backfills` at 3"])


# 3. Without the override the OSD removes the change (`config rm` on `osd` and `osd.N`) and writes
# a warning to the cluster log: src/osd/OSD.cc@v18.2.7:10226-10249, @v20.2.4:10353-10376.
def test_lab08_says_the_osd_removes_a_change_made_without_the_override():
    check(lab_files("08-failure-and-recovery"),
          absent=["A change without it is stored in the config database, but the OSD does not apply it",
                  "and refuse changes unless"],
          present=["Without it, each OSD removes such a change from the config database (`config rm` for "
                   "`osd` and `osd.N`) and writes a warning to the cluster log that it did not take effect",
                   "each OSD removes a change to them unless `osd_mclock_override_recovery_settings` is true",
                   "Quincy from 17.2.7, Reef, Tentacle"])


# 4. Every write below bluestore_prefer_deferred_size is deferred, new space too
# (BlueStore.cc@v18.2.7:15854); an overwrite of allocated blocks inside one min_alloc_size unit is
# deferred with no size test (:14985-15030), on SSD too.
def test_labs_04_and_07_say_which_writes_are_deferred():
    check(lab_files("04-throttles"),
          absent=["small overwrites pass through RocksDB's write-ahead log first"],
          present=["Writes below `bluestore_prefer_deferred_size` (64 KiB on HDD, 0 on SSD) pass through "
                   "RocksDB's write-ahead log first, new space too; so do overwrites of allocated blocks "
                   "smaller than `bluestore_min_alloc_size` (4 KiB), on SSD too"])
    check(lab_files("07-write-amplification"),
          absent=["A *small* overwrite is **deferred**", "but only for writes below"],
          present=["is deferred, into new space too",
                   "An overwrite of allocated blocks smaller than `bluestore_min_alloc_size` (4 KiB) is always "
                   "deferred, on SSD too"])


def every_text_file():
    """What learners, graders and readers get; book/ceph-facts.md quotes the old claim in its row."""
    for folder, pattern in (("solutions", "*.py"), ("solutions", "*.ipynb"), ("labs", "*/*.ipynb"),
                            ("book", "*.md"), ("models", "*.py"), ("cephlab", "**/*.py")):
        yield from (p for p in (ROOT / folder).glob(pattern) if p != FACTS)
    yield ROOT / "README.md"


def test_nothing_says_flash_never_defers():
    said = [str(p.relative_to(ROOT)) for p in every_text_file() if "flash never defers" in plain(p).lower()]
    assert not said, f"flash defers overwrites smaller than min_alloc_size: {said}"
    check(lab_files("03-disk-iops"), present=["(on flash an aligned 4 KiB write is not deferred)"])


# The book cites each fix's source lines at one of the three tags.
CITED = ["src/os/bluestore/BlueStore.cc@v18.2.7:13859", "`@v20.2.4:15423`", "`@v18.2.7:13975`",
         "`@v20.2.4:15539`", "`BlueStore.cc@v16.2.15:12794`", "`@v18.2.7:15854`", "`:14985` to `:15030`",
         "`:16504` to `:16549`", "`src/osd/OSD.cc@v18.2.7:9963`", "`@v20.2.4:10073`", "`:10226` to `:10241`",
         "`:10353` to `:10368`", "`src/common/options/osd.yaml.in@v18.2.7:1219`", "`@v20.2.4:1319`",
         "`doc/releases/quincy.rst@v20.2.4:2516`", "at `:1820`", "at `:1269`"]


def test_ceph_facts_cite_each_fix_at_its_tag():
    text = FACTS.read_text(encoding="utf-8")
    for cite in CITED:
        assert cite in text, cite
    tags = set(re.findall(r"@(v\d+\.\d+\.\d+):\d+", text))
    assert tags <= {"v16.2.15", "v18.2.7", "v20.2.4"}, tags
    assert "flash never defers" in text and "fixed: flash defers too" in text        # the row says what changed


def test_lab04_charges_a_large_write_one_io_per_blob():
    """Lab 04's table said 'a direct write adds its own aio (2 I/Os)' and put a 4 MiB write at 2
    I/Os, 12 in flight; _txc_calc_cost counts every queued aio, one per 64 KiB blob."""
    for path in lab_files("04-throttles"):
        text = plain(path)
        assert "a direct write adds its own aio (2 I/Os)" not in text, path
        assert "one aio each: 2 I/Os for 64 KiB, 65 for 4 MiB" in text, path
    assert "BlockDevice.cc@v18.2.7:78" in FACTS.read_text(encoding="utf-8")
