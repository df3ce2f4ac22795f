"""models.containers: cephadm's names and mounts for a daemon (Ceph v16.2.15 src/cephadm/cephadm)."""
import re
import shutil
from pathlib import Path

import pytest

from models import containers

FSID = "6b1a3c1e-2f4d-11ee-9c1a-525400a1b2c3"

# Golden values: what cephadm 16.2.15 names for osd.3 and mon.ceph1 of this fsid.
GOLDEN = {
    "osd.3": {"unit": f"ceph-{FSID}@osd.3.service", "container": f"ceph-{FSID}-osd-3",
              "host data dir": f"/var/lib/ceph/{FSID}/osd.3", "mounted at": "/var/lib/ceph/osd/ceph-3"},
    "mon.ceph1": {"unit": f"ceph-{FSID}@mon.ceph1.service", "container": f"ceph-{FSID}-mon-ceph1",
                  "host data dir": f"/var/lib/ceph/{FSID}/mon.ceph1",
                  "mounted at": "/var/lib/ceph/mon/ceph-ceph1"},
    "rgw.s3.ceph2.abc": {"container": f"ceph-{FSID}-rgw-s3-ceph2-abc",
                         "mounted at": "/var/lib/ceph/radosgw/ceph-rgw.s3.ceph2.abc"},
}


@pytest.mark.parametrize("daemon", GOLDEN)
def test_cephadm_layout_golden(daemon):
    layout = containers.cephadm_layout(FSID, daemon)
    assert {k: layout[k] for k in GOLDEN[daemon]} == GOLDEN[daemon]


def test_thesis_layout_shares_one_folder():
    a, b = containers.thesis_layout("osd.0"), containers.thesis_layout("mon.1")
    assert a["host data dir"] == b["host data dir"], "seed 002: every container mounts /docker/ceph/data/lib"
    assert containers.cephadm_layout(FSID, "osd.0")["host data dir"] != \
        containers.cephadm_layout(FSID, "osd.1")["host data dir"]


@pytest.mark.parametrize("fsid, daemon, name", [
    ("not-a-uuid", "osd.1", "fsid"), (FSID.upper(), "osd.1", "fsid"),
    (FSID, "osd", "daemon"), (FSID, "disk.1", "daemon"), (FSID, "osd./x", "daemon"),
])
def test_invalid_input_names_the_parameter(fsid, daemon, name):
    with pytest.raises(ValueError, match=name):
        containers.cephadm_layout(fsid, daemon)


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which("cephadm") is None, reason="cephadm not installed")
def test_layout_rules_are_cephadms():
    """The installed cephadm script (Debian 16.2.15) still builds the names this way."""
    src = Path(shutil.which("cephadm")).read_text()
    assert "os.path.join(data_dir, fsid, '%s.%s' % (t, n))" in src
    assert "'ceph-%s@%s.%s' % (fsid, daemon_type, daemon_id)" in src
    assert "cname='ceph-%s-%s.%s' % (fsid, daemon_type, daemon_id)" in src
    assert "self._cname.replace('.', '-')" in src
    assert "cdata_dir = '/var/lib/ceph/%s/ceph-%s' % (daemon_type, daemon_id)" in src
    assert re.search(r"'--rm',", src)
