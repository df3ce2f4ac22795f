"""The Vagrant backend: the multi-node cephadm cluster of vagrant/, behind the same Cluster API.

    cephlab up --backend vagrant          # `vagrant up` in vagrant/ (VMs, cephadm, OSDs, HEALTH_OK)
    c = Cluster.connect(backend="vagrant")
    c.local_daemons                       # False: the daemons run in VMs, /proc here cannot see them

`vagrant up` exports the cluster's ceph.conf (mon addresses on the private network) and the
client.admin keyring to vagrant/.export/ ($CEPHLAB_VAGRANT_EXPORT); the host reaches the monitors
and OSDs over the host-only network, so librados, `ceph`, `rados`, `rbd` and fio work unchanged.

The settings file and its check live in cephlab/backends/settings.py (shared with the cephadm
container backend); its names are re-exported here for the Vagrant tooling.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from cephlab.backends.settings import (  # noqa: F401  (the Vagrant tooling's names)
    DEFAULTS,
    MIB_BASE,
    MIB_PER_OSD,
    SPEC,
    SettingsError,
    check_settings,
    load_settings,
    nodes,
    settings_path,
)
from cephlab.core import run
from cephlab.core.errors import ClusterError
from cephlab.core.project import VAGRANT_DIR

INSTALL_HINT = ("install Vagrant and a provider: on Debian/Ubuntu `sudo apt-get install vagrant "
                "vagrant-libvirt`, elsewhere https://developer.hashicorp.com/vagrant/downloads "
                "with VirtualBox")

def export_dir():
    """Where `vagrant up` puts ceph.conf, keyring and cluster.json for the host."""
    return Path(os.environ.get("CEPHLAB_VAGRANT_EXPORT") or VAGRANT_DIR / ".export")


# -- driving Vagrant --------------------------------------------------------------------------
def vagrant(args, log=None, timeout=3 * 3600):
    """Run `vagrant <args>` in vagrant/ (output to `log` when given); its output."""
    try:
        return run.run(["vagrant", *args], what=f"`vagrant {' '.join(args)}` in {VAGRANT_DIR}",
                       cwd=VAGRANT_DIR, log=log, show=log is None, timeout=timeout,
                       hint=INSTALL_HINT).stdout
    except run.CommandFailed as e:
        raise ClusterError(f"{e}; a failed health gate prints what is wrong. Fix it and run "
                           "`vagrant provision` there, or start over with `vagrant destroy -f`") from e


def up(quiet=False):
    """`vagrant up`: VMs, cephadm cluster, HEALTH_OK, conf exported. Returns the export folder."""
    load_settings()                  # the same check as the Vagrantfile, before anything starts
    d = export_dir()
    log = None
    if quiet:
        d.mkdir(parents=True, exist_ok=True)
        log = d / "vagrant-up.log"
    vagrant(["up"], log)
    if not (d / "ceph.conf").is_file():
        raise ClusterError(f"`vagrant up` finished but exported no ceph.conf to {d}; "
                           "run `vagrant provision` in vagrant/ to finish the cluster")
    return d


def down(destroy=False):
    """Halt the VMs (they keep their cluster), or destroy them and forget the exported conf."""
    vagrant(["destroy", "-f"] if destroy else ["halt"])
    if destroy:
        shutil.rmtree(export_dir(), ignore_errors=True)
