"""One root for the lab's errors, and tool output that fails to parse says so clearly.

Every exception class defined under cephlab/ derives from CephLabError (a new one outside the root
fails here); match_or_raise / json_or_raise / parsing turn a tool's unexpected output into a
ParseError that names the tool and shows what it printed, never an AttributeError or KeyError."""
from __future__ import annotations

import importlib
import pkgutil
import types

import pytest

import cephlab
from cephlab.cluster.measure import parse_fio, parse_rados_bench
from cephlab.core.errors import (
    CephLabError,
    ClusterError,
    CourseError,
    ParseError,
    json_or_raise,
    match_or_raise,
    parsing,
)
from cephlab.helpers.database import parse_pgbench


def cephlab_modules():
    """(imported modules, names skipped because an optional system module is missing)."""
    found, skipped = [], []
    for info in pkgutil.walk_packages(cephlab.__path__, "cephlab."):
        if info.name.endswith(".__main__"):          # running it is its only effect
            continue
        try:
            found.append(importlib.import_module(info.name))
        except ImportError:
            skipped.append(info.name)
    return found, skipped


def errors_defined_in(module):
    return [obj for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, BaseException) and obj.__module__ == module.__name__]


def outside_the_root(modules):
    return sorted(f"{e.__module__}.{e.__qualname__}" for m in modules for e in errors_defined_in(m)
                  if not issubclass(e, CephLabError))


def test_every_error_of_the_lab_derives_from_cephlaberror():
    modules, skipped = cephlab_modules()
    names = {m.__name__ for m in modules}
    assert {"cephlab.core.errors", "cephlab.core.teardown", "cephlab.course.grading"} <= names, skipped
    errors = {e.__name__ for m in modules for e in errors_defined_in(m)}
    assert {"ClusterError", "StepFailed", "GradingError", "SandboxError", "ReleaseError", "ParseError"} <= errors
    assert outside_the_root(modules) == []


def test_a_stray_error_is_found():
    """The negative control: an error class outside the root is reported."""
    stray = types.ModuleType("cephlab.stray")
    stray.CephLabError = CephLabError                   # imported: not defined there, not counted
    exec("class Stray(RuntimeError):\n    pass\nclass Fine(CephLabError):\n    pass", stray.__dict__)
    assert outside_the_root([stray]) == ["cephlab.stray.Stray"]


def test_the_course_errors_share_a_base_and_cephlab_exports_the_root():
    from cephlab.core.teardown import StepFailed
    from cephlab.course.grading import GradingError
    from cephlab.course.sandbox import SandboxError
    from cephlab.course.student_release import ReleaseError
    assert all(issubclass(e, CourseError) for e in (GradingError, SandboxError, ReleaseError))
    assert issubclass(StepFailed, CephLabError) and not issubclass(StepFailed, ClusterError)
    assert cephlab.CephLabError is CephLabError


# -- parsing a tool's output ---------------------------------------------------------------------
def test_match_or_raise_returns_the_match():
    assert match_or_raise(r"tps = ([\d.]+)", "x\ntps = 12.5 (without", "pgbench", "tps").group(1) == "12.5"


def test_no_match_names_the_tool_and_shows_the_last_lines():
    text = "\n".join(f"line {i}" for i in range(30)) + "\nERROR: role does not exist\n"
    with pytest.raises(ParseError) as e:
        match_or_raise(r"tps = ([\d.]+)", text, "pgbench", "the transactions per second")
    message = str(e.value)
    assert message.startswith("could not find the transactions per second in pgbench's output")
    assert "ERROR: role does not exist" in message and "line 21" in message and "line 20" not in message
    assert "Run pgbench by hand" in message                         # what to do
    assert isinstance(e.value, ClusterError)                        # callers catching it still do


def test_json_or_raise():
    assert json_or_raise('{"a": 1}', "ceph") == {"a": 1}
    with pytest.raises(ParseError, match=r"(?s)in ceph's output.*\| Error EINVAL: bad"):
        json_or_raise("Error EINVAL: bad", "ceph")


def test_parsing_turns_a_missing_field_into_a_parse_error():
    with pytest.raises(ParseError, match=r"(?s)could not find the summary \(KeyError: 'bandwidth'\) in rados.*"
                                          r"total_time_run"):
        with parsing("rados bench", "the summary", {"total_time_run": "3.0"}):
            {"total_time_run": "3.0"}["bandwidth"]


def test_pgbench_summary():
    out = ("pgbench (15.6 (Debian 15.6-0+deb12u1))\ntransaction type: <builtin: simple update>\n"
           "number of transactions actually processed: 256/256\nlatency average = 3.906 ms\n"
           "initial connection time = 2.1 ms\ntps = 256.012 (without initial connection time)\n")
    assert parse_pgbench(out) == {"tps": 256.012, "latency_ms": 3.906, "transactions": 256}
    timed = out.replace("256/256", "1503").replace("tps = 256.012", "tps = 751.417")   # pgbench -T 2
    assert parse_pgbench(timed) == {"tps": 751.417, "latency_ms": 3.906, "transactions": 1503}


def test_pgbench_output_without_a_summary_says_what_it_printed():
    out = 'pgbench: error: connection to server on socket "/x/.s.PGSQL.5432" failed: No such file\n'
    with pytest.raises(ParseError, match=r"(?s)transactions per second.*pgbench's output.*No such file"):
        parse_pgbench(out)


def test_rados_bench_and_fio_output_of_another_shape():
    with pytest.raises(ParseError, match=r"(?s)a JSON object in rados bench's output.*\| hints = 1"):
        parse_rados_bench("hints = 1\nerror opening pool lab: (2) No such file or directory", "write", 4096)
    with pytest.raises(ParseError, match=r"KeyError: 'total_time_run'\) in rados bench's output"):
        parse_rados_bench('{"datas": []}', "write", 4096)
    with pytest.raises(ParseError, match=r"KeyError: 'jobs'\) in fio's output"):
        parse_fio({"fio version": "fio-3.33"}, "randwrite", 4096)
