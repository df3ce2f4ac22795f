"""CRUSH model vs crushtool: wall time to print 200,000 mappings on a 1,000-OSD map.

    .venv/bin/python bench/bench_crush.py [--placements 200000] [--runs 3]

Builds `crushtool --build --num_osds 1000 host straw2 10 rack straw2 10 root straw2 0`
(100 hosts in 10 racks, rule 0 = chooseleaf firstn by host), then times, as whole processes
writing every `CRUSH rule 0 x X [a,b,c]` line to a file:
  crushtool -i MAP --test --show-mappings --num-rep 3 --min-x 0 --max-x N-1
  cephlab crush test -i MAP.txt (same arguments), with 1 thread and with all CPUs
and checks that the outputs are identical. Prints medians and the ratios side by side, and which
mapper the model ran (models/crush/mapper_c.py: the C port when a compiler is there, built by an
untimed first run; CEPHLAB_CRUSH_MAPPER=numpy times the numpy mapper).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd, out_path, env=None):
    with open(out_path, "w") as out:
        start = time.perf_counter()
        subprocess.run(cmd, stdout=out, check=True, env=env)
        return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--placements", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    crushtool = shutil.which("crushtool")
    if crushtool is None:
        sys.exit("crushtool is not installed (apt-get install ceph-base)")
    work = Path(tempfile.mkdtemp(prefix="bench_crush_"))
    binary, text = work / "map.bin", work / "map.txt"
    subprocess.run([crushtool, "--build", "--num_osds", "1000", "host", "straw2", "10",
                    "rack", "straw2", "10", "root", "straw2", "0", "-o", str(binary)],
                   check=True, capture_output=True)
    subprocess.run([crushtool, "-d", str(binary), "-o", str(text)], check=True)
    test_args = ["--test", "--show-mappings", "--rule", "0", "--num-rep", "3",
                 "--min-x", "0", "--max-x", str(args.placements - 1)]
    model = [sys.executable, "-m", "cephlab.cli", "crush", "test", "-i", str(text),
             *test_args[1:]]
    cases = {
        "crushtool": ([crushtool, "-i", str(binary), *test_args], None),
        "model, 1 thread": (model + ["--threads", "1"], None),
        f"model, {os.cpu_count()} threads": (model, None),
    }
    times = {name: [] for name in cases}
    outputs = {}
    subprocess.run(model + ["--x", "0"], check=True, capture_output=True)   # builds the C mapper
    for _ in range(args.runs):
        for i, (name, (cmd, env)) in enumerate(cases.items()):
            outputs[name] = work / f"{i}.out"
            times[name].append(timed(cmd, outputs[name], env))
    reference = (work / "0.out").read_bytes()
    same = all(p.read_bytes() == reference for p in outputs.values())
    base = statistics.median(times["crushtool"])
    mapper = subprocess.run([sys.executable, "-c", "from models.crush import mapper_c; "
                             "print(mapper_c.status())"], capture_output=True, text=True, cwd=ROOT)
    print(f"{args.placements:,} placements, 1,000-OSD map, {args.runs} runs, "
          f"outputs identical: {same}; model's mapper: {mapper.stdout.strip()}")
    print(f"{'':24} {'median s':>9} {'min s':>7} {'crushtool/this':>15}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:24} {med:9.3f} {min(ts):7.3f} {base / med:15.2f}")
    shutil.rmtree(work)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
