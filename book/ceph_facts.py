"""The option defaults book/ceph-facts.md states, and their check against a Ceph release's own.

    python book/ceph_facts.py                                   # list every stated default
    python book/ceph_facts.py --host                            # check them: this machine's ceph-conf
    python book/ceph_facts.py --image localhost/ceph:v18.2.7    # check them: an image's (podman, root)

The facts write every option default they name in one form, a list that starts with "defaults in"
and the releases it holds for (P = Pacific 16.2, R = Reef 18.2, T = Tentacle 20.2):

    defaults in P R T: `osd_pool_default_size` = 3, `osd_pool_default_min_size` = 0 (= size − size/2)

Each item is `` `option` = value ``; items are joined by ", " or " and "; a remark in parentheses
after a value is not part of it; the list ends where the next text is not another item (a
semicolon, the end of the cell). A value is a number, with an optional unit (KiB, MiB, GiB: 2^10,
2^20, 2^30 bytes; s: seconds, the option's own unit), or a word (true, false, writearound, ...).
`defaults` reads them; `loose_assignments` and `unlisted_mentions` find a default written any
other way, so that none escapes the check (tests/unit/test_ceph_facts.py).

What a release's defaults are: `ceph-conf -c /dev/null -D`, which prints the compiled-in value of
every option with no cluster and no configuration file (`-c /dev/null`: /etc/ceph is not read).
ceph-conf is a utility, so it prints the non-daemon value of the few options with a daemon
default; for 16.2.15 and 18.2.7 `ceph-osd -c /dev/null -i 0 --show-config` differs from it only in
leveldb_log and log_to_file (and ceph-mon's in leveldb_*), none of which the facts name.
The host's release: tests/unit/test_ceph_facts.py (an oracle test, in `make test`); the other
releases' images (vagrant/provision/build-image.sh, made by tests/cephadm_releases' clusters):
tests/cephadm_releases/test_option_defaults.py.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

BOOK = Path(__file__).resolve().parent
FACTS = BOOK / "ceph-facts.md"
RELEASES = {"P": 16, "R": 18, "T": 20}         # letter of the facts -> Ceph major release
NAMES = {"P": "Pacific 16.2", "R": "Reef 18.2", "T": "Tentacle 20.2"}
UNITS = {"KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30, "s": 1}
# ulimits within the hard limits of the lab's CI machines (podman's defaults exceed them), as in
# vagrant/provision/build-image.sh
PODMAN_RUN = ["podman", "run", "--rm", "--network", "none",
              "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768"]
CEPH_CONF = ["ceph-conf", "-c", "/dev/null"]
IMAGE_REPO = "localhost/ceph"

NAME = r"[a-z][a-z0-9_]*[a-z0-9]"
VALUE = r"-?\d+(?:\.\d+)?(?: (?:KiB|MiB|GiB|s)\b)?|[a-z][a-z0-9_+]*"
HEADER = re.compile(r"defaults in ((?:[A-Z] )*[A-Z]):")
ITEM = re.compile(rf"\s*`(?P<option>{NAME})` = (?P<value>{VALUE})(?: \((?P<remark>[^()]*)\))?")
SEPARATOR = re.compile(r",\s*(?=`)|\s+and\s+(?=`)")
ASSIGNMENT = re.compile(rf"`(?P<option>{NAME})` = ")
# a default named outside a list: `option` followed by a value ("`x` 600 s", "`x` default 3",
# "`x` (64 KiB)", "`x` true"); a setting written in one code span (`x = 0`, `x 4`) is not one
MENTION = re.compile(rf"`(?P<option>{NAME})`\s*(?:default\s+|\(\s*)?(?P<value>-?\d[\d,]*(?:\.\d+)?|true|false)\b")
DEVICE_VARIANTS = ("", "_hdd", "_ssd", "_hybrid")
# pool settings (`ceph osd pool set`), not configuration options: "`min_size` = k + m" is no default
POOL_SETTINGS = {"size", "min_size", "pg_num", "pgp_num"}


class FormatError(ValueError):
    """A "defaults in" list that does not follow the form."""


@dataclass(frozen=True)
class Default:
    """One option default a fact states."""

    line: int                   # 1-based line of book/ceph-facts.md (or of the text given)
    option: str
    stated: str                 # as written: "64 KiB", "0.85", "true", "writearound"
    releases: tuple[str, ...]   # letters of RELEASES
    remark: str = ""

    def where(self) -> str:
        return f"line {self.line}: `{self.option}` = {self.stated}"


def _rows(text: str):
    """(line number, text) of each table row: the facts; the prose around the tables is not read."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("|"):
            yield number, line


def _lists(row: str, number: int = 0):
    """(header match, [item matches], end position) of every "defaults in" list of a row."""
    for header in HEADER.finditer(row):
        letters = header.group(1).split()
        unknown = [x for x in letters if x not in RELEASES]
        if unknown or len(set(letters)) != len(letters):
            raise FormatError(f"line {number}: \"{header.group(0)}\" names releases other than one "
                              f"each of {' '.join(RELEASES)}")
        items, pos = [], header.end()
        while True:
            item = ITEM.match(row, pos)
            if item is None:
                raise FormatError(f"line {number}: \"{header.group(0)}\" is not followed by "
                                  f"`option` = value at {row[pos:pos + 40]!r}")
            items.append(item)
            pos = item.end()
            sep = SEPARATOR.match(row, pos)
            if sep is None:
                break
            pos = sep.end()
        yield header, items, pos


def defaults(text: str) -> list[Default]:
    """Every default the "defaults in" lists of the table rows of `text` state, in order."""
    found = []
    for number, row in _rows(text):
        for header, items, _ in _lists(row, number):
            letters = tuple(header.group(1).split())
            found += [Default(number, i.group("option"), i.group("value"), letters, i.group("remark") or "")
                      for i in items]
    return found


def loose_assignments(text: str) -> list[tuple[int, str]]:
    """(line, text) of each `` `option` = `` of a table row that is not an item of a "defaults in"
    list (pool settings aside)."""
    found = []
    for number, row in _rows(text):
        inside = {item.start("option") - 1 for _, items, _ in _lists(row, number) for item in items}
        found += [(number, m.group(0)) for m in ASSIGNMENT.finditer(row)
                  if m.start() not in inside and m.group("option") not in POOL_SETTINGS]
    return found


def unlisted_mentions(text: str) -> list[tuple[int, str, str]]:
    """(line, option, value) where a table row names an option with a value ("`x` 600 s") but no
    "defaults in" list of the same row has that option (or its _hdd, _ssd, _hybrid variant)."""
    found = []
    for number, row in _rows(text):
        lists = list(_lists(row, number))
        listed = {i.group("option") for _, items, _ in lists for i in items}
        spans = [(h.start(), end) for h, _, end in lists]
        for m in MENTION.finditer(row):
            if any(a <= m.start() < b for a, b in spans) or m.group("option") in POOL_SETTINGS:
                continue
            if not any(m.group("option") + v in listed for v in DEVICE_VARIANTS):
                found.append((number, m.group("option"), m.group("value")))
    return found


def value(written: str) -> float | str:
    """A value as stated ("64 KiB" -> 65536.0, "0.1 s" -> 0.1) or as ceph-conf prints it
    ("0.850000" -> 0.85); a word stays a word."""
    number, _, unit = written.strip().partition(" ")
    try:
        n = float(number)
    except ValueError:
        return written.strip()
    if unit and unit not in UNITS:
        raise FormatError(f"unknown unit {unit!r} in {written!r} (known: {', '.join(UNITS)})")
    return n * UNITS.get(unit, 1)


def same(stated: str, actual: str) -> bool:
    a, b = value(stated), value(actual)
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def parse_dump(text: str) -> dict[str, str]:
    """{option: value} of `ceph-conf -D` output ("name = value" lines)."""
    found = {}
    for line in text.splitlines():
        name, sep, rest = line.partition(" =")
        if sep and re.fullmatch(r"[a-z0-9_]+", name):
            found[name] = rest.strip()
    return found


def mismatches(stated: list[Default], release: str, actual: dict[str, str],
               source: str = "book/ceph-facts.md") -> list[str]:
    """One message per default of `stated` claimed for `release` that `actual` does not hold."""
    wrong = []
    for d in stated:
        if release not in d.releases:
            continue
        if d.option not in actual:
            wrong.append(f"{source} line {d.line}: `{d.option}` = {d.stated} is claimed for "
                         f"{NAMES[release]}, which has no option `{d.option}`")
        elif not same(d.stated, actual[d.option]):
            wrong.append(f"{source} line {d.line}: `{d.option}` = {d.stated} is claimed for "
                         f"{NAMES[release]}, whose default is {actual[d.option]}")
    return wrong


def release_of(version_line: str) -> tuple[str, str]:
    """(letter, "x.y.z") of a `ceph-conf --version` line; letter "" for a release the facts do not cover."""
    m = re.search(r"ceph version (\d+)\.(\d+)\.(\d+)", version_line)
    if m is None:
        raise ValueError(f"not a Ceph version line: {version_line!r}")
    major = int(m.group(1))
    letter = next((x for x, v in RELEASES.items() if v == major), "")
    return letter, ".".join(m.groups())


def _env() -> dict[str, str]:
    # CEPH_CONF and CEPH_ARGS would change what ceph-conf reads and prints
    return {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS")}


def host_defaults(program: str = "ceph-conf") -> tuple[str, dict[str, str]]:
    """(version line, {option: default}) of this machine's ceph-conf."""
    def run(*args: str) -> str:
        return subprocess.run([program, *args], capture_output=True, text=True, check=True, timeout=60,
                              env=_env()).stdout
    return run("--version").strip(), parse_dump(run(*CEPH_CONF[1:], "-D"))


def image_defaults(image: str) -> tuple[str, dict[str, str]]:
    """(version line, {option: default}) of the ceph-conf in a podman image (one container)."""
    out = subprocess.run([*PODMAN_RUN, image, "sh", "-c", "ceph-conf --version && ceph-conf -c /dev/null -D"],
                         capture_output=True, text=True, check=True, timeout=300).stdout
    version, _, dump = out.partition("\n")
    return version.strip(), parse_dump(dump)


def release_images() -> dict[int, list[str]]:
    """{major: [localhost/ceph:vX.Y.Z images, newest first]} in podman's store (-loop tags left out)."""
    out = subprocess.run(["podman", "image", "ls", "--format", "{{.Repository}}:{{.Tag}}", IMAGE_REPO],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    found: dict[int, list[tuple[tuple[int, ...], str]]] = {}
    for name in set(out.split()):
        m = re.fullmatch(rf"{re.escape(IMAGE_REPO)}:v(\d+)\.(\d+)\.(\d+)", name)
        if m:
            key = tuple(int(g) for g in m.groups())
            found.setdefault(key[0], []).append((key, name))
    return {major: [n for _, n in sorted(v, reverse=True)] for major, v in found.items()}


def check(version: str, actual: dict[str, str], text: str | None = None) -> tuple[str, list[Default], list[str]]:
    """(release letter, the defaults claimed for it, mismatch messages) of the facts against one release."""
    letter, _ = release_of(version)
    stated = defaults(FACTS.read_text(encoding="utf-8") if text is None else text)
    claimed = [d for d in stated if letter in d.releases]
    return letter, claimed, mismatches(stated, letter, actual) if letter else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--host", action="store_true", help="check against this machine's ceph-conf")
    where.add_argument("--image", help="check against the ceph-conf of this podman image")
    args = parser.parse_args(argv)
    if not (args.host or args.image):
        for d in defaults(FACTS.read_text(encoding="utf-8")):
            print(f"{d.line:4}  {' '.join(d.releases):6} {d.option} = {d.stated}")
        return 0
    version, actual = host_defaults() if args.host else image_defaults(args.image)
    letter, claimed, wrong = check(version, actual)
    if not letter:
        print(f"{version}: not a release book/ceph-facts.md covers ({', '.join(NAMES.values())})")
        return 2
    print(f"{version}: {len(claimed)} stated defaults of {NAMES[letter]}, {len(wrong)} wrong")
    for message in wrong:
        print("  " + message)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
