"""A learner's start in the image: `run` (the README's flags, the image already present) to a
JupyterLab that answers and a cluster that is HEALTH_OK; and the image's size.

    sudo .venv/bin/python bench/bench_image.py [--runs 5] [--image localhost/ceph-storage-lab:latest]

Each run starts a new container, as a learner does every morning, and removes it with its volume.
The baseline, in the same run: the same image started without a cluster (CEPHLAB_NO_CLUSTER=1,
JupyterLab only), so the ratio shows what the cluster adds to the start. Goals (issue 48): the
median start under 15 s on 2 cores, the image under 1.5 GB. Results: bench/results/image.json.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_START_S = 15.0
GOAL_SIZE_GB = 1.5
# this machine's hard limits are below podman's defaults, and podman's seccomp profile must let
# libaio call io_pgetevents (tests/container/conftest.py, container/seccomp.py)
ULIMITS = ["--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768"]
SECCOMP = Path("/var/tmp/cephlab-bench-seccomp.json")
sys.path.insert(0, str(ROOT))
from tests.container.lab_http import answers, status_url  # noqa: E402


def engine(*args: str, check: bool = True) -> str:
    out = subprocess.run([ENGINE, *args], capture_output=True, text=True, timeout=300)
    if check and out.returncode:
        raise SystemExit(f"{ENGINE} {args[0]} failed: {out.stderr.strip()}")
    return out.stdout


def one_start(image: str, cluster: bool) -> float:
    name = f"cephlab-bench-{os.getpid()}"
    env = [] if cluster else ["-e", "CEPHLAB_NO_CLUSTER=1"]
    t0 = time.monotonic()
    flags = [*ULIMITS, "--security-opt", f"seccomp={SECCOMP}"] if ENGINE == "podman" else []
    engine("run", "-d", "--name", name, *flags, "-p", "127.0.0.1::8888", "-v", f"{name}:/home/learner/work",
           "--device", "/dev/fuse", "--cap-add", "SYS_ADMIN", "-e", "JUPYTER_TOKEN=bench", *env, image)
    try:
        port = engine("port", name, "8888").split()[0].rsplit(":", 1)[-1]
        url = status_url(port, "bench")
        while not answers(url, timeout=1):
            if time.monotonic() - t0 > 300:
                raise SystemExit(f"no JupyterLab after 300 s: {ENGINE} logs {name}")
            time.sleep(0.2)
        while cluster and "HEALTH_OK" not in engine("exec", "-u", "learner", name, "cephlab", "status", check=False):
            if time.monotonic() - t0 > 300:
                raise SystemExit(f"no HEALTH_OK after 300 s: {ENGINE} logs {name}")
            time.sleep(0.2)
        return time.monotonic() - t0
    finally:
        engine("rm", "-f", "-t", "30", name, check=False)
        engine("volume", "rm", "-f", name, check=False)


def main() -> None:
    global ENGINE
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--image", default="localhost/ceph-storage-lab:latest")
    ap.add_argument("--engine", default="podman")
    args = ap.parse_args()
    ENGINE = args.engine
    if ENGINE == "podman":
        subprocess.run(["python3", str(ROOT / "container/seccomp.py"), str(SECCOMP)], check=True,
                       capture_output=True)
    size_gb = int(engine("image", "inspect", "--format", "{{.Size}}", args.image)) / 1e9
    starts, bases = [], []
    for i in range(args.runs):      # interleaved, so a busy moment hits both alike
        starts.append(one_start(args.image, cluster=True))
        bases.append(one_start(args.image, cluster=False))
        print(f"run {i + 1}: learner start {starts[-1]:.1f} s, JupyterLab only {bases[-1]:.1f} s", flush=True)
    med, base = statistics.median(starts), statistics.median(bases)
    result = {"image": args.image, "engine": ENGINE, "runs": args.runs, "cores": os.cpu_count(),
              "size GB": round(size_gb, 2), "size goal GB": GOAL_SIZE_GB,
              "start s": [round(s, 1) for s in starts], "start median s": round(med, 1),
              "JupyterLab only s": [round(s, 1) for s in bases], "JupyterLab only median s": round(base, 1),
              "ratio start / JupyterLab only": round(med / base, 2), "start goal s": GOAL_START_S,
              "date": time.strftime("%Y-%m-%d")}
    print(f"image {size_gb:.2f} GB (goal < {GOAL_SIZE_GB}); start median {med:.1f} s (goal < {GOAL_START_S}), "
          f"JupyterLab only {base:.1f} s, ratio {med / base:.2f}")
    (ROOT / "bench/results/image.json").write_text(json.dumps(result, indent=1) + "\n")


ENGINE = "podman"

if __name__ == "__main__":
    main()
