"""The bare-system test's per-suite pieces without debootstrap (fast tier): one run per Debian
suite of the release table, each suite's apt sources, and the lab list a run takes."""
from types import SimpleNamespace

import pytest

from tests.setup import test_bare_system as bare


def test_one_run_per_suite_of_the_release_table():
    assert bare.SUITES == ("bookworm", "trixie", "sid")


def test_a_stable_suite_has_its_updates_and_security_unstable_has_neither():
    trixie = bare.sources("trixie")
    assert "Suites: trixie trixie-updates" in trixie and "Suites: trixie-security" in trixie
    assert "debian-security" in trixie and "bookworm" not in trixie
    sid = bare.sources("sid")
    assert "Suites: sid\n" in sid and "security" not in sid and "updates" not in sid


def test_lab_lists():
    every = bare.lab_folders("all").split()
    assert len(every) == 12 and every[0].startswith("00-") and every[-1].startswith("11-")
    # on Debian 13 (Reef, the current stable) every lab's solution runs in CI, on sid every lab's
    # student version; on Debian 12 lab 00 alone (the others run on the host)
    assert [bare.lab_folders(bare.DEFAULT_LABS[s]) for s in bare.SUITES] == [
        "00-welcome", " ".join(every), " ".join(every)]
    assert [bare.DEFAULT_NOTEBOOKS.get(s, "student") for s in bare.SUITES] == ["student", "solutions", "student"]
    assert bare.lab_folders("09 01") == "01-redundancy 09-cephfs-metadata"
    with pytest.raises(AssertionError, match="labs are 00-welcome"):
        bare.lab_folders("01 99")


def test_notebook_kinds():
    assert bare.notebook_kind("student") == "student" and bare.notebook_kind("solutions") == "solutions"
    assert bare.artifacts_name("trixie", "student") == "trixie"
    assert bare.artifacts_name("trixie", "solutions") == "trixie-solutions"
    with pytest.raises(AssertionError, match="student or solutions"):
        bare.notebook_kind("solution")


def test_selected_suites_skips_items_that_are_not_test_functions():
    """Under `make test` the session's items include nbval's notebook cells (no originalname, no
    callspec) and other parametrized tests; only this test's suites count."""
    from types import SimpleNamespace as Item
    name = bare.test_readme_setup_on_bare_debian_runs_the_labs_and_down_leaves_nothing.__name__
    items = [Item(nodeid="solutions/00-welcome.ipynb::Cell 0"),
             Item(originalname="test_other", callspec=Item(params={"suite": "bookworm"})),
             Item(originalname=name, callspec=Item(params={"suite": "trixie"})),
             Item(originalname=name, callspec=Item(params={"suite": "sid"}))]
    assert bare.selected_suites(items) == ["trixie", "sid"]


def _bare_item(suite):
    name = bare.test_readme_setup_on_bare_debian_runs_the_labs_and_down_leaves_nothing.__name__
    return SimpleNamespace(originalname=name, callspec=SimpleNamespace(params={"suite": suite}))


def test_student_runs_are_the_selected_roots_student_versions(monkeypatch):
    """What tests/notebooks/test_labs.py skips natively: only student versions, only of the roots
    this session selected, and nothing when the roots cannot be built here."""
    for var in ("CEPHLAB_BARE_LABS", "CEPHLAB_BARE_NOTEBOOKS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(bare, "_why_not", lambda: "")
    runs = bare.student_runs([_bare_item("sid"), _bare_item("trixie")])   # trixie: solutions
    assert sorted(runs) == bare.lab_folders(bare.DEFAULT_LABS["sid"]).split()
    assert "Tentacle 20" in runs["09-cephfs-metadata"]
    assert list(bare.student_runs([_bare_item("bookworm")])) == ["00-welcome"]
    monkeypatch.setenv("CEPHLAB_BARE_NOTEBOOKS", "solutions")
    assert bare.student_runs([_bare_item("sid")]) == {}
    monkeypatch.delenv("CEPHLAB_BARE_NOTEBOOKS")
    monkeypatch.setattr(bare, "_why_not", lambda: "needs root")
    assert bare.student_runs([_bare_item("sid")]) == {}
