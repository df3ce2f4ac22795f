"""The text a claim test reads: the cell sources of a lab's three files and the book, whitespace
collapsed (tests/unit/test_seed_claims.py, tests/unit/test_ceph_source_claims.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lab_files(stem):
    """The lab's jupytext source, executed solution and student notebook."""
    return [ROOT / "solutions" / f"{stem}.py", ROOT / "solutions" / f"{stem}.ipynb",
            ROOT / "labs" / stem / f"{stem}.ipynb"]


def plain(path):
    """The file's text with whitespace collapsed: a notebook's cell sources (no outputs), a
    jupytext script without its Markdown's leading "# ", anything else as it is."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        raw = "\n".join("".join(c["source"]) for c in json.loads(raw)["cells"])
    elif path.parent.name == "solutions":
        raw = re.sub(r"(?m)^#[ \t]?", "", raw)
    return " ".join(raw.split())


def check(paths, absent=(), present=()):
    """Each file says none of `absent` and all of `present`."""
    for path in paths:
        text = plain(path)
        name = path.relative_to(ROOT)
        for wrong in absent:
            assert wrong not in text, f"{name} still says {wrong!r}"
        for right in present:
            assert right in text, f"{name} lacks {right!r}"
