"""What models.crush computes once per machine: $XDG_CACHE_HOME/cephlab (default ~/.cache/cephlab).

Two things live there: the compiled mapper (mapper_c) and the PG counts of large placements
(analysis.pg_counts_by_pg_num: lab 02 places 524,288 PGs on 10,000 OSDs, 3-10 s, each time the
notebook runs and each time `cephlab grade` runs a submission of it). A result is named by a
hash of everything it depends on, this package's sources included, so an edited mapper or map
never reads an old result. A read-only or missing folder only means computing again: nothing
here raises. Files are written whole (a temporary file, then os.replace), so two processes
filling the same entry at once leave one good file.
"""
from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np


def folder() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cephlab"


@functools.lru_cache(maxsize=1)
def _sources_digest() -> bytes:
    """sha256 of this package's sources: a result computed by other code is another entry."""
    # here, not at the top: mapper_c imports this module in every `cephlab crush` (OpenSSL ~5 ms)
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(p for p in Path(__file__).parent.iterdir() if p.suffix in (".py", ".c")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


def key(*parts) -> str:
    """A file-name-safe name for a result of `parts`. They are pickled (lossless: parts that
    differ anywhere, numpy arrays included, give other bytes); a dataclass such as a CrushMap by
    its fields only, not the arrays it caches on itself."""
    import dataclasses
    import hashlib
    import pickle

    fields = tuple(dataclasses.astuple(p) if dataclasses.is_dataclass(p) and not isinstance(p, type)
                   else p for p in parts)
    digest = hashlib.sha256(_sources_digest())
    digest.update(pickle.dumps(fields, protocol=4))
    return digest.hexdigest()[:32]


def load(name: str, shape: tuple, dtype) -> np.ndarray | None:
    """The array saved as `name`, or None when there is none (or it is not of this shape/dtype)."""
    try:
        array = np.load(folder() / f"{name}.npy", allow_pickle=False)
    except (OSError, ValueError):
        return None
    if array.shape != tuple(shape) or array.dtype != np.dtype(dtype):
        return None
    return array


def save(name: str, array: np.ndarray) -> None:
    """Keep `array` as `name`; silently not, when the folder cannot be written."""
    try:
        with whole_file(folder() / f"{name}.npy") as tmp, open(tmp, "wb") as out:
            np.save(out, array, allow_pickle=False)     # to a file object: no ".npy" added
    except OSError:
        pass


@contextlib.contextmanager
def whole_file(target: Path) -> Iterator[str]:
    """A temporary path beside `target` to write; it replaces `target` when the block ends
    without an exception, and is removed in every case, so a reader never sees half a file and
    two writers leave one whole one. OSError when the folder cannot be written."""
    import tempfile

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.stem, suffix=".tmp")
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
