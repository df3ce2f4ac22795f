#!/usr/bin/env bash
# Removes what vagrant/containers/up.sh made: the node containers (label cephlab=cephadm), their
# network, the loop devices of the disk files under the work folder, the work folder's disks and
# node stores, and the export folder. Never fails on something already gone: it says so and goes
# on. The cached images stay (podman rmi localhost/ceph:v16.2.15-loop localhost/cephlab-node:v16.2.15
# frees ~1.5 GB; up.sh builds them again). Same environment as up.sh (CEPHLAB_CEPHADM_STATE,
# CEPHLAB_CEPHADM_EXPORT). Exit codes: 0 all removed; 1 something is left (listed); 2 not root.
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$(id -u)" -eq 0 ] || die "run me as root (sudo $0)" 2
START=$SECONDS
left=0

step "containers (label $LABEL)"
if command -v podman > /dev/null; then
    names="$(lab_containers)"
    if [ -z "$names" ]; then log "none"; fi
    for c in $names; do
        # stop systemd (and the Ceph daemons under it) cleanly, then remove
        if podman rm -f -t 20 "$c" > /dev/null 2>&1; then log "removed $c"; else warn "could not remove $c"; fi
    done
    step "network $NETWORK_NAME"
    for n in $(lab_networks); do
        # CNI leaves the bridge (and the address up.sh gave it) behind: remove it with the network
        dev="$(podman network inspect --format '{{.NetworkInterface}}' "$n" 2> /dev/null || true)"
        if podman network rm -f "$n" > /dev/null 2>&1; then log "removed $n"; else warn "could not remove network $n"; fi
        if [ -n "$dev" ] && ip link show "$dev" > /dev/null 2>&1; then
            if ip link delete "$dev" 2> /dev/null; then log "removed bridge $dev"; else warn "could not remove bridge $dev"; fi
        fi
    done
    podman network exists "$NETWORK_NAME" 2> /dev/null || log "gone"
else
    log "no podman here: no containers or networks to remove"
fi

step "loop devices of $STATE/disks"
loops="$(lab_loops)"
[ -n "$loops" ] || log "none"
for dev in $loops; do
    if losetup -d "$dev" 2> /dev/null; then log "detached $dev"; else warn "could not detach $dev"; fi
done

step "mounts under $STATE"
mounts="$(awk -v s="$STATE/" 'index($2, s) == 1 {print $2}' /proc/mounts | sort -r)"
[ -n "$mounts" ] || log "none"
for m in $mounts; do
    if umount -l "$m" 2> /dev/null; then log "unmounted $m"; else warn "could not unmount $m"; fi
done

step "folders: $STATE (disks, node stores) and $EXPORT"
for d in "$STATE/disks" "$STATE/nodes" "$STATE/ssh" "$EXPORT"; do
    [ -e "$d" ] || continue
    if rm -rf "$d"; then log "removed $d"; else warn "could not remove $d"; fi
done

step "check"
if command -v podman > /dev/null; then
    [ -z "$(lab_containers)" ] || { warn "containers left: $(lab_containers | paste -sd ' ' -)"; left=1; }
    [ -z "$(lab_networks)" ] || { warn "networks left: $(lab_networks | paste -sd ' ' -)"; left=1; }
fi
[ -z "$(lab_loops)" ] || { warn "loop devices left: $(lab_loops | paste -sd ' ' -)"; left=1; }
if [ "$left" -eq 0 ]; then
    log "nothing left (in $((SECONDS - START)) s); cached images kept: podman images --filter label=$LABEL"
else
    die "something is left (above): remove it by hand (podman rm -f NAME; losetup -d DEV), then run me again" 1
fi
