#!/usr/bin/env bash
# Emulation for a foreign image platform (CEPHLAB_PLATFORM=linux/arm64 on an amd64 host): the
# build runs the image's arm64 programs (apt, dpkg, pip) through qemu-user, which the kernel calls
# via binfmt_misc. Sourced by container/build.sh and vagrant/provision/build-image.sh; run alone:
#   bash container/emulation.sh linux/arm64     # check it, and set it up when it is missing (root)
# What Debian 12 does (measured on a machine whose PID 1 is not systemd): qemu-user-static ships
# /usr/share/binfmts/qemu-* for binfmt-support (and /usr/lib/binfmt.d/ for systemd-binfmt, which
# does nothing without systemd); its postinst registers them through update-binfmts, with the F
# (fix-binary) flag, if binfmt_misc is mounted. F makes the kernel open the interpreter once, at
# registration, so it works inside containers and chroots that do not have /usr/bin/qemu-*-static.
# binfmt-support's own service is not started there (policy-rc.d denies it), but its postinst
# registers every format in /usr/share/binfmts too: all qemu-* targets, and jar, python3.11 (.pyc)
# and llvm-14-runtime where those packages are installed.
set -euo pipefail

emu_say() { printf '[emulation] %s\n' "$*"; }
emu_die() { printf '[emulation] error: %s\n' "$*" >&2; exit 1; }

# linux/arm64 -> aarch64 (the kernel's and qemu's name); other platforms as they are
emu_qemu_arch() {
    case "${1#linux/}" in
        arm64|arm64/v8|aarch64) echo aarch64 ;;
        amd64|x86_64) echo x86_64 ;;
        *) echo "${1#linux/}" ;;
    esac
}

# linux/arm64 -> arm64 (Debian's and debootstrap's name)
emu_debian_arch() {
    case "$(emu_qemu_arch "$1")" in
        aarch64) echo arm64 ;;
        x86_64) echo amd64 ;;
        *) echo "${1#linux/}" ;;
    esac
}

# true when the platform is not the host's own (an empty platform is the host's)
emu_is_foreign() {
    [ -n "${1:-}" ] && [ "$(emu_qemu_arch "$1")" != "$(uname -m)" ]
}

# CEPHLAB_BINFMT_DIR: another folder for the handlers, for tests only
BINFMT_DIR="${CEPHLAB_BINFMT_DIR:-/proc/sys/fs/binfmt_misc}"
emu_handler() { echo "$BINFMT_DIR/qemu-$1"; }

# enabled and with the F flag: without F, a container has no qemu binary to run its programs with
emu_handler_ok() {
    local h; h="$(emu_handler "$1")"
    [ -r "$h" ] && grep -qx enabled "$h" && grep -q '^flags:.*F' "$h"
}

emu_need_root() {
    [ "$(id -u)" -eq 0 ] || emu_die "emulation for $1 is not set up and needs root: run
    sudo bash container/emulation.sh $1
(it mounts binfmt_misc, runs apt-get install -y qemu-user-static binfmt-support and registers the handler)"
}

emu_mount_binfmt() {
    [ -e "$BINFMT_DIR/register" ] && return 0
    emu_say "mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc"
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc \
        || emu_die "could not mount binfmt_misc (a container without the host's permission?)"
}

# the packages, named once in the project's set-up lists
EMU_PACKAGES="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/cephlab/packages-emulation.txt"

# emu_install LIST: the packages of a cephlab/packages-*.txt that are not installed yet; apt
# waits for another apt's lock instead of failing at once
emu_install() {
    local p missing=() wanted=()
    mapfile -t wanted < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1")
    for p in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    emu_say "apt-get install -y ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -q > /dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}" \
        || emu_die "apt-get install -y ${missing[*]} failed: is the Debian mirror reachable?"
}

# the package registers the handler when binfmt_misc was mounted at install time; a machine that
# mounted it later (or a reboot without systemd) needs update-binfmts to do it again
emu_register() {
    local arch="$1" h; h="$(emu_handler "$1")"
    if [ ! -e "$h" ]; then
        emu_say "update-binfmts --enable qemu-$arch"
        update-binfmts --enable "qemu-$arch" || emu_die "update-binfmts --enable qemu-$arch failed"
    fi
    if [ -e "$h" ] && ! grep -q '^flags:.*F' "$h"; then
        # registered by someone else without F: register again, with it
        emu_say "qemu-$arch is registered without the F flag: registering it again with F"
        echo -1 > "$h"
        update-binfmts --enable "qemu-$arch" || emu_die "update-binfmts --enable qemu-$arch failed"
    fi
}

# the whole check: nothing for the host's own platform; else the handler, set up when missing
emu_ensure() {
    local platform="$1" arch
    emu_is_foreign "$platform" || return 0
    arch="$(emu_qemu_arch "$platform")"
    if emu_handler_ok "$arch"; then
        emu_say "$platform on $(uname -m): qemu-$arch is registered ($(grep '^interpreter' "$(emu_handler "$arch")"), $(grep '^flags' "$(emu_handler "$arch")"))"
        return 0
    fi
    emu_need_root "$platform"
    emu_mount_binfmt
    emu_install "$EMU_PACKAGES"
    emu_register "$arch"
    emu_handler_ok "$arch" || emu_die "qemu-$arch is still not registered with the F flag: $(cat "$(emu_handler "$arch")" 2>&1)"
    emu_say "qemu-$arch registered: $(tr '\n' ' ' < "$(emu_handler "$arch")")"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    [ "$#" -eq 1 ] || emu_die "usage: bash container/emulation.sh PLATFORM (e.g. linux/arm64)"
    emu_ensure "$1"
fi
