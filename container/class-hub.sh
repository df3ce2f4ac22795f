#!/usr/bin/env bash
# A class on one server: JupyterHub (container/jupyterhub_config.py) spawning one container of the
# lab's image per learner through podman's Docker-compatible API. Run as root, in the repository,
# after `bash cephlab/bootstrap.sh setup --test` (jupyterhub, dockerspawner, configurable-http-proxy)
# and `make image`:
#   bash container/class-hub.sh up      # podman API service, the class network, its firewall, the hub
#   bash container/class-hub.sh down    # all of it stopped and removed (learners' volumes: --volumes)
#   bash container/class-hub.sh install-proxy   # configurable-http-proxy (bootstrap.sh setup --test)
# The hub answers on http://127.0.0.1:$CEPHLAB_HUB_PORT (default 8000; a TLS reverse proxy in front
# for a real class). Settings (environment): CEPHLAB_HUB_STATE (default /var/lib/cephlab-hub: the
# hub's database, logs, the podman socket, course/ and collect/), CEPHLAB_HUB_PREFIX (names of
# containers, volumes, network), CEPHLAB_HUB_SUBNET (default 10.89.200.0/24), CEPHLAB_HUB_IMAGE,
# CEPHLAB_HUB_COURSE, CEPHLAB_HUB_COLLECT, CEPHLAB_HUB_MEM_LIMIT, CEPHLAB_HUB_CPU_LIMIT,
# CEPHLAB_HUB_PASSWORD / CEPHLAB_HUB_ADMIN_TOKEN (the test's login; see jupyterhub_config.py).
# No systemd is needed: the podman API service is `podman system service --time=0` in the background.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CEPHLAB_HUB_STATE="${CEPHLAB_HUB_STATE:-/var/lib/cephlab-hub}"
export CEPHLAB_HUB_PREFIX="${CEPHLAB_HUB_PREFIX:-cephlab-hub}"
export CEPHLAB_HUB_NETWORK="$CEPHLAB_HUB_PREFIX-net"
SUBNET="${CEPHLAB_HUB_SUBNET:-10.89.200.0/24}"
export CEPHLAB_HUB_HUB_IP="${SUBNET%.*/*}.1"           # the network's gateway: the hub's API
export CEPHLAB_HUB_HUB_API_PORT="${CEPHLAB_HUB_HUB_API_PORT:-8081}"
export CEPHLAB_HUB_DOCKER_HOST="unix://$CEPHLAB_HUB_STATE/podman.sock"
export CEPHLAB_HUB_PROXY="$ROOT/.venv/hub-proxy/node_modules/.bin/configurable-http-proxy"
STATE="$CEPHLAB_HUB_STATE"
# JupyterHub's proxy, from npm into .venv/hub-proxy (`bootstrap.sh setup --test` runs install-proxy).
# 4.6: the last line that runs on Debian 12's Node.js 18 (5.x needs Node.js 20)
HUB_PROXY_VERSION=4.6.3
say() { printf '[class-hub] %s\n' "$*"; }
die() { printf '[class-hub] error: %s\n' "$*" >&2; exit 1; }

# The class network is a podman bridge; podman leaves the host's FORWARD policy as it is (often
# ACCEPT), so a machine next to the server that routes the subnet to it could reach the learners'
# containers. These rules drop every new connection into the bridge from another interface, and
# every connection to the hub's API port from outside the bridge and this host; the hub and its
# proxy (on this host) still reach the containers, the containers reach the hub's API.
firewall_rules() {
    local br="$1" tag="cephlab-hub:$CEPHLAB_HUB_PREFIX"
    printf '%s\n' \
        "FORWARD -o $br ! -i $br -m conntrack --ctstate NEW -m comment --comment $tag -j DROP" \
        "INPUT -d $CEPHLAB_HUB_HUB_IP ! -i $br -p tcp --dport $CEPHLAB_HUB_HUB_API_PORT -m addrtype ! --src-type LOCAL -m comment --comment $tag -j DROP"
}

up() {
    [ "$(id -u)" = 0 ] || die "run it as root (rootful podman: the learners' FUSE device and limits)"
    [ -x "$CEPHLAB_HUB_PROXY" ] || die "no configurable-http-proxy: run bash cephlab/bootstrap.sh setup --test"
    mkdir -p "$STATE" "${CEPHLAB_HUB_COURSE:-$STATE/course}" "${CEPHLAB_HUB_COLLECT:-$STATE/collect}/submissions"
    chmod 0700 "$STATE"
    chmod 0755 "${CEPHLAB_HUB_COURSE:-$STATE/course}"
    local image="${CEPHLAB_HUB_IMAGE:-localhost/ceph-storage-lab:latest}"
    podman image exists "$image" || die "no image $image: make image (or set CEPHLAB_HUB_IMAGE)"
    if [ ! -S "$STATE/podman.sock" ]; then
        say "podman API service on $STATE/podman.sock"
        setsid podman system service --time=0 "$CEPHLAB_HUB_DOCKER_HOST" > "$STATE/podman-service.log" 2>&1 &
        echo $! > "$STATE/podman-service.pid"
        for _ in $(seq 100); do [ -S "$STATE/podman.sock" ] && break; sleep 0.1; done
        [ -S "$STATE/podman.sock" ] || die "podman system service did not start: $STATE/podman-service.log"
    fi
    if ! podman network exists "$CEPHLAB_HUB_NETWORK"; then
        say "network $CEPHLAB_HUB_NETWORK ($SUBNET)"
        podman network create --subnet "$SUBNET" --gateway "$CEPHLAB_HUB_HUB_IP" "$CEPHLAB_HUB_NETWORK" > /dev/null
    fi
    # the bridge (and the gateway address the hub's API binds to) appears with the first container
    podman run --rm --network "$CEPHLAB_HUB_NETWORK" --ulimit nofile=20000:20000 \
        --ulimit nproc=32768:32768 --entrypoint true "$image" 2> /dev/null || true
    local br rule
    br="$(podman network inspect --format '{{.NetworkInterface}}' "$CEPHLAB_HUB_NETWORK")"
    while read -r rule; do
        # shellcheck disable=SC2086
        iptables -C $rule 2> /dev/null || iptables -I $rule
    done < <(firewall_rules "$br")
    echo "$br" > "$STATE/bridge"
    say "hub on http://127.0.0.1:${CEPHLAB_HUB_PORT:-8000} (log: $STATE/jupyterhub.log)"
    cd "$STATE"
    setsid "$ROOT/.venv/bin/jupyterhub" -f "$ROOT/container/jupyterhub_config.py" \
        > "$STATE/jupyterhub.log" 2>&1 &
    echo $! > "$STATE/hub.pid"
}

install_proxy() {
    local dir="$ROOT/.venv/hub-proxy"
    say "installing configurable-http-proxy $HUB_PROXY_VERSION into $dir (npm)"
    mkdir -p "$dir"
    npm install --silent --no-audit --no-fund --prefix "$dir" "configurable-http-proxy@$HUB_PROXY_VERSION" > /dev/null
    rm -f "$dir"/.version-*
    touch "$dir/.version-$HUB_PROXY_VERSION"
}

stop_pid() {      # stop_pid FILE: the process it names (TERM, then KILL after 20 s)
    local pid
    [ -f "$1" ] || return 0
    pid="$(cat "$1")"
    if kill -TERM "$pid" 2> /dev/null; then
        for _ in $(seq 200); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2> /dev/null || true
    fi
    rm -f "$1"
}

down() {
    # the hub stops the learners' servers as it ends (cleanup_servers); whatever is left goes below
    stop_pid "$STATE/hub.pid"
    stop_pid "$STATE/proxy.pid"
    local ids
    ids="$(podman ps -a --filter "name=^$CEPHLAB_HUB_PREFIX-" --format '{{.ID}}')"
    # shellcheck disable=SC2086
    [ -z "$ids" ] || podman rm -f -t 20 $ids > /dev/null
    if [ "${1:-}" = --volumes ]; then
        ids="$(podman volume ls --filter "name=^$CEPHLAB_HUB_PREFIX-work-" --format '{{.Name}}')"
        # shellcheck disable=SC2086
        [ -z "$ids" ] || podman volume rm -f $ids > /dev/null
    fi
    # every rule tagged with this class's comment (iptables -S quotes it), whatever its address
    local rule
    while read -r rule; do
        eval "iptables ${rule/#-A /-D }"
    done < <(iptables -S | grep -F -- "--comment \"cephlab-hub:$CEPHLAB_HUB_PREFIX\"" || true)
    rm -f "$STATE/bridge"
    podman network exists "$CEPHLAB_HUB_NETWORK" && podman network rm -f "$CEPHLAB_HUB_NETWORK" > /dev/null
    stop_pid "$STATE/podman-service.pid"
    rm -f "$STATE/podman.sock"
    say "class hub $CEPHLAB_HUB_PREFIX down"
}

case "${1:-}" in
    install-proxy) install_proxy ;;
    up) up ;;
    down) shift; down "$@" ;;
    *) die "usage: $0 up|down [--volumes]|install-proxy" ;;
esac
