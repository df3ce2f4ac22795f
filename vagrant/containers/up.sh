#!/usr/bin/env bash
# A multi-host cephadm cluster whose hosts are privileged systemd containers (no virtualization):
# ceph1..cephN on a private podman bridge network, provisioned by the same vagrant/provision/
# node.sh and cluster.sh as the Vagrant VMs, OSDs on loop devices (one cephadm `raw` spec per
# host), failure domain host, then health.sh's HEALTH_OK gate. Needs root and podman (Debian 12:
# apt-get install podman); about 1.5 GiB of memory per node. Idempotent: a second run checks
# what is there and goes on; vagrant/containers/down.sh removes everything.
#
# Environment in (all optional):
#   CEPHLAB_VAGRANT_SETTINGS         settings file (default vagrant/settings.yml): nodes,
#                                    hostname_prefix, osd_disks, osd_disk_gb, private_network,
#                                    first_host, health_timeout_s, dashboard
#   CEPHLAB_CEPHADM_EXPORT           export folder (default vagrant/.export-containers)
#   CEPHLAB_CEPHADM_STATE            work folder: disk files, node stores (default vagrant/containers/.state)
#   CEPHLAB_CEPHADM_NODES, CEPHLAB_CEPHADM_OSD_DISKS, CEPHLAB_CEPHADM_OSD_DISK_GB,
#   CEPHLAB_CEPHADM_SUBNET (e.g. 10.89.56), CEPHLAB_CEPHADM_HEALTH_TIMEOUT   override settings.yml
#   CEPHLAB_CEPHADM_REBUILD=1        build the images again even if the cached ones match
#   CEPHLAB_CEPHADM_SUITE            a Debian suite (e.g. trixie: Ceph 18.2 Reef) whose Ceph the
#                                    images and nodes get; default: this machine's cephadm package's
# Out: the export folder holds ceph.conf, keyring (client.admin, mode 0600) and cluster.json
#   (fsid, nodes with addresses, image, network, osds); from the host:
#   ceph -c <export>/ceph.conf -k <export>/keyring status
# Exit codes: 0 HEALTH_OK; 1 a step failed (the message says what to do); 2 missing
#   prerequisite (not root, no podman, no loop devices); 3 no HEALTH_OK in time (report printed).
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

START=$SECONDS
set -E
trap 'die "unexpected failure in up.sh line $LINENO ($BASH_COMMAND): run it again; if it fails the same way, down.sh then up.sh"' ERR
CEPH_IMAGE=""   # the image the cluster runs (with loop devices allowed)
NODE_IMAGE=""

preflight() {
    step "checks: root, podman, loop devices, settings (nodes $NODES, $OSD_DISKS x ${OSD_DISK_GB} GiB OSD disks each, network $NET.0/24)"
    [ "$(id -u)" -eq 0 ] || die "run me as root (sudo $0): node containers are privileged" 2
    command -v podman > /dev/null || die "podman is missing: apt-get install podman" 2
    { command -v losetup > /dev/null && [ -e /dev/loop-control ]; } || die "no loop devices here (losetup, /dev/loop-control)" 2
    [[ "$NODES" =~ ^[1-9]$ ]] || die "nodes must be 1-9 (settings.yml or CEPHLAB_CEPHADM_NODES), not '$NODES'" 2
    [[ "$OSD_DISKS" =~ ^[1-8]$ ]] || die "osd_disks must be 1-8, not '$OSD_DISKS'" 2
    [[ "$NET" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "private_network must be three numbers like 192.168.56, not '$NET'" 2
    if ! podman network exists "$NETWORK_NAME" 2> /dev/null && ip -4 route show | grep -q "^$NET\.0/24 "; then
        die "$NET.0/24 is already routed on this machine (a Vagrant network?): set CEPHLAB_CEPHADM_SUBNET=10.89.56" 2
    fi
    mkdir -p "$STATE" "$EXPORT"
    printf '*\n' > "$STATE/.gitignore"
    printf '*\n' > "$EXPORT/.gitignore"
}

# The images are cached by a key: a hash of everything that goes into them.
ceph_key() {
    { cat "$PROVISION_SRC"/{build-image.sh,lib.sh,releases.sh,releases.tsv}; printf '%s\n' "$1"
      podman --version; printf 'dashboard=%s\n' "$DASHBOARD"; cat "$STATE"/mgr-files/* 2> /dev/null || true
    } | sha256sum | cut -c1-16
}
node_key() {
    { cat "$CONTAINERS_DIR"/node/* "$PROVISION_SRC/releases.tsv"; printf '%s %s\n' "$1" "$NODE_SUITE"; podman --version
      podman image inspect --format '{{.Id}}' "$(node_base)"; } | sha256sum | cut -c1-16
}
base_image() { printf 'localhost/debian:%s\n' "${SUITE:-bookworm}"; }
# The nodes' base: the release table's node_suite where the release's own suite cannot be a node
# here (Tentacle: sid's systemd does not run as PID 1 on a cgroup-v1 host), else the Ceph image's.
NODE_SUITE=""
node_base() { printf 'localhost/debian:%s\n' "${NODE_SUITE:-${SUITE:-bookworm}}"; }

image_has_key() {
    [ "$(podman image inspect --format '{{index .Labels "org.cephlab.key"}}' "$1" 2> /dev/null)" = "$2" ]
}

# The Debian Ceph version the images pin: this machine's cephadm package's, or that of the suite
# asked for (read in that suite's base image, which build-image.sh makes first).
ceph_version() {
    if [ -z "$SUITE" ]; then
        dpkg-query -W -f='${Version}' cephadm 2> /dev/null \
            || die "the images pin Debian's Ceph to the version of this machine's cephadm package: apt-get install cephadm" 2
        return 0
    fi
    CEPHLAB_STATE="$STATE/host" CEPHLAB_LOG="$STATE/host/provision.log" CEPHLAB_SUITE="$SUITE" \
        bash "$PROVISION_SRC/build-image.sh" --ceph-version > /dev/null \
        || die "no Ceph version for Debian $SUITE: see $STATE/host/provision.log"
    cat "$STATE/host/ceph-version"
}

# The release table's extra mgr files for this release (cephlab/core/mgr_files.py), for the image.
mgr_files() {
    local py="$VAGRANT_DIR/../.venv/bin/python"
    rm -rf "$STATE/mgr-files"
    mkdir -p "$STATE/mgr-files"
    [ -x "$py" ] || { log "no .venv here: the Ceph image gets no extra mgr files (make lab first)"; return 0; }
    (cd "$VAGRANT_DIR/.." && "$py" -m cephlab.core.mgr_files "${1%%.*}" "$STATE/mgr-files" > /dev/null) \
        || die "could not write the mgr files of Ceph $1: .venv/bin/python -m cephlab.core.mgr_files ${1%%.*} DIR"
}

# The PyPI wheels the Ceph image adds to release $1's mgr (release_need: remoto for Pacific, which
# Debian 12 does not package; cryptography for Reef, cephlab/core/mgr_files.py says why), fetched
# here, where pip trusts this network's TLS, so that the image build never reaches PyPI itself.
mgr_wheels() {
    local py="$VAGRANT_DIR/../.venv/bin/python" pin missing=()
    for pin in $(release_need "${1%%.*}" wheels); do
        compgen -G "$PROVISION_SRC/wheels/${pin%%==*}-${pin#*==}-*.whl" > /dev/null || missing+=("$pin")
    done
    [ "${#missing[@]}" -gt 0 ] || return 0
    [ -x "$py" ] || py="$(command -v python3)"
    log "mgr wheels: pip wheel ${missing[*]} into provision/wheels/ (for the image build)"
    "$py" -m pip wheel -q --no-deps -w "$PROVISION_SRC/wheels" "${missing[@]}" \
        || die "could not fetch ${missing[*]}: pip wheel --no-deps -w vagrant/provision/wheels ${missing[*]}"
}

images() {
    local release version t0 ckey nkey rebuild=0 force="${CEPHLAB_CEPHADM_REBUILD:-0}"
    mkdir -p "$STATE/host"
    version="$(ceph_version)"
    release="$(version_release "$version")"
    CEPH_IMAGE="localhost/ceph:v$release-loop"
    NODE_IMAGE="localhost/cephlab-node:v$release"
    mgr_files "$release"
    ckey="$(ceph_key "$version")"
    step "images: $CEPH_IMAGE (key $ckey) and $NODE_IMAGE"
    t0=$SECONDS
    if [ "$force" != 1 ] && image_has_key "$CEPH_IMAGE" "$ckey"; then
        log "$CEPH_IMAGE: cached (same key), no build"
    else
        # a derived image with another key: what goes into the image changed; build-image.sh
        # builds it again (podman's layer cache keeps the steps whose text did not change)
        if podman image exists "$CEPH_IMAGE"; then podman untag "localhost/ceph:v$release" > /dev/null 2>&1 || true; fi
        [ "$force" = 1 ] && rebuild=1
        mgr_wheels "$release"
        log "Ceph image: vagrant/provision/build-image.sh (rebuild $rebuild; minutes; log $STATE/host/provision.log)"
        CEPHLAB_STATE="$STATE/host" CEPHLAB_LOG="$STATE/host/provision.log" CEPHLAB_REBUILD="$rebuild" \
            CEPHLAB_DASHBOARD="$DASHBOARD" CEPHLAB_SUITE="${SUITE:-}" CEPHLAB_MGR_FILES="$STATE/mgr-files" \
            bash "$PROVISION_SRC/build-image.sh" \
            || die "the Ceph image build failed: see $STATE/host/provision.log and $STATE/host/image-build/build.log"
        log "allowing loop devices as OSD disks: $CEPH_IMAGE"
        printf 'FROM localhost/ceph:v%s\nENV CEPH_VOLUME_ALLOW_LOOP_DEVICES=true\nLABEL org.cephlab.key=%s cephlab=cephadm\n' \
            "$release" "$ckey" | podman build -q -t "$CEPH_IMAGE" -f - "$STATE" > /dev/null \
            || die "podman build of $CEPH_IMAGE failed"
    fi
    NODE_SUITE="$(release_need "${release%%.*}" node_suite)"
    [ -z "$NODE_SUITE" ] || [ -n "$SUITE" ] \
        || die "Ceph $release's nodes are Debian $NODE_SUITE with cephadm from this machine's suite: name that suite in CEPHLAB_CEPHADM_SUITE (e.g. sid)" 2
    if [ -n "$NODE_SUITE" ] && ! podman image exists "$(node_base)"; then
        log "node base: Debian $NODE_SUITE (the release table's node_suite for Ceph $release; log $STATE/host/provision.log)"
        CEPHLAB_STATE="$STATE/host" CEPHLAB_LOG="$STATE/host/provision.log" CEPHLAB_SUITE="$NODE_SUITE" \
            bash "$PROVISION_SRC/build-image.sh" --base-only \
            || die "the Debian $NODE_SUITE base image failed: see $STATE/host/provision.log"
    fi
    nkey="$(node_key "$version")"
    if [ "$force" != 1 ] && image_has_key "$NODE_IMAGE" "$nkey"; then
        log "$NODE_IMAGE: cached (key $nkey), no build"
    else
        log "node image: systemd, sshd, chrony, podman, cephadm $version${NODE_SUITE:+ from $SUITE on Debian $NODE_SUITE} (key $nkey; log $STATE/node-build.log)"
        podman build --network host --build-arg "CEPH_VERSION=$version" --build-arg "BASE=$(node_base)" \
            --build-arg "CEPHADM_SUITE=${NODE_SUITE:+$SUITE}" \
            --build-arg "UDEV_RECORDS=$(release_need "${release%%.*}" udev_records)" \
            --label "org.cephlab.key=$nkey" \
            --label "$LABEL" -t "$NODE_IMAGE" "$CONTAINERS_DIR/node" > "$STATE/node-build.log" 2>&1 \
            || { tail -n 20 "$STATE/node-build.log"; die "node image build failed: see $STATE/node-build.log (is the Debian mirror reachable?)"; }
    fi
    log "images ready in $((SECONDS - t0)) s"
    echo "$((SECONDS - t0))" > "$STATE/last-images-seconds"
}

network() {
    step "network: $NETWORK_NAME, $NET.0/24, internal (no route out of it)"
    if podman network exists "$NETWORK_NAME"; then log "exists"; return 0; fi
    podman network create --internal --label "$LABEL" --subnet "$NET.0/24" --gateway "$NET.1" "$NETWORK_NAME" > /dev/null \
        || die "podman network create $NETWORK_NAME failed"
    log "created"
}

disks() {
    step "disks: $OSD_DISKS sparse ${OSD_DISK_GB} GiB file(s) per node on loop devices"
    mkdir -p "$STATE/disks"
    local i d f dev
    for i in $(seq "$NODES"); do
        for d in $(seq "$OSD_DISKS"); do
            f="$STATE/disks/$(node_name "$i")-osd$d.img"
            [ -e "$f" ] || truncate -s "${OSD_DISK_GB}G" "$f"
            dev="$(losetup -j "$f" | cut -d: -f1 | head -n 1)"
            [ -n "$dev" ] || dev="$(losetup -f --show "$f")" || die "losetup -f $f failed (no free loop device?)"
            echo "$dev" > "$f.dev"
        done
        log "$(node_name "$i"): $(cat "$STATE"/disks/"$(node_name "$i")"-osd*.img.dev | paste -sd ' ' -)"
    done
}

node_devices() { cat "$STATE"/disks/"$(node_name "$1")"-osd*.img.dev; }

# The provisioning scripts as the Vagrantfile uploads them: provision/ plus the ssh key pair
# (the private key only on node 1), in a folder bind-mounted into each node.
provision_dirs() {
    mkdir -p "$STATE/ssh"
    [ -s "$STATE/ssh/id_cephlab" ] || ssh-keygen -q -t ed25519 -N '' -C cephadm@cephlab -f "$STATE/ssh/id_cephlab"
    local i dir
    for i in $(seq "$NODES"); do
        dir="$STATE/nodes/$(node_name "$i")/provision"
        # emptied, not removed: a running node has it bind-mounted
        mkdir -p "$dir"
        find "$dir" -mindepth 1 -delete
        mkdir -p "$dir/ssh"
        cp -a "$PROVISION_SRC"/. "$dir/"
        rm -rf "$dir/wheels"
        cp "$STATE/ssh/id_cephlab.pub" "$dir/ssh/"
        if [ "$i" -eq 1 ]; then install -m 600 "$STATE/ssh/id_cephlab" "$dir/ssh/id_cephlab"; fi
        services_file > "$dir/services-containers.yml"
    done
}

# services.yml's mons and mgrs, then one raw OSD spec per host with that host's loop devices
# (a container's loop devices are not empty "disks" for `data_devices: all`).
services_file() {
    awk '/^service_type: osd/ {exit} {print}' "$PROVISION_SRC/services.yml"
    local i
    for i in $(seq "$NODES"); do
        printf 'service_type: osd\nservice_id: raw-%s\nplacement:\n  hosts: [%s]\nspec:\n  method: raw\n  objectstore: bluestore\n  data_devices:\n    paths:\n' \
            "$(node_name "$i")" "$(node_name "$i")"
        node_devices "$i" | sed 's/^/    - /'
        if [ "$i" -lt "$NODES" ]; then printf -- '---\n'; fi
    done
}

reuse_node() {
    # Keep a node only if this checkout started it and it still answers: a node left by a
    # crashed run (podman's record says running, nothing answers) or by another checkout must
    # not be mistaken for ours.
    local name="$1" owner
    podman container exists "$name" 2> /dev/null || return 1
    [ "$(podman inspect --format '{{index .Config.Labels "cephlab"}}' "$name" 2> /dev/null)" = cephadm ] \
        || die "a container named $name exists that the lab did not create: remove or rename it (podman rm -f $name)"
    owner="$(podman inspect --format '{{index .Config.Labels "cephlab.state"}}' "$name" 2> /dev/null || true)"
    if timeout 20 podman exec "$name" true > /dev/null 2>&1; then
        [ "$owner" = "$STATE" ] && { log "$name running"; return 0; }
        [ -n "$owner" ] && [ -d "$owner" ] \
            && die "$name belongs to another lab cluster ($owner): take that one down first (its vagrant/containers/down.sh)"
    fi
    log "$name: left by an earlier run (${owner:-unlabelled}, not ours or not answering): removed"
    podman rm -f -t 5 "$name" > /dev/null 2>&1 || true
    return 1
}

nodes() {
    step "nodes: $NODES privileged systemd containers from $NODE_IMAGE"
    mkdir -p "$STATE/nodes"
    local i name args dev
    for i in $(seq "$NODES"); do
        name="$(node_name "$i")"
        reuse_node "$name" && continue
        mkdir -p "$STATE/nodes/$name/containers"
        args=(--detach --name "$name" --hostname "$name" --label "$LABEL" --label "cephlab.state=$STATE"
              --network "$NETWORK_NAME" --ip "$(node_ip "$i")"
              --privileged --cgroupns=host --runtime runc --systemd=always
              --ulimit nofile=20000:20000 --ulimit nproc=32768:32768
              --tmpfs /run --tmpfs /tmp -v /sys/fs/cgroup:/sys/fs/cgroup:rw
              -v "$STATE/nodes/$name/containers:/var/lib/containers"
              -v "/var/lib/containers/storage:/var/lib/shared-images:ro"
              -v "$STATE/nodes/$name/provision:/root/cephlab-provision")
        while read -r dev; do args+=(--device "$dev"); done < <(node_devices "$i")
        podman run "${args[@]}" "$NODE_IMAGE" > /dev/null || die "podman run $name failed"
        log "$name started at $(node_ip "$i")"
    done
    for i in $(seq "$NODES"); do
        name="$(node_name "$i")"
        local s=""
        for _ in $(seq 120); do
            s="$(podman exec "$name" systemctl is-system-running 2> /dev/null || true)"
            [ "$s" = running ] || [ "$s" = degraded ] && break
            sleep 1
        done
        if [ "$s" != running ] && [ "$s" != degraded ]; then
            podman ps -a --filter "name=^$name\$" --format '{{.Names}} {{.Status}}' >&2 || true
            podman logs --tail 15 "$name" >&2 || true
            die "systemd in $name is '$s' after 120 s (its log above): podman exec $name systemctl --failed"
        fi
        [ "$s" = degraded ] && log "$name: systemd degraded: $(podman exec "$name" systemctl --failed --plain --no-legend | awk '{print $1}' | paste -sd ' ' -)"
        # privileged containers get every device of the host: a node keeps only its own loop
        # devices, or ceph-volume on it finds (and activates) the OSDs of the other nodes
        local own others=""
        own=" $(node_devices "$i" | paste -sd ' ' -) "
        for dev in /dev/loop[0-9]*; do [[ "$own" == *" $dev "* ]] || others+=" $dev"; done
        # shellcheck disable=SC2086
        [ -z "$others" ] || podman exec "$name" rm -f $others
        podman exec "$name" podman image exists "$CEPH_IMAGE" \
            || die "$name does not see $CEPH_IMAGE in the host's store (/var/lib/shared-images)"
        log "$name: systemd $s, sees $CEPH_IMAGE"
    done
}

host_address() {
    # CNI (Debian 12's podman backend) gives an internal network's bridge no address on the host,
    # netavark does: give it the network's gateway address, so this machine's ceph CLI and the
    # notebooks reach the nodes. Internal stays internal: no NAT, no route out for the nodes.
    local dev
    dev="$(podman network inspect --format '{{.NetworkInterface}}' "$NETWORK_NAME" 2> /dev/null)"
    if [ -z "$dev" ] || ! ip link show "$dev" > /dev/null 2>&1; then die "network $NETWORK_NAME has no bridge on this machine: podman network inspect $NETWORK_NAME"; fi
    if ip -4 addr show dev "$dev" | grep -q "inet $NET\.1/"; then return 0; fi
    ip addr add "$NET.1/24" dev "$dev" || die "could not give $dev the address $NET.1/24: ip addr add $NET.1/24 dev $dev"
    log "host: $NET.1 on $dev (the nodes' network, for this machine's clients)"
}

all_nodes() {
    local i out=""
    for i in $(seq "$NODES"); do out+="$(node_name "$i")=$(node_ip "$i") "; done
    printf '%s\n' "${out% }"
}

provision() {
    local i name nodes_env
    nodes_env="$(all_nodes)"
    for i in $(seq "$NODES"); do
        name="$(node_name "$i")"
        step "node.sh on $name"
        podman exec -e CEPHLAB_NODES="$nodes_env" -e CEPHLAB_NETWORK="$NET.0/24" \
            -e CEPHLAB_TIME_SERVER="$([ "$i" -eq 1 ] || node_ip 1)" \
            "$name" bash /root/cephlab-provision/node.sh || die "node.sh failed on $name: podman exec -it $name bash" 1
    done
    name="$(node_name 1)"
    step "cluster.sh on $name (bootstrap, hosts, OSDs, health gate; several minutes)"
    podman exec "$name" bash -c "mkdir -p /var/lib/cephlab && echo '$CEPH_IMAGE' > /var/lib/cephlab/image"
    local rc=0
    podman exec -e CEPHLAB_NODES="$nodes_env" -e CEPHLAB_MON_IP="$(node_ip 1)" \
        -e CEPHLAB_IMAGE="$CEPH_IMAGE" -e CEPHLAB_OFFLINE=always -e CEPHLAB_DASHBOARD="$DASHBOARD" \
        -e CEPHLAB_EXPECTED_OSDS="$((NODES * OSD_DISKS))" -e CEPHLAB_HEALTH_TIMEOUT="$HEALTH_TIMEOUT" \
        -e CEPHLAB_SERVICES=/root/cephlab-provision/services-containers.yml \
        -e CEPHLAB_EXTRA_CONF="$(printf '[mon]\nmon_data_avail_warn = 5')" \
        "$name" bash /root/cephlab-provision/cluster.sh || rc=$?
    if [ "$rc" -ne 0 ]; then
        if podman exec "$name" test -s /etc/ceph/ceph.conf; then export_files || true; fi
        die "cluster.sh failed on $name (exit $rc): look at the messages above, then podman exec -it $name bash (ceph -s, ceph log last cephadm); run up.sh again or down.sh" 3
    fi
}

export_files() {
    step "export: ceph.conf, keyring (0600), cluster.json -> $EXPORT"
    local name tmp
    name="$(node_name 1)"
    mkdir -p "$EXPORT"
    tmp="$(mktemp -d)"
    podman cp "$name:/etc/ceph/ceph.conf" "$tmp/ceph.conf"
    podman cp "$name:/etc/ceph/ceph.client.admin.keyring" "$tmp/keyring"
    # the conf names its keyring (as the Vagrantfile's export does): `rados -c`, `rbd -c` and fio
    # then authenticate with it without a -k of their own
    sed -i "s|^\[global\]\$|[global]\n\tkeyring = $(realpath "$EXPORT")/keyring|" "$tmp/ceph.conf"
    install -m 644 "$tmp/ceph.conf" "$EXPORT/ceph.conf"
    install -m 600 "$tmp/keyring" "$EXPORT/keyring"
    rm -rf "$tmp"
    local fsid
    fsid="$(podman exec "$name" ceph fsid)"
    python3 - "$EXPORT/cluster.json" "$fsid" "$CEPH_IMAGE" "$NETWORK_NAME" "$NET.0/24" "$OSD_DISKS" "$(all_nodes)" <<'PY'
import json, sys
path, fsid, image, network, subnet, osd_disks, nodes = sys.argv[1:]
doc = {
    "backend": "cephadm-containers",
    "fsid": fsid,
    "image": image,
    "network": network,
    "subnet": subnet,
    "osd_disks_per_node": int(osd_disks),
    "nodes": [{"name": n.split("=")[0], "container": n.split("=")[0], "ip": n.split("=")[1]}
              for n in nodes.split()],
    "ceph_conf": "ceph.conf",
    "keyring": "keyring",
}
with open(path, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
PY
    log "from this machine: ceph -c $EXPORT/ceph.conf -k $EXPORT/keyring status"
}

check_from_host() {
    step "check: the host reaches the monitors over $NETWORK_NAME"
    if ! command -v ceph > /dev/null; then log "no ceph CLI on this machine (apt-get install ceph-common): skipped"; return 0; fi
    timeout 60 ceph -c "$EXPORT/ceph.conf" -k "$EXPORT/keyring" --connect-timeout 30 health \
        || die "the host cannot reach the monitors at $(node_ip 1): ip route get $(node_ip 1); podman network inspect $NETWORK_NAME"
}

preflight
images
network
disks
provision_dirs
nodes
host_address
provision
export_files
check_from_host
step "up: HEALTH_OK after $((SECONDS - START)) s; export in $EXPORT"
echo "$((SECONDS - START))" > "$STATE/last-up-seconds"
