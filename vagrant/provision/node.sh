#!/usr/bin/env bash
# Every node: names of all nodes, time sync, podman, lvm2, cephadm, and the key cephadm logs in with.
# Idempotent: a second run changes nothing. Environment (set by the Vagrantfile):
#   CEPHLAB_NODES        "ceph1=192.168.56.11 ceph2=..." (node 1 first)
#   CEPHLAB_TIME_SERVER  node 1's address on the other nodes, empty on node 1 (which serves time)
#   CEPHLAB_NETWORK      the private network, e.g. 192.168.56.0/24 (node 1 serves time to it)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_root

PACKAGES=(chrony podman catatonit lvm2 cephadm ceph-common python3 openssh-server)

hosts_file() {
    step "hosts: every node's name on the private network"
    local block tmp
    block="$(node_lines | awk '{print $2 "\t" $1}')"
    tmp="$(mktemp)"
    # Drop our old block and Debian's "127.0.1.1 <hostname>" (Ceph must not see itself at loopback).
    awk -v me="$(hostname -s)" '
        /^# cephlab nodes begin/ {skip=1} /^# cephlab nodes end/ {skip=0; next}
        skip {next}
        $1 == "127.0.1.1" && ($2 == me || $3 == me) {next}
        {print}' /etc/hosts > "$tmp"
    printf '# cephlab nodes begin\n%s\n# cephlab nodes end\n' "$block" >> "$tmp"
    if cmp -s "$tmp" /etc/hosts; then log "unchanged"; rm -f "$tmp"; else cat "$tmp" > /etc/hosts; rm -f "$tmp"; log "updated"; fi
}

packages() {
    step "packages: ${PACKAGES[*]}"
    apt_install "${PACKAGES[@]}"
    log "cephadm $(ceph_release cephadm), ceph-common $(ceph_release ceph-common), podman $(podman --version | awk '{print $3}')"
}

time_sync() {
    step "time: chrony (Ceph monitors warn when clocks differ by more than 0.05 s)"
    local conf=/etc/chrony/conf.d/cephlab.conf want
    if [ -n "${CEPHLAB_TIME_SERVER:-}" ]; then
        want="# written by cephlab: follow node 1, which every node can reach even offline
server ${CEPHLAB_TIME_SERVER} iburst prefer"
    else
        want="# written by cephlab: node 1 serves time to the other nodes, even without internet
allow ${CEPHLAB_NETWORK:?CEPHLAB_NETWORK is not set}
local stratum 10"
    fi
    mkdir -p "$(dirname "$conf")"
    if [ "$(cat "$conf" 2>/dev/null)" != "$want" ]; then
        printf '%s\n' "$want" > "$conf"
        log "wrote $conf"
        systemctl restart chrony
    fi
    systemctl enable --now chrony >/dev/null 2>&1 || die "chrony does not start: systemctl status chrony"
    log "$(chronyc -n tracking | grep -E '^(Reference ID|System time)' | tr -s ' ' | paste -sd ';' -)"
}

cephadm_key() {
    step "ssh: root trusts cephadm's key (node 1 manages every node as root over ssh)"
    local pub="$PROVISION_DIR/ssh/id_cephlab.pub" keys=/root/.ssh/authorized_keys
    [ -s "$pub" ] || die "$pub is missing: the Vagrantfile uploads it (run vagrant provision)"
    install -d -m 700 /root/.ssh
    touch "$keys"
    chmod 600 "$keys"
    if grep -qxF "$(cat "$pub")" "$keys"; then log "already trusted"; else cat "$pub" >> "$keys"; log "added"; fi
    if [ "$(sshd -T 2>/dev/null | awk '$1 == "permitrootlogin" {print $2}')" = "no" ]; then
        printf 'PermitRootLogin prohibit-password\n' > /etc/ssh/sshd_config.d/cephlab.conf
        systemctl reload ssh
        log "allowed root login by key"
    fi
}

# All steps, or only those named: bash node.sh packages time_sync
ALL_STEPS=(hosts_file packages time_sync cephadm_key)
for s in "${@:-${ALL_STEPS[@]}}"; do
    [[ " ${ALL_STEPS[*]} " == *" $s "* ]] || die "unknown step $s (steps: ${ALL_STEPS[*]})"
    "$s"
done
step "node ready"
