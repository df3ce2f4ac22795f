"""Measuring a lab cluster: rados bench, fio on RBD, counters, device bytes, threads, PG states.

Units: IOPS in operations/s, bandwidth in MiB/s (what rados bench and fio call MB/s),
latencies in milliseconds, bytes in bytes.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypedDict, overload

from cephlab.cluster import full
from cephlab.cluster.base import ClusterCore
from cephlab.core import proc, run
from cephlab.core.errors import ClusterError, json_or_raise, parsing, unexpected_output
from cephlab.core.poll import poll_until

MIB = 1024 * 1024
BENCH_OBJECTS = ("benchmark_data", "benchmark_last_metadata")    # what rados bench writes


@dataclass
class BenchResult:
    """Summary of one benchmark run; series holds (t_s, iops, mib_s, lat_ms) per second."""
    tool: str
    op: str
    block_size: int
    seconds: float
    ops: int
    iops: float
    mb_s: float
    lat_mean_ms: float
    lat_max_ms: float
    lat_p50_ms: float | None = None     # fio only
    lat_p99_ms: float | None = None
    series: list[tuple[float, float, float, float]] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


class DeviceWrites(TypedDict):
    """What measure_device_writes() fills in when its block ends."""
    delta: dict[int, int]       # {osd_id: bytes written to its device}
    total: int


#: one record_pg_states sample: (seconds since the start, {state: count})
PGSample = tuple[float, dict[str, int]]


def _json_in(text: str, tool: str) -> Any:
    """The JSON object in a tool's stdout (rados bench prints e.g. 'hints = 1' before it);
    ParseError naming `tool` and showing its output when there is none."""
    start = text.find("{")
    if start < 0:
        raise unexpected_output(tool, "a JSON object", text)
    return json_or_raise(text[start:], tool, "a JSON object")


def parse_rados_bench(text: str, op: str, block_size: int) -> BenchResult:
    """Turn `rados bench ... --format json` output into a BenchResult."""
    raw = _json_in(text, "rados bench")
    with parsing("rados bench", "the per-second rows and the summary", raw):
        rows = sorted(raw.get("datas", []), key=lambda r: int(r["sec"]))
        series: list[tuple[float, float, float, float]] = []
        prev = 0
        for row in rows:
            sec, done = int(row["sec"]), int(row["finished"])
            if sec == 0:
                prev = done
                continue
            ops = done - prev
            prev = done
            series.append((sec, float(ops), ops * block_size / MIB, float(row["avg_lat"]) * 1000))
        made = raw.get("total_writes_made") or raw.get("total_reads_made") or 0
        return BenchResult(
            tool="rados bench", op=op, block_size=block_size, seconds=float(raw["total_time_run"]),
            ops=int(made), iops=float(raw["average_iops"]), mb_s=float(raw["bandwidth"]),
            lat_mean_ms=float(raw["average_latency"]) * 1000,
            lat_max_ms=float(raw["max_latency"]) * 1000, series=series, raw=raw)


def _fio_log(path: str | Path) -> dict[int, list[float]]:
    """Per-second values from a fio log (time_ms, value, dir, bs, ...): {second: [values]}."""
    out: dict[int, list[float]] = {}
    for line in Path(path).read_text().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 2 and parts[0].isdigit():
            out.setdefault(round(int(parts[0]) / 1000), []).append(float(parts[1]))
    return out


def parse_fio(raw: dict[str, Any], rw: str, bs: int, iops_log: str | Path | None = None,
              lat_log: str | Path | None = None) -> BenchResult:
    """Turn fio --output-format=json (one job group) into a BenchResult."""
    with parsing("fio", "the job's read/write figures", raw):
        job = raw["jobs"][0]
        dirs = [job[k] for k in ("read", "write") if job.get(k, {}).get("total_ios")]
        if not dirs:
            raise ClusterError(f"fio did no I/O: {job.get('error')} ")
        iops = sum(d["iops"] for d in dirs)
        bw = sum(d["bw_bytes"] for d in dirs) / MIB
        ios = sum(d["total_ios"] for d in dirs)
        lat_mean = sum(d["lat_ns"]["mean"] * d["total_ios"] for d in dirs) / ios / 1e6
        lat_max = max(d["lat_ns"]["max"] for d in dirs) / 1e6
        main = max(dirs, key=lambda d: d["total_ios"])
        pct = main.get("clat_ns", {}).get("percentile", {})
        runtime_s = job["job_runtime"] / 1000
    series: list[tuple[float, float, float, float]] = []
    if iops_log and Path(iops_log).exists():
        ops = _fio_log(iops_log)
        lat = _fio_log(lat_log) if lat_log and Path(lat_log).exists() else {}
        for sec in sorted(ops):
            n = sum(ops[sec])
            ms = sum(lat[sec]) / len(lat[sec]) / 1e6 if lat.get(sec) else float("nan")
            series.append((sec, n, n * bs / MIB, ms))
    return BenchResult(
        tool="fio", op=rw, block_size=bs, seconds=runtime_s, ops=ios,
        iops=iops, mb_s=bw, lat_mean_ms=lat_mean, lat_max_ms=lat_max,
        lat_p50_ms=pct.get("50.000000", float("nan")) / 1e6,
        lat_p99_ms=pct.get("99.000000", float("nan")) / 1e6, series=series, raw=raw)


class Measuring(ClusterCore):
    """Mixed into Cluster: uses self.dir, self.conf, self.client, self.env(), self.pids() and
    self.pg_states() (ClusterCore)."""

    def _run_tool(self, cmd: list[str], timeout: float, cwd: str | Path | None = None,
                  writes_to: str | None = None) -> str:
        """A benchmark tool (rados, fio) against this cluster; its output.

        writes_to: the pool the tool writes to. The tools wait without end for a full pool (or
        an OSD stopped by a full host disk), so a full pool is refused before the start, and a
        watcher stops the tool when its pool fills meanwhile: ClusterFull either way."""
        what = " ".join(cmd[:4]) + " ..."
        env = {**os.environ, **self.env()}
        if writes_to is None:
            return run.run(cmd, what=what, env=env, cwd=cwd, timeout=timeout).stdout
        by = "rados bench" if cmd[0] == "rados" else cmd[0]
        full.check_writable(self, writes_to, by)
        with full.FullWatch(self, writes_to, cmd, by) as watch:
            try:
                return run.run(cmd, what=what, env=env, cwd=cwd, timeout=timeout).stdout
            except ClusterError as e:
                if watch.found is not None:
                    raise watch.found from e
                full.diagnose(self, writes_to, e, by)
                raise

    def rados_bench(self, pool: str, seconds: float, op: str = "write", block_size: int = 4096,
                    threads: int = 16, cleanup: bool = True) -> BenchResult:
        """Run `rados bench` for `seconds` and return a BenchResult.

        op is write, seq or rand; seq/rand read what an earlier write left with cleanup=False.
        """
        if op not in ("write", "seq", "rand"):
            raise ValueError(f"op must be 'write', 'seq' or 'rand', got {op!r}")
        cmd = ["rados", "-c", self.conf, "-p", pool, "bench", str(int(seconds)), op,
               "-t", str(threads), "--format", "json"]
        if op == "write":
            # rados bench prints its clean-up messages into the middle of its JSON, so the
            # write always keeps its objects and bench_cleanup() removes them afterwards.
            cmd[7:7] = ["-b", str(block_size)]
            cmd.append("--no-cleanup")
        try:
            out = self._run_tool(cmd, timeout=seconds * 3 + 120,
                                 writes_to=pool if op == "write" else None)
        except ClusterError as e:
            if "Must write data" in str(e):
                raise ClusterError(f"nothing to read in pool {pool}: run rados_bench(pool, s, "
                                   "'write', cleanup=False) first") from e
            raise
        if op != "write":
            block_size = int(_json_in(out, "rados bench").get("read_size", block_size))
        elif cleanup:
            self.bench_cleanup(pool)
        return parse_rados_bench(out, op, block_size)

    def bench_cleanup(self, pool: str) -> None:
        """Remove objects left by rados_bench(..., cleanup=False)."""
        if self.client.handle is not None and full.read_full_state(self, detail=False).blocks(pool):
            # `rados cleanup` would wait for the full flag to clear; the lab's I/O context
            # removes while full (deletes free space)
            with self.ioctx(pool) as io:
                for obj in list(io.list_objects()):
                    if obj.key.startswith(BENCH_OBJECTS):
                        io.remove_object(obj.key)
            return
        self._run_tool(["rados", "-c", self.conf, "-p", pool, "cleanup"], timeout=300)

    def fio_rbd(self, pool: str, image: str, rw: str = "randwrite", bs: int = 4096,
                iodepth: int = 16, runtime: float = 10, size: str | int | None = None,
                numjobs: int = 1, extra: Iterable[str] = ()) -> BenchResult:
        """Run fio's rbd engine against pool/image and return a BenchResult (with percentiles)."""
        if not shutil.which("fio"):
            raise ClusterError(f"fio is not installed: {run.install_hint('fio')}")
        writes = rw not in ("read", "randread")
        if writes:
            full.check_host(self, pool, "fio")   # before its folder is made
        work = Path(tempfile.mkdtemp(prefix="fio-", dir=self.dir / "tmp"))
        cmd = ["fio", "--name=lab", "--ioengine=rbd", "--clientname=admin", f"--pool={pool}",
               f"--rbdname={image}", f"--rw={rw}", f"--bs={bs}", f"--iodepth={iodepth}",
               f"--numjobs={numjobs}", "--group_reporting", f"--runtime={runtime}",
               "--time_based", "--output-format=json", "--write_iops_log=lab",
               "--write_lat_log=lab", "--log_avg_msec=1000", *extra]
        if size:
            cmd.append(f"--size={size}")
        try:
            out = self._run_tool(cmd, timeout=runtime * 3 + 120, cwd=work,
                                 writes_to=pool if writes else None)
            return parse_fio(_json_in(out, "fio"), rw, bs, work / "lab_iops.1.log", work / "lab_lat.1.log")
        finally:
            shutil.rmtree(work, ignore_errors=True)

    # -- counters and /proc ------------------------------------------------------------------
    def perf_dump(self, osd_id: int) -> dict[str, dict[str, Any]]:
        """`ceph tell osd.N perf dump`: {section: {counter: value}}."""
        return self.client.send({"prefix": "perf dump"}, ("osd", osd_id))

    def pgs_being_deleted(self) -> dict[int, int]:
        """{osd id: PGs of deleted pools it is still removing} for each OSD that is up (perf counter
        osd.numpg_removing). A deleted pool leaves the maps at once, but each OSD removes its PGs'
        objects in the background, freeing space and writing to RocksDB as it goes. Under mClock
        (the default from Quincy) that is a best-effort class: measured on 18.2.7 here, the 15,835
        4 KiB objects rados bench had left took 104 s, about 120 objects/s per OSD."""
        removing = {}
        for osd in self.up_osds():
            try:
                removing[osd] = int(self.perf_dump(osd).get("osd", {}).get("numpg_removing", 0))
            except ClusterError:
                continue                    # it went down between the map and the question
        return removing

    def wait_for_pg_deletion(self, timeout: float = 600, progress: bool = True) -> float:
        """Wait until no OSD is still removing PGs of deleted pools (pgs_being_deleted), so that
        what comes next measures the lab's own work, not an earlier lab's clean-up; the seconds
        waited. Progress on stderr while it waits (progress=False silences it)."""
        t0, shown = time.monotonic(), [0.0]
        last: list[dict[int, int]] = [{}]

        def done() -> bool:
            last[0] = self.pgs_being_deleted()
            return not any(last[0].values())

        def show(elapsed: float, _: object) -> None:
            if progress and elapsed - shown[0] >= 5:
                busy = {o: n for o, n in last[0].items() if n}
                print(f"[{elapsed:5.1f} s] the OSDs are still deleting the PGs of pools removed "
                      f"earlier: {', '.join(f'osd.{o} {n}' for o, n in sorted(busy.items()))}",
                      file=sys.stderr, flush=True)
                shown[0] = elapsed
        poll_until(done, timeout, "the OSDs finishing the deletion of removed pools' PGs", interval=1,
                   progress=show, hint="see `ceph tell osd.N perf dump osd` (numpg_removing); a slow "
                                       "disk or a large pool takes longer: wait, or raise timeout")
        return time.monotonic() - t0

    def _proc(self, kind: str | None, field_name: str) -> dict[str, int]:
        out = {}
        for name, pid in self.pids().items():
            if kind and not name.startswith(kind + "."):
                continue
            try:
                out[name] = (proc.io_field(pid, field_name) if field_name == "write_bytes"
                             else proc.status_field(pid, field_name))
            except (OSError, KeyError):
                continue
        return out

    def device_write_bytes(self) -> dict[int, int]:
        """{osd_id: bytes the OSD process has written to its device file} from /proc/<pid>/io."""
        return {int(n.split(".")[1]): v for n, v in self._proc("osd", "write_bytes").items()}

    @contextlib.contextmanager
    def measure_device_writes(self) -> Iterator[DeviceWrites]:
        """with c.measure_device_writes() as w: ...  then w["delta"] = {osd_id: bytes}, w["total"]."""
        before = self.device_write_bytes()
        result: DeviceWrites = {"delta": {}, "total": 0}
        yield result
        after = self.device_write_bytes()
        result["delta"] = {i: after[i] - before.get(i, 0) for i in after}
        result["total"] = sum(result["delta"].values())

    def thread_counts(self) -> dict[str, int]:
        """{daemon: number of threads} from /proc/<pid>/status."""
        return self._proc(None, "Threads")

    def memory_rss(self) -> dict[str, int]:
        """{daemon: resident memory in bytes} from /proc/<pid>/status (VmRSS)."""
        return {n: kib * 1024 for n, kib in self._proc(None, "VmRSS").items()}

    @overload
    def record_pg_states(self, seconds: float | None = ..., until_clean: bool = ...,
                         interval: float = ..., background: Literal[False] = ...) -> list[PGSample]: ...

    @overload
    def record_pg_states(self, seconds: float | None = ..., until_clean: bool = ...,
                         interval: float = ..., *, background: Literal[True]) -> PGRecorder: ...

    def record_pg_states(self, seconds: float | None = None, until_clean: bool = False,
                         interval: float = 1.0, background: bool = False) -> list[PGSample] | PGRecorder:
        """Sample {state: count} every `interval` s: [(t_s, {state: count}), ...].

        Stops after `seconds`, or (until_clean) at the first all-active+clean sample after an
        unclean one (capped at `seconds`, default 600). background=True returns a running
        PGRecorder at once (use .stop() or .wait(), or `with`), for recording during a fault.
        """
        if seconds is None and not until_clean:
            raise ValueError("give seconds (> 0) or until_clean=True")
        rec = PGRecorder(self, seconds if seconds is not None else 600, until_clean, interval)
        if background:
            rec.start()
            return rec
        rec.run()
        return rec.series


class PGRecorder(threading.Thread):
    def __init__(self, cluster: ClusterCore, seconds: float, until_clean: bool, interval: float):
        super().__init__(daemon=True)
        self.cluster, self.seconds, self.until_clean, self.interval = (
            cluster, seconds, until_clean, interval)
        self.series: list[PGSample] = []
        self._stop_event = threading.Event()

    def run(self) -> None:
        t0 = time.monotonic()
        seen_unclean = False
        while not self._stop_event.is_set():
            t = time.monotonic() - t0
            states = self.cluster.pg_states()
            self.series.append((round(t, 3), states))
            clean = set(states) <= {"active+clean"}
            seen_unclean |= not clean
            if t >= self.seconds or (self.until_clean and clean and seen_unclean):
                break
            self._stop_event.wait(self.interval)

    def stop(self) -> list[PGSample]:
        self._stop_event.set()
        if self.is_alive():
            self.join()
        return self.series

    def wait(self, timeout: float | None = None) -> list[PGSample]:
        self.join(timeout)
        return self.series

    def __enter__(self) -> PGRecorder:
        if not self.is_alive() and not self.series:
            self.start()
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.stop()
        return False
