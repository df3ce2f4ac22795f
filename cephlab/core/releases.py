"""What each Ceph release the lab runs on can do: the one table the backends, helpers, labs and
the caveat note read (no version checks elsewhere).

Debian ships three releases the lab supports (measured in bare roots of each suite, see
tests/setup/test_bare_system.py and the project notes on Ceph releases):

    release   Debian            what changes for the lab
    16.2      12 bookworm       what the labs were written and first measured on
    18.2      13 trixie         no FileStore; mClock by default; counters renamed; mgr needs
                                object_format.py and a bcrypt stand-in; relative osd_class_dir
    20.2      testing/unstable  as 18.2 (rbd-fuse too); mgr crypto runs out of process (no stand-in);
                                cephx secrets are AES-256 (the mon refuses AES-128 ones)

    release = releases.for_major(18)          # a Release (nearest known row for 17, 19, 21...)
    release.filestore, release.op_queue, release.counter("bluestore_write_big_bytes")
    releases.installed(binary)                # the Release of the Ceph program `binary`, or None
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from cephlab.core import ceph_version

# Perf counters the helpers read, by the name Pacific gives them -> the name in later releases
# (measured in `ceph tell osd.0 perf dump` of 18.2.7 and 20.2.4). Reef drops BlueStore's
# "bluestore_" prefix and names the deferred pair after the moment each is counted:
# - bluestore_write_deferred_bytes -> issued_deferred_write_bytes: the bytes of each deferred op as
#   the write path makes it (_get_deferred_op, from _do_write_small, _do_write_big and
#   _do_alloc_write), so in the window of the client write; src/os/bluestore/BlueStore.cc@v18.2.7:13860,
#   @v20.2.4:15424 (Pacific's _get_deferred_op counts the old name: Debian's 16.2.15 ceph-osd);
# - deferred_write_bytes -> submitted_deferred_write_bytes: the deferred data as it is written in
#   place, later (a batch is full, or bluestore_max_defer_interval, 3 s, passed without a submit),
#   just before its aio_write in _deferred_submit_unlock; BlueStore.cc@v18.2.7:13976,
#   @v20.2.4:15540 (Pacific the same, before the aio_write whose ceph_assert is
#   BlueStore.cc@v16.2.15:12794).
# - commit_lat -> txc_commit_lat: a transaction's time from its start to its commit in the key-value
#   store (_txc_committed_kv: mono_clock::now() - txc->start); BlueStore.cc@v18.2.7:5090 (the name)
#   and :12992-12993, @v20.2.4:6317 and :14751-14752 (Pacific's name: its `perf dump`, measured).
_REEF_COUNTERS = {
    "commit_lat": "txc_commit_lat",
    "bluestore_write_big_bytes": "write_big_bytes",
    "bluestore_write_small_bytes": "write_small_bytes",
    "bluestore_write_deferred_bytes": "issued_deferred_write_bytes",
    "deferred_write_bytes": "submitted_deferred_write_bytes",
}


@dataclass(frozen=True)
class Release:
    """One row of the table. Every field says what the release does, not how the lab copes."""
    major: int
    codename: str
    debian: str                       # the Debian suite that ships it
    filestore: bool                   # ceph-osd --mkfs accepts --osd-objectstore filestore
    op_queue: str                     # the OSD's default osd_op_queue
    # option that makes mClock honour osd_max_backfills / osd_recovery_* (None: no mClock default)
    mclock_override: str | None
    mgr_support_files: tuple[str, ...]  # top-level .py files the mgr modules import
    mgr_bcrypt_in_process: bool       # mgr_util imports bcrypt (PyO3: fails in sub-interpreters)
    mgr_ssh: str                      # what the mgr's cephadm module reaches its hosts with
    relative_class_dir: bool          # osd_class_dir defaults to a path relative to the cwd
    crushtool_stats_need_num_rep: bool  # crushtool --show-statistics requires --num-rep
    # rbd-fuse accepts its options (-c, -p); Debian's 18.2.7 and 20.2.4 crash parsing any of them
    # (libfuse3's fuse_opt_parse) but run without: the default pool `rbd`, the config from $CEPH_CONF
    rbd_fuse_takes_options: bool
    counters: dict[str, str] = field(default_factory=dict)  # Pacific name -> this release's name
    # osd_recovery_sleep_degraded_{hdd,ssd,hybrid} exist and pace a degraded PG's recovery in
    # place of osd_recovery_sleep_* (Tentacle, ceph PR 62400; wpq only, mClock ignores every sleep)
    recovery_sleep_degraded: bool = False
    # cephx secrets (type, bytes): 1 = AES-128; Tentacle's mon accepts only 2 = AES-256 ("aes256k")
    cephx_key: tuple[int, int] = (1, 16)
    # the mgr's Python starts multiprocessing children by forkserver (Python 3.14, Debian sid),
    # whose resource tracker cannot start inside ceph-mgr: cephadm's ThreadPool raises
    # BrokenPipeError and the module never runs (measured in the 20.2.4 image, 2026-11-28)
    mgr_python_forkserver: bool = False
    # the Debian suite of the cephadm cluster's node containers when not `debian` (the Ceph image
    # is still `debian`'s): sid's systemd 262 exits at once as PID 1 on a cgroup-v1 host (this CI
    # machine), trixie's 257 runs, so Tentacle's nodes are trixie with sid's cephadm package alone
    # (a Python zipapp; measured 2026-11-29). The nodes' ceph-common is then that suite's.
    node_suite: str = ""
    # ceph-volume lists a disk only if udev has a record of it (/run/udev/data/bMAJOR:MINOR; Tentacle's
    # disk.UdevData), where Pacific and Reef ask lsblk: the container nodes, which run no udevd,
    # then write empty records (vagrant/containers/node/udev-records.service; measured 2026-11-29)
    ceph_volume_needs_udev_records: bool = False
    # `ceph orch daemon stop|restart` asks the daemon type's ok-to-stop first and refuses ("unsafe
    # to stop osd(s) at this time (1 PGs are or would become offline)") unless given --force, which
    # Pacific's and Reef's command does not take (Tentacle's cephadm module.py daemon_action;
    # refused here on a cluster whose OSDs had been up 7 s, measured 2026-11-29)
    orch_stop_needs_force: bool = False

    @property
    def name(self) -> str:
        return f"{self.major} {self.codename}"

    @property
    def mclock_default(self) -> bool:
        return self.op_queue == "mclock_scheduler"

    def recovery_sleep_option(self, device_class: str) -> str:
        """The sleep that paces the recovery of a degraded PG on OSDs of `device_class` (hdd,
        ssd, hybrid) under wpq: what the lab's model charges after a failure."""
        kind = "degraded_" if self.recovery_sleep_degraded else ""
        return f"osd_recovery_sleep_{kind}{device_class}"

    def recovery_sleep_options(self, device_class: str) -> tuple[str, ...]:
        """Every sleep that can pace recovery on `device_class` OSDs: what tuning must set to 0."""
        plain = f"osd_recovery_sleep_{device_class}"
        return (plain, self.recovery_sleep_option(device_class)) if self.recovery_sleep_degraded else (plain,)

    def counter(self, pacific_name: str) -> str:
        """This release's name for a perf counter Pacific calls `pacific_name`."""
        return self.counters.get(pacific_name, pacific_name)


TABLE: dict[int, Release] = {r.major: r for r in (
    Release(16, "pacific", "bookworm", filestore=True, op_queue="wpq", mclock_override=None,
            mgr_support_files=("mgr_module.py", "mgr_util.py"), mgr_bcrypt_in_process=False,
            mgr_ssh="remoto", relative_class_dir=False, crushtool_stats_need_num_rep=False,
            rbd_fuse_takes_options=True),
    Release(18, "reef", "trixie", filestore=False, op_queue="mclock_scheduler",
            mclock_override="osd_mclock_override_recovery_settings",
            mgr_support_files=("mgr_module.py", "mgr_util.py", "object_format.py"),
            mgr_bcrypt_in_process=True, mgr_ssh="asyncssh", relative_class_dir=True,
            crushtool_stats_need_num_rep=True, rbd_fuse_takes_options=False, counters=_REEF_COUNTERS),
    Release(20, "tentacle", "sid", filestore=False, op_queue="mclock_scheduler",
            mclock_override="osd_mclock_override_recovery_settings",
            mgr_support_files=("mgr_module.py", "mgr_util.py", "object_format.py", "cherrypy_mgr.py"),
            mgr_bcrypt_in_process=False, mgr_ssh="asyncssh", relative_class_dir=True,
            crushtool_stats_need_num_rep=True, rbd_fuse_takes_options=False, counters=_REEF_COUNTERS,
            cephx_key=(2, 32), mgr_python_forkserver=True,
            recovery_sleep_degraded=True, node_suite="trixie",
            ceph_volume_needs_udev_records=True, orch_stop_needs_force=True),
)}
WRITTEN_FOR = TABLE[ceph_version.WRITTEN_FOR]


def for_major(major: int) -> Release:
    """The row for `major`. A release not in the table takes the next newer row (Quincy 17 ->
    Reef's: mClock by default, and no FileStore cluster is attempted, the cautious side), else
    the newest row (21 -> Tentacle's), and anything older than Pacific takes Pacific's.
    Quincy matches Reef's row from 17.2.7 on. 17.2.0-17.2.5 run mClock with the recovery slots
    raised to 1000 and no override option; 17.2.6 added the override but held osd_max_backfills
    at 3, and 17.2.7 restored 1 (ceph PRs 49437 and 49973, doc/releases/quincy.rst@v20.2.4:1820
    and :1269)."""
    if major in TABLE:
        return TABLE[major]
    newer = [m for m in TABLE if m > major]
    return TABLE[min(newer)] if newer else TABLE[max(TABLE)]


def for_suite(suite: str) -> Release:
    """The row of the release Debian `suite` ships (bookworm -> Pacific's); ValueError for a suite
    no row names."""
    for release in TABLE.values():
        if release.debian == suite:
            return release
    raise ValueError(f"suite must be a Debian suite of the release table "
                     f"({', '.join(r.debian for r in TABLE.values())}), not {suite!r}")


def installed(binary: str | None) -> Release | None:
    """The Release of the Ceph program `binary` (e.g. ceph-mon's path); None when unknown."""
    version = ceph_version.installed_ceph_release(binary) if binary else None
    return for_major(version[0]) if version else None


# -- what a lab does differently on a release (the caveat note and the labs read these) -----------
FILESTORE_LABS = ("04 throttles", "07 write amplification")


def lab_differences(release: Release, major: int | None = None) -> list[tuple[str, str]]:
    """(lab, what it does differently on `release`); [] on the release the labs were written for.
    major: the installed major when it is not the row's own (an older one is not supported)."""
    out: list[tuple[str, str]] = []
    if (release.major if major is None else major) < WRITTEN_FOR.major:
        return [("all labs", "they are written for Pacific (16.2); older releases lack options and "
                             "defaults the labs use; install Ceph 16.2 or later from Debian")]
    # What the labs do there today, measured in a bare root of the release (CI: 18.2.7's solutions
    # and 20.2.4's student versions, held to nbval; see the closing notes of issue 23), not what
    # they should do.
    if not release.filestore:
        out += [(lab, "it has no FileStore cluster here (ceph-osd cannot create one): the lab says so "
                      "and skips its FileStore measurement; the models and the seeds' FileStore data "
                      "carry that part, and its BlueStore measurements run as on every release")
                for lab in FILESTORE_LABS]
    if release.mclock_default:
        out.append(("03 disk IOPS", "its read-mix bands come from Pacific's runs; under mClock the 30 % "
                                    "reads mix measured x0.81 of the model twice while an earlier lab's "
                                    "pools were still being deleted (just outside its -18 % band), and "
                                    "agreed in every run since every lab waits for that (18.2.7 x0.87 "
                                    "and x0.98, 20.2.4 x0.90 and x0.89)"))
        out.append(("06 capacity", "mClock removes a deleted pool's PGs as a best-effort background "
                                   "class (minutes for many small objects), so every lab empties its "
                                   "pools with client deletes before deleting them and waits until no OSD "
                                   "is removing PGs (measured on 18.2.7: without the wait the data row "
                                   "read x0.86 of the model); then its rows agree as under wpq"))
        out.append(("08 failure and recovery",
                    "mClock is the default scheduler: it ignores the recovery sleep the lab's model "
                    "charges and holds osd_max_backfills at its default unless "
                    f"{release.mclock_override}=true, so the lab restarts its OSDs under wpq for its "
                    "two wpq runs, then under mClock for a third part: the slots mClock holds, a "
                    "recovery with no sleep, the slots with the override (each modelled and "
                    "measured); the clean-up cell puts mClock back"
                    + ("; its tuning also sets osd_recovery_sleep_degraded_* to 0, the sleep a "
                       "degraded PG recovers under here" if release.recovery_sleep_degraded else "")))
    if not release.rbd_fuse_takes_options:
        out.append(("10 PostgreSQL on RBD", "Debian's rbd-fuse crashes when given any option, so the "
                                            "lab's image lives in the pool named rbd (rbd-fuse's "
                                            "default) and a pool of that name must not exist already"))
    return out


def caveat_text(release: Release, version: tuple[int, int, int, str]) -> str:
    """The note `cephlab up` prints for this version; "" when the labs run as written."""
    major, minor, patch, codename = version
    diffs = lab_differences(release, major)
    if not diffs:
        return ""
    head = (f"note: Ceph {major}.{minor}.{patch} {codename} is installed; the labs were written for "
            f"16.2 pacific. What differs here:")
    return "\n".join([head] + [f"  - lab {lab}: {why}" for lab, why in diffs])


_noted: set = set()


def note_once(binary: str | None, write: Callable[[str], object]) -> None:
    """write() the differences for the Ceph of `binary` once per process (nothing on Pacific)."""
    version = ceph_version.installed_ceph_release(binary) if binary else None
    if version and version not in _noted:
        _noted.add(version)
        if text := caveat_text(for_major(version[0]), version):
            write(text)
