"""The mgr files a release needs (cephlab/core/mgr_files.py): the bcrypt stand-in on Reef only,
the same for the native cluster and the cephadm image."""
from __future__ import annotations

import importlib.util

import pytest

from cephlab.core import mgr_files, releases


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
    for major in (16, 20):
        assert mgr_files.write_image_files(releases.for_major(major), tmp_path / str(major)) == []
