#!/usr/bin/env bash
# Inside the emulated arm64 system (cephlab-proof.service, as root): what a learner does, as the
# learner, each step timed. /var/log/cephlab-proof/ gets steps.tsv (name, command, exit code,
# seconds), NAME.log per step, the executed notebooks, and "done" when every step has run; then
# the system powers off. container/arm64-system.sh reads it from the disk image.
# shellcheck disable=SC2016  # the single-quoted commands run as the learner, expanded there
set -uo pipefail
OUT=/var/log/cephlab-proof
LAB=/home/learner/ceph-storage-lab
LIB=/usr/local/lib/cephlab-proof
rm -rf "$OUT"; mkdir -p "$OUT/notebooks"; chown learner: "$OUT/notebooks"
: > "$OUT/steps.tsv"

say() { echo "[cephlab-proof] $*"; }

# as_learner COMMAND: bash -c COMMAND as learner in the lab folder, a login-like environment
as_learner() {
    runuser -u learner -- env -i HOME=/home/learner USER=learner LOGNAME=learner SHELL=/bin/bash \
        LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin bash -c "cd $LAB && $1"
}

# step NAME TIMEOUT COMMAND: run as learner, record exit code and seconds; its output to NAME.log
step() {
    local name="$1" limit="$2" cmd="$3" t0 rc secs
    say "$name: $cmd"
    t0=$(date +%s.%N)
    as_learner "timeout $limit bash -c $(printf %q "$cmd")" > "$OUT/$name.log" 2>&1 < /dev/null
    rc=$?
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    # the command on one line, for the table
    printf '%s\t%s\t%d\t%s\n' "$name" "$(printf '%s' "$cmd" | tr '\n' ' ' | tr -s ' ')" "$rc" "$secs" >> "$OUT/steps.tsv"
    say "$name: exit $rc in $secs s"; tail -n 5 "$OUT/$name.log"
    sync
    return "$rc"
}

# the kernel's seconds from boot to this unit's start (the firmware's time before it not counted)
printf 'boot\t%s\t0\t%s\n' "kernel start to this unit (/proc/uptime)" "$(cut -d' ' -f1 /proc/uptime)" >> "$OUT/steps.tsv"

# run_notebook.py's per-cell limit is 600 s by default, set for native runs; under TCG a cell
# takes ten times longer or more, so it gets 3600 s (its third argument)
NB=".venv/bin/python $LIB/run_notebook.py"
CELL_S=3600

step uname 60 "uname -a"
step nproc 60 "nproc"
step ceph-version 120 "ceph --version"
# a start cut off by one of cephlab's own timeouts (set for native speed: 30 s for the mon, 60 s
# for the OSDs, 180 s to HEALTH_OK) is run again once, as a learner would; the table keeps both
up_ok=0
if step up 3600 ".venv/bin/cephlab up" || step up-again 3600 ".venv/bin/cephlab up"; then up_ok=1; fi
if [ "$up_ok" = 1 ]; then
    step status 600 ".venv/bin/cephlab status"
    # BlueStore on the kernel's AIO: the OSDs are BlueStore, bdev_aio is on, the kernel counts
    # AIO events the OSDs asked for (fs.aio-nr: io_setup worked; qemu-user fails it with ENOSYS),
    # and the OSD log's block device line
    step aio 600 'set -e; eval "$(.venv/bin/cephlab env)"
        ceph osd metadata | grep -E "\"(id|osd_objectstore|bluestore_bdev_driver|bluestore_bdev_access_mode|bluestore_bdev_type|arch|kernel_version)\""
        ceph osd metadata | grep -q "\"osd_objectstore\": \"bluestore\""
        echo "osd.0 bdev_aio: $(ceph tell osd.0 config get bdev_aio)"
        ceph tell osd.0 config get bdev_aio | grep -q true
        echo "fs.aio-nr (AIO events allocated, all processes): $(cat /proc/sys/fs/aio-nr)"
        [ "$(cat /proc/sys/fs/aio-nr)" -gt 0 ]
        find ~/.local/state/cephlab -name "*osd*.log" -exec grep -h -m 3 -E "bdev\(.*open|aio" {} + | head -n 8'
    step fio-libaio 900 "fio --name=libaio --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --size=16M --iodepth=8 --filename=\$HOME/fio-libaio.tmp; rc=\$?; rm -f \$HOME/fio-libaio.tmp; exit \$rc"
    step lab00 5400 "$NB labs/00-welcome/00-welcome.ipynb $OUT/notebooks/00-welcome.executed.ipynb $CELL_S"
    step lab01 5400 "$NB labs/01-redundancy/01-redundancy.ipynb $OUT/notebooks/01-redundancy.executed.ipynb $CELL_S"
fi
# down even after a failed up: it removes whatever up started
step down 900 ".venv/bin/cephlab down"
step no-daemon-left 120 'sleep 2; if ps -eo pid,user,args | grep -E "[c]eph-(mon|mgr|osd|mds) |[r]adosgw "; then echo "a ceph daemon is left"; exit 1; fi; echo "no ceph daemon left"'
date -u +%FT%TZ > "$OUT/done"
sync
say "done: powering off"
systemctl poweroff --no-block
