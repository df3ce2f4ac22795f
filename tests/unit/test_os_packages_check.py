"""bootstrap.sh's check of the OS packages: a virtual package that an installed package provides
counts as installed (Debian 13's postgresql-contrib is provided by postgresql), so `make setup`
does not ask for root on every run. dpkg-query is replaced by a script holding a fixed dpkg
database: two Debian 13 packages as `dpkg-query -W` shows them."""
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAKE_DPKG = r"""#!/bin/sh
# dpkg-query -W -f=FORMAT [PACKAGE]: status of one package, or (no package) every package
if [ "$#" -eq 3 ]; then
    case "$3" in postgresql|fio) printf 'install ok installed' ;; *) exit 1 ;; esac
else
    printf 'ii |postgresql-contrib (= 17), postgresql-client:any\n'
    printf 'ii |postgresql-contrib-17, postgresql-17-jit-llvm (= 19)\n'
    printf 'rc |ceph-fuse-provided-by-a-removed-package\n'
fi
"""


def missing(tmp_path, packages):
    fake = tmp_path / "dpkg-query"
    fake.write_text(FAKE_DPKG)
    fake.chmod(0o755)
    script = ('source <(sed -n "/^provided_names()/,/^}/p;/^missing_os_packages()/,/^}/p" cephlab/bootstrap.sh); '
              f'OS_PACKAGES=({" ".join(packages)}); missing_os_packages')
    out = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PATH": f"{tmp_path}:/usr/bin:/bin"})
    return out.stdout.split()


def test_a_provided_virtual_package_is_not_missing(tmp_path):
    assert missing(tmp_path, ["postgresql", "postgresql-contrib", "fio"]) == []


def test_what_nothing_installed_provides_is_missing(tmp_path):
    # a name only a removed package provides, a real package not installed, a prefix of a provided name
    assert missing(tmp_path, ["ceph-fuse-provided-by-a-removed-package", "ceph-fuse", "postgresql-cont"]) == \
        ["ceph-fuse-provided-by-a-removed-package", "ceph-fuse", "postgresql-cont"]
