#!/usr/bin/env bash
# Offline Ceph image: build localhost/ceph:v<release> from Debian's own packages, so a cluster
# comes up with only the OS package mirror (no container registry). Each step follows what the
# lab's authors measured with Debian's cephadm 16.2.15 and podman 4.3 (vagrant/README.md, Offline).
#   CEPHLAB_MIRROR     Debian mirror (default: the first one this node's apt uses)
#   CEPHLAB_DASHBOARD  true to include the dashboard module
#   CEPHLAB_REBUILD    1 to build the Ceph image again from scratch (e.g. after a Debian point release)
# The mgr's cephadm module needs remoto, which Debian 12 does not package: it comes from PyPI, or,
# when PyPI is unreachable too, from a wheel put in vagrant/provision/wheels/ beforehand with
#   pip wheel --no-deps -w vagrant/provision/wheels remoto==1.2.1
# The image's name goes to /var/lib/cephlab/offline-image.
#   --base-only              the Debian base image alone (container/build.sh uses it for the lab image)
#   --base-only --arch arm64 a base for another architecture, localhost/debian:bookworm-arm64, for
#                            CEPHLAB_PLATFORM=linux/arm64 builds; debootstrap runs its second stage
#                            under qemu-user (container/emulation.sh sets that up)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_root

REMOTO="remoto==1.2.1"
BASE=localhost/debian:bookworm
# --arch: empty is the host's own architecture, with the tag CI and the Ceph image use
ARCH=""
WORK="$CEPHLAB_STATE/image-build"

first_mirror() {
    # one-line sources ("deb [opts] URI suite ...") and deb822 sources ("URIs: URI")
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}
             $1 == "URIs:" && $2 ~ /^https?:/ && $2 !~ /security/ {print $2; exit}' | head -n 1
}

base_image() {
    step "image: Debian 12 base image $BASE (debootstrap minbase)"
    if podman image exists "$BASE"; then log "already built"; return 0; fi
    apt_install debootstrap
    local mirror="${CEPHLAB_MIRROR:-$(first_mirror)}"
    [ -n "$mirror" ] || die "no Debian mirror found in /etc/apt; set CEPHLAB_MIRROR"
    rm -rf "$WORK/rootfs"
    mkdir -p "$WORK/rootfs"
    local arch_args=() import_args=()
    if [ -n "$ARCH" ]; then
        arch_args=(--arch="$ARCH")
        # without --arch podman labels the image with the host's architecture, and a
        # `podman build --platform linux/$ARCH` would not take it as its base
        import_args=(--arch "$ARCH" --os linux)
    fi
    log "debootstrap ${arch_args[*]} from $mirror (about a minute; under emulation several)"
    debootstrap --variant=minbase "${arch_args[@]}" bookworm "$WORK/rootfs" "$mirror" > "$WORK/debootstrap.log" 2>&1 \
        || die "debootstrap failed: see $WORK/debootstrap.log"
    # the node's own apt sources (updates, security): the image gets the Ceph packages the node has
    [ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$WORK/rootfs/etc/apt/sources.list"
    cp -a /etc/apt/sources.list.d/. "$WORK/rootfs/etc/apt/sources.list.d/"
    tar -C "$WORK/rootfs" -c . | podman import "${import_args[@]}" - "$BASE" > /dev/null
    rm -rf "$WORK/rootfs"
    log "imported $BASE"
}

containerfile() {
    local release="$1" extra=""
    [ "${CEPHLAB_DASHBOARD:-false}" = "true" ] && extra=" ceph-mgr-dashboard"
    cat <<CONTAINERFILE
FROM $BASE
# Pin Debian's Ceph release, the one cephadm on the nodes comes from.
RUN apt-get update \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \\
      ceph-base=$CEPH_VERSION ceph-common=$CEPH_VERSION ceph-mon=$CEPH_VERSION \\
      ceph-mgr=$CEPH_VERSION ceph-mgr-cephadm=$CEPH_VERSION ceph-osd=$CEPH_VERSION \\
      ceph-mds=$CEPH_VERSION radosgw=$CEPH_VERSION$extra \\
      lvm2 udev python3-execnet python3-pip python3-setuptools python3-wheel ca-certificates \\
 && rm -rf /var/lib/apt/lists/*
COPY wheels/ /tmp/wheels/
# remoto (cephadm module's ssh layer, not packaged in Debian 12): the local wheel, else PyPI;
# into Debian's own dist-packages: ceph-mgr's embedded Python does not look in /usr/local
RUN pip install --break-system-packages --no-deps --no-build-isolation --target /usr/lib/python3/dist-packages \\
      --no-index --find-links /tmp/wheels "$REMOTO" \\
 || pip install --break-system-packages --no-deps --no-build-isolation --target /usr/lib/python3/dist-packages "$REMOTO"
RUN python3 -c 'import remoto, execnet' && rm -rf /tmp/wheels
LABEL org.cephlab.core.release="$release" org.cephlab.source="Debian packages"
CONTAINERFILE
}

ceph_image() {
    local release image
    release="$(ceph_release cephadm)"
    CEPH_VERSION="$(dpkg-query -W -f='${Version}' cephadm)"
    image="localhost/ceph:v$release"
    step "image: $image from Debian's Ceph $CEPH_VERSION packages"
    echo "$image" > "$CEPHLAB_STATE/offline-image"
    local build_args=(--network host -t "$image")
    if [ "${CEPHLAB_REBUILD:-0}" = 1 ]; then
        build_args+=(--no-cache)
    elif podman image exists "$image"; then
        log "already built"
        return 0
    fi
    rm -rf "$WORK/ctx"
    mkdir -p "$WORK/ctx/wheels"
    cp "$PROVISION_DIR"/wheels/*.whl "$WORK/ctx/wheels/" 2>/dev/null || true
    containerfile "$release" > "$WORK/ctx/Containerfile"
    log "podman build (a few minutes; log: $WORK/build.log)"
    podman build "${build_args[@]}" "$WORK/ctx" > "$WORK/build.log" 2>&1 \
        || die "podman build failed: see $WORK/build.log (is remoto on PyPI or in provision/wheels/?)"
    log "built $image ($(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}'))"
}

# --arch ARCH (with --base-only): a foreign base, set up emulation for it first
foreign_arch() {
    ARCH="$1"
    [ "$ARCH" = "$(dpkg --print-architecture)" ] && { ARCH=""; return 0; }
    BASE="localhost/debian:bookworm-$ARCH"
    WORK="$WORK-$ARCH"
    # shellcheck source=../../container/emulation.sh
    source "$PROVISION_DIR/../../container/emulation.sh"
    emu_ensure "linux/$ARCH"
}

base_only=0
while [ "$#" -gt 0 ]; do
    case "$1" in
        --base-only) base_only=1 ;;
        --arch) [ "$#" -ge 2 ] || die "--arch needs an architecture, e.g. --arch arm64"; foreign_arch "$2"; shift ;;
        *) die "unknown option $1 (--base-only, --arch ARCH)" ;;
    esac
    shift
done
[ -n "$ARCH" ] && [ "$base_only" = 0 ] && die "--arch goes with --base-only (the Ceph image is the host's architecture)"
apt_install podman
base_image
[ "$base_only" = 1 ] && exit 0
ceph_image
