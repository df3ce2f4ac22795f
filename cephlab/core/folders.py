"""A cluster folder (`--dir`, $CEPHLAB_DIR) proven usable before its lock is taken.

    check_folder(folder, create=True)   # `up`: made when missing, then written to; its parent too
    check_folder(folder)                # `down`, add_osd: written to when it exists; its parent too
    look(folder)                        # `status`, `env`: only whether a folder is (or can be) there

The lock lives beside the folder (cephlab.core.lock), so a folder that cannot be made or written
used to end in a FileNotFoundError about `<parent>/.<name>.lock`. These checks run first
(cluster_lock calls check_folder) and raise FolderUnusable, one line naming the path, what is
wrong with it and what to do: a path that cannot be created or written (/proc, a read-only or
someone else's folder), a file where the folder or a folder above it should be, a path or a name
in it too long for the file system.

"Writable" is proven, not inferred from the mode bits (root passes every mode check, yet cannot
create a file in /proc or on a read-only mount): a file is created in the folder and removed.
It is an unnamed O_TMPFILE where the file system has them, so a folder a concurrent `down`
removes never holds a stray file; elsewhere a `.cephlab-probe-*` file (is_probe()).
"""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from cephlab.core.errors import FolderUnusable

PROBE_PREFIX = ".cephlab-probe-"
SHOWN_CHARS = 120                   # a longer path is shown by its start and end
RETRIES = 3                         # a folder a concurrent `down` removes is made again
CREATE_HINT = "choose a folder you can write with --dir (or $CEPHLAB_DIR), e.g. --dir ~/.local/state/cephlab/{name}"
FIND_HINT = "give the --dir (or $CEPHLAB_DIR) that `cephlab up` used, as the user who ran it"


def shown(path: str | Path) -> str:
    """The path for a one-line message: escaped when it holds control characters, shortened
    (its start, its end and its length) when long."""
    text = str(path)
    if not text.isprintable():
        text = ascii(text)
    if len(text) > SHOWN_CHARS:
        text = f"{text[:70]}...{text[-40:]} ({len(text)} characters)"
    return text


def _unusable(folder: Path, problem: str, create: bool) -> FolderUnusable:
    name = folder.name if 0 < len(folder.name) <= 40 and folder.name.isprintable() else "lab"
    hint = CREATE_HINT.format(name=name) if create else FIND_HINT
    return FolderUnusable(f"cluster folder {shown(folder)}: {problem}; {hint}", str(folder))


def is_probe(name: str) -> bool:
    """Whether a file name is that of a probe (left only by a check killed half-way)."""
    return name.startswith(PROBE_PREFIX)


def expand(path: str | Path) -> Path:
    """`path` with ~ expanded (`--dir ~/x`); FolderUnusable for a ~user that does not exist."""
    try:
        return Path(path).expanduser()
    except RuntimeError as e:           # "Could not determine home directory."
        raise _unusable(Path(path), f"cannot expand {str(path).split('/')[0]} ({str(e).rstrip('.')})",
                        True) from None


def _kind(mode: int) -> str:
    return ("a file" if stat.S_ISREG(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a pipe" if stat.S_ISFIFO(mode) else "not a folder")


def _nearest(folder: Path, create: bool) -> Path:
    """The folder itself, or the nearest folder above it that exists; FolderUnusable when it
    or a path above it is not a folder, or cannot be looked at."""
    p, denied = folder, None
    while True:
        try:
            st = os.stat(p)
        except OSError as e:
            if e.errno == errno.ENOENT and os.path.islink(p):
                which = "it" if p == folder else shown(p)
                raise _unusable(folder, f"{which} is a symbolic link to {shown(os.readlink(p))}, "
                                        "which does not exist", create) from None
            if e.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.EACCES) \
                    or p.parent == p:
                raise _unusable(folder, f"cannot look at {shown(p)} ({e.strerror})", create) from None
            if e.errno == errno.EACCES:
                denied = e                  # a folder above cannot be searched: say which one
            p = p.parent
            continue
        if not stat.S_ISDIR(st.st_mode):
            what = _kind(st.st_mode)
            if p == folder:
                raise _unusable(folder, f"it is {what}" + (", not a folder" if what != "not a folder" else ""),
                                create)
            raise _unusable(folder, f"{shown(p)} is {what}, not a folder", create)
        if denied is not None:
            raise _unusable(folder, f"cannot look into {shown(p)} ({denied.strerror})", create)
        return p


def _check_lengths(folder: Path, top: Path, create: bool) -> None:
    """What the kernel would refuse with ENAMETOOLONG, said before anything is made."""
    too_long = os.strerror(errno.ENAMETOOLONG)
    path_max = os.pathconf(top, "PC_PATH_MAX")
    size = len(os.fsencode(str(folder)))
    if size >= path_max:
        raise _unusable(folder, f"the path is too long ({too_long}: {size} bytes, at most {path_max - 1})",
                        create)
    name_max = os.pathconf(top, "PC_NAME_MAX")
    for name in folder.relative_to(top).parts:
        if len(os.fsencode(name)) > name_max:
            raise _unusable(folder, f"a name in it is too long ({too_long}: {shown(name[:20] + '...')} has "
                                    f"{len(os.fsencode(name))} bytes, at most {name_max} here)", create)


def _probe(folder: Path) -> None:
    """Create a small file in `folder` and remove it; the OSError when that fails."""
    try:
        fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, 0o600)
    except OSError as e:
        if e.errno in (errno.EACCES, errno.EROFS):
            raise
        fd = -1                         # no O_TMPFILE on this file system (/proc, NFS, ...)
    if fd >= 0:
        try:
            os.write(fd, b"cephlab\n")
        finally:
            os.close(fd)
        return
    fd, name = tempfile.mkstemp(prefix=PROBE_PREFIX, dir=folder)
    try:
        os.write(fd, b"cephlab\n")
    finally:
        os.close(fd)
        os.unlink(name)


def _make(folder: Path, top: Path) -> list[Path]:
    """mkdir the folders from below `top` down to `folder` (it 0700, those above it as the umask
    says, as Path.mkdir(parents=True) makes them); those made, deepest last."""
    made = []
    try:
        for depth in range(1, len(folder.relative_to(top).parts) + 1):
            p = top.joinpath(*folder.relative_to(top).parts[:depth])
            try:
                os.mkdir(p, 0o700 if p == folder else 0o777)
            except FileExistsError:
                if not os.path.isdir(p):
                    raise
                continue
            made.append(p)
    except OSError:
        _unmake(made)
        raise
    return made


def _unmake(made: list[Path]) -> None:
    for p in reversed(made):
        try:
            os.rmdir(p)
        except OSError:
            pass


def look(folder: str | Path) -> bool:
    """True when `folder` is a folder, False when nothing is there yet; FolderUnusable when no
    folder can be there (it or a path above it is a file, a name is too long, a folder above it
    cannot be looked into). Reads only."""
    folder = Path(os.path.abspath(folder))
    top = _nearest(folder, False)
    _check_lengths(folder, top, False)
    return top == folder


def _probe_or_raise(folder: Path, target: Path, made: list[Path], create: bool) -> bool:
    """_probe(target); False when `target` went away meanwhile (a concurrent `down` removed it);
    FolderUnusable, after removing what this check made, when it cannot be written."""
    try:
        _probe(target)
        return True
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            return True     # writable, but full: up's disk check says so and repairs (core.diskspace)
        if isinstance(e, FileNotFoundError) and not os.path.isdir(target):
            return False
        _unmake(made)
        which = "in it" if target == folder else f"in {shown(target)}, where its lock file goes"
        raise _unusable(folder, f"cannot write {which} ({e.strerror})", create) from None


def check_folder(folder: str | Path, *, create: bool = False) -> bool:
    """Prove, before the cluster's lock is taken, that `folder` can hold a cluster: the folder
    (made when missing and `create`, mode 0700) and its parent, where the lock file goes and
    from where `down` removes the folder, are folders this process can write (a file is created
    in each and removed). Without `create` a missing folder is fine (nothing to take down) and,
    when its parent is missing too, nothing is written. Returns whether the folder exists.

    FolderUnusable (one line: the path, what is wrong, what to do) otherwise; what this check
    made is removed again when it fails."""
    folder = Path(os.path.abspath(folder))
    for _ in range(RETRIES):
        top = _nearest(folder, create)
        _check_lengths(folder, top, create)
        made: list[Path] = []
        if top != folder and create:
            try:
                made = _make(folder, top)
            except OSError as e:
                failed = Path(e.filename) if e.filename else folder
                what = f"it in {shown(folder.parent)}" if failed == folder else shown(failed)
                raise _unusable(folder, f"cannot create {what} ({e.strerror})", create) from None
            top = folder
        if top == folder and not _probe_or_raise(folder, folder, made, create):
            continue                        # removed under us: look again
        if top in (folder, folder.parent) and not _probe_or_raise(folder, folder.parent, made, create):
            continue
        return top == folder
    raise _unusable(folder, "it keeps disappearing (another command removes it while this one checks it)",
                    create)
