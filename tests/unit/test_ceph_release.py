"""cephlab.core.ceph_version and cephlab.core.releases without a cluster: the version strings real
Ceph packages print, the release table's rows, and what each release changes for the labs
(`cephlab up` says so before a lab meets it)."""
import base64
import struct

import pytest

from cephlab.backends.native import conf
from cephlab.backends.native import lifecycle as native
from cephlab.core import ceph_version, mgr_files, releases

# `ceph --version` of Debian 12, Ubuntu 22.04's Quincy, upstream Reef and Squid, and a vendor build
PACIFIC = "ceph version 16.2.15 (618f440892089921c3e944a991122ddc44e60516) pacific (stable)"
QUINCY = "ceph version 17.2.7 (b12291d110049b2f35e32e0de30d70e9a4c060d2) quincy (stable)"
REEF = "ceph version 18.2.7 (6b0e988052ec84cf2d4a54ff9bbbc5e720b621ad) reef (stable)"
SQUID = "ceph version 19.2.3 (c92aebb279828e9c3c1f5d24613efca272649e62) squid (stable)"
SQUID_BUILD = "ceph version 19.2.4-45-g7ae8fa43fe6 (7ae8fa43fe686a59c437fb7a40f35cb5ada9472c) squid (stable)"


@pytest.mark.parametrize("text, expected", [
    (PACIFIC, (16, 2, 15, "pacific")),
    (QUINCY, (17, 2, 7, "quincy")),
    (REEF, (18, 2, 7, "reef")),
    (SQUID, (19, 2, 3, "squid")),
    (SQUID_BUILD, (19, 2, 4, "squid")),
    ("ceph version 18.2.2\n", (18, 2, 2, "reef")),           # no codename: from the major number
    ("warning: something\n" + QUINCY + "\n", (17, 2, 7, "quincy")),
])
def test_parse_version(text, expected):
    assert ceph_version.parse_version(text) == expected


def test_parse_version_explains_what_it_expected():
    with pytest.raises(ValueError, match="expected e.g. 'ceph version 16.2.15"):
        ceph_version.parse_version("ceph-mon: command not found")


def labs(major):
    return [lab.split()[0] for lab, _ in releases.lab_differences(releases.for_major(major), major)]


def test_pacific_needs_no_note():
    assert labs(16) == []
    assert releases.caveat_text(releases.for_major(16), ceph_version.parse_version(PACIFIC)) == ""


def test_debian_s_three_releases_are_rows_of_their_own():
    assert [(r.major, r.debian) for r in releases.TABLE.values()] == \
        [(16, "bookworm"), (18, "trixie"), (20, "sid")]
    assert releases.WRITTEN_FOR.major == ceph_version.WRITTEN_FOR


@pytest.mark.parametrize("major, row", [(17, 18), (19, 20), (21, 20), (15, 16), (14, 16)])
def test_a_release_not_in_the_table_takes_the_next_newer_row(major, row):
    assert releases.for_major(major).major == row


@pytest.mark.parametrize("suite, major", [("bookworm", 16), ("trixie", 18), ("sid", 20)])
def test_each_suite_names_the_release_it_ships(suite, major):
    assert releases.for_suite(suite).major == major


@pytest.mark.parametrize("suite", ["jammy", "Trixie", "", "testing"])
def test_a_suite_no_row_names_is_refused_with_the_valid_ones(suite):
    with pytest.raises(ValueError, match="suite must be .*bookworm, trixie, sid"):
        releases.for_suite(suite)


def test_reef_and_later_have_no_filestore_and_default_to_mclock():
    for major in (18, 20):
        rel = releases.for_major(major)
        assert not rel.filestore and rel.mclock_default
        assert rel.mclock_override == "osd_mclock_override_recovery_settings"
        assert labs(major)[:5] == ["04", "07", "03", "06", "08"]
        assert "skips its FileStore measurement" in dict(releases.lab_differences(rel))["07 write amplification"]
    assert releases.for_major(16).filestore and not releases.for_major(16).mclock_default


def test_counter_names_follow_the_release():
    assert releases.for_major(16).counter("bluestore_write_big_bytes") == "bluestore_write_big_bytes"
    assert releases.for_major(18).counter("bluestore_write_big_bytes") == "write_big_bytes"
    assert releases.for_major(20).counter("bluestore_write_small_bytes") == "write_small_bytes"
    assert releases.for_major(18).counter("op_w") == "op_w"           # unchanged names pass through


def test_rbd_fuse_takes_no_options_after_pacific():
    assert labs(18)[-1] == labs(20)[-1] == "10" and "10" not in labs(16)


def test_rbd_fuse_without_options_maps_only_the_default_pool(tmp_path):
    from cephlab.core.errors import SetupError
    from cephlab.helpers import database
    args, env = database.rbd_fuse_args(releases.for_major(16), "/c/ceph.conf", "lab10-db", tmp_path)
    assert args == ["-c", "/c/ceph.conf", "-p", "lab10-db", str(tmp_path)] and env is None
    args, env = database.rbd_fuse_args(releases.for_major(18), "/c/ceph.conf", "rbd", tmp_path)
    assert args == [str(tmp_path)] and env["CEPH_CONF"] == "/c/ceph.conf"
    with pytest.raises(SetupError, match="maps only the pool 'rbd', not 'lab10-db'"):
        database.rbd_fuse_args(releases.for_major(18), "/c/ceph.conf", "lab10-db", tmp_path)


def test_older_than_pacific_is_not_supported():
    assert labs(15) == ["all"]


def test_the_note_names_the_release_and_each_lab_on_its_own_line():
    version = ceph_version.parse_version(REEF)
    lines = releases.caveat_text(releases.for_major(18), version).splitlines()
    assert lines[0].startswith("note: Ceph 18.2.7 reef is installed; the labs were written for 16.2")
    assert [line.split(":")[0] for line in lines[1:]] == [
        "  - lab 04 throttles", "  - lab 07 write amplification", "  - lab 03 disk IOPS", "  - lab 06 capacity",
        "  - lab 08 failure and recovery", "  - lab 10 PostgreSQL on RBD"]


@pytest.mark.parametrize("major, kind", [(16, (1, 16)), (18, (1, 16)), (20, (2, 32))])
def test_cephx_keys_of_the_release_s_type(major, kind):
    raw = base64.b64decode(conf.make_key(releases.for_major(major).cephx_key))
    key_type, _sec, _nsec, length = struct.unpack("<HIIH", raw[:12])
    assert (key_type, length, len(raw)) == (*kind, 12 + kind[1])


def test_class_dir_only_where_the_default_is_relative(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "lib/x86_64-linux-gnu/rados-classes").mkdir(parents=True)
    osd = tmp_path / "bin/ceph-osd"
    osd.write_text("")
    assert native._class_dir(osd, releases.for_major(16)) is None
    assert native._class_dir(osd, releases.for_major(18)) == str(tmp_path / "lib/x86_64-linux-gnu/rados-classes")
    text = conf.ceph_conf(tmp_path, "f", {"mon_v2": 1, "mon_v1": 2, "bind_min": 3, "bind_max": 4},
                          class_dir="/usr/lib/x/rados-classes")
    assert "osd class dir = /usr/lib/x/rados-classes" in text.split("[osd]")[1].split("[client]")[0]


def _module(name, can_run=True, error=""):
    return {"name": name, "can_run": can_run, "error_string": error}


def test_mgr_modules_wait_until_listed_then_pass():
    assert native.mgr_module_gaps({"available": True, "available_modules": []}, {}) == \
        ["mgr modules not loaded yet"]
    assert native.mgr_module_gaps({"available": False}, {}) == ["mgr modules not loaded yet"]
    dump = {"available": True, "available_modules": [_module(m) for m in mgr_files.MGR_MODULES]}
    assert native.mgr_module_gaps(dump, {}) == []


def test_a_module_that_cannot_run_fails_at_once_naming_it_and_why():
    pyo3 = "PyO3 modules do not yet support subinterpreters"
    dump = {"available": True, "available_modules": [_module(m, False, pyo3) for m in mgr_files.MGR_MODULES]
            + [_module("dashboard", False, "not ours")]}
    with pytest.raises(native.MgrModuleFailed, match=f"balancer: {pyo3}") as e:
        native.mgr_module_gaps(dump, {})
    assert f"and {len(mgr_files.MGR_MODULES) - 4} more" in str(e.value) and "dashboard" not in str(e.value)
    ok = {"available": True, "available_modules": [_module(m) for m in mgr_files.MGR_MODULES]}
    error = {"MGR_MODULE_ERROR": {"summary": {"message": "Module 'devicehealth' has failed: disk I/O error"}}}
    with pytest.raises(native.MgrModuleFailed, match="devicehealth' has failed: disk I/O error"):
        native.mgr_module_gaps(ok, error)


def test_filestore_on_a_release_without_it_is_refused_before_anything_is_made(tmp_path, monkeypatch):
    from cephlab.core.errors import SetupError
    monkeypatch.setenv("CEPHLAB_BIN_DIR", str(tmp_path))
    for prog in ("ceph-mon", "ceph-mgr", "ceph-osd", "ceph", "monmaptool", "ceph-authtool"):
        fake_ceph(tmp_path, REEF, prog)
    monkeypatch.setattr(releases, "_noted", set())
    with pytest.raises(SetupError, match="FileStore OSDs cannot be created on Ceph 18 reef"):
        native.up("fsreef", dir=tmp_path / "c", objectstore="filestore", progress=False)
    assert not (tmp_path / "c").exists() or not any((tmp_path / "c").iterdir())


def fake_ceph(tmp_path, text, name="ceph-mon"):
    prog = tmp_path / name
    prog.write_text(f"#!/bin/sh\necho '{text}'\n")
    prog.chmod(0o755)
    return str(prog)


def test_note_once_prints_once_per_release(tmp_path, monkeypatch):
    monkeypatch.setattr(releases, "_noted", set())
    said = []
    binary = fake_ceph(tmp_path, REEF)
    releases.note_once(binary, said.append)
    releases.note_once(binary, said.append)
    assert len(said) == 1 and "18.2.7 reef" in said[0]


def test_note_once_is_silent_on_pacific_and_on_a_program_that_does_not_say(tmp_path, monkeypatch):
    monkeypatch.setattr(releases, "_noted", set())
    said = []
    releases.note_once(fake_ceph(tmp_path, PACIFIC), said.append)
    (tmp_path / "other").mkdir()
    releases.note_once(fake_ceph(tmp_path / "other", "garbage"), said.append)
    releases.note_once(str(tmp_path / "missing"), said.append)
    releases.note_once(None, said.append)
    assert said == []


def test_cephlab_up_says_it_first_even_when_quiet(tmp_path, monkeypatch, capsys):
    """The note comes before anything can fail (here: a folder that is not a cluster's)."""
    from cephlab.core.errors import SetupError
    monkeypatch.setattr(releases, "_noted", set())
    monkeypatch.setenv("CEPHLAB_BIN_DIR", str(tmp_path))
    fake_ceph(tmp_path, SQUID)
    folder = tmp_path / "not-a-cluster"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(SetupError, match="not a cephlab cluster folder"):
        native.up("relnote", dir=folder, progress=False)
    err = capsys.readouterr().err
    assert "note: Ceph 19.2.3 squid is installed" in err and "lab 08 failure and recovery" in err


@pytest.mark.parametrize("major, sleep, every", [
    (16, "osd_recovery_sleep_hdd", ("osd_recovery_sleep_hdd",)),
    (18, "osd_recovery_sleep_hdd", ("osd_recovery_sleep_hdd",)),
    (20, "osd_recovery_sleep_degraded_hdd", ("osd_recovery_sleep_hdd", "osd_recovery_sleep_degraded_hdd")),
])
def test_the_sleep_a_degraded_pg_recovers_under(major, sleep, every):
    # Tentacle's degraded sleep replaced the plain one for lab 08's failed OSD: tuning only the
    # plain one left 42 s of sleeps in its "tuned" run (three runs on 20.2.4)
    rel = releases.for_major(major)
    assert rel.recovery_sleep_option("hdd") == sleep
    assert rel.recovery_sleep_options("hdd") == every
    assert rel.recovery_sleep_options("ssd")[-1].endswith("_ssd")
