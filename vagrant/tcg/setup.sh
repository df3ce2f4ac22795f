#!/usr/bin/env bash
# Install the host packages the software-emulated Vagrant cluster needs (vagrant/tcg/packages.txt),
# then start virtlogd and libvirtd by hand (these machines have no systemd as PID 1), at the lowest
# CPU priority: the emulated VMs then only take CPU time nothing else wants. Idempotent.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$HERE/common.sh"
[ "$(id -u)" -eq 0 ] || die "run as root (it installs packages and starts libvirtd)"

mapfile -t PACKAGES < <(sed -e 's/#.*//' "$HERE/packages.txt" | tr -s ' \t' '\n' | sed '/^$/d')
missing=()
for p in "${PACKAGES[@]}" vagrant vagrant-libvirt; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    say "installing ${missing[*]}"
    # policy-rc.d: the packages must not try to start services through an init that is not there
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        || { rm -f /usr/sbin/policy-rc.d; die "apt-get install failed"; }
    rm -f /usr/sbin/policy-rc.d
fi
start_libvirt
