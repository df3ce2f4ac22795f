#!/usr/bin/env bash
# The Vagrant cluster of vagrant/ on a machine without usable hardware virtualization: the same
# Vagrantfile and provisioning, with libvirt's software emulation (TCG, `libvirt_driver: qemu`),
# the pre-baked box of build-box.sh and the settings in vagrant/tcg/settings.yml. libvirtd and so
# every VM run at nice 19. Slow by design (see vagrant/README.md, "Without KVM"); each phase's
# time is logged to $STATE/timings.txt.
#   bash vagrant/tcg/up.sh            setup, box, vagrant up (3 nodes), API smoke test
#   bash vagrant/tcg/down.sh          destroy the VMs, their disks and networks, stop libvirtd
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[ "$(id -u)" -eq 0 ] || die "run as root (libvirt's system instance)"

mkdir -p "$STATE"
TIMINGS="$STATE/timings.txt"
phase() {   # phase NAME COMMAND...: run it, log its seconds
    local name="$1" start=$SECONDS; shift
    say "$name"
    "$@"
    printf '%s\t%s s\t%s\n' "$(date -u +%FT%TZ)" "$((SECONDS - start))" "$name" | tee -a "$TIMINGS"
}

storage_pool() {
    virsh -q pool-info default >/dev/null 2>&1 && return 0
    mkdir -p "$STATE/images"
    virsh -q pool-define-as default dir --target "$STATE/images" >/dev/null
    virsh -q pool-start default >/dev/null
}

add_box() {
    storage_pool
    vagrant box list 2>/dev/null | grep -q "^$BOX_NAME " && return 0
    vagrant box add -f --name "$BOX_NAME" "$STATE/box/cephlab-tcg.box"
}

export CEPHLAB_VAGRANT_SETTINGS="${CEPHLAB_VAGRANT_SETTINGS:-$TCG_DIR/settings.yml}"
export CEPHLAB_VAGRANT_EXPORT="${CEPHLAB_VAGRANT_EXPORT:-$VAGRANT_DIR/.export-tcg}"
export CEPHLAB_VAGRANT_KERNEL="$STATE/box/vmlinuz" CEPHLAB_VAGRANT_INITRD="$STATE/box/initrd.img"
export VAGRANT_CWD="$VAGRANT_DIR" VAGRANT_DOTFILE_PATH="$STATE/dotvagrant"

phase "host packages and libvirtd" bash "$TCG_DIR/setup.sh"
phase "pre-baked box" bash "$TCG_DIR/build-box.sh"
phase "libvirt storage pool and vagrant box add" add_box
phase "vagrant up (3 nodes, software emulation)" nice -n 10 vagrant up --provider=libvirt
phase "API smoke test" "$VAGRANT_DIR/../.venv/bin/cephlab" smoke --backend vagrant
say "done: $(tail -n 5 "$TIMINGS" | cut -f2,3 | paste -sd ';' -)"
