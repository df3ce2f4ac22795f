"""cephlab.core.ceph_version without a cluster: the version strings real Ceph packages print, and
which labs each Ceph release changes (`cephlab up` says so before a lab fails half-way)."""
import pytest

from cephlab.core import ceph_version

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
    return [lab.split()[0] for lab, _ in ceph_version.lab_caveats(major)]


def test_pacific_needs_no_note():
    assert ceph_version.lab_caveats(16) == []
    assert ceph_version.caveat_text(ceph_version.parse_version(PACIFIC)) == ""


def test_quincy_filestore_deprecated_and_mclock():
    assert labs(17) == ["04", "07", "08"]
    why = dict(ceph_version.lab_caveats(17))
    assert "deprecated" in why["04 throttles"]
    assert "mClock" in why["08 failure and recovery"]
    assert "osd_max_backfills" in why["08 failure and recovery"]


@pytest.mark.parametrize("text", [REEF, SQUID])
def test_reef_and_later_have_no_filestore(text):
    major = ceph_version.parse_version(text)[0]
    assert labs(major) == ["04", "07", "08"]
    assert "gone since Reef" in dict(ceph_version.lab_caveats(major))["07 write amplification"]


def test_older_than_pacific_is_not_supported():
    assert labs(15) == ["all"]


def test_the_note_names_the_release_and_each_lab_on_its_own_line():
    text = ceph_version.caveat_text(ceph_version.parse_version(SQUID))
    lines = text.splitlines()
    assert lines[0].startswith("note: Ceph 19.2.3 squid is installed; the labs are written for 16.2 pacific")
    assert "Debian 12" in lines[-1]
    assert [line.split(":")[0] for line in lines[1:-1]] == \
        ["  - lab 04 throttles", "  - lab 07 write amplification", "  - lab 08 failure and recovery"]


def fake_ceph(tmp_path, text):
    prog = tmp_path / "ceph-mon"
    prog.write_text(f"#!/bin/sh\necho '{text}'\n")
    prog.chmod(0o755)
    return str(prog)


def test_note_once_prints_once_per_release(tmp_path, monkeypatch):
    monkeypatch.setattr(ceph_version, "_noted", set())
    said = []
    binary = fake_ceph(tmp_path, REEF)
    ceph_version.note_once(binary, said.append)
    ceph_version.note_once(binary, said.append)
    assert len(said) == 1 and "18.2.7 reef" in said[0]


def test_note_once_is_silent_on_pacific_and_on_a_program_that_does_not_say(tmp_path, monkeypatch):
    monkeypatch.setattr(ceph_version, "_noted", set())
    said = []
    ceph_version.note_once(fake_ceph(tmp_path, PACIFIC), said.append)
    (tmp_path / "other").mkdir()
    ceph_version.note_once(fake_ceph(tmp_path / "other", "garbage"), said.append)
    ceph_version.note_once(str(tmp_path / "missing"), said.append)
    ceph_version.note_once(None, said.append)
    assert said == []


def test_cephlab_up_says_it_first_even_when_quiet(tmp_path, monkeypatch, capsys):
    """The note comes before anything can fail (here: a folder that is not a cluster's)."""
    from cephlab.backends.native import lifecycle as native
    from cephlab.core.errors import SetupError
    monkeypatch.setattr(ceph_version, "_noted", set())
    monkeypatch.setenv("CEPHLAB_BIN_DIR", str(tmp_path))
    fake_ceph(tmp_path, SQUID)
    folder = tmp_path / "not-a-cluster"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(SetupError, match="not a cephlab cluster folder"):
        native.up("relnote", dir=folder, progress=False)
    err = capsys.readouterr().err
    assert "note: Ceph 19.2.3 squid is installed" in err and "lab 08 failure and recovery" in err
