# shellcheck shell=bash
# Sourced by every provisioning script: strict mode, a log of every step, small helpers.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=releases.sh
source "$(dirname "${BASH_SOURCE[0]}")/releases.sh"

# what provisioning has done (image name, build stamps), and its log; vagrant/containers/up.sh
# points both elsewhere when it builds the image on the machine that hosts the node containers
CEPHLAB_STATE="${CEPHLAB_STATE:-/var/lib/cephlab}"
CEPHLAB_LOG="${CEPHLAB_LOG:-/var/log/cephlab-provision.log}"
PROVISION_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SSH_KEY="$PROVISION_DIR/ssh/id_cephlab"

mkdir -p "$CEPHLAB_STATE"
# Everything also goes to a log on the node, for `vagrant ssh` after a failed run (once: scripts
# that run other scripts pass the already-logged output through).
if [ -z "${CEPHLAB_LOGGING:-}" ]; then
    export CEPHLAB_LOGGING=1
    exec > >(tee -a "$CEPHLAB_LOG") 2>&1
fi

_stamp() { printf '[%s %s]' "$(date +%H:%M:%S)" "$(hostname -s)"; }
step() { printf '%s == %s\n' "$(_stamp)" "$*"; }
log() { printf '%s    %s\n' "$(_stamp)" "$*"; }
die() {
    printf '%s ERROR: %s\n' "$(_stamp)" "$*" >&2
    printf '%s (full log on this node: %s)\n' "$(_stamp)" "$CEPHLAB_LOG" >&2
    exit 1
}

require_root() {
    [ "$(id -u)" -eq 0 ] || die "run me as root (Vagrant's shell provisioner does)"
}

# Install the packages that are not installed yet; apt lists are refreshed at most once an hour.
apt_install() {
    local p missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        log "already installed: $*"
        return 0
    fi
    if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -60 2>/dev/null | head -n 1)" ]; then
        log "apt-get update"
        DEBIAN_FRONTEND=noninteractive apt-get update -q || die "apt-get update failed: is the package mirror reachable?"
    fi
    log "installing: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        || die "could not install ${missing[*]}"
}

# CEPHLAB_NODES is "ceph1=192.168.56.11 ceph2=192.168.56.12 ...": print "name ip" lines.
node_lines() {
    local pair
    for pair in ${CEPHLAB_NODES:?CEPHLAB_NODES is not set (the Vagrantfile sets it)}; do
        printf '%s %s\n' "${pair%%=*}" "${pair#*=}"
    done
}

# The Ceph release of Debian's packages on this node, e.g. 16.2.15.
ceph_release() {
    version_release "$(dpkg-query -W -f='${Version}' "${1:-cephadm}")"
}

node_ssh() {
    local ip="$1"; shift
    ssh -i "$SSH_KEY" -o BatchMode=yes -o StrictHostKeyChecking=accept-new -o ConnectTimeout=10 \
        "root@$ip" "$@"
}
