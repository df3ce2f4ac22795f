"""Load the seed tables and reference measurements kept as CSV in the repository's data/ folder.

Every CSV has a `source` column naming where each row comes from (seed file or public source).
"""
from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def _parse(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


@cache
def _read(name):
    path = DATA_DIR / f"{name}.csv"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in DATA_DIR.glob("*.csv")))
        raise ValueError(f"no table named {name!r} in {DATA_DIR}; known tables: {known}")
    with path.open(newline="") as f:
        rows = [{k: _parse(v) for k, v in row.items()} for row in csv.DictReader(_skip_comments(f))]
    return tuple(rows)


def _skip_comments(lines):
    return (line for line in lines if not line.startswith("#"))


def load(name):
    """Rows of data/<name>.csv as a list of dicts; numbers come back as int or float."""
    return [dict(r) for r in _read(name)]


def lookup(name, key_column, key):
    """The one row of data/<name>.csv whose key_column equals key."""
    rows = [r for r in _read(name) if r[key_column] == key]
    if len(rows) != 1:
        keys = ", ".join(str(r[key_column]) for r in _read(name))
        raise ValueError(f"{key_column} must be one of: {keys}; got {key!r}")
    return dict(rows[0])
