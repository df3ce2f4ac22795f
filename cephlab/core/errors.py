"""The exceptions the lab raises; each message says what went wrong and what to do.

Every one derives from CephLabError (tests/unit/test_errors.py checks it), so a caller can catch
the lab's errors in one clause. Parsing a tool's output goes through match_or_raise / json_or_raise
/ parsing(), which raise ParseError naming the tool and showing what it printed.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

SHOWN_LINES = 10        # lines of a tool's output a ParseError quotes (its end: where errors are)


class CephLabError(Exception):
    """Every error the lab raises; the message says what went wrong and what to do."""


class ClusterError(CephLabError):
    """A cluster operation failed."""


class ClusterNotRunning(ClusterError):
    """No lab cluster runs under that name/folder."""


class SetupError(ClusterError):
    """The machine cannot run a lab cluster as asked (Ceph missing, port busy, no space...)."""


class FolderUnusable(SetupError):
    """A cluster folder (`--dir`, $CEPHLAB_DIR) that cannot hold a cluster: it cannot be created or
    written, it or a folder above it is a file, or its path is too long (cephlab.core.folders,
    checked before the cluster's lock is taken). .path: the folder. A usage error: the CLI says
    it in one line and exits with status 2, as argparse does for a bad argument."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(message)
        self.path = path


class ClusterFull(ClusterError):
    """A write was refused or stopped because space ran out: Ceph's full flags (an OSD past its
    full ratio, a pool at its quota) or the host disk under the daemons. .flags: the health
    checks behind it (e.g. ["OSD_FULL", "POOL_FULL"], "HOST_DISK_FULL" for the host disk);
    .osds: the OSDs concerned; .pool: the pool written to, when known; .written: what a writer of
    many objects had written before it stopped ({name: md5}, checksums.write_objects)."""

    def __init__(self, message: str, flags: tuple[str, ...] = (), osds: tuple[int, ...] = (),
                 pool: str | None = None):
        super().__init__(message)
        self.flags, self.osds, self.pool = tuple(flags), tuple(osds), pool
        self.written: dict[str, str] = {}


class ParseError(ClusterError):
    """A tool's output did not have the shape the lab reads (another version of the tool, or an
    error message where a result was expected)."""


class CourseError(CephLabError):
    """Course tooling failed: grading, the grading sandbox, the student release."""


def unexpected_output(tool: str, what: str, text: object, hint: str = "") -> ParseError:
    """The ParseError for `tool`'s output `text` that lacks `what`: the output's last lines and
    what to do (`hint`, else: run the tool by hand and compare its version with the labs')."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    shown = [line for line in str(text).strip().splitlines() if line.strip()][-SHOWN_LINES:]
    quoted = "\n".join(f"  | {line}" for line in shown) or "  | (no output)"
    hint = hint or (f"Run {tool} by hand to see what it says: the labs read what the versions "
                    "Debian 12 ships print, and another version may print it differently.")
    return ParseError(f"could not find {what} in {tool}'s output; its last lines:\n{quoted}\n{hint}")


def match_or_raise(pattern: str | re.Pattern[str], text: str, tool: str, what: str,
                   flags: int = 0) -> re.Match[str]:
    """re.search(pattern, text), or ParseError naming `tool` and showing `text` when it does
    not match (where `.group()` on None would be an AttributeError that says nothing)."""
    m = re.search(pattern, text, flags)
    if m is None:
        raise unexpected_output(tool, what, text)
    return m


def json_or_raise(text: str | bytes, tool: str, what: str = "a JSON document") -> Any:
    """json.loads(text), or ParseError naming `tool` and showing `text`."""
    try:
        return json.loads(text)
    except ValueError as e:
        raise unexpected_output(tool, f"{what} ({e})", text) from None


@contextmanager
def parsing(tool: str, what: str, output: object) -> Iterator[None]:
    """Read fields of a tool's (parsed) output inside `with parsing(...)`: a missing key, index or
    a value of the wrong type becomes a ParseError naming `tool` and showing `output`."""
    try:
        yield
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
        if isinstance(output, (dict, list)):
            output = json.dumps(output, indent=1)
        raise unexpected_output(tool, f"{what} ({type(e).__name__}: {e})", output) from e
