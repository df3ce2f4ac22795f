"""vagrant/settings.yml: its check in Ruby (Vagrantfile) and in Python (cephlab.backends.vagrant.lifecycle) agree,
message for message, on golden cases and on random settings; bad files stop Vagrant clearly."""
import json
import subprocess

import pytest
import yaml
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from cephlab.backends.vagrant import lifecycle as vagrant

from .conftest import VAGRANT_DIR, need

KNOWN = ("nodes, hostname_prefix, cpus, memory_mb, osd_disks, osd_disk_gb, private_network, "
         "first_host, box, ceph_image, offline, libvirt_driver, virtualbox_controller, dashboard, "
         "boot_timeout_s, health_timeout_s")

# {case: (settings, the exact problems)}: the source of each rule is the settings file itself
# (course-defined ranges) and cephadm's needs noted in vagrant/README.md.
GOLDEN = {
    "defaults": ({}, []),
    "shipped values": (yaml.safe_load((VAGRANT_DIR / "settings.yml").read_text()), []),
    "five nodes, digest image": ({"nodes": 5, "ceph_image": "quay.io/ceph/ceph@sha256:" + "a" * 64}, []),
    "every upper bound": ({"nodes": 9, "cpus": 16, "memory_mb": 65536, "osd_disks": 8,
                           "osd_disk_gb": 2048, "first_host": 246, "boot_timeout_s": 3600,
                           "health_timeout_s": 7200}, []),
    "lower bounds": ({"cpus": 1, "memory_mb": 2560, "osd_disks": 1, "osd_disk_gb": 5,
                      "first_host": 2, "boot_timeout_s": 60, "health_timeout_s": 60}, []),
    "one address too many": ({"nodes": 9, "first_host": 247},
                             ["first_host + nodes - 1 must be at most 254 (the last node's "
                              "address), got 255"]),
    "memory one MiB short": ({"osd_disks": 1, "memory_mb": 2559},
                             ["memory_mb must be at least 2560 for 1 OSD disks (1536 MiB for the "
                              "OS, mon and mgr + 1024 MiB per OSD), got 2559"]),
    "ten nodes": ({"nodes": 10}, ["nodes must be a whole number from 3 to 9, got 10"]),
    "two nodes": ({"nodes": 2}, ["nodes must be a whole number from 3 to 9, got 2"]),
    "nodes as text": ({"nodes": "3"}, ['nodes must be a whole number from 3 to 9, got "3"']),
    "nodes as bool": ({"nodes": True}, ["nodes must be a whole number from 3 to 9, got true"]),
    "nodes as float": ({"nodes": 3.0}, ["nodes must be a whole number from 3 to 9, got 3.0"]),
    "empty value": ({"cpus": None}, ["cpus must be a whole number from 1 to 16, got null"]),
    "typo": ({"node": 3}, [f'unknown setting "node": known settings are {KNOWN}']),
    "not a mapping": ([3], ["the settings file must be a mapping of setting: value, got [3]"]),
    "memory for four OSDs": ({"osd_disks": 4, "memory_mb": 4096},
                             ["memory_mb must be at least 5632 for 4 OSD disks (1536 MiB for the "
                              "OS, mon and mgr + 1024 MiB per OSD), got 4096"]),
    "last address past 254": ({"nodes": 9, "first_host": 250},
                              ["first_host + nodes - 1 must be at most 254 (the last node's "
                               "address), got 258"]),
    "bad network": ({"private_network": "192.168.256"},
                    ['private_network must be the first three numbers of an IPv4 address, e.g. '
                     '"192.168.56", got "192.168.256"']),
    "network with four numbers": ({"private_network": "192.168.56.0"},
                                  ['private_network must be the first three numbers of an IPv4 '
                                   'address, e.g. "192.168.56", got "192.168.56.0"']),
    "untagged image": ({"ceph_image": "quay.io/ceph/ceph"},
                       ['ceph_image must be a container image with a tag or digest, e.g. '
                        '"quay.io/ceph/ceph:v16.2.15", got "quay.io/ceph/ceph"']),
    "port but no tag": ({"ceph_image": "registry:5000/ceph"},
                        ['ceph_image must be a container image with a tag or digest, e.g. '
                         '"quay.io/ceph/ceph:v16.2.15", got "registry:5000/ceph"']),
    "offline yes (YAML bool)": ({"offline": True},
                                ["offline must be one of auto, always, never, got true"]),
    "driver": ({"libvirt_driver": "tcg"}, ['libvirt_driver must be one of kvm, qemu, got "tcg"']),
    "blank box": ({"box": "  "}, ['box must be a non-empty text, got "  "']),
    "hostname": ({"hostname_prefix": "Ceph"},
                 ["hostname_prefix must be 1-15 lower-case letters, digits or '-', starting "
                  'with a letter, got "Ceph"']),
    "dashboard": ({"dashboard": "yes"}, ['dashboard must be true or false, got "yes"']),
    "two problems, no cross check": ({"memory_mb": 100, "osd_disks": 0},
                                     ["memory_mb must be a whole number from 2048 to 65536, got 100",
                                      "osd_disks must be a whole number from 1 to 8, got 0"]),
}


def ruby_check(settings_list):
    need("ruby")
    proc = subprocess.run(["ruby", str(VAGRANT_DIR / "Vagrantfile"), "--check-json"],
                          input=json.dumps(settings_list), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("case", GOLDEN)
def test_python_golden(case):
    settings, problems = GOLDEN[case]
    assert vagrant.check_settings(settings) == problems


def test_ruby_golden():
    cases = list(GOLDEN.values())
    assert ruby_check([s for s, _ in cases]) == [p for _, p in cases]


def test_defaults_agree_with_ruby_and_the_shipped_file():
    need("ruby")
    out = subprocess.run(["ruby", str(VAGRANT_DIR / "Vagrantfile"), "--defaults"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert json.loads(out) == vagrant.DEFAULTS
    # settings.yml documents every setting with its default value
    assert yaml.safe_load((VAGRANT_DIR / "settings.yml").read_text()) == vagrant.DEFAULTS


# Values of every kind the checks meet (printable ASCII text: JSON escapes are not the point).
_text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30)
_value = st.one_of(st.integers(-5, 70000), st.booleans(), st.none(), _text,
                   st.sampled_from(["auto", "qemu", "192.168.56", "10.0.0", "quay.io/x/y:1",
                                    "ceph", "a@sha256:0", "1.5.256", "ceph-1"]),
                   st.floats(0, 100, allow_nan=False).map(lambda f: round(f, 1)))
_keys = st.sampled_from([k for k, *_ in vagrant.SPEC] + ["extra"])
_settings = st.dictionaries(_keys, _value, max_size=6)


@hsettings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_settings, min_size=40, max_size=40))
def test_ruby_and_python_agree_on_random_settings(batch):
    assert ruby_check(batch) == [vagrant.check_settings(s) for s in batch]


@given(_settings)
def test_check_is_empty_exactly_when_load_accepts(tmp_path_factory, s):
    path = tmp_path_factory.mktemp("s") / "settings.yml"
    path.write_text(yaml.safe_dump(s))
    problems = vagrant.check_settings(s)
    if problems:
        with pytest.raises(vagrant.SettingsError) as e:
            vagrant.load_settings(path)
        assert e.value.problems == problems
    else:
        assert vagrant.load_settings(path) == {**vagrant.DEFAULTS, **s}


def test_load_settings_errors(tmp_path):
    with pytest.raises(vagrant.SettingsError, match="not found"):
        vagrant.load_settings(tmp_path / "missing.yml")
    bad = tmp_path / "bad.yml"
    bad.write_text("nodes: [3\n")
    with pytest.raises(vagrant.SettingsError, match="not valid YAML"):
        vagrant.load_settings(bad)
    empty = tmp_path / "empty.yml"
    empty.write_text("# only comments\n")
    assert vagrant.load_settings(empty) == vagrant.DEFAULTS


def test_ruby_check_of_files(tmp_path):
    need("ruby")
    vf = str(VAGRANT_DIR / "Vagrantfile")
    ok = subprocess.run(["ruby", vf, "--check", str(VAGRANT_DIR / "settings.yml")],
                        capture_output=True, text=True, timeout=60)
    assert (ok.returncode, ok.stdout) == (0, "")
    bad = tmp_path / "bad.yml"
    bad.write_text("nodes: 12\noffline: yes\n")
    out = subprocess.run(["ruby", vf, "--check", str(bad)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert out.stdout.splitlines() == ["nodes must be a whole number from 3 to 9, got 12",
                                       "offline must be one of auto, always, never, got true"]


def test_node_names_and_addresses():
    s = {**vagrant.DEFAULTS, "nodes": 4, "first_host": 20, "private_network": "10.9.8"}
    assert vagrant.nodes(vagrant.DEFAULTS) == [("ceph1", "192.168.56.11"), ("ceph2", "192.168.56.12"),
                                               ("ceph3", "192.168.56.13")]
    assert vagrant.nodes(s)[-1] == ("ceph4", "10.9.8.23")
