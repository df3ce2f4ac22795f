"""cephlab.backends.native.paths without a cluster: names, folders and the port blocks (fast tier)."""
import socket

import pytest

from cephlab.backends.native import paths
from cephlab.core.errors import SetupError
from cephlab.core.names import check_name


@pytest.mark.parametrize("name", ["lab", "pytest-123", "a_b", "x" * 32])
def test_good_names(name):
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["", "a/b", "with space", "x" * 33, None, "../up"])
def test_bad_names_say_what_is_allowed(name):
    with pytest.raises(SetupError, match="1-32 letters"):
        check_name(name)


def test_state_home_follows_cephlab_dir_then_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("CEPHLAB_DIR", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert paths.state_home() == tmp_path / "xdg" / "cephlab"
    monkeypatch.setenv("CEPHLAB_DIR", str(tmp_path / "own"))
    assert paths.cluster_dir("lab") == (tmp_path / "own" / "lab").resolve()


def test_port_blocks_stay_below_the_ephemeral_range():
    last = paths.block_ports(paths.PORT_SLOTS - 1)
    assert paths.block_ports(0)["mon_v2"] >= 10000 and last["bind_max"] < 32768
    ports = paths.block_ports(3)
    assert ports["mon_v1"] == ports["mon_v2"] + 1 and ports["bind_max"] - ports["mon_v2"] == paths.PORT_BLOCK - 1


def test_a_busy_port_moves_the_cluster_to_the_next_block():
    name = "unit-ports"
    first = paths.choose_ports(name)
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", first["bind_min"] + 5))
        s.listen()
        moved = paths.choose_ports(name)
        assert moved["mon_v2"] != first["mon_v2"]
        with pytest.raises(SetupError):
            paths.check_ports_free({"mon_v2": first["bind_min"] + 5, "mon_v1": first["mon_v1"]})


def test_missing_binaries_are_named_with_the_install_hint(monkeypatch, tmp_path):
    monkeypatch.setenv("CEPHLAB_BIN_DIR", str(tmp_path))
    with pytest.raises(SetupError, match="ceph-mon.*not found in CEPHLAB_BIN_DIR.*apt-get install"):
        paths.require_binaries()

