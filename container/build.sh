#!/usr/bin/env bash
# make image: build the lab's OCI image from the student release.
# In the instructor's repository it first writes the release (build/release/ceph-storage-lab, as
# `make release` does), so no solution or hidden test can enter the image; in a release folder it
# builds from that folder. podman if present, else docker.
#   CEPHLAB_IMAGE       the tag (default localhost/ceph-storage-lab:latest; for a foreign
#                       CEPHLAB_PLATFORM localhost/ceph-storage-lab:ARCH, e.g. :arm64, so the
#                       host's own image is not replaced)
#   CEPHLAB_IMAGE_SUITE the Debian the image is built from, and so its Ceph (cephlab/core/releases.py):
#                       trixie (default: Debian 13, Reef 18.2, the current stable), bookworm (Debian
#                       12, Pacific 16.2), sid (Tentacle 20.2)
#   CEPHLAB_IMAGE_BASE  the Debian base image (default: localhost/debian:SUITE when this machine has
#                       one, built by vagrant/provision/build-image.sh --base-only for machines
#                       without a registry; else docker.io/library/debian:SUITE-slim; for a
#                       foreign platform localhost/debian:SUITE-ARCH, built the same way)
#   CEPHLAB_PLATFORM    e.g. linux/arm64: on a Linux host of another architecture the build runs
#                       under qemu-user, which container/emulation.sh sets up (root)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PLATFORM="${CEPHLAB_PLATFORM:-}"
SUITE="${CEPHLAB_IMAGE_SUITE:-trixie}"
case "$SUITE" in bookworm|trixie|sid) ;; *) printf '[image] error: CEPHLAB_IMAGE_SUITE must be bookworm, trixie or sid, not %s\n' "$SUITE" >&2; exit 2 ;; esac
say() { printf '[image] %s\n' "$*"; }
die() { printf '[image] error: %s\n' "$*" >&2; exit 1; }
# shellcheck source-path=SCRIPTDIR source=emulation.sh
source "$ROOT/container/emulation.sh"

# a foreign platform on Linux: its Debian architecture (arm64), else empty (the host's own build,
# exactly as before; Docker/Podman Desktop on macOS bring their own emulation)
foreign_arch() {
    if [ "$(uname -s)" = Linux ] && emu_is_foreign "$PLATFORM"; then emu_debian_arch "$PLATFORM"; fi
}
ARCH="$(foreign_arch)"
if [ -n "$ARCH" ]; then TAG="${CEPHLAB_IMAGE:-localhost/ceph-storage-lab:$ARCH}"
else TAG="${CEPHLAB_IMAGE:-localhost/ceph-storage-lab:latest}"; fi

engine="$(command -v podman || command -v docker || true)"
[ -n "$engine" ] || die "neither podman nor docker is installed: apt-get install podman (or install Docker/Podman Desktop)"

if [ -e "$ROOT/.cephlab-release" ]; then
    context="$ROOT"
else
    context="$ROOT/build/release/ceph-storage-lab"
    say "student release into $context"
    "$ROOT/.venv/bin/cephlab" release "$context" > /dev/null \
        || die "the student release failed; run: .venv/bin/cephlab release $context"
fi

has_image() { "$engine" image inspect "$1" > /dev/null 2>&1; }

# the host's own platform: a local Debian base (vagrant/provision/build-image.sh --base-only, for
# machines that reach only the package mirrors); `image inspect` asks both podman and docker
# (`image exists` is podman's)
native_base() {
    if has_image "localhost/debian:$SUITE"; then echo "localhost/debian:$SUITE"
    else echo "docker.io/library/debian:$SUITE-slim"; fi
}

# a foreign platform: localhost/debian:SUITE is the host's architecture and would be the wrong
# base; a machine that has it (no registry) gets a local base of ARCH, made by debootstrap under
# emulation; a machine without it takes the registry's multi-arch image with --platform
foreign_base() {
    local local_base="localhost/debian:$SUITE-$ARCH"
    if ! has_image "$local_base" && has_image "localhost/debian:$SUITE"; then
        say "base $local_base: vagrant/provision/build-image.sh --base-only --arch $ARCH (debootstrap under emulation)" >&2
        CEPHLAB_SUITE="$SUITE" bash "$ROOT/vagrant/provision/build-image.sh" --base-only --arch "$ARCH" >&2 \
            || die "the $ARCH base failed; run: sudo bash vagrant/provision/build-image.sh --base-only --arch $ARCH"
    fi
    if has_image "$local_base"; then echo "$local_base"
    else echo "docker.io/library/debian:$SUITE-slim"; fi
}

[ -n "$ARCH" ] && emu_ensure "$PLATFORM"
base="${CEPHLAB_IMAGE_BASE:-}"
if [ -z "$base" ]; then
    if [ -n "$ARCH" ]; then base="$(foreign_base)"; else base="$(native_base)"; fi
fi
args=(build --network host --build-arg "BASE=$base" -t "$TAG" -f "$context/container/Containerfile")
[ -n "$PLATFORM" ] && args+=(--platform "$PLATFORM")
# A machine whose HTTPS goes through a proxy with its own CA (local CAs in
# /usr/local/share/ca-certificates): pip in the build trusts the host's bundle, mounted for the
# build only (podman; docker builds need no proxy CA on a learner's machine).
if [ -n "$(ls -A /usr/local/share/ca-certificates 2>/dev/null)" ] && [ "$(basename "$engine")" = podman ]; then
    args+=(-v /etc/ssl/certs/ca-certificates.crt:/run/host-ca.crt:ro --build-arg HOST_CA=/run/host-ca.crt)
fi
say "$(basename "$engine") ${args[*]} $context (a few minutes the first time)"
start=$SECONDS
"$engine" "${args[@]}" "$context" || die "the image build failed (see above); is the Debian mirror reachable?"
size="$("$engine" image inspect --format '{{.Size}}' "$TAG" | awk '{printf "%.0f MB", $1 / 1e6}')"
say "built $TAG ($size) in $((SECONDS - start)) s"
say "run it: $(basename "$engine") run --rm -p 127.0.0.1:8888:8888 -v cephlab-work:/home/learner/work --device /dev/fuse $TAG"
