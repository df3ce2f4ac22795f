"""The lab cells that run only where a release has the mechanism (LabSession.has_filestore,
runs_mclock_by_default) read the release table and, where they skip, say why in the learner's
cell."""
from types import SimpleNamespace

import pytest

from cephlab.core import releases
from cephlab.helpers.lab import LabSession


def session(major):
    return SimpleNamespace(cluster=SimpleNamespace(release=lambda: releases.TABLE[major]))


@pytest.mark.parametrize("major, runs", [(16, False), (18, True), (20, True)])
def test_mclock_part_runs_where_mclock_is_the_default_with_its_override(major, runs, capsys):
    assert LabSession.runs_mclock_by_default(session(major)) is runs
    said = capsys.readouterr().out
    assert ("skips its mClock measurement" in said) is not runs
    if not runs:
        assert "wpq" in said and "Quincy" in said


@pytest.mark.parametrize("major, runs", [(16, True), (18, False), (20, False)])
def test_filestore_part_runs_where_ceph_osd_can_create_filestore(major, runs, capsys):
    assert LabSession.has_filestore(session(major)) is runs
    assert ("skips its FileStore measurement" in capsys.readouterr().out) is not runs
