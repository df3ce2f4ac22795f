"""The mgr files a release needs (cephlab/core/mgr_files.py): the bcrypt stand-in on Reef only,
the same for the native cluster and the cephadm image."""
from __future__ import annotations

import importlib.util

import pytest

from cephlab.core import mgr_files, releases
from cephlab.core.run import run


@pytest.mark.parametrize("major, names", [(16, []), (18, ["bcrypt.py"]), (20, [])])
def test_each_release_gets_what_its_table_row_says(tmp_path, major, names):
    release = releases.for_major(major)
    assert mgr_files.write(release, tmp_path / "mgr") == names
    assert sorted(p.name for p in (tmp_path / "mgr").iterdir()) == names
    assert release.mgr_bcrypt_in_process is bool(names)


def test_the_stand_in_imports_and_refuses_to_hash(tmp_path):
    mgr_files.write(releases.for_major(18), tmp_path)
    spec = importlib.util.spec_from_file_location("bcrypt", tmp_path / "bcrypt.py")
    bcrypt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bcrypt)          # loaded beside, never into sys.modules
    for name in ("gensalt", "hashpw", "checkpw"):
        with pytest.raises(RuntimeError, match="sub-interpreters"):
            getattr(bcrypt, name)(b"secret", b"salt")


def test_the_command_line(tmp_path, capsys):
    assert mgr_files.main(["18", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == "bcrypt.py keep-modules"
    assert mgr_files.main(["16", str(tmp_path / "p")]) == 0
    assert "none needed" in capsys.readouterr().out
    assert mgr_files.main(["reef"]) == 2
    assert "usage" in capsys.readouterr().err


def test_the_cephadm_image_keeps_only_the_labs_modules_where_pyo3_loads_in_process(tmp_path):
    """Reef: the stand-in, and a keep list (the lab's modules plus cephadm) so that the cephadm
    module is the only importer of cryptography in the mgr; Pacific and Tentacle: nothing."""
    assert mgr_files.write_image_files(releases.for_major(18), tmp_path / "r") == ["bcrypt.py", "keep-modules"]
    keep = (tmp_path / "r" / "keep-modules").read_text().split()
    assert keep == list(mgr_files.MGR_MODULES) + ["cephadm"] and "dashboard" not in keep
    assert mgr_files.write_image_files(releases.for_major(16), tmp_path / "16") == []
    assert mgr_files.write_image_files(releases.for_major(20), tmp_path / "20") == [mgr_files.START_METHOD_FILE]


def test_the_start_method_snippet_changes_ceph_mgr_only(tmp_path):
    """Tentacle's image (Python 3.14): the snippet compiles and, in any process but ceph-mgr
    (this one), leaves multiprocessing's start method alone."""
    import multiprocessing
    before = multiprocessing.get_start_method(allow_none=True)
    exec(compile(mgr_files.FORK_IN_MGR, "sitecustomize", "exec"), {})
    assert multiprocessing.get_start_method(allow_none=True) == before
    assert 'set_start_method("fork", force=True)' in mgr_files.FORK_IN_MGR


def test_the_shell_scripts_table_is_the_release_tables():
    """vagrant/provision/releases.tsv is what `--table` writes now: edit releases.py, then run
    `python -m cephlab.core.mgr_files --table` (the Vagrant VMs read the file, having no .venv)."""
    assert mgr_files.TABLE_FILE.read_text() == mgr_files.shell_table()
    assert mgr_files.image_wheels(releases.for_major(16)) == ("remoto==1.2.1",)
    assert mgr_files.image_wheels(releases.for_major(18)) == mgr_files.CRYPTO_PINS
    assert mgr_files.image_wheels(releases.for_major(20)) == ()


def test_release_need_reads_the_row_for_major_reads():
    """releases.sh's release_need reads the row releases.for_major reads, for majors with a row,
    between rows, before the first and after the last."""
    script = mgr_files.TABLE_FILE.parent / "releases.sh"
    majors = list(range(12, 25))
    columns = ("codename", "ssh", "wheels", "node_suite", "cephx_cipher", "udev_records")
    asks = "; ".join('echo "' + "|".join(f"$(release_need {m} {c})" for c in columns) + '"' for m in majors)
    out = run(["bash", "-c", f'source "{script}"; {asks}'], what="release_need").stdout.splitlines()
    want = ["|".join((r.codename, r.mgr_ssh, " ".join(mgr_files.image_wheels(r)), r.node_suite,
                      mgr_files.CEPHX_CIPHERS[r.cephx_key[0]], "yes" if r.ceph_volume_needs_udev_records else "no"))
            for r in map(releases.for_major, majors)]
    assert out == want
    assert out[majors.index(17)] == "reef|asyncssh|cryptography==40.0.2 pyOpenSSL==23.1.1||aes|no"
    assert out[majors.index(20)] == "tentacle|asyncssh||trixie|aes256k|yes"      # an empty column stays empty


def test_release_need_refuses_what_it_cannot_answer():
    script = mgr_files.TABLE_FILE.parent / "releases.sh"
    for args in ("18 version", "reef ssh"):
        done = run(["bash", "-c", f'source "{script}"; release_need {args}'], what="release_need", check=False)
        assert done.returncode == 2 and "MAJOR ssh|wheels|codename" in done.stderr
