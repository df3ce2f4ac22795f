"""Answers as plain data: the only thing that leaves a learner's notebook when it is graded.

    line = encode_answers("q3", {"q3_writes_4k": 2, "q3_cluster_4k": np.float64(812.5)}, names)
    question, values, problems = decode_line(line)      # in the grader: plain values or reasons

`encode` runs inside the grading sandbox, in the learner's own Python process, so it proves
nothing: an answer cell can replace it. What it produces is therefore treated as untrusted text
by `decode`, which runs in the grader's process and rebuilds only JSON numbers, strings,
booleans, None, lists, tuples, sets, string-keyed dicts and numeric numpy arrays, checking each
exactly (no subclass, no object with its own comparison operators, no NaN or infinity, bounded
size and depth). A value that is not plain data is not rebuilt at all: its question's checks
then see the name undefined, and the learner is told why.

The runner writes every line to one channel (an answers file the grader holds): the answer lines,
one {"learner": id} line and a {"memory_error": cell} line per cell that ran out of memory.
`decode_channel` reads them all in the grader's limited child; a line that is not one of these
is skipped with a warning, whatever it holds.

Tags (a one-key dict) carry what JSON cannot: {"tuple": [...]}, {"set": [...]}, {"dict": {...}},
{"ndarray": [...], "dtype": "float64"} and {"nonfinite": "nan"}.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from cephlab.core.errors import CourseError

MAX_DEPTH = 20              # nesting of lists/dicts in one answer
MAX_ITEMS = 1_000_000       # numbers in one answer (an array of a million floats is ~20 MB of JSON)
MAX_LINE = 64 * 2**20       # bytes of one question's line
DTYPES = ("bool", "int64", "float64")   # numpy arrays cross as one of these
NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class NotPlain(CourseError, ValueError):
    """A value that cannot cross as plain data; the message says what it was."""


# -- in the learner's process (untrusted on arrival) ------------------------------------------------
def encode(value: Any, depth: int = 0) -> Any:
    """A JSON-ready form of value, or NotPlain. Exact types only: a subclass of float or str is
    refused, since its operators could claim any comparison true."""
    if depth > MAX_DEPTH:
        raise NotPlain(f"nested deeper than {MAX_DEPTH} levels")
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if value is Ellipsis:
        raise NotPlain("not answered yet (still `...`)")
    if kind is float:
        return value if math.isfinite(value) else {"nonfinite": repr(value)}
    if kind in (list, tuple):
        items = [encode(v, depth + 1) for v in value]
        return items if kind is list else {"tuple": items}
    if kind in (set, frozenset):
        return {"set": [encode(v, depth + 1) for v in value]}
    if kind is dict:
        if not all(type(k) is str for k in value):
            raise NotPlain("a dict with keys that are not strings")
        return {"dict": {k: encode(v, depth + 1) for k, v in value.items()}}
    return _encode_numpy(value, depth)


def _encode_numpy(value: Any, depth: int) -> Any:
    import numpy as np  # only when a numpy value is met: quizzes may never import it
    kind = type(value)
    if kind in (np.bool_,):
        return bool(value)
    if kind in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        return int(value)
    if kind in (np.float16, np.float32, np.float64):
        return encode(float(value), depth)
    if kind is np.ndarray and value.dtype.kind in "biuf":
        dtype = {"b": "bool", "i": "int64", "u": "int64", "f": "float64"}[value.dtype.kind]
        data = value.astype(dtype).tolist()
        return {"ndarray": _finite_lists(data), "dtype": dtype}
    raise NotPlain(f"a {kind.__module__}.{kind.__qualname__}, not a number, string, bool, list, "
                   "tuple, set, dict or numeric numpy array")


def _finite_lists(data: Any) -> Any:
    if isinstance(data, list):
        return [_finite_lists(d) for d in data]
    return {"nonfinite": repr(data)} if isinstance(data, float) and not math.isfinite(data) else data


def encode_answers(question: str, namespace: dict, names: list[str]) -> str:
    """One JSON line: the question, each name's encoded value, or why it has none."""
    values, problems = {}, {}
    for name in names:
        if name not in namespace:
            problems[name] = "not defined when the question's check cell ran"
            continue
        try:
            values[name] = encode(namespace[name])
        except NotPlain as e:
            problems[name] = str(e)
        except Exception as e:      # noqa: BLE001 - a hostile object can raise anything
            problems[name] = f"could not be read ({type(e).__name__})"
    return json.dumps({"question": question, "values": values, "problems": problems})


# -- in the grader's process ---------------------------------------------------------------------------
class _Budget:
    def __init__(self) -> None:
        self.left = MAX_ITEMS

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise NotPlain(f"more than {MAX_ITEMS:,} values")


def decode(data: Any, depth: int = 0, budget: _Budget | None = None) -> Any:
    """The plain value `data` (parsed JSON) stands for, or NotPlain. Exact JSON types are
    checked again here: this is the side that is trusted."""
    budget = budget or _Budget()
    budget.spend()
    if depth > MAX_DEPTH:
        raise NotPlain(f"nested deeper than {MAX_DEPTH} levels")
    kind = type(data)
    if data is None or kind in (bool, int, str):
        return data
    if kind is float:
        if not math.isfinite(data):
            raise NotPlain("not a finite number")
        return data
    if kind is list:
        return [decode(v, depth + 1, budget) for v in data]
    if kind is dict and len(data) >= 1:
        return _decode_tagged(data, depth, budget)
    raise NotPlain(f"unreadable answer data ({kind.__name__})")


def _decode_tagged(data: dict, depth: int, budget: _Budget) -> Any:
    keys = set(data)
    if keys == {"tuple"} and type(data["tuple"]) is list:
        return tuple(decode(v, depth + 1, budget) for v in data["tuple"])
    if keys == {"set"} and type(data["set"]) is list:
        items = [decode(v, depth + 1, budget) for v in data["set"]]
        if not all(type(v) in (bool, int, float, str, tuple) or v is None for v in items):
            raise NotPlain("a set of something other than numbers, strings or tuples")
        try:
            return set(items)
        except TypeError:               # a tuple holding a list: unhashable
            raise NotPlain("a set holding a list or a set (unhashable)") from None
    if keys == {"dict"} and type(data["dict"]) is dict:
        return {str(k): decode(v, depth + 1, budget) for k, v in data["dict"].items()}
    if keys == {"nonfinite"}:
        raise NotPlain(f"{data['nonfinite']!s:.10}: not a finite number (NaN or infinity)")
    if keys == {"ndarray", "dtype"} and data["dtype"] in DTYPES:
        return _decode_array(data["ndarray"], data["dtype"], depth, budget)
    raise NotPlain("unreadable answer data (an unknown tag)")


def _decode_array(rows: Any, dtype: str, depth: int, budget: _Budget) -> Any:
    import numpy as np
    values = decode(rows, depth + 1, budget)        # numbers only: tags inside are refused
    if not _numbers_only(values):
        raise NotPlain("an array holding something other than numbers")
    try:
        array = np.array(values, dtype=dtype)
    except (ValueError, TypeError, OverflowError) as e:     # ragged rows, or out of range
        raise NotPlain(f"not a rectangular numeric array ({e})") from None
    return array


def _numbers_only(values: Any) -> bool:
    if type(values) is list:
        return all(_numbers_only(v) for v in values)
    return type(values) in (bool, int, float)


def decode_line(line: str) -> tuple[str, dict, dict]:
    """(question, {name: value}, {name: why it has no value}) from one line of the learner's
    export; NotPlain when the line is not what encode_answers writes."""
    if len(line) > MAX_LINE:
        raise NotPlain(f"an answer line longer than {MAX_LINE // 2**20} MiB")
    try:
        record = json.loads(line, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as e:
        raise NotPlain(f"not JSON ({type(e).__name__})") from None
    if type(record) is not dict or set(record) != {"question", "values", "problems"} \
            or type(record["question"]) is not str or type(record["values"]) is not dict \
            or type(record["problems"]) is not dict:
        raise NotPlain("not an answer line")
    values, problems = {}, {str(k): str(v)[:200] for k, v in record["problems"].items()}
    for name, data in record["values"].items():
        try:
            values[str(name)] = decode(data)
        except NotPlain as e:
            problems[str(name)] = str(e)
        except RecursionError:
            problems[str(name)] = f"nested deeper than {MAX_DEPTH} levels"
        except (ValueError, TypeError, OverflowError) as e:     # whatever else the data provokes
            problems[str(name)] = f"unreadable answer data ({type(e).__name__})"
    return record["question"][:100], values, problems


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in answer data")


# -- the channel: every line the answer runner wrote, read by the grader ----------------------------------
MAX_WARNINGS = 20           # unreadable lines reported one by one; the rest are counted


@dataclass
class Channel:
    """What a learner's process sent: answers per question, the id it typed, the cells that ran out
    of memory, and a warning per line that could not be read."""
    values: dict[str, dict] = field(default_factory=dict)
    problems: dict[str, dict] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    typed: str = ""
    memory: list[str] = field(default_factory=list)


def learner_line(typed: str) -> str:
    return json.dumps({"learner": typed[:200]})


def memory_line(cell: str) -> str:
    return json.dumps({"memory_error": cell[:200]})


def decode_channel(data: bytes, truncated: bool = False) -> Channel:
    """The Channel of the runner's lines (untrusted: any line may be anything); the last line of a
    question wins (its final check). Never raises for what the lines hold."""
    got, unread = Channel(), 0
    for n, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            _take(got, raw.decode("utf-8", errors="replace"))
        except Exception as e:      # noqa: BLE001 - a line is data: whatever it provokes, it is skipped
            unread += 1
            if len(got.warnings) < MAX_WARNINGS:
                got.warnings.append(f"answer line {n} ignored: {str(e)[:200] or type(e).__name__}")
    if unread > MAX_WARNINGS:
        got.warnings.append(f"{unread - MAX_WARNINGS} more answer lines ignored")
    if truncated:
        got.warnings.append("the notebook wrote more answer data than grading reads: the rest was ignored")
    return got


def _take(got: Channel, line: str) -> None:
    if line.startswith('{"learner"') or line.startswith('{"memory_error"'):
        record = json.loads(line, parse_constant=_refuse_constant)
        if type(record) is dict and set(record) == {"learner"} and type(record["learner"]) is str:
            got.typed = record["learner"].strip()[:200]
            return
        if type(record) is dict and set(record) == {"memory_error"} and type(record["memory_error"]) is str:
            got.memory.append(record["memory_error"][:200])
            return
    question, values, problems = decode_line(line)
    got.values[question], got.problems[question] = values, problems
