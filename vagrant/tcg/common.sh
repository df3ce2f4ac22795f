# shellcheck shell=bash
# Shared by vagrant/tcg/*.sh (sourced).
set -euo pipefail
TCG_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VAGRANT_DIR="$(dirname "$TCG_DIR")"
STATE="${CEPHLAB_TCG_STATE:-$VAGRANT_DIR/.tcg}"        # box build, kernel, logs, VAGRANT_HOME
export VAGRANT_HOME="$STATE/vagrant-home"
export LIBVIRT_DEFAULT_URI=qemu:///system
export BOX_NAME=cephlab/bookworm-ceph-tcg

say() { printf '\033[1m[tcg %(%H:%M:%S)T]\033[0m %s\n' -1 "$*"; }
die() { printf '\033[1;31m[tcg] error:\033[0m %s\n' "$*" >&2; exit 1; }

# virtlogd and libvirtd without systemd, niced: qemu processes inherit the priority.
# The PIDs of the daemons started here go to $STATE/daemons.pid: down.sh stops only those.
start_libvirt() {
    mkdir -p /run/libvirt "$STATE"
    if ! pgrep -x virtlogd >/dev/null; then
        nice -n 19 virtlogd -d
        sleep 1
        pgrep -x virtlogd >> "$STATE/daemons.pid"
    fi
    if ! pgrep -x libvirtd >/dev/null; then
        nice -n 19 libvirtd -d
        for _ in $(seq 30); do virsh -q list >/dev/null 2>&1 && break; sleep 1; done
        pgrep -x libvirtd >> "$STATE/daemons.pid"
    fi
    virsh -q list >/dev/null 2>&1 || die "libvirtd does not answer: see /var/log/libvirt/libvirtd.log"
    say "libvirtd running (nice $(ps -o ni= -p "$(pgrep -x libvirtd | head -1)" | tr -d ' '))"
}
