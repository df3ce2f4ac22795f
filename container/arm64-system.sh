#!/usr/bin/env bash
# The lab on a whole arm64 Debian system under full-system emulation (issue 48 item 3): an arm64
# Debian root (debootstrap under qemu-user) with the student release set up as a learner would
# (`make setup`: its OS packages as root, its .venv as the learner), booted with
# qemu-system-aarch64 (TCG; Debian's arm64 kernel and UEFI firmware), where a oneshot unit runs
# `cephlab up`, labs 00 and 01, `cephlab down` and powers off. Unlike
# qemu-user (container/README.md), a whole system has the kernel's AIO, so BlueStore can run.
#   sudo bash container/arm64-system.sh           # build what is missing, boot, print the steps
#   sudo bash container/arm64-system.sh --clean   # remove the work folder
# Environment: CEPHLAB_ARM64_DIR (work folder, default /var/tmp/cephlab-arm64), CEPHLAB_ARM64_SUITE
# (default trixie), CEPHLAB_ARM64_TIMEOUT (seconds qemu may run, default 10800), CEPHLAB_ARM64_MEM
# (default 6G), CEPHLAB_ARM64_EXTRA_GIB (free room on the disk, default 10: `cephlab up`'s 3 OSDs
# check for 7 GiB free). A finished root is reused: a second run makes the disk again and boots.
# shellcheck disable=SC2016  # the single-quoted commands expand inside the root, not here
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HERE="$REPO/container/arm64-system"
DIR="${CEPHLAB_ARM64_DIR:-/var/tmp/cephlab-arm64}"
SUITE="${CEPHLAB_ARM64_SUITE:-trixie}"
TIMEOUT="${CEPHLAB_ARM64_TIMEOUT:-10800}"
MEM="${CEPHLAB_ARM64_MEM:-6G}"
EXTRA_GIB="${CEPHLAB_ARM64_EXTRA_GIB:-10}"
MIRROR=http://deb.debian.org/debian
ROOT="$DIR/root"
LEARNER_HOME=/home/learner
LAB="$LEARNER_HOME/ceph-storage-lab"
T0=$SECONDS

log() { printf '[arm64 %5ds] %s\n' "$((SECONDS - T0))" "$*"; }
step() { printf '\n[arm64 %5ds] == %s\n' "$((SECONDS - T0))" "$*"; }
die() { printf '[arm64 %5ds] error: %s\n' "$((SECONDS - T0))" "$*" >&2; exit 1; }
# stage NAME: record how long the stage that just ended took (DIR/times.tsv)
STAGE_T=$SECONDS
stage_done() { printf '%s\t%d\n' "$1" "$((SECONDS - STAGE_T))" >> "$DIR/times.tsv"; log "$1: $((SECONDS - STAGE_T)) s"; STAGE_T=$SECONDS; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mkfs): sudo bash $0"
if [ "${1:-}" = "--clean" ]; then
    grep -q " $DIR/" /proc/mounts && die "something is mounted under $DIR; not removing it"
    rm -rf "$DIR"; log "removed $DIR"; exit 0
fi
[ "$#" -eq 0 ] || die "usage: $0 [--clean]"

QEMU_PID=""
cleanup() {
    if [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2>/dev/null; then
        log "killing qemu (pid $QEMU_PID)"; kill "$QEMU_PID" 2>/dev/null || true
        sleep 2; kill -9 "$QEMU_PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$DIR"
: > "$DIR/times.tsv.new"; mv "$DIR/times.tsv.new" "$DIR/times.tsv"

# in_root [--learner] COMMAND: bash -c COMMAND in the root, as root (or learner), with a clean
# environment. It runs in its own mount and PID namespace: /dev, /proc and /sys are mounted there
# only, so they vanish with it (nothing stays mounted on the host, whatever fails), and every
# process the command leaves behind is killed when it ends.
in_root() {
    local spec=() home=/root user=root
    if [ "$1" = --learner ]; then spec=(--userspec=1000:1000); home=$LEARNER_HOME; user=learner; shift; fi
    unshare --mount --pid --fork --kill-child --propagation private -- bash -c '
        set -e; R="$1"; shift
        mount --rbind /dev "$R/dev"; mount -t proc proc "$R/proc"; mount -t sysfs sysfs "$R/sys"
        chroot "$@"' _ "$ROOT" "${spec[@]}" "$ROOT" /usr/bin/env -i HOME="$home" USER="$user" \
        LOGNAME="$user" SHELL=/bin/bash LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin PIP_DEFAULT_TIMEOUT=180 \
        bash -c "$1" < /dev/null
}

# --- 1. host tools -------------------------------------------------------------------------------
step "host tools: cephlab/packages-arm64-system.txt, then the emulation's (container/emulation.sh)"
# shellcheck source=container/emulation.sh
source "$REPO/container/emulation.sh"
emu_install "$REPO/cephlab/packages-arm64-system.txt"
# the handler for the root's arm64 programs (debootstrap's second stage, apt, pip)
emu_ensure linux/arm64
FIRMWARE=/usr/share/qemu-efi-aarch64/QEMU_EFI.fd
[ -r "$FIRMWARE" ] || die "no $FIRMWARE (qemu-efi-aarch64)"
stage_done "host tools"

# --- 2. the arm64 root ---------------------------------------------------------------------------
if [ ! -f "$DIR/.root-done" ]; then
    step "debootstrap $SUITE arm64 into $ROOT (first stage on the host, second under qemu-user)"
    if [ ! -f "$DIR/.debootstrap-done" ]; then
        rm -rf "$ROOT"; mkdir -p "$ROOT"
        debootstrap --foreign --arch=arm64 --variant=minbase "$SUITE" "$ROOT" "$MIRROR" > "$DIR/debootstrap.log" 2>&1 \
            || die "debootstrap (first stage) failed: see $DIR/debootstrap.log"
        log "second stage (under emulation: several minutes)"
        in_root "/debootstrap/debootstrap --second-stage" >> "$DIR/debootstrap.log" 2>&1 \
            || die "debootstrap --second-stage failed: see $DIR/debootstrap.log and $ROOT/debootstrap/debootstrap.log"
        touch "$DIR/.debootstrap-done"
    else
        log "already done"
    fi
    stage_done "debootstrap"

    step "packages: kernel, systemd, the lab's OS packages that exist for arm64"
    if [ ! -f "$DIR/.packages-done" ]; then
        # an installed system's sources (updates, security), and the host's date-check settings
        # (a frozen mirror's Release files may have expired)
        printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\nTypes: deb\nURIs: http://deb.debian.org/debian-security\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "$MIRROR" "$SUITE" "$SUITE" "$SUITE" > "$ROOT/etc/apt/sources.list.d/debian.sources"
        rm -f "$ROOT/etc/apt/sources.list"
        for f in /etc/apt/apt.conf.d/*; do
            [ -f "$f" ] && grep -Eq '^[[:space:]]*Acquire::(Check-Valid-Until|Check-Date|https?::)' "$f" && cp "$f" "$ROOT/etc/apt/apt.conf.d/"
        done
        cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
        # no service starts in the chroot (there is no systemd there, and the daemons would outlive apt)
        printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d"; chmod 755 "$ROOT/usr/sbin/policy-rc.d"
        # the initramfs must find a virtio disk with ext4 on it (MODULES=most has them; named to be sure)
        mkdir -p "$ROOT/etc/initramfs-tools"
        printf 'virtio_pci\nvirtio_blk\next4\n' >> "$ROOT/etc/initramfs-tools/modules"
        # as the image does: no PostgreSQL cluster "main" (lab 10 makes its own)
        mkdir -p "$ROOT/etc/postgresql-common/createcluster.d"
        echo 'create_main_cluster = false' > "$ROOT/etc/postgresql-common/createcluster.d/cephlab.conf"
        # `apt-get -s install`, not a candidate version: a virtual package (trixie's
        # postgresql-contrib) has none. What apt cannot install for arm64 (ceph-fuse: no Debian
        # release builds it for arm64) is named in /etc/cephlab-not-packaged, as in the image.
        sed -e 's/#.*//' "$REPO/cephlab/packages-lab.txt" | tr -s ' \t' '\n' | sed '/^$/d' > "$ROOT/tmp/packages-lab"
        in_root 'set -e; apt-get update -q
            : > /tmp/available; : > /etc/cephlab-not-packaged
            for p in $(cat /tmp/packages-lab); do
                if apt-get -s install "$p" > /dev/null 2>&1; then echo "$p" >> /tmp/available
                else echo "not packaged for $(dpkg --print-architecture): $p"; echo "$p" >> /etc/cephlab-not-packaged; fi
            done
            # kernel, init, udev; make (the learner runs `make setup`), ca-certificates (pip over
            # HTTPS), procps (ps, for the check that no daemon is left), python3-venv (bootstrap.sh)
            xargs apt-get install -y -q --no-install-recommends linux-image-arm64 systemd-sysv udev \
                make ca-certificates procps python3-venv < /tmp/available
            apt-get clean; rm -f /tmp/available /tmp/packages-lab' > "$DIR/packages.log" 2>&1 \
            || die "apt-get in the root failed: see $DIR/packages.log"
        cp "$ROOT/etc/cephlab-not-packaged" "$DIR/not-packaged.txt"
        touch "$DIR/.packages-done"
    else
        log "already done"
    fi
    log "not packaged for arm64, left out: $(tr '\n' ' ' < "$DIR/not-packaged.txt")"
    stage_done "packages"

    step "the learner's set-up: student release in $LAB, its .venv built as learner (pip: PyPI's aarch64 wheels)"
    if [ ! -f "$DIR/.setup-done" ]; then
        CLI=("$REPO/.venv/bin/cephlab")
        # without the project's .venv, the same command from the repository with the host's Python
        [ -x "${CLI[0]}" ] || CLI=(env PYTHONPATH="$REPO" python3 -m cephlab.cli)
        rm -rf "$DIR/release"; mkdir -p "$DIR/release"
        (cd "$REPO" && "${CLI[@]}" release "$DIR/release/ceph-storage-lab" --archive) > "$DIR/release.log" 2>&1 \
            || die "cephlab release failed: see $DIR/release.log"
        in_root "id learner > /dev/null 2>&1 || useradd --create-home --uid 1000 --shell /bin/bash learner"
        rm -rf "$ROOT$LAB"
        # unpacked as the learner unpacks the published archive
        tar -C "$ROOT$LEARNER_HOME" -xzf "$DIR/release/ceph-storage-lab.tar.gz"
        chown -R 1000:1000 "$ROOT$LEARNER_HOME"
        # bootstrap.sh would try (as root, through sudo) to install what Debian does not build for
        # arm64: the learner's copy of the list drops it, as the image does
        while read -r p; do
            sed -i -E "s/(^|[[:space:]])$p([[:space:]]|\$)/\1\2/" "$ROOT$LAB/cephlab/packages-lab.txt"
        done < "$ROOT/etc/cephlab-not-packaged"
        # The OS half of `make setup` was done above, as root: sudo cannot work in the root under
        # qemu-user (binfmt without the C flag does not honour setuid). The learner runs the
        # Python half, `bootstrap.sh venv`, the same ensure_venv that `make setup` runs next.
        # (This run found that `make setup` asked for root on every run on trixie, because
        # postgresql-contrib is a virtual package there; bootstrap.sh now counts provided names.)
        # a machine whose HTTPS goes through a proxy with its own CA (local CAs in
        # /usr/local/share/ca-certificates): pip trusts the host's bundle, for the set-up only
        # (as container/build.sh does); it is not on the disk the system boots from
        ca=""
        if [ -n "$(ls -A /usr/local/share/ca-certificates 2>/dev/null)" ]; then
            install -m 644 /etc/ssl/certs/ca-certificates.crt "$ROOT/tmp/host-ca.crt"
            ca="export PIP_CERT=/tmp/host-ca.crt && "
        fi
        in_root --learner "${ca}cd $LAB && bash cephlab/bootstrap.sh venv && .venv/bin/python -c 'import nbclient, nbformat, ipykernel' \
            && .venv/bin/cephlab --help > /dev/null" > "$DIR/setup.log" 2>&1 \
            || die "the learner's set-up (bootstrap.sh venv) failed: see $DIR/setup.log"
        rm -f "$ROOT/tmp/host-ca.crt"
        touch "$DIR/.setup-done"
    else
        log "already done"
    fi
    stage_done "set-up"

    touch "$DIR/.root-done"
else
    log "root finished earlier ($DIR/.root-done): reused"
fi

# always, so that a changed proof or unit reaches a reused root (a few seconds)
step "the proof unit (runs at boot, then powers off)"
install -D -m 755 "$HERE/proof.sh" "$ROOT/usr/local/lib/cephlab-proof/proof.sh"
# run_notebook.py needs nbformat and nbclient: the learner's .venv has both (checked in the set-up)
install -m 644 "$REPO/tests/setup/run_notebook.py" "$ROOT/usr/local/lib/cephlab-proof/run_notebook.py"
install -m 644 "$HERE/cephlab-proof.service" "$ROOT/etc/systemd/system/cephlab-proof.service"
echo cephlab-arm64 > "$ROOT/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tcephlab-arm64\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$ROOT/etc/hosts"
# root on the virtio disk; no fsck pass (the image is new each run)
echo '/dev/vda / ext4 rw,errors=remount-ro 0 0' > "$ROOT/etc/fstab"
rm -f "$ROOT/usr/sbin/policy-rc.d"
# the proof's unit, and nothing that would compete with it for the emulated CPUs: timers,
# ceph-crash (it polls a cluster that is not there), a getty on a screen there is none of;
# systemd-firstboot would ask for a locale and a root password on the console and wait forever
in_root 'set -e; systemctl set-default multi-user.target
    systemctl enable cephlab-proof.service
    [ -s /etc/machine-id ] || systemd-machine-id-setup
    for u in apt-daily.timer apt-daily-upgrade.timer man-db.timer e2scrub_all.timer fstrim.timer \
             dpkg-db-backup.timer ceph-crash.service postgresql.service getty@tty1.service \
             systemd-firstboot.service; do
        systemctl mask "$u" 2> /dev/null || true
    done' > "$DIR/unit.log" 2>&1 || die "systemctl in the root failed: see $DIR/unit.log"
stage_done "proof unit"

# --- 3. the disk ---------------------------------------------------------------------------------
step "disk image: mkfs.ext4 -d (no mount, no loop device)"
grep -q " $ROOT/" /proc/mounts && die "something is mounted under $ROOT: not making a disk of it"
rm -rf "$ROOT/var/log/cephlab-proof" "$DIR/proof"
KERNEL="$(find "$ROOT/boot" -maxdepth 1 -name 'vmlinuz-*' | sort -V | tail -n 1)"
[ -n "$KERNEL" ] || die "no kernel in $ROOT/boot (linux-image-arm64)"
INITRD="$ROOT/boot/initrd.img-${KERNEL##*/vmlinuz-}"
[ -r "$INITRD" ] || die "no initrd for $KERNEL"
cp "$KERNEL" "$DIR/vmlinuz"; cp "$INITRD" "$DIR/initrd.img"
ROOT_MIB="$(du -smx "$ROOT" | cut -f1)"
SIZE_MIB=$((ROOT_MIB + EXTRA_GIB * 1024))
rm -f "$DIR/disk.img"
mkfs.ext4 -q -F -L cephlab-arm64 -d "$ROOT" "$DIR/disk.img" "${SIZE_MIB}M" > "$DIR/mkfs.log" 2>&1 \
    || die "mkfs.ext4 -d failed: see $DIR/mkfs.log"
log "disk.img: ${SIZE_MIB} MiB (root ${ROOT_MIB} MiB + ${EXTRA_GIB} GiB), sparse: $(du -sm "$DIR/disk.img" | cut -f1) MiB used"
stage_done "disk image"

# --- 4. boot -------------------------------------------------------------------------------------
step "boot: qemu-system-aarch64 -M virt -cpu max -smp 2 -m $MEM (TCG), timeout ${TIMEOUT} s; console: $DIR/console.log"
# -bios with -kernel works on Debian 12's qemu 7.2 (tried: "EFI stub: Booting Linux Kernel..."):
# the UEFI firmware loads the kernel and initrd that qemu hands it through
# fw_cfg and starts it as an EFI application (Debian's arm64 vmlinuz has the EFI stub), so the
# kernel gets the firmware's ACPI/EFI view as on a real UEFI arm64 machine.
# pauth-impdef=on: -cpu max's pointer authentication with QEMU's cheap hash instead of the
# architected QARMA, which costs much time under TCG; the guest sees pauth either way.
# thread=multi: one host thread per vCPU (both cores). -nic none: the cluster is on loopback only
# (and a NIC would need ipxe's option ROM). virtio-rng: the firmware has no RNG protocol to seed
# the kernel with. cache=unsafe: the image is made again for each run.
rm -f "$DIR/console.log"
qemu_t0=$SECONDS
nice -n 10 qemu-system-aarch64 -M virt -accel tcg,thread=multi -cpu max,pauth-impdef=on -smp 2 -m "$MEM" \
    -bios "$FIRMWARE" -kernel "$DIR/vmlinuz" -initrd "$DIR/initrd.img" \
    -append "root=/dev/vda rootfstype=ext4 rw console=ttyAMA0 panic=10 systemd.show_status=1 systemd.firstboot=off" \
    -drive file="$DIR/disk.img",format=raw,if=virtio,cache=unsafe -nic none -device virtio-rng-pci \
    -display none -monitor none -serial file:"$DIR/console.log" -no-reboot &
QEMU_PID=$!
log "qemu pid $QEMU_PID"
timed_out=0
while kill -0 "$QEMU_PID" 2>/dev/null; do
    if [ $((SECONDS - qemu_t0)) -ge "$TIMEOUT" ]; then
        log "qemu still running after $TIMEOUT s: killing it"; timed_out=1; cleanup; break
    fi
    sleep 5
done
wait "$QEMU_PID" 2>/dev/null && qemu_rc=0 || qemu_rc=$?
QEMU_PID=""
log "qemu ended (exit $qemu_rc) after $((SECONDS - qemu_t0)) s"
stage_done "boot and proof (qemu)"

# --- 5. the proof, read from the disk -----------------------------------------------------------
step "the proof: /var/log/cephlab-proof from disk.img (debugfs rdump, no mount)"
mkdir -p "$DIR/proof"
debugfs -R "rdump /var/log/cephlab-proof $DIR/proof" "$DIR/disk.img" > "$DIR/debugfs.log" 2>&1 || true
P="$DIR/proof/cephlab-proof"
if [ ! -f "$P/steps.tsv" ]; then
    tail -n 30 "$DIR/console.log" 2>/dev/null || true
    die "no steps.tsv on the disk (the unit did not run?): see $DIR/console.log"
fi
printf '\n%-14s %5s %8s  %s\n' step exit seconds command
awk -F'\t' '{ printf "%-14s %5s %8s  %s\n", $1, $3, $4, $2 }' "$P/steps.tsv"
ok=1
[ -f "$P/done" ] || { log "no proof-done marker: the proof did not finish"; ok=0; }
[ "$timed_out" = 0 ] || ok=0
awk -F'\t' '$3 != 0 { bad = 1 } END { exit bad }' "$P/steps.tsv" || { log "a step failed (logs: $P/)"; ok=0; }
log "total: $((SECONDS - T0)) s; logs: $P/"
[ "$ok" = 1 ] || die "the proof did not pass"
log "every step passed"
