#!/usr/bin/env bash
# shellcheck disable=SC2317  # in_root and run_lab are called through phase()
# The inside half of tests/setup/test_bare_system.py. It runs as PID 1 of a fresh PID and mount
# namespace (unshare --pid --fork --kill-child --mount-proc --mount --propagation private), so
# every process it starts and every mount it makes ends with it, whatever goes wrong.
#
# In the debootstrapped root $BARE_ROOT it does what a new user following README.md does, as
# root: the README's by-hand line, the README's clone line (from $BARE_ORIGIN, the repository's
# .git, mounted read-only), `make setup`, `cephlab up --osds 4`, the student versions of the labs
# in $BARE_LABS (01 and 09 unless told) with nbclient, `cephlab down`. Then, still inside the namespace, it checks that `down`
# left nothing: no process, no mount under the root, no loop device over a file in the root.
#
# Environment: BARE_ROOT, BARE_CACHE (persistent caches: pip/ and the suite's apt folder
# $BARE_APT), BARE_LABS (labs/ folder names), BARE_NOTEBOOKS (student, the default, or solutions:
# the executed reference notebooks with their answers, as an instructor runs them), BARE_ORIGIN, BARE_OUT
# (host folder for logs and executed notebooks), BARE_BY_HAND and BARE_CLONE (the README's lines).
# Prints "@@phase NAME SECONDS EXIT" after each phase and "@@leftover WHAT" for each leftover.
set -uo pipefail

R="$BARE_ROOT"
REPO=/root/ceph-storage-lab
read -r -a LABS <<< "${BARE_LABS:-01-redundancy 09-cephfs-metadata}"
status=0

log() { printf '[bare] %s\n' "$*"; }

# phase NAME COMMAND...: run, time, report; a failed phase sets the exit status.
phase() {
    local name="$1" t0 rc; shift
    log "== $name"
    t0=$(date +%s.%N)
    "$@"; rc=$?
    printf '@@phase %s %s %d\n' "$name" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" "$rc"
    [ "$rc" -eq 0 ] || status=1
    return "$rc"
}

# in_root COMMAND: bash -c COMMAND as root in the root, with a login-like clean environment
# (nothing of the host's or the test's environment leaks in), stdin closed.
in_root() {
    chroot "$R" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        PIP_DEFAULT_TIMEOUT=180 \
        bash -c "$1" </dev/null 2>&1 9>&-
}

# --- the root's view of the machine: devices (/dev/fuse, /dev/pts, /dev/shm), this namespace's
# processes, /sys, name resolution, the persistent caches, the repository read-only.
mount --rbind /dev "$R/dev" || exit 1
mount -t proc proc "$R/proc" || exit 1
mount --rbind /sys "$R/sys" || exit 1
cp /etc/resolv.conf /etc/hosts "$R/etc/"
APT_CACHE="$BARE_CACHE/${BARE_APT:-apt}"
mkdir -p "$APT_CACHE/partial" "$BARE_CACHE/pip" "$R/var/cache/apt/archives" "$R/root/.cache/pip" \
    "$R/mnt/origin.git"
mount --bind "$APT_CACHE" "$R/var/cache/apt/archives" || exit 1
mount --bind "$BARE_CACHE/pip" "$R/root/.cache/pip" || exit 1
mount --bind "$BARE_ORIGIN" "$R/mnt/origin.git" && mount -o remount,bind,ro "$R/mnt/origin.git" || exit 1
OURS_RE="^$R/(dev|proc|sys|var/cache/apt/archives|root/\.cache/pip|mnt/origin\.git)(/|$)"

run_lab() {   # run_lab NN-name: the lab's student notebook (or solution), top to bottom, in the root's .venv
    local nb="labs/$1/$1.ipynb"
    [ "${BARE_NOTEBOOKS:-student}" = solutions ] && nb="solutions/$1.ipynb"
    in_root "cd $REPO && .venv/bin/python /root/run_notebook.py $nb /root/$1.executed.ipynb"
}

cp "$(dirname "$0")/run_notebook.py" "$R/root/run_notebook.py"
if phase "README by-hand install" in_root "$BARE_BY_HAND" &&
   phase "git clone" in_root "cd /root && $BARE_CLONE && git log -1 --format='cloned %h %s'" &&
   phase "make setup" in_root "cd $REPO && make setup"; then
    in_root "ceph --version"
    # The roots of the other suites install beside this one; their clusters and labs run one
    # at a time (a lock in the shared cache), so no lab measures beside another root's cluster.
    # Started early, the test session holds the lock too until the bare-system test begins.
    exec 9>>"$BARE_CACHE/labs.lock"
    if phase "wait for the lab lock" flock -w "${BARE_LOCK_WAIT:-2400}" 9 &&
       phase "cephlab up" in_root "cd $REPO && .venv/bin/cephlab up --osds 4"; then
        for lab in "${LABS[@]}"; do phase "lab ${lab%%-*}" run_lab "$lab"; done
    fi
    # down even after a failed up: it must clean up whatever up started
    phase "cephlab down" in_root "cd $REPO && .venv/bin/cephlab down"
    flock -u 9; exec 9>&-
    cp "$R"/root/*.executed.ipynb "$BARE_OUT/" 2>/dev/null
fi

# --- what `cephlab down` left (before this namespace ends and takes everything with it)
leftover() { printf '@@leftover %s\n' "$*"; status=1; }
procs() {   # every live process of this namespace but this script (PID 1) and the probe itself
    ps -e -o pid=,stat=,args= | awk '$1 != 1 && $2 !~ /^Z/ && $3 != "ps" && $3 != "awk"'
}
left="$BARE_OUT/processes-after-down.txt"
for _ in $(seq 60); do procs > "$left"; [ -s "$left" ] || break; sleep 0.5; done
while read -r line; do leftover "process: $line"; done < "$left"
while read -r _ point type _; do
    point=$(printf '%b' "$point")
    case "$point" in "$R"/*) ;; *) continue ;; esac
    [[ "$point" =~ $OURS_RE ]] && continue
    leftover "mount: ${point#"$R"} ($type)"
done < /proc/self/mounts
for f in /sys/block/loop*/loop/backing_file; do
    [ -r "$f" ] || continue
    case "$(cat "$f")" in "$R"/*) leftover "loop device: $(basename "$(dirname "$(dirname "$f")")") over $(cat "$f")" ;; esac
done
log "leftover checks done"
exit "$status"
