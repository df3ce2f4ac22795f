"""Time nothing -> HEALTH_OK of the container cephadm cluster (vagrant/containers/up.sh), with
the images cached and not, next to the native mini cluster in the same run; its down; and the
memory of each node container. Writes bench/results/cephadm.json.

    sudo .venv/bin/python bench/bench_cephadm.py [--runs 3] [--uncached 1] [--keep]

Each cached run is down.sh then up.sh; an uncached run first removes the cached images so up.sh
builds them (CEPHLAB_CEPHADM_REBUILD=1). The baseline: `cephlab up` of a 3-OSD native cluster
(Cluster.start, then stop), the same number of times, in the same run. Prints medians (min-max)
and the ratio cephadm / native. Node memory: the node container's memory cgroup (`podman stats`,
which counts the page cache of the node's files too) after HEALTH_OK.
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from cephlab.core.run import run

ROOT = Path(__file__).resolve().parents[1]
UP = ROOT / "vagrant" / "containers" / "up.sh"
DOWN = ROOT / "vagrant" / "containers" / "down.sh"
RESULTS = ROOT / "bench" / "results" / "cephadm.json"


def timed(script: Path, env: dict, what: str, timeout: float) -> float:
    t0 = time.monotonic()
    run(["bash", script], what=what, env=env, timeout=timeout, show=True)
    return time.monotonic() - t0


def node_memory(export: Path) -> dict[str, float]:
    """MiB per node container, from `podman stats` (the container's memory cgroup)."""
    names = [n["container"] for n in json.loads((export / "cluster.json").read_text())["nodes"]]
    out = run(["podman", "stats", "--no-stream", "--format", "json", *names],
              what="podman stats").stdout
    mem = {}
    for s in json.loads(out):
        used = s.get("mem_usage", "").split("/")[0].strip()        # e.g. "1.234GB"
        num = float("".join(c for c in used if c.isdigit() or c == "."))
        unit = used.lstrip("0123456789.").strip().upper()
        scale = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30}[unit]
        mem[s["name"]] = num * scale / 2**20
    return mem


def ceph_osd_count(export: Path) -> int:
    out = run(["ceph", "-c", export / "ceph.conf", "-k", export / "keyring", "osd", "stat",
               "--format", "json"], what="ceph osd stat").stdout
    return int(json.loads(out)["num_up_osds"])


def native_up_s() -> float:
    """Nothing -> HEALTH_OK of a 3-OSD native cluster (the baseline), then its stop."""
    from cephlab import Cluster
    t0 = time.monotonic()
    c = Cluster.start(name="bench-native", osds=3, progress=False, backend="native")
    up = time.monotonic() - t0
    c.stop()
    return up


def spread(values: list[float]) -> dict:
    return {"n": len(values), "median": round(statistics.median(values), 1),
            "min": round(min(values), 1), "max": round(max(values), 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3, help="cached ups (and native ups) to time")
    ap.add_argument("--uncached", type=int, default=1, help="ups with the image builds to time")
    ap.add_argument("--keep", action="store_true", help="leave the cluster up at the end")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("run me as root (the node containers are privileged)")
    export = Path(os.environ.get("CEPHLAB_CEPHADM_EXPORT") or ROOT / "vagrant" / ".export-containers")
    state = Path(os.environ.get("CEPHLAB_CEPHADM_STATE") or ROOT / "vagrant" / "containers" / ".state")
    env = dict(os.environ, CEPHLAB_CEPHADM_EXPORT=str(export))
    result = {"nodes": None, "osds": None, "runs": [], "native_up_s": []}
    kinds = ["uncached"] * args.uncached + ["cached"] * args.runs
    for i, kind in enumerate(kinds):
        down_s = timed(DOWN, env, "down.sh", 900)
        run_env = dict(env, CEPHLAB_CEPHADM_REBUILD="1" if kind == "uncached" else "0")
        up_s = timed(UP, run_env, f"up.sh ({kind})", 3600)
        images_s = float((state / "last-images-seconds").read_text())
        mem = node_memory(export)
        osds = ceph_osd_count(export)
        result["nodes"], result["osds"] = len(mem), osds
        result["runs"].append({"images": kind, "up_s": round(up_s, 1), "images_s": images_s,
                               "down_before_s": round(down_s, 1),
                               "node_memory_mib": {k: round(v) for k, v in sorted(mem.items())}})
        print(f"{kind}: nothing -> HEALTH_OK {up_s:.0f} s (images {images_s:.0f} s), "
              f"{osds} OSDs up; node memory (MiB): "
              + ", ".join(f"{k} {v:.0f}" for k, v in sorted(mem.items())))
        if i < args.runs:           # the baseline, interleaved so both see the same machine
            result["native_up_s"].append(round(native_up_s(), 1))
            print(f"native: nothing -> HEALTH_OK {result['native_up_s'][-1]:.1f} s")
    if not args.keep:
        result["down_s"] = round(timed(DOWN, env, "down.sh", 900), 1)
    summary = {kind: spread([r["up_s"] for r in result["runs"] if r["images"] == kind])
               for kind in ("uncached", "cached") if any(r["images"] == kind for r in result["runs"])}
    summary["native"] = spread(result["native_up_s"])
    summary["memory_mib_per_node"] = spread([v for r in result["runs"] for v in r["node_memory_mib"].values()])
    summary["ratio_cached_to_native"] = round(summary["cached"]["median"] / summary["native"]["median"], 1)
    result["summary"] = summary
    for k, v in summary.items():
        print(f"{k}: {v}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
