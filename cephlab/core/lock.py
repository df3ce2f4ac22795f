"""One lock per cluster, so two commands never build, repair or remove the same cluster at once.

    with cluster_lock(folder, "cephlab up", name="lab", doing="starting it"):
        ...                                   # create / repair / down / add an OSD

The lock is an flock(2) on `<parent>/.<folder name>.lock`, beside the cluster folder rather than
in it, so removing the folder cannot pull the lock away from a command that waits for it. The
kernel drops an flock when its holder dies, so a lock whose holder was killed is simply taken
over. The holder writes its PID, command and start time into the file for the messages of those
who wait; a record still there when the lock is taken means the last holder died holding it.

A lock file may be removed while others wait on it (when its cluster folder is gone): each
taker checks that the file it locked is still the one at the path, and starts over if not.
`Lock(path, what).take(wait=0)` is the non-blocking form (a lab's lease: LockBusy names the
holder at once).
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from cephlab.core.errors import ClusterError, FolderUnusable
from cephlab.core.folders import check_folder, shown

log = logging.getLogger(__name__)
WAIT_S = 600.0           # how long a command waits for another one on the same cluster
POLL_S = 0.1
RECORD_WAIT_S = 1.0      # a holder writes its record right after taking the lock


class LockBusy(ClusterError):
    """Another process holds the lock (and did not let go in time); .holder is its record."""

    def __init__(self, message: str, holder: dict[str, Any]):
        super().__init__(message)
        self.holder = holder


def lock_file(folder: str | Path) -> Path:
    """Where the lock of the cluster in `folder` lives: beside the folder, not in it."""
    folder = Path(folder)
    return folder.parent / f".{folder.name}.lock"


def _say(text: str) -> None:
    log.warning(f"cephlab: {text}")         # a warning: shown even by a quiet `cephlab up`


def _alive(pid: object) -> bool:
    return isinstance(pid, int) and pid > 0 and os.path.exists(f"/proc/{pid}")


def describe(holder: dict[str, Any]) -> str:
    """"`cephlab up` (PID 123, started 4 s ago)" from a lock record."""
    age = time.time() - holder["started"] if isinstance(holder.get("started"), (int, float)) else None
    since = f", started {age:.0f} s ago" if age is not None else ""
    return f"`{holder.get('what', 'a cephlab command')}` (PID {holder.get('pid', 'unknown')}{since})"


class Lock:
    """An exclusive flock on one file, with the holder's record in it."""

    def __init__(self, path: str | Path, what: str):
        self.path = Path(path)
        self.what = what
        self.fd: int | None = None
        #: the record of a holder that died holding the lock (its work was cut off), else {}
        self.previous: dict[str, Any] = {}

    def holder(self) -> dict[str, Any]:
        """The record of whoever holds (or last held without releasing) the lock; {} if none."""
        try:
            text = self.path.read_text()
        except OSError:
            return {}
        try:
            record = json.loads(text) if text.strip() else {}
        except ValueError:                  # written at this very moment
            return {}
        return record if isinstance(record, dict) else {}

    def held(self) -> bool:
        """True while this object holds the lock on the file that is at the path now."""
        if self.fd is None:
            return False
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return False
        mine = os.fstat(self.fd)
        return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)

    def _try(self) -> bool:
        """One attempt; True when this process now holds the file at the path."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as e:        # cluster_lock checked the folder first; this is the backstop
            raise FolderUnusable(f"lock file {shown(self.path)}: cannot create it ({e.strerror}); "
                                 "choose a folder you can write", str(self.path.parent)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self.fd = fd
        if self.held():
            return True
        os.close(fd)                        # locked a file someone removed: take the new one
        self.fd = None
        return False

    def take(self, wait: float = WAIT_S, doing: str = "", say: Callable[[str], None] | None = None,
             name: str = "") -> Lock:
        """Take the lock, waiting up to `wait` s for its holder (saying so once, through `say`).

        LockBusy when it is still held after `wait` s (at once with wait=0), naming the holder."""
        say = say or _say
        start = time.monotonic()
        told = False
        where = f" of {name}" if name else ""
        while not self._try():
            holder = self.holder()
            now = time.monotonic()
            if not holder and now - start < RECORD_WAIT_S:
                time.sleep(POLL_S)          # its holder has not written its record yet
                continue
            if now - start >= wait:
                raise LockBusy(self._busy_message(holder, wait, where), holder)
            if not told:
                same = holder.get("what") == self.what
                say(f"waiting for {'another ' if same else ''}{describe(holder)}{where} to finish"
                    + (f" before {doing}" if doing and not same else "") + f" (at most {wait / 60:g} min) ...")
                told = True
            time.sleep(POLL_S)
        assert self.fd is not None
        last = self.holder()
        if last.get("pid") and last.get("pid") != os.getpid():
            self.previous = last
            gone = "is gone" if not _alive(last["pid"]) else "ended without letting go"
            say(f"the previous holder{where}, {describe(last)}, {gone}; taking over")
        record = json.dumps({"pid": os.getpid(), "what": self.what, "started": time.time()})
        os.ftruncate(self.fd, 0)
        try:
            os.pwrite(self.fd, record.encode(), 0)
        except OSError:
            pass    # a full disk: the flock holds without its record, which only names the holder
        return self

    def _busy_message(self, holder: dict[str, Any], wait: float, where: str) -> str:
        who = describe(holder)
        pid = holder.get("pid")
        if wait == 0:
            return f"{who} holds the lock{where} ({self.path})"
        stop = f"stop it (`kill {pid}`)" if pid else f"stop it (see `fuser {self.path}`)"
        return (f"{who} still holds the lock{where} after {wait:g} s of waiting; if it is stuck, "
                f"{stop} and run this again")

    def release(self, discard: bool = False) -> None:
        """Let go: clear the record (a record left behind means a holder died), then unlock.
        discard: also remove the file (safe: a waiter that locked the removed file starts over)."""
        if self.fd is None:
            return
        try:
            if discard and self.held():
                self.path.unlink()
            os.ftruncate(self.fd, 0)
            fcntl.flock(self.fd, fcntl.LOCK_UN)     # also for a forked child that shares the file
        finally:
            os.close(self.fd)
            self.fd = None


_held: dict[tuple[str, int], Lock] = {}     # the locks each thread of this process holds


@contextmanager
def file_lock(path: str | Path, what: str, *, wait: float = WAIT_S, doing: str = "", name: str = "",
              say: Callable[[str], None] | None = None,
              discard: Callable[[], bool] = lambda: False) -> Iterator[Lock]:
    """Hold the lock on `path` for the block (see Lock.take). Re-entrant within one thread, so
    an operation may call another that takes the same lock. On leaving, the file is removed
    when discard() says so."""
    key = (str(Path(path).absolute()), threading.get_ident())
    mine = _held.get(key)
    if mine is not None and mine.held():
        yield mine
        return
    lock = Lock(path, what).take(wait, doing, say, name)
    _held[key] = lock
    try:
        yield lock
    finally:
        del _held[key]
        lock.release(discard=discard())


def cluster_lock(folder: str | Path, what: str, *, name: str = "", doing: str = "",
                 wait: float = WAIT_S, say: Callable[[str], None] | None = None,
                 create: bool = False) -> AbstractContextManager[Lock]:
    """The lock of the cluster in `folder` (see the module's docstring), for one lifecycle
    operation `what` ("cephlab up"); its file goes once the folder does.

    The folder is checked first (core.folders.check_folder; made when missing with create=True,
    as `up` does): one that cannot be made or written raises FolderUnusable before any lock file
    exists."""
    folder = Path(folder)
    check_folder(folder, create=create)
    return file_lock(lock_file(folder), what, wait=wait, doing=doing, say=say,
                     name=name or folder.name, discard=lambda: not folder.exists())
