"""CRUSH maps the tests build: text maps written here, binary maps from crushtool."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from models.crush import build

CRUSHTOOL = shutil.which("crushtool")

# root > 3 racks > hosts > osds, uneven: rack sizes 2/3/2 hosts, 2-4 OSDs per host, weights
# from 0.5 to 3.64 TiB, hdd and ssd devices mixed.
_HOSTS = {
    "rack1": {"h1": [1.0, 1.0, 2.0], "h2": [0.5, 3.64]},
    "rack2": {"h3": [1.0, 1.0, 1.0, 1.0], "h4": [2.0, 2.0], "h5": [0.75, 1.25, 1.5]},
    "rack3": {"h6": [3.0, 1.0], "h7": [1.0, 1.0, 1.0]},
}

RULES = """
rule replicated_host {
	id 0
	type replicated
	min_size 1
	max_size 10
	step take default
	step chooseleaf firstn 0 type host
	step emit
}
rule replicated_rack {
	id 1
	type replicated
	min_size 1
	max_size 10
	step take default
	step chooseleaf firstn 0 type rack
	step emit
}
rule ec_host {
	id 2
	type erasure
	min_size 3
	max_size 6
	step set_chooseleaf_tries 5
	step set_choose_tries 100
	step take default
	step chooseleaf indep 0 type host
	step emit
}
rule two_racks_two_hosts {
	id 3
	type replicated
	min_size 1
	max_size 10
	step take default
	step choose firstn 2 type rack
	step chooseleaf firstn 2 type host
	step emit
}
rule hdd_by_host {
	id 4
	type replicated
	min_size 1
	max_size 10
	step take default class hdd
	step chooseleaf firstn 0 type host
	step emit
}
rule ec_rack_then_host {
	id 5
	type erasure
	min_size 3
	max_size 6
	step set_choose_tries 100
	step take default
	step choose indep 3 type rack
	step chooseleaf indep 2 type host
	step emit
}
rule any_osd {
	id 6
	type replicated
	min_size 1
	max_size 10
	step take default
	step choose firstn 0 type osd
	step emit
}
"""

TUNABLES = build.PACIFIC_TUNABLES.lstrip("\n")


def layered_text(classes=True):
    """The uneven root > rack > host > osd map as crushtool text (no shadow ids: crushtool
    allocates them when compiling)."""
    lines = [TUNABLES, "type 0 osd", "type 1 host", "type 2 rack", "type 3 root"]
    devices, buckets, osd = [], [], 0
    next_id = -1
    rack_items = []
    for rack, hosts in _HOSTS.items():
        host_items = []
        for host, weights in hosts.items():
            items = []
            for w in weights:
                cls = " class ssd" if (classes and osd % 3 == 2) else (" class hdd" if classes else "")
                devices.append(f"device {osd} osd.{osd}{cls}")
                items.append(f"\titem osd.{osd} weight {w:.3f}")
                osd += 1
            buckets.append(_bucket("host", host, next_id, items))
            host_items.append(f"\titem {host} weight {sum(weights):.3f}")
            next_id -= 1
        buckets.append(_bucket("rack", rack, next_id, host_items))
        rack_items.append(f"\titem {rack}")
        next_id -= 1
    buckets.append(_bucket("root", "default", next_id, rack_items))
    rules = RULES if classes else RULES.replace(" class hdd", "")
    return "\n".join(lines[:1] + devices + lines[1:] + buckets) + "\n" + rules


def _bucket(kind, name, bid, items):
    return "\n".join([f"{kind} {name} {{", f"\tid {bid}", "\talg straw2", "\thash 0"]
                     + items + ["}"])


def compile_text(text, workdir: Path, name="map"):
    """crushtool -c: returns (binary path, decompiled text path)."""
    src = workdir / f"{name}.src.txt"
    binary = workdir / f"{name}.bin"
    decompiled = workdir / f"{name}.txt"
    src.write_text(text)
    run(["-c", str(src), "-o", str(binary)])
    run(["-d", str(binary), "-o", str(decompiled)])
    return binary, decompiled


def build(workdir: Path, num_osds, layers, name="built"):
    """crushtool --build --num_osds N LAYERS...: returns (binary, decompiled text)."""
    binary = workdir / f"{name}.bin"
    decompiled = workdir / f"{name}.txt"
    run(["--build", "--num_osds", str(num_osds), *map(str, layers), "-o", str(binary)])
    run(["-d", str(binary), "-o", str(decompiled)])
    return binary, decompiled


def run(args):
    out = subprocess.run([CRUSHTOOL, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"crushtool {' '.join(args)} failed: {out.stderr}")
    return out.stdout
