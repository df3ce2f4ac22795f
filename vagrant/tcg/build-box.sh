#!/usr/bin/env bash
# Build the pre-baked vagrant-libvirt box for the software-emulated cluster: Debian 12 with every
# package node.sh installs (so no VM spends 15 emulated minutes in apt) and the Ceph image
# localhost/ceph:v<release> already in root's podman storage (so cluster.sh neither pulls nor
# builds it). No bootloader: the VMs boot the box's kernel directly (libvirt kernel/initrd/cmdline,
# set by up.sh), and the root file system fills the whole disk (/dev/vda, no partition table),
# because these machines have loop devices but no loop partitions.
#   CEPHLAB_TCG_STATE   work folder (default vagrant/.tcg)
#   CEPHLAB_MIRROR      Debian mirror (default http://deb.debian.org/debian)
# Out: $STATE/box/cephlab-tcg.box, $STATE/box/vmlinuz, $STATE/box/initrd.img; idempotent (a box
# already built is kept; delete $STATE/box to build again).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot)"

OUT="$STATE/box"
ROOTFS="$OUT/rootfs"
MIRROR="${CEPHLAB_MIRROR:-http://deb.debian.org/debian}"
IMAGE="localhost/ceph:v$(dpkg-query -W -f='${Version}' cephadm | sed 's/[+-].*//')"
DISK_GB=20
# node.sh's packages, plus what a bootable Vagrant box needs
PACKAGES=(chrony podman catatonit lvm2 cephadm ceph-common python3 openssh-server
          linux-image-amd64 systemd-sysv udev kmod initramfs-tools ifupdown isc-dhcp-client
          dbus sudo rsync iproute2 iputils-ping netbase ca-certificates procps less)

MOUNTED=()
unmount_all() {   # never leave a chroot mount behind, whatever failed
    local m
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
        m="${MOUNTED[i]}"
        umount -l "$m" 2>/dev/null || echo "could not unmount $m" >&2
    done
    MOUNTED=()
}
trap unmount_all EXIT

chroot_mounts() {
    local d
    for d in proc sys dev dev/pts; do
        mount --bind "/$d" "$ROOTFS/$d"
        MOUNTED+=("$ROOTFS/$d")
    done
}

[ -s "$OUT/cephlab-tcg.box" ] && { say "box already built: $OUT/cephlab-tcg.box"; exit 0; }
podman image exists "$IMAGE" || die "$IMAGE is not on this machine: build it first (vagrant/containers/up.sh or vagrant/provision/build-image.sh)"
mkdir -p "$OUT"
start=$SECONDS

if [ ! -s "$ROOTFS/var/lib/dpkg/info/cephadm.list" ]; then     # packages not yet in
    rm -rf "$ROOTFS"
    say "debootstrap bookworm from $MIRROR"
    debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" > "$OUT/debootstrap.log" 2>&1 \
        || die "debootstrap failed: see $OUT/debootstrap.log"
    # the host's deb822 sources (with updates and security) replace debootstrap's one-line list
    if cp /etc/apt/sources.list.d/debian.sources "$ROOTFS/etc/apt/sources.list.d/" 2>/dev/null; then
        rm -f "$ROOTFS/etc/apt/sources.list"
    fi
    printf '#!/bin/sh\nexit 101\n' > "$ROOTFS/usr/sbin/policy-rc.d"
    chmod +x "$ROOTFS/usr/sbin/policy-rc.d"
    chroot_mounts
    say "packages in the chroot: ${PACKAGES[*]}"
    chroot "$ROOTFS" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    chroot "$ROOTFS" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${PACKAGES[@]}" > "$OUT/apt.log" 2>&1 || die "apt-get install in the chroot failed: see $OUT/apt.log"
    chroot "$ROOTFS" apt-get clean
    unmount_all
    rm -f "$ROOTFS/usr/sbin/policy-rc.d"
fi

say "configure: vagrant user, ssh, network, fstab"
chroot "$ROOTFS" id vagrant >/dev/null 2>&1 || chroot "$ROOTFS" useradd -m -s /bin/bash vagrant
install -d -m 700 -o 1000 -g 1000 "$ROOTFS/home/vagrant/.ssh"
# Vagrant's public insecure key; Vagrant swaps it for a key of its own at the first boot
install -m 600 -o 1000 -g 1000 /usr/share/rubygems-integration/all/gems/vagrant-*/keys/vagrant.pub \
    "$ROOTFS/home/vagrant/.ssh/authorized_keys"
echo 'vagrant ALL=(ALL) NOPASSWD: ALL' > "$ROOTFS/etc/sudoers.d/vagrant"
chmod 440 "$ROOTFS/etc/sudoers.d/vagrant"
echo "UseDNS no" > "$ROOTFS/etc/ssh/sshd_config.d/vagrant.conf"
echo cephlab-box > "$ROOTFS/etc/hostname"
printf '/dev/vda / ext4 defaults,errors=remount-ro 0 1\n' > "$ROOTFS/etc/fstab"
# net.ifnames=0 on the kernel command line: the management NIC is eth0, configured by DHCP;
# Vagrant writes the private network's static address for eth1 itself (debian guest, ifupdown)
printf 'auto lo\niface lo inet loopback\n\nallow-hotplug eth0\niface eth0 inet dhcp\n' \
    > "$ROOTFS/etc/network/interfaces"
chroot "$ROOTFS" systemctl enable ssh chrony >/dev/null 2>&1 || true
rm -f "$ROOTFS"/etc/ssh/ssh_host_*        # each VM makes its own at first boot
# sshd refuses to start without host keys: make them before ssh starts, on every boot if missing
mkdir -p "$ROOTFS/etc/systemd/system/ssh.service.d"
# (the unit's own `sshd -t` check comes first and fails without keys: replace the list, keep it)
printf '[Service]\nExecStartPre=\nExecStartPre=/usr/bin/ssh-keygen -A\nExecStartPre=/usr/sbin/sshd -t\n' \
    > "$ROOTFS/etc/systemd/system/ssh.service.d/keys.conf"
: > "$ROOTFS/etc/machine-id"

say "the Ceph image $IMAGE into the box's podman storage"
if ! podman --root "$ROOTFS/var/lib/containers/storage" --runroot "$OUT/runroot" image exists "$IMAGE"; then
    podman save "$IMAGE" -o "$OUT/ceph-image.tar"
    podman --root "$ROOTFS/var/lib/containers/storage" --runroot "$OUT/runroot" load -q -i "$OUT/ceph-image.tar" >/dev/null
    rm -f "$OUT/ceph-image.tar"
fi
# libpod's database remembers the --root above as its graph root; without it the VM's podman
# starts a fresh one at its own default path and finds the image there
rm -f "$ROOTFS/var/lib/containers/storage/libpod/bolt_state.db"
rm -rf "$OUT/runroot"

say "kernel and initrd for direct boot"
cp "$(find "$ROOTFS/boot" -name 'vmlinuz-*' | sort | tail -n 1)" "$OUT/vmlinuz"
cp "$(find "$ROOTFS/boot" -name 'initrd.img-*' | sort | tail -n 1)" "$OUT/initrd.img"

say "disk image: ext4 over the whole ${DISK_GB} GiB disk (mkfs.ext4 -d, no loop device)"
rm -f "$OUT/disk.raw" "$OUT/box.img"
truncate -s "${DISK_GB}G" "$OUT/disk.raw"
mkfs.ext4 -q -F -L root -d "$ROOTFS" "$OUT/disk.raw"
qemu-img convert -O qcow2 "$OUT/disk.raw" "$OUT/box.img"
rm -f "$OUT/disk.raw"
printf '{"provider": "libvirt", "format": "qcow2", "virtual_size": %d}\n' "$DISK_GB" > "$OUT/metadata.json"
tar -C "$OUT" -cf "$OUT/cephlab-tcg.box" metadata.json box.img
rm -f "$OUT/box.img"
say "built $OUT/cephlab-tcg.box ($(du -h "$OUT/cephlab-tcg.box" | cut -f1)) in $((SECONDS - start)) s"
