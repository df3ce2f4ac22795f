# shellcheck shell=bash disable=SC2034  # (its variables are used by the scripts that source it)
# Sourced by up.sh, down.sh and status.sh: names, settings, folders and log helpers of the
# container cluster. Every object the lab creates carries the label cephlab=cephadm (containers,
# network, images) or lives under $STATE (disk files, their loop devices, node stores).
set -euo pipefail

CONTAINERS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VAGRANT_DIR="$(cd "$CONTAINERS_DIR/.." && pwd)"
PROVISION_SRC="$VAGRANT_DIR/provision"
# shellcheck source-path=SCRIPTDIR source=../provision/releases.sh
source "$PROVISION_SRC/releases.sh"
SETTINGS="${CEPHLAB_VAGRANT_SETTINGS:-$VAGRANT_DIR/settings.yml}"
STATE="${CEPHLAB_CEPHADM_STATE:-$CONTAINERS_DIR/.state}"
EXPORT="${CEPHLAB_CEPHADM_EXPORT:-$VAGRANT_DIR/.export-containers}"
LABEL="cephlab=cephadm"
NETWORK_NAME="${CEPHLAB_CEPHADM_NETWORK_NAME:-cephlab-cephadm}"

ts() { date -u +%H:%M:%S; }
step() { printf '[%s containers] == %s\n' "$(ts)" "$*"; }
log() { printf '[%s containers]    %s\n' "$(ts)" "$*"; }
warn() { printf '[%s containers] WARNING: %s\n' "$(ts)" "$*" >&2; }
die() { printf '[%s containers] ERROR: %s\n' "$(ts)" "$*" >&2; exit "${2:-1}"; }

# One value of settings.yml ("key: value  # comment"), or the default given.
setting() {
    local v=""
    [ -f "$SETTINGS" ] && v="$(awk -v k="$1" '$1 == k":" {sub(/^[^:]*:[ \t]*/, ""); sub(/[ \t]+#.*$/, ""); print; exit}' "$SETTINGS")"
    printf '%s\n' "${v:-$2}"
}

# Settings: settings.yml first, then these environment overrides (for CI and tests).
NODES="${CEPHLAB_CEPHADM_NODES:-$(setting nodes 3)}"
PREFIX="$(setting hostname_prefix ceph)"
OSD_DISKS="${CEPHLAB_CEPHADM_OSD_DISKS:-$(setting osd_disks 2)}"
OSD_DISK_GB="${CEPHLAB_CEPHADM_OSD_DISK_GB:-$(setting osd_disk_gb 10)}"
NET="${CEPHLAB_CEPHADM_SUBNET:-$(setting private_network 192.168.56)}"
FIRST_HOST="$(setting first_host 11)"
HEALTH_TIMEOUT="${CEPHLAB_CEPHADM_HEALTH_TIMEOUT:-$(setting health_timeout_s 1200)}"
DASHBOARD="$(setting dashboard false)"
# Empty: Debian's Ceph of this machine's cephadm package (Pacific on Debian 12). A suite, e.g.
# trixie: that suite's Ceph (Reef), in images and node containers built from that suite.
SUITE="${CEPHLAB_CEPHADM_SUITE:-}"

node_name() { printf '%s%s\n' "$PREFIX" "$1"; }
node_ip() { printf '%s.%s\n' "$NET" "$((FIRST_HOST + $1 - 1))"; }

# Containers, networks and loop devices this lab made (by label / by backing file under $STATE).
lab_containers() { podman ps -a --filter "label=$LABEL" --format '{{.Names}}' 2>/dev/null || true; }
lab_networks() { podman network ls --filter "label=$LABEL" --format '{{.Name}}' 2>/dev/null || true; }
lab_loops() {
    local f
    for f in "$STATE"/disks/*.img; do
        [ -e "$f" ] || continue
        losetup -j "$f" 2>/dev/null | cut -d: -f1
    done
}
