#!/usr/bin/env bash
# Offline Ceph image: build localhost/ceph:v<release> from Debian's own packages, so a cluster
# comes up with only the OS package mirror (no container registry). Each step follows what the
# lab's authors measured with Debian's cephadm 16.2.15 and podman 4.3 (vagrant/README.md, Offline).
#   CEPHLAB_MIRROR     Debian mirror (default: the first one this node's apt uses)
#   CEPHLAB_DASHBOARD  true to include the dashboard module
#   CEPHLAB_REBUILD    1 to build the Ceph image again from scratch (e.g. after a Debian point release)
#   CEPHLAB_SUITE      the Debian suite of the images (default: this machine's own, else bookworm);
#                      another suite than this machine's (trixie on a Debian 12 host: Ceph 18.2 Reef)
#                      takes Debian's Ceph version of that suite instead of this machine's cephadm's
#   CEPHLAB_MGR_FILES  a folder of files to put on the mgr's module path in the image (e.g. the
#                      bcrypt stand-in Reef's mgr needs, cephlab/core/releases.py); default none
# What the release's mgr needs from PyPI (remoto for Pacific, which Debian 12 does not package;
# cryptography for Reef) is the release table's (releases.sh): wheels in vagrant/provision/wheels/,
# which vagrant/containers/up.sh fetches, or for a VM beforehand with
#   pip wheel --no-deps -w vagrant/provision/wheels remoto==1.2.1
# The image's name goes to /var/lib/cephlab/offline-image.
#   --base-only              the Debian base image alone (container/build.sh uses it for the lab image)
#   --ceph-version           the base image, and the Ceph version the images pin written to
#                            $CEPHLAB_STATE/ceph-version (vagrant/containers/up.sh names its images by it)
#   --base-only --arch arm64 a base for another architecture, localhost/debian:bookworm-arm64, for
#                            CEPHLAB_PLATFORM=linux/arm64 builds; debootstrap runs its second stage
#                            under qemu-user (container/emulation.sh sets that up)
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_root

host_suite() { awk -F= '$1 == "VERSION_CODENAME" {gsub(/"/, "", $2); print $2}' /etc/os-release 2> /dev/null || true; }
SUITE="${CEPHLAB_SUITE:-$(host_suite)}"
SUITE="${SUITE:-bookworm}"
BASE="localhost/debian:$SUITE"
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
    step "image: Debian $SUITE base image $BASE (debootstrap minbase)"
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
    debootstrap --variant=minbase "${arch_args[@]}" "$SUITE" "$WORK/rootfs" "$mirror" > "$WORK/debootstrap.log" 2>&1 \
        || die "debootstrap failed: see $WORK/debootstrap.log"
    if [ "$SUITE" = "$(host_suite)" ]; then
        # the node's own apt sources (updates, security): the image gets the Ceph packages the node has
        if [ -f /etc/apt/sources.list ]; then cp /etc/apt/sources.list "$WORK/rootfs/etc/apt/sources.list"; fi
        cp -a /etc/apt/sources.list.d/. "$WORK/rootfs/etc/apt/sources.list.d/"
    else
        suite_sources "$mirror" > "$WORK/rootfs/etc/apt/sources.list.d/debian.sources"
        rm -f "$WORK/rootfs/etc/apt/sources.list"
    fi
    host_apt_settings "$WORK/rootfs"
    tar -C "$WORK/rootfs" -c . | podman import "${import_args[@]}" - "$BASE" > /dev/null
    rm -rf "$WORK/rootfs"
    log "imported $BASE"
}

# The host's settings for reaching its mirror (apt.conf.d files that set a proxy or turn the
# date checks off: a frozen mirror, whose sid Release file has expired), so that apt
# in the image reaches the mirror the way the host's apt does.
host_apt_settings() {
    local f
    for f in /etc/apt/apt.conf.d/*; do
        [ -f "$f" ] && grep -Eq '^[[:space:]]*Acquire::(Check-Valid-Until|Check-Date|https?::)' "$f" && cp "$f" "$1/etc/apt/apt.conf.d/"
    done
    return 0
}

# A suite's apt sources as an installation of it has them: a stable release with its updates and
# security suites, unstable alone.
suite_sources() {
    local mirror="$1" suites="$SUITE $SUITE-updates"
    [ "$SUITE" = sid ] && suites=sid
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$mirror" "$suites"
    [ "$SUITE" = sid ] && return 0
    printf '\nTypes: deb\nURIs: http://deb.debian.org/debian-security\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$SUITE"
}

# The version of Debian's cephadm package the images pin: this machine's own, or, for another
# suite, the one that suite's archive offers (asked inside its base image).
ceph_version() {
    if [ "$SUITE" = "$(host_suite)" ] || [ -z "${CEPHLAB_SUITE:-}" ]; then
        dpkg-query -W -f='${Version}' cephadm
        return 0
    fi
    # ulimits within the hard limits of the lab's CI machines (podman's defaults exceed them)
    podman run --rm --network host --ulimit nofile=20000:20000 --ulimit nproc=32768:32768 "$BASE" bash -c \
        'apt-get update -qq > /dev/null && apt-cache policy cephadm | awk "/Candidate:/ {print \$2}"'
}

# CEPH_VERSION: the version ceph_version finds, or stop saying where none was found.
pin_version() {
    CEPH_VERSION="$(ceph_version)"
    [ -n "$CEPH_VERSION" ] || die "no cephadm package in Debian $SUITE's archive (apt-cache policy cephadm in $BASE)"
}

containerfile() {
    local release="$1" extra="" wheels
    [ "${CEPHLAB_DASHBOARD:-false}" = "true" ] && extra=" ceph-mgr-dashboard"
    wheels="$(release_need "${release%%.*}" wheels)"
    if [ "$(release_need "${release%%.*}" ssh)" = asyncssh ]; then
        # Quincy and later: the mgr's cephadm module speaks asyncssh (a dependency Debian packages)
        cat <<CONTAINERFILE
FROM $BASE
# Pin Debian's Ceph release, the one cephadm on the nodes comes from. Trixie's ceph-mgr-cephadm
# restarts ceph-mgr.target in its postinst (deb-systemd-invoke) and fails where systemd does not
# run: policy-rc.d tells it that no service starts in this image (as Debian's own images do).
RUN printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d \\
 && apt-get update \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \\
      ceph-base=$CEPH_VERSION ceph-common=$CEPH_VERSION ceph-mon=$CEPH_VERSION \\
      ceph-mgr=$CEPH_VERSION ceph-mgr-cephadm=$CEPH_VERSION ceph-osd=$CEPH_VERSION \\
      ceph-volume=$CEPH_VERSION ceph-mds=$CEPH_VERSION radosgw=$CEPH_VERSION$extra \\
      lvm2 udev ca-certificates python3-pip \\
 && rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d
CONTAINERFILE
        # Reef: cryptography and pyOpenSSL in place of Debian's, from the wheels up.sh fetched
        [ -z "$wheels" ] || cat <<CONTAINERFILE
COPY wheels/ /tmp/wheels/
RUN cd /usr/lib/python3/dist-packages && rm -rf cryptography cryptography-* OpenSSL pyOpenSSL-* \\
 && pip install --break-system-packages --no-deps --no-index --find-links /tmp/wheels \\
      --target /usr/lib/python3/dist-packages $wheels \\
 && rm -rf /tmp/wheels
CONTAINERFILE
        cat <<CONTAINERFILE
# the release's extra mgr files (cephlab/core/mgr_files.py); where it names the modules to keep,
# the others go: a PyO3 extension they import first would keep cephadm's module from loading;
# where the mgr's Python defaults to forkserver (3.14), sitecustomize gives ceph-mgr fork back
COPY mgr/ /tmp/mgr/
RUN if [ -f /tmp/mgr/keep-modules ]; then \\
      for d in /usr/share/ceph/mgr/*/; do \\
        grep -qxF "\$(basename "\$d")" /tmp/mgr/keep-modules || rm -rf "\$d"; \\
      done; \\
    fi \\
 && find /tmp/mgr -maxdepth 1 -name '*.py' -exec cp {} /usr/share/ceph/mgr/ \\; \\
 && if [ -f /tmp/mgr/mgr-start-method.sitecustomize ]; then \\
      for f in /etc/python3*/sitecustomize.py; do cat /tmp/mgr/mgr-start-method.sitecustomize >> "\$f"; done; \\
    fi \\
 && rm -rf /tmp/mgr && python3 -c 'import asyncssh'
# ceph=True: what get_last_local_ceph_image of cephadm looks for, so that cephadm shell on a node
# finds this image instead of pulling quay.io/ceph/ceph:vNN (the nodes have no route out)
LABEL org.cephlab.core.release="$release" org.cephlab.source="Debian packages" ceph="True"
CONTAINERFILE
        return 0
    fi
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
      --no-index --find-links /tmp/wheels "$wheels" \\
 || pip install --break-system-packages --no-deps --no-build-isolation --target /usr/lib/python3/dist-packages "$wheels"
RUN python3 -c 'import remoto, execnet' && rm -rf /tmp/wheels
# ceph=True: what get_last_local_ceph_image of cephadm looks for, so that cephadm shell on a node
# finds this image instead of pulling quay.io/ceph/ceph:vNN (the nodes have no route out)
LABEL org.cephlab.core.release="$release" org.cephlab.source="Debian packages" ceph="True"
CONTAINERFILE
}

ceph_image() {
    local release image
    pin_version
    release="$(version_release "$CEPH_VERSION")"
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
    mkdir -p "$WORK/ctx/wheels" "$WORK/ctx/mgr"
    cp "$PROVISION_DIR"/wheels/*.whl "$WORK/ctx/wheels/" 2>/dev/null || true
    if [ -n "${CEPHLAB_MGR_FILES:-}" ]; then cp -a "$CEPHLAB_MGR_FILES"/. "$WORK/ctx/mgr/"; fi
    containerfile "$release" > "$WORK/ctx/Containerfile"
    log "podman build (a few minutes; log: $WORK/build.log)"
    podman build "${build_args[@]}" "$WORK/ctx" > "$WORK/build.log" 2>&1 \
        || die "podman build failed: see $WORK/build.log (are the mgr's wheels in provision/wheels/? releases.tsv names them)"
    log "built $image ($(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}'))"
}

# --arch ARCH (with --base-only): a foreign base, set up emulation for it first
foreign_arch() {
    ARCH="$1"
    [ "$ARCH" = "$(dpkg --print-architecture)" ] && { ARCH=""; return 0; }
    BASE="localhost/debian:$SUITE-$ARCH"
    WORK="$WORK-$ARCH"
    # shellcheck source=../../container/emulation.sh
    source "$PROVISION_DIR/../../container/emulation.sh"
    emu_ensure "linux/$ARCH"
}

base_only=0
version_only=0
while [ "$#" -gt 0 ]; do
    case "$1" in
        --base-only) base_only=1 ;;
        --ceph-version) version_only=1 ;;
        --arch) [ "$#" -ge 2 ] || die "--arch needs an architecture, e.g. --arch arm64"; foreign_arch "$2"; shift ;;
        *) die "unknown option $1 (--base-only, --ceph-version, --arch ARCH)" ;;
    esac
    shift
done
[ -n "$ARCH" ] && [ "$base_only" = 0 ] && die "--arch goes with --base-only (the Ceph image is the host's architecture)"
apt_install podman
base_image
[ "$base_only" = 1 ] && exit 0
if [ "$version_only" = 1 ]; then
    pin_version
    printf '%s\n' "$CEPH_VERSION" > "$CEPHLAB_STATE/ceph-version"
    log "Debian $SUITE's Ceph: $CEPH_VERSION"
    exit 0
fi
ceph_image
