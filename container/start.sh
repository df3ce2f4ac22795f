#!/usr/bin/env bash
# The image's entry point. Started as root (the image's default), it only makes the container's own
# /dev/fuse usable and runs itself again as learner; as learner it copies the labs onto the work
# volume the first time, starts the mini cluster, then run the command (JupyterLab on 0.0.0.0:8888 by default, so the host's
# -p 8888:8888 reaches it; the cluster itself listens on the container's 127.0.0.1 only).
# `podman stop` sends SIGTERM: the cluster goes down before the container ends.
# CEPHLAB_OSDS (default 4) and CEPHLAB_NO_CLUSTER=1 (JupyterLab only) change what starts.
set -uo pipefail

COURSE=/opt/ceph-storage-lab
if [ "$(id -u)" = 0 ]; then
    # this container's own device node (podman/docker --device), not the host's
    [ -c /dev/fuse ] && chmod 0666 /dev/fuse
    exec setpriv --reuid=learner --regid=learner --init-groups \
        env HOME=/home/learner USER=learner LOGNAME=learner "$0" "$@"
fi
WORK="${CEPHLAB_WORK:-$HOME/work}"
say() { printf '[cephlab] %s\n' "$*"; }

if [ ! -d "$WORK/labs" ]; then
    say "first start: copying the labs to $WORK/labs (your work is kept there)"
    cp -r "$COURSE/labs" "$WORK/labs"
fi
if [ -s /etc/cephlab-not-packaged ]; then
    # Debian does not build every package for every architecture (no ceph-fuse for arm64 in Debian 12)
    say "not in this image (Debian does not package them for $(dpkg --print-architecture)): $(xargs < /etc/cephlab-not-packaged)"
fi
if ! command -v ceph-fuse > /dev/null; then
    say "no ceph-fuse in this image: lab 09's CephFS mount cannot run; every other lab can"
elif [ -e /dev/fuse ]; then
    say "/dev/fuse is present: lab 09's ceph-fuse mount can run"
else
    say "no /dev/fuse: lab 09's CephFS mount cannot run; start the container with --device /dev/fuse --cap-add SYS_ADMIN"
fi

# The cluster lives in the container's own layer, not on the work volume. A container killed
# (docker kill, a laptop's power) and started again still holds its half-done lab: each start makes
# a new cluster, so it goes first. The folder: cephlab's default (cephlab/backends/native/paths.py state_home).
state="${CEPHLAB_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/cephlab}/lab"
if [ -e "$state" ] && [ "${CEPHLAB_NO_CLUSTER:-0}" != 1 ]; then
    say "a cluster left by the last run of this container (it did not stop cleanly): removing it"
    cephlab down || say "could not remove it (see above); starting a new one anyway"
fi
cluster=0
if [ "${CEPHLAB_NO_CLUSTER:-0}" != 1 ]; then
    if cephlab up --osds "${CEPHLAB_OSDS:-4}"; then cluster=1
    else
        say "the cluster did not start (see above); JupyterLab opens anyway, and 'cephlab up' in its terminal tries again"
        # podman's default seccomp profile denies io_pgetevents, which this Debian's libaio calls
        # first (container/seccomp.py): say what to add, since nothing inside the container can
        if grep -qs "_aio_thread got (1) Operation not permitted" "$state"/log/osd.*.log; then
            say "the OSDs could not use Linux AIO: the container engine's seccomp profile denies io_pgetevents (podman's does)."
            say "start the container again with: --security-opt seccomp=<profile> from 'python3 container/seccomp.py' on the host (container/README.md)"
        fi
    fi
fi

down() { [ "$cluster" = 1 ] && cephlab down; }
if [ "${1:-}" = jupyter ] && [ "${2:-}" = lab ] && [ "$#" -eq 2 ]; then
    set -- jupyter lab --ip=0.0.0.0 --port=8888 --no-browser --notebook-dir="$WORK/labs"
fi
# The lab's JupyterLab settings, as `make lab` has them (cephlab/jupyter/README.md): the server
# logs its address, warnings and errors only, and no Jupyter news box covers the notebooks. For
# jupyterhub-singleuser (a hub's command) too.
export JUPYTER_CONFIG_PATH="$COURSE/cephlab/jupyter${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"
"$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM INT
wait "$child"; rc=$?
wait "$child" 2>/dev/null    # after a signal, wait for the command itself to end
down
exit "$rc"
