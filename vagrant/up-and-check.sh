#!/usr/bin/env bash
# Bring the Vagrant cluster up, check it through the lab's API, run labs 01, 08 and 11 on it, and
# tear it down. For machines with hardware virtualization (CI machines without it cannot run VMs
# at a useful speed; tests/vagrant checks everything that can be checked without VMs).
#
#   vagrant/up-and-check.sh [--keep]     (--keep: leave the cluster running afterwards)
#
# Expected duration with KVM or VirtualBox on a 4-core laptop: 25-45 minutes the first time
# (box download, packages in 3 VMs, a ~1 GB image pull or a ~5 min offline image build,
# bootstrap, 6 OSDs, HEALTH_OK), then ~2 min of checks and labs, ~1 min to destroy.
# The provider is Vagrant's choice: set VAGRANT_DEFAULT_PROVIDER=libvirt or virtualbox.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$ROOT/.venv/bin/python"
KEEP=0
LABS=(01 08 11)   # 11 is the containers lab: its cluster part runs only here

say() { printf '\033[1m[up-and-check %s]\033[0m %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf '\033[1;31m[up-and-check] error:\033[0m %s\n' "$*" >&2; exit 1; }

case "${1:-}" in
    --keep) KEEP=1 ;;
    "") ;;
    -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (use --keep or --help)" ;;
esac

[ -x "$PY" ] || die "no .venv yet: run 'make setup' first"
command -v vagrant > /dev/null || die "vagrant is not installed (Debian/Ubuntu: sudo apt-get install vagrant vagrant-libvirt)"

teardown() {
    if [ "$KEEP" -eq 1 ]; then
        say "keeping the cluster (stop it with: .venv/bin/cephlab down --backend vagrant [--destroy])"
    else
        say "tearing down: vagrant destroy -f"
        "$ROOT/.venv/bin/cephlab" down --backend vagrant --destroy || true
    fi
}
trap teardown EXIT

# A lab's complete version (solutions/NN-*.ipynb) runs on the Vagrant cluster: every cell must
# run; numbers are measured, so only cells marked NBVAL_CHECK_OUTPUT are compared (--nbval-lax).
# addopts are replaced: the test suite's own plugin would start a native cluster.
run_lab() {
    local number="$1" nb
    nb="$(find "$ROOT/solutions" -maxdepth 1 -name "${number}-*.ipynb" | sort | head -n 1)"
    if [ -z "$nb" ]; then
        say "lab $number: not in solutions/ yet, skipped"
        return 0
    fi
    say "lab $number: $(basename "$nb") on the Vagrant cluster"
    (cd "$ROOT" && CEPHLAB_BACKEND=vagrant "$PY" -m pytest -q -p no:cacheprovider -o addopts="" \
        --nbval-lax --nbval-cell-timeout=900 --nbval-sanitize-with=tests/nbval_sanitize.cfg "$nb")
}

t0=$SECONDS
say "vagrant up (settings: ${CEPHLAB_VAGRANT_SETTINGS:-vagrant/settings.yml})"
"$ROOT/.venv/bin/cephlab" up --backend vagrant
say "cluster up after $(( (SECONDS - t0) / 60 )) min $(( (SECONDS - t0) % 60 )) s"

say "API smoke test"
# Expected hosts and OSDs: nodes and nodes x osd_disks of the settings file (checked by up).
read -r HOSTS OSDS < <("$PY" -c 'from cephlab.backends.vagrant.lifecycle import load_settings
s = load_settings(); print(s["nodes"], s["nodes"] * s["osd_disks"])')
"$ROOT/.venv/bin/cephlab" smoke --backend vagrant --osds "$OSDS" --hosts "$HOSTS"

failed=0
for lab in "${LABS[@]}"; do
    run_lab "$lab" || { failed=1; say "lab $lab FAILED"; }
done
[ "$failed" -eq 0 ] || die "a lab failed on the Vagrant cluster (output above)"
say "all checks passed in $(( (SECONDS - t0) / 60 )) min $(( (SECONDS - t0) % 60 )) s"
