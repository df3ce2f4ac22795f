"""`vagrant validate` of vagrant/Vagrantfile for both providers, with the shipped settings and
with others. VirtualBox is not packaged in Debian 12 and Vagrant refuses to validate for a
provider it cannot detect, so the VirtualBox run puts a stand-in VBoxManage (it answers
`--version` only) on PATH: Vagrant then validates the VirtualBox section for real."""
import subprocess

import pytest
import yaml

from .conftest import VAGRANT_DIR, need

FAKE_VBOXMANAGE = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/calls.log"
[ "$1" = "--version" ] && echo "7.0.14r161095"
exit 0
"""


def validate(env, provider):
    need("vagrant")
    env = {**env, "VAGRANT_DEFAULT_PROVIDER": provider}
    return subprocess.run(["vagrant", "validate"], cwd=VAGRANT_DIR, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def fake_virtualbox(tmp_path, vagrant_env):
    bin_dir = tmp_path / "vbox-bin"
    bin_dir.mkdir()
    (bin_dir / "VBoxManage").write_text(FAKE_VBOXMANAGE)
    (bin_dir / "VBoxManage").chmod(0o755)
    return {**vagrant_env, "PATH": f"{bin_dir}:{vagrant_env['PATH']}"}, bin_dir / "calls.log"


def test_libvirt(vagrant_env):
    need("vagrant")
    plugins = subprocess.run(["vagrant", "plugin", "list"], env=vagrant_env, capture_output=True,
                             text=True, timeout=60).stdout
    if "vagrant-libvirt" not in plugins:
        pytest.skip("the vagrant-libvirt plugin is not installed: sudo apt-get install vagrant-libvirt")
    out = validate(vagrant_env, "libvirt")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "validated successfully" in out.stdout


def test_virtualbox(fake_virtualbox):
    env, calls = fake_virtualbox
    out = validate(env, "virtualbox")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "validated successfully" in out.stdout
    assert "--version" in calls.read_text()      # Vagrant did look for VirtualBox


def test_virtualbox_section_is_really_checked(fake_virtualbox, tmp_path):
    """Negative control: the stand-in does not make every VirtualBox setting pass."""
    env, _ = fake_virtualbox
    broken = tmp_path / "Vagrantfile"
    broken.write_text((VAGRANT_DIR / "Vagrantfile").read_text()
                      .replace('vb.name = "cephlab-#{name}"', 'vb.nmae = "cephlab-#{name}"')
                      .replace('HERE = File.dirname(File.expand_path(__FILE__))',
                               f'HERE = "{VAGRANT_DIR}"'))
    env = {**env, "VAGRANT_VAGRANTFILE": str(broken), "VAGRANT_DEFAULT_PROVIDER": "virtualbox"}
    out = subprocess.run(["vagrant", "validate"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode != 0
    assert "nmae" in out.stdout + out.stderr


def test_ssh_key_made_once_and_valid(vagrant_env, tmp_path):
    vagrant_env = {**vagrant_env, "CEPHLAB_VAGRANT_EXPORT": str(tmp_path / "export")}
    out = validate(vagrant_env, "libvirt")
    assert out.returncode == 0, out.stdout + out.stderr
    key = tmp_path / "export" / "ssh" / "id_cephlab"
    pub = key.with_suffix(".pub")
    first = pub.read_text()
    assert key.stat().st_mode & 0o077 == 0                 # ssh refuses readable private keys
    assert validate(vagrant_env, "libvirt").returncode == 0
    assert pub.read_text() == first                         # kept, not replaced on every run
    need("ssh-keygen")
    derived = subprocess.run(["ssh-keygen", "-y", "-f", str(key)], capture_output=True, text=True,
                             check=True).stdout.split()[:2]
    assert derived == first.split()[:2]
    bits = subprocess.run(["ssh-keygen", "-l", "-f", str(pub)], capture_output=True, text=True,
                          check=True).stdout.split()[0]
    assert bits == "3072"


@pytest.mark.parametrize("provider", ["libvirt", "virtualbox"])
def test_other_settings(provider, vagrant_env, fake_virtualbox, tmp_path):
    env = fake_virtualbox[0] if provider == "virtualbox" else vagrant_env
    path = tmp_path / "five.yml"
    path.write_text(yaml.safe_dump({"nodes": 5, "osd_disks": 3, "memory_mb": 6144,
                                    "libvirt_driver": "qemu", "offline": "always"}))
    out = validate({**env, "CEPHLAB_VAGRANT_SETTINGS": str(path)}, provider)
    assert out.returncode == 0, out.stdout + out.stderr


def test_node_one_comes_up_last(fake_virtualbox, tmp_path):
    env = fake_virtualbox[0]
    path = tmp_path / "five.yml"
    path.write_text("nodes: 5\n")
    status = subprocess.run(["vagrant", "status", "--machine-readable"], cwd=VAGRANT_DIR,
                            env={**env, "CEPHLAB_VAGRANT_SETTINGS": str(path),
                                 "VAGRANT_DEFAULT_PROVIDER": "virtualbox"},
                            capture_output=True, text=True, timeout=120)
    names = [line.split(",")[1] for line in status.stdout.splitlines() if ",state," in line]
    # node 1 comes up last: it bootstraps the cluster once the others run
    assert names == ["ceph2", "ceph3", "ceph4", "ceph5", "ceph1"]


def test_bad_settings_stop_vagrant_with_the_problems(vagrant_env, tmp_path):
    path = tmp_path / "bad.yml"
    path.write_text("nodes: 1\nmemory_mb: 1024\n")
    out = validate({**vagrant_env, "CEPHLAB_VAGRANT_SETTINGS": str(path)}, "libvirt")
    assert out.returncode != 0
    assert "nodes must be a whole number from 3 to 9, got 1" in out.stderr
    assert "memory_mb must be a whole number from 2048 to 65536, got 1024" in out.stderr
    assert "Fix them" in out.stderr
