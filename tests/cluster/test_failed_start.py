"""A start that fails half-way leaves nothing running, and the next `up` recreates the cluster."""
import os
from pathlib import Path

import pytest

from cephlab import ClusterError
from cephlab.backends.native import daemons, paths
from cephlab.backends.native import lifecycle as native

pytestmark = pytest.mark.cluster


def test_failed_start_kills_what_it_started_and_next_up_recreates(tmp_path, monkeypatch):
    if not paths.find_binary("ceph-mon"):
        pytest.skip("Ceph is not installed")
    # a Ceph whose OSD cannot format: the mon and mgr start, then the OSD step fails
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for prog in ("ceph", "ceph-mon", "ceph-mgr", "monmaptool"):
        (bin_dir / prog).symlink_to(paths.find_binary(prog))
    broken = bin_dir / "ceph-osd"
    broken.write_text("#!/bin/sh\necho 'simulated mkfs failure' >&2\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setenv("CEPHLAB_BIN_DIR", str(bin_dir))
    folder = tmp_path / "broken"
    name = f"pytest-{os.getpid()}-broken"

    with pytest.raises(ClusterError, match="simulated mkfs failure"):
        native.up(name, osds=1, dir=folder, progress=False)
    state = native.load_state(folder)
    assert state["status"] == "failed"
    started = [n for n in ("mon.a", "mgr.x") if (folder / "log" / f"{n}.log").exists()]
    assert started == ["mon.a", "mgr.x"]            # they did run ...
    assert all(daemons.running_pid(folder, n) is None for n in ("mon.a", "mgr.x", "osd.0"))
    assert not any(daemons.is_ours(int(p.read_text()), folder / "ceph.conf")
                   for p in Path(folder / "run").glob("*.pid"))   # ... and nothing runs now

    monkeypatch.delenv("CEPHLAB_BIN_DIR")
    try:
        d, state, what = native.up(name, osds=1, dir=folder, progress=False)
        assert what == "created" and state["status"] == "ready"
    finally:
        native.down(name, dir=folder)
    assert not folder.exists()
