"""cephlab.backends.native.conf without a cluster: keyrings, cephx keys and the ceph.conf text
(fast tier: no cluster)."""
import base64
import os
import stat
import struct

from cephlab.backends.native import conf

PORTS = {"mon_v2": 43300, "mon_v1": 43301, "bind_min": 43302, "bind_max": 43399}


def test_a_cephx_key_has_ceph_s_binary_layout():
    raw = base64.b64decode(conf.make_key())
    kind, _sec, nsec, length = struct.unpack("<HIIH", raw[:12])
    assert (kind, nsec, length, len(raw)) == (1, 0, 16, 28)     # AES, 16-byte secret
    assert conf.make_key() != conf.make_key()


def test_keyring_text_quotes_caps_as_ceph_authtool_writes_them():
    text = conf.keyring_text("mgr.x", "KEY==")
    assert text == ('[mgr.x]\n\tkey = KEY==\n\tcaps mon = "allow profile mgr"\n'
                    '\tcaps osd = "allow *"\n\tcaps mds = "allow *"\n')
    assert conf.keyring_text("client.lab", "K", caps={}) == "[client.lab]\n\tkey = K\n"


def test_secrets_are_written_0600(tmp_path):
    path = tmp_path / "keyring"
    conf.write_private(path, "secret")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and path.read_text() == "secret"


def test_ceph_conf_keeps_every_path_inside_the_cluster_folder_and_listens_on_loopback(tmp_path):
    text = conf.ceph_conf(tmp_path, "fsid-1", PORTS)
    paths = [v.strip() for line in text.splitlines() if "=" in line and not line.startswith("#")
             for v in [line.split("=", 1)[1]] if v.strip().startswith("/")]
    assert paths and all(p.startswith(str(tmp_path)) for p in paths), paths
    assert "/etc/ceph" not in text and "/var/lib/ceph" not in text and "/var/log/ceph" not in text
    assert "[v2:127.0.0.1:43300,v1:127.0.0.1:43301]" in text
    assert "0.0.0.0" not in text
