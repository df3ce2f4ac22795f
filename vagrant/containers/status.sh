#!/usr/bin/env bash
# What vagrant/containers/up.sh made and how the cluster is: node containers (state, memory),
# network, loop devices, and `ceph status` through the export folder. Exit 0 if the cluster
# answers, 1 if it does not (or is not there), 2 if not root.
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$(id -u)" -eq 0 ] || die "run me as root (sudo $0)" 2
command -v podman > /dev/null || die "podman is missing: nothing was made (apt-get install podman)" 1
step "node containers"
podman ps -a --filter "label=$LABEL" --format '{{.Names}}\t{{.Status}}\t{{.Networks}}'
names="$(podman ps --filter "label=$LABEL" --format '{{.Names}}')"
# shellcheck disable=SC2086
[ -z "$names" ] || podman stats --no-stream --format '{{.Name}}\t{{.MemUsage}}\t{{.CPUPerc}}' $names
step "network"
lab_networks
step "loop devices"
for f in "$STATE"/disks/*.img; do [ -e "$f" ] && losetup -j "$f"; done
step "cluster (export $EXPORT)"
[ -s "$EXPORT/ceph.conf" ] || die "no $EXPORT/ceph.conf: run up.sh" 1
timeout 60 ceph -c "$EXPORT/ceph.conf" -k "$EXPORT/keyring" --connect-timeout 20 status \
    || die "the cluster does not answer: run up.sh again, or down.sh" 1
