"""vagrant/settings.yml: the one settings file of the multi-host clusters, read by the Vagrant
backend (VMs) and the cephadm container backend (vagrant/containers/) alike.

check_settings() mirrors, message for message, the Ruby check in vagrant/Vagrantfile (tests
compare the two), so a bad settings.yml gets the same answer from Python and from Vagrant.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from cephlab.core.errors import SetupError
from cephlab.core.project import VAGRANT_DIR

# (key, kind, default, allowed): the same table as CephlabSettings::SPEC in the Vagrantfile.
SPEC = (
    ("nodes", "int", 3, (3, 9)),
    ("hostname_prefix", "hostname", "ceph", None),
    ("cpus", "int", 2, (1, 16)),
    ("memory_mb", "int", 4096, (2048, 65536)),
    ("osd_disks", "int", 2, (1, 8)),
    ("osd_disk_gb", "int", 10, (5, 2048)),
    ("private_network", "net3", "192.168.56", None),
    ("first_host", "int", 11, (2, 254)),
    ("box", "text", "debian/bookworm64", None),
    ("ceph_image", "image", "quay.io/ceph/ceph:v16.2.15", None),
    ("offline", "choice", "auto", ("auto", "always", "never")),
    ("libvirt_driver", "choice", "kvm", ("kvm", "qemu")),
    ("virtualbox_controller", "text", "SATA Controller", None),
    ("dashboard", "bool", False, None),
    ("boot_timeout_s", "int", 600, (60, 3600)),
    ("health_timeout_s", "int", 1200, (60, 7200)),
)
DEFAULTS = {key: default for key, _, default, _ in SPEC}
MIB_BASE = 1536          # OS, mon, mgr and containers on one node
MIB_PER_OSD = 1024       # provision/cluster.sh sets osd_memory_target to 1 GiB
RUBY_WHITESPACE = " \t\n\v\f\r\0"     # what Ruby's String#strip removes


class SettingsError(SetupError):
    """vagrant/settings.yml has bad values; .problems lists them."""

    def __init__(self, path, problems):
        self.problems = list(problems)
        super().__init__(f"{path} has bad values:\n" + "\n".join(f"  - {p}" for p in problems) +
                         "\nFix them (vagrant/README.md describes every setting).")


def _show(value):
    """A value as Ruby's JSON.generate writes it, so both checks print the same message."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _check_value(key, kind, allowed, v):
    if kind == "int":
        if type(v) is int and allowed[0] <= v <= allowed[1]:
            return None
        return f"{key} must be a whole number from {allowed[0]} to {allowed[1]}, got {_show(v)}"
    if kind == "bool":
        return None if type(v) is bool else f"{key} must be true or false, got {_show(v)}"
    if kind == "choice":
        if isinstance(v, str) and v in allowed:
            return None
        return f"{key} must be one of {', '.join(allowed)}, got {_show(v)}"
    if kind == "text":
        if isinstance(v, str) and v.strip(RUBY_WHITESPACE):
            return None
        return f"{key} must be a non-empty text, got {_show(v)}"
    if kind == "hostname":
        if isinstance(v, str) and re.fullmatch(r"[a-z][a-z0-9-]{0,14}", v):
            return None
        return (f"{key} must be 1-15 lower-case letters, digits or '-', starting with a letter, "
                f"got {_show(v)}")
    if kind == "net3":
        if (isinstance(v, str) and re.fullmatch(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}", v)
                and all(int(o) <= 255 for o in v.split("."))):
            return None
        return (f'{key} must be the first three numbers of an IPv4 address, e.g. "192.168.56", '
                f"got {_show(v)}")
    if kind == "image":
        if (isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/:@-]*", v)
                and ("@sha256:" in v or ":" in v.split("/")[-1])):
            return None
        return (f'{key} must be a container image with a tag or digest, e.g. '
                f'"quay.io/ceph/ceph:v16.2.15", got {_show(v)}')
    raise AssertionError(kind)


def check_settings(settings):
    """The list of problems with a settings mapping (empty when it is good), as the Vagrantfile says."""
    if not isinstance(settings, dict):
        return [f"the settings file must be a mapping of setting: value, got {_show(settings)}"]
    known = [key for key, *_ in SPEC]
    errors = [f"unknown setting {_show(k)}: known settings are {', '.join(known)}"
              for k in settings if k not in known]
    s = {**DEFAULTS, **settings}
    bad = set()
    for key, kind, _, allowed in SPEC:
        e = _check_value(key, kind, allowed, s[key])
        if e:
            errors.append(e)
            bad.add(key)
    if not bad & {"nodes", "first_host"} and s["first_host"] + s["nodes"] - 1 > 254:
        errors.append("first_host + nodes - 1 must be at most 254 (the last node's address), "
                      f"got {s['first_host'] + s['nodes'] - 1}")
    if not bad & {"memory_mb", "osd_disks"}:
        need = MIB_BASE + MIB_PER_OSD * s["osd_disks"]
        if s["memory_mb"] < need:
            errors.append(f"memory_mb must be at least {need} for {s['osd_disks']} OSD disks "
                          f"({MIB_BASE} MiB for the OS, mon and mgr + {MIB_PER_OSD} MiB per OSD), "
                          f"got {s['memory_mb']}")
    return errors


def settings_path():
    return Path(os.environ.get("CEPHLAB_VAGRANT_SETTINGS") or VAGRANT_DIR / "settings.yml")


def load_settings(path=None):
    """settings.yml with defaults filled in; SettingsError lists every bad value."""
    import yaml  # only here: model-only notebooks never need it
    path = Path(path) if path else settings_path()
    if not path.is_file():
        raise SettingsError(path, [f"settings file {path} not found"])
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise SettingsError(path, [f"settings file {path} is not valid YAML: {e}"]) from e
    data = {} if data is None else data
    problems = check_settings(data)
    if problems:
        raise SettingsError(path, problems)
    return {**DEFAULTS, **data}


def nodes(settings):
    """[(name, private ip)] of the nodes, node 1 (the bootstrap node) first."""
    return [(f"{settings['hostname_prefix']}{i}",
             f"{settings['private_network']}.{settings['first_host'] + i - 1}")
            for i in range(1, settings["nodes"] + 1)]
