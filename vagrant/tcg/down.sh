#!/usr/bin/env bash
# Remove what vagrant/tcg/up.sh made: the VMs and their disks (vagrant destroy), vagrant-libvirt's
# networks, the storage pool, then stop libvirtd and virtlogd. Keeps the built box ($STATE/box)
# unless --all. Never stops on a missing tool: it reports and goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export CEPHLAB_VAGRANT_SETTINGS="${CEPHLAB_VAGRANT_SETTINGS:-$TCG_DIR/settings.yml}"
export CEPHLAB_VAGRANT_EXPORT="${CEPHLAB_VAGRANT_EXPORT:-$VAGRANT_DIR/.export-tcg}"
export CEPHLAB_VAGRANT_KERNEL="$STATE/box/vmlinuz" CEPHLAB_VAGRANT_INITRD="$STATE/box/initrd.img"
export VAGRANT_CWD="$VAGRANT_DIR" VAGRANT_DOTFILE_PATH="$STATE/dotvagrant"

if command -v vagrant >/dev/null && [ -d "$VAGRANT_DOTFILE_PATH" ]; then
    vagrant destroy -f || say "vagrant destroy failed; removing the domains with virsh"
fi
if command -v virsh >/dev/null && virsh -q list >/dev/null 2>&1; then
    for d in $(virsh -q list --all --name | grep '^vagrant_' || true); do
        virsh -q destroy "$d" >/dev/null 2>&1; virsh -q undefine "$d" --remove-all-storage >/dev/null 2>&1
        say "removed domain $d"
    done
    for n in $(virsh -q net-list --all --name | grep -E '^(vagrant-libvirt|vagrant_)' || true); do
        virsh -q net-destroy "$n" >/dev/null 2>&1; virsh -q net-undefine "$n" >/dev/null 2>&1
        say "removed network $n"
    done
    virsh -q pool-destroy default >/dev/null 2>&1 && virsh -q pool-undefine default >/dev/null 2>&1 && say "removed pool default"
fi
# only the daemons vagrant/tcg started (their PIDs, if still theirs), never a system libvirtd
while read -r pid; do
    comm="$(cat "/proc/$pid/comm" 2>/dev/null || true)"
    case "$comm" in libvirtd|virtlogd) kill "$pid" && say "stopped $comm ($pid)" ;; esac
done < <(cat "$STATE/daemons.pid" 2>/dev/null)
rm -f "$STATE/daemons.pid"
rm -rf "$STATE/dotvagrant" "$STATE/images" "$CEPHLAB_VAGRANT_EXPORT"
[ "${1:-}" = "--all" ] && rm -rf "$STATE" && say "removed $STATE"
say "down"
exit 0
