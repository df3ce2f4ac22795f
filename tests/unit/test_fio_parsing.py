"""cephlab.cluster.measure.parse_fio against fio itself (its null engine: real fio JSON, no cluster)."""
import json
import shutil
import subprocess

import pytest

from cephlab.cluster.measure import parse_fio

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (make setup)")


def run_fio(tmp_path, rw):
    out = subprocess.run(["fio", "--name=unit", "--ioengine=null", "--size=64M", f"--rw={rw}", "--bs=4k",
                          "--output-format=json", f"--directory={tmp_path}"],
                         capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


@pytest.mark.parametrize("rw", ["randwrite", "randread", "randrw"])
def test_parse_fio_reports_what_fio_measured(tmp_path, rw):
    raw = run_fio(tmp_path, rw)
    res = parse_fio(raw, rw, 4096)
    job = raw["jobs"][0]
    dirs = [job[k] for k in ("read", "write") if job[k]["total_ios"]]
    assert res.ops == sum(d["total_ios"] for d in dirs) == 64 * 1024 // 4
    assert res.iops == pytest.approx(sum(d["iops"] for d in dirs))
    assert res.mb_s == pytest.approx(sum(d["bw_bytes"] for d in dirs) / 2**20)
    assert res.lat_max_ms == pytest.approx(max(d["lat_ns"]["max"] for d in dirs) / 1e6)
    assert res.seconds == job["job_runtime"] / 1000 and res.op == rw


def test_no_io_is_an_error_not_zeros():
    from cephlab.core.errors import ClusterError
    empty = {"jobs": [{"read": {"total_ios": 0}, "write": {"total_ios": 0}, "error": 5}]}
    with pytest.raises(ClusterError, match="fio did no I/O"):
        parse_fio(empty, "randwrite", 4096)
