#!/usr/bin/env bash
# Node 1, after every other node runs node.sh: the Ceph image, `cephadm bootstrap`, the other
# nodes added with cephadm's SSH key, OSDs on every extra disk, failure domain host, health gate.
# Idempotent: each step checks what is already there. Environment (set by the Vagrantfile):
#   CEPHLAB_NODES           "ceph1=192.168.56.11 ceph2=..." (this node first)
#   CEPHLAB_MON_IP          this node's private address: the first monitor's
#   CEPHLAB_IMAGE           the Ceph image, e.g. quay.io/ceph/ceph:v16.2.15
#   CEPHLAB_OFFLINE         auto | always | never: build the image from Debian packages?
#   CEPHLAB_DASHBOARD       true | false
#   CEPHLAB_EXPECTED_OSDS, CEPHLAB_HEALTH_TIMEOUT   for the health gate (health.sh)
#   CEPHLAB_SERVICES        another service spec file (vagrant/containers: raw OSDs on loop devices)
#   CEPHLAB_EXTRA_CONF      lines appended to the initial ceph.conf (vagrant/containers: [mon] ...)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_root

IMAGE_FILE="$CEPHLAB_STATE/image"
MON_IP="${CEPHLAB_MON_IP:?CEPHLAB_MON_IP is not set (the Vagrantfile sets it)}"
IMAGE=""

is_local_image() { [[ "$IMAGE" == localhost/* ]]; }

bootstrapped() {
    [ -s /etc/ceph/ceph.conf ] && [ -s /etc/ceph/ceph.client.admin.keyring ] &&
        timeout 30 ceph status --connect-timeout 20 > /dev/null 2>&1
}

other_nodes() { node_lines | tail -n +2; }

choose_image() {
    step "image: ${CEPHLAB_IMAGE} (offline: ${CEPHLAB_OFFLINE:-auto})"
    if [ -s "$IMAGE_FILE" ]; then
        IMAGE="$(cat "$IMAGE_FILE")"
        log "using $IMAGE, chosen by an earlier run"
        return 0
    fi
    local mode="${CEPHLAB_OFFLINE:-auto}"
    if podman image exists "$CEPHLAB_IMAGE"; then      # pre-loaded (vagrant/tcg's pre-baked box)
        IMAGE="$CEPHLAB_IMAGE"
        log "$IMAGE is already on this node"
    elif [ "$mode" != "always" ]; then
        # An unreachable registry fails within seconds; a reachable one downloads ~1 GB.
        if timeout 1800 podman pull -q "$CEPHLAB_IMAGE" > /dev/null; then
            IMAGE="$CEPHLAB_IMAGE"
        elif [ "$mode" = "never" ]; then
            die "cannot pull $CEPHLAB_IMAGE (no registry reachable?); set offline: auto in settings.yml to build it from Debian packages"
        else
            log "cannot pull $CEPHLAB_IMAGE: building the image from Debian packages instead"
        fi
    fi
    if [ -z "$IMAGE" ]; then
        bash "$PROVISION_DIR/build-image.sh"
        IMAGE="$(cat "$CEPHLAB_STATE/offline-image")"
    fi
    case "$IMAGE" in
        *"$(ceph_release cephadm)"*) ;;
        *) log "WARNING: $IMAGE may not be Ceph $(ceph_release cephadm), the release of cephadm here" ;;
    esac
    echo "$IMAGE" > "$IMAGE_FILE"
    log "image: $IMAGE"
}

remove_half_cluster() {
    # A bootstrap that failed midway leaves /var/lib/ceph/<fsid>: remove it, then start over.
    local dir fsid
    for dir in /var/lib/ceph/*-*-*-*-*; do
        [ -d "$dir" ] || continue
        fsid="$(basename "$dir")"
        log "removing the unfinished cluster $fsid of an earlier run"
        cephadm rm-cluster --force --fsid "$fsid"
    done
}

bootstrap() {
    step "bootstrap: cephadm bootstrap on $(hostname -s), first monitor at $MON_IP"
    if bootstrapped; then
        log "already bootstrapped: fsid $(ceph fsid)"
        return 0
    fi
    remove_half_cluster
    local conf="$CEPHLAB_STATE/initial-ceph.conf"
    # Assimilated into the monitors' config database by cephadm bootstrap.
    cat > "$conf" <<CONF
[global]
auth_allow_insecure_global_id_reclaim = false
[osd]
osd_memory_target = 1073741824
CONF
    # e.g. vagrant/containers: the nodes share the host's disk, whose free share the mons judge
    [ -z "${CEPHLAB_EXTRA_CONF:-}" ] || printf '%s\n' "$CEPHLAB_EXTRA_CONF" >> "$conf"
    local args=(--image "$IMAGE" bootstrap --mon-ip "$MON_IP" --config "$conf"
                --ssh-private-key "$SSH_KEY" --ssh-public-key "$SSH_KEY.pub"
                --skip-monitoring-stack --output-dir /etc/ceph)
    is_local_image && args+=(--skip-pull)
    [ "${CEPHLAB_DASHBOARD:-false}" = "true" ] || args+=(--skip-dashboard)
    log "cephadm ${args[*]}"
    cephadm "${args[@]}" > "$CEPHLAB_STATE/bootstrap.log" 2>&1 \
        || { tail -n 30 "$CEPHLAB_STATE/bootstrap.log"; die "cephadm bootstrap failed: see $CEPHLAB_STATE/bootstrap.log"; }
    admin_key_for_older_clients
    log "bootstrap complete: fsid $(ceph fsid)"
}

# A release whose monitors take only AES-256 cephx keys (Tentacle: aes256k, the release table's
# cephx_cipher) gives client.admin a key that older clients cannot parse: this node's ceph-common
# (the node suite's, Reef) and the host's ceph (Debian 12: Pacific). So the monitors also accept
# AES-128 (`aes`), client.admin gets an AES-128 key (`ceph auth rotate`, as the Tentacle CLI
# in `cephadm shell`, the one client that can read the first key), and the three health warnings
# that say so are muted: the lab's clients are older than its cluster, on purpose.
admin_key_for_older_clients() {
    [ "$(release_need "$(ceph_release cephadm | cut -d. -f1)" cephx_cipher)" = aes256k ] || return 0
    step "cephx: an AES-128 client.admin key for older clients (Ceph $(ceph_release cephadm) makes AES-256 ones)"
    local shell=(cephadm --image "$IMAGE" shell --) key="$CEPHLAB_STATE/admin.keyring.new" i
    "${shell[@]}" ceph mon set auth_allowed_ciphers aes,aes256k > /dev/null 2>&1 \
        || die "ceph mon set auth_allowed_ciphers aes,aes256k failed (in cephadm shell)"
    "${shell[@]}" ceph mon set auth_preferred_cipher aes > /dev/null 2>&1 \
        || die "ceph mon set auth_preferred_cipher aes failed (in cephadm shell)"
    # the leader lets `aes` keys be created only from its next tick (mon_tick_interval, 5 s)
    for i in $(seq 12); do
        # umask 077: the new key is never readable by others, not even before install -m 600
        (umask 077; "${shell[@]}" ceph auth rotate client.admin --key_type aes > "$key" 2> /dev/null) \
            && grep -q 'key = AQ' "$key" && break
        [ "$i" -lt 12 ] || die "ceph auth rotate client.admin --key_type aes refused for 60 s: see 'ceph mon dump' (auth_allowed_ciphers) in cephadm shell"
        sleep 5
    done
    install -m 600 "$key" /etc/ceph/ceph.client.admin.keyring
    rm -f "$key"
    for i in AUTH_INSECURE_CLIENT_KEY_TYPE AUTH_INSECURE_KEYS_ALLOWED AUTH_INSECURE_KEYS_CREATABLE; do
        ceph health mute "$i" > /dev/null || die "ceph health mute $i failed with the new key"
    done
    log "client.admin: AES-128 key; auth_allowed_ciphers aes,aes256k; the 3 AUTH_INSECURE_* warnings muted"
}

wait_orchestrator() {
    local i
    for i in $(seq 60); do
        ceph orch status > /dev/null 2>&1 && return 0
        [ "$i" -eq 1 ] && log "waiting for the orchestrator (the mgr is starting)"
        sleep 5
    done
    die "the cephadm orchestrator does not answer after 300 s: see 'ceph mgr stat' and 'ceph log last cephadm'"
}

offline_settings() {
    is_local_image || return 0
    step "offline: the mgr must not look up the local image's digest in a registry"
    if [ "$(ceph config get mgr mgr/cephadm/use_repo_digest)" = "false" ]; then
        log "already set"
        return 0
    fi
    ceph config set mgr mgr/cephadm/use_repo_digest false
    ceph mgr fail
    log "set mgr/cephadm/use_repo_digest false and restarted the mgr"
}

reach_nodes() {
    step "ssh: node 1 reaches every node as root with cephadm's key"
    local name ip
    while read -r name ip; do
        # < /dev/null: ssh would read the rest of the node list from the loop's stdin
        node_ssh "$ip" true < /dev/null \
            || die "cannot ssh to root@$ip ($name) with cephadm's key: is $name up and provisioned? (vagrant up $name)"
        log "$name ($ip) ok"
    done < <(other_nodes)
}

distribute_image() {
    is_local_image || return 0
    step "image: copying $IMAGE to every node (podman save | ssh podman load)"
    local name ip
    while read -r name ip; do
        if node_ssh "$ip" podman image exists "$IMAGE" < /dev/null; then log "$name has it"; continue; fi
        podman save "$IMAGE" | node_ssh "$ip" podman load -q > /dev/null \
            || die "could not copy $IMAGE to $name ($ip)"
        log "$name loaded it"
    done < <(other_nodes)
}

add_hosts() {
    step "hosts: ceph orch host add"
    local name ip known
    known="$(ceph orch host ls --format json | python3 -c 'import json, sys; print(" ".join(h["hostname"] for h in json.load(sys.stdin)))')"
    while read -r name ip; do
        if [[ " $known " == *" $name "* ]]; then log "$name already added"; continue; fi
        ceph orch host add "$name" "$ip" < /dev/null || die "ceph orch host add $name $ip failed (see 'ceph log last cephadm')"
    done < <(other_nodes)
}

services() {
    step "services: mons, mgrs and an OSD on every extra disk (${CEPHLAB_SERVICES:-services.yml})"
    ceph orch apply -i "${CEPHLAB_SERVICES:-$PROVISION_DIR/services.yml}"
}

failure_domain() {
    step "failure domain: copies of a PG on different hosts"
    local leaf
    leaf="$(ceph osd crush rule dump replicated_rule --format json | python3 -c '
import json, sys
print(next((s["type"] for s in json.load(sys.stdin)["steps"] if s["op"].startswith("choose")), "none"))')"
    if [ "$leaf" = "host" ]; then
        log "replicated_rule: chooseleaf type host"
        return 0
    fi
    log "replicated_rule picks by $leaf: adding rule replicated_host and making it the default"
    ceph osd crush rule ls | grep -qx replicated_host || ceph osd crush rule create-replicated replicated_host default host
    ceph config set global osd_pool_default_crush_rule "$(ceph osd crush rule dump replicated_host --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["rule_id"])')"
}

lab_settings() {
    step "lab settings: what the labs assume of a teaching cluster (as the native one sets it)"
    # a Ceph default that protects production data; a lab cluster deletes its pools after every lab
    ceph config set mon mon_allow_pool_delete true
    # PG states reach the mgr and `ceph status` each second, not every 5 s: lab 08 times recovery
    # in these steps (CI: a 2.5 s saving by tuning disappeared in 5 s steps)
    ceph config set global mgr_stats_period 1
    ceph config set mon mon_mgr_digest_period 1
    # a deleted pool's space comes back at once, not 30 objects per 5 s
    ceph config set osd osd_delete_sleep_hdd 0
    ceph config set osd osd_delete_sleep_ssd 0
}

chmod 600 "$SSH_KEY"
choose_image
bootstrap
wait_orchestrator
offline_settings
wait_orchestrator
reach_nodes
distribute_image
add_hosts
services
failure_domain
lab_settings
bash "$PROVISION_DIR/health.sh"
step "cluster ready"
ceph status
ceph osd tree
