#!/usr/bin/env bash
# make image: build the lab's OCI image from the student release.
# In the instructor's repository it first writes the release (build/release/ceph-storage-lab, as
# `make release` does), so no solution or hidden test can enter the image; in a release folder it
# builds from that folder. podman if present, else docker.
#   CEPHLAB_IMAGE       the tag (default localhost/ceph-storage-lab:latest)
#   CEPHLAB_IMAGE_BASE  the Debian base image (default: localhost/debian:bookworm when this machine
#                       has one, built by vagrant/provision/build-image.sh --base-only for machines
#                       without a registry; else docker.io/library/debian:bookworm-slim)
#   CEPHLAB_PLATFORM    e.g. linux/arm64 (needs qemu-user-static and binfmt on an amd64 host)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TAG="${CEPHLAB_IMAGE:-localhost/ceph-storage-lab:latest}"
say() { printf '[image] %s\n' "$*"; }
die() { printf '[image] error: %s\n' "$*" >&2; exit 1; }

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

base="${CEPHLAB_IMAGE_BASE:-}"
if [ -z "$base" ]; then
    # a local Debian base (vagrant/provision/build-image.sh --base-only, for machines that reach
    # only the package mirrors); `image inspect` asks both podman and docker (`image exists` is podman's)
    if "$engine" image inspect localhost/debian:bookworm > /dev/null 2>&1; then base=localhost/debian:bookworm
    else base=docker.io/library/debian:bookworm-slim; fi
fi
args=(build --network host --build-arg "BASE=$base" -t "$TAG" -f "$context/container/Containerfile")
[ -n "${CEPHLAB_PLATFORM:-}" ] && args+=(--platform "$CEPHLAB_PLATFORM")
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
