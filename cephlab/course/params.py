"""Per-learner question parameters, as PrairieLearn draws them: learners do not share answers.

    LEARNER = params.learner_id("")            # the notebook's first cell: "" or the learner's id
    P = params.lab_params("03-disk-iops")      # {"q1_disks": 12, "q1_disk_iops": 550, ...}
    params.show("**Q1.** {q1_disks} disks of {q1_disk_iops} IOPS ...", P)   # the question's text

Which learner (`learner_id`), first that is set:
1. $CEPHLAB_LEARNER: what the instructor sets to grade (or regenerate) one learner's notebook;
2. $JUPYTERHUB_USER, the hub's user name (skipped while grading, $CEPHLAB_GRADING: it is then
   the grader's own name);
3. the value the learner typed once in the notebook's first cell (`learner_id("alice")`);
4. DEFAULT_LEARNER ("example"): the solutions and the course site show its parameters. The
   notebook's call (`learner_id("")`, a value given) then prints FALLBACK_WARNING under its cell,
   after the cell's own "learner example: ..." line: those numbers are nobody's to hand in.
The notebook's call also sets how `grader.check` results show in that kernel (selfcheck.install).

Which values (`draw`): seed = sha256(lab + "\\0" + learner); each parameter is chosen from its
choices (a list, tuple or range) by a generator seeded with sha256(seed + name), so a parameter
added to a spec leaves the others' values unchanged. SPECS holds each parameterised lab's spec,
the one place both the notebook and its hidden tests read it: the hidden tests call
`lab_params(lab)` again and recompute the expected answers with the models, so a value typed
into the notebook's P or an answer copied from another learner does not pass.

The instructor regenerates a learner's parameters with
    python -m cephlab.course.params 03-disk-iops alice [bob ...]       (--json for JSON)
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import sys

DEFAULT_LEARNER = "example"
FALLBACK_WARNING = (f"WARNING: no learner id: you get the {DEFAULT_LEARNER} numbers, which your instructor will "
                    "not grade as yours. Type the id your instructor gave you between the quotes in this cell "
                    "and run it again.")
_recorded: str | None = None     # the id the notebook's first cell gave (learner_id("..."))
_warning_pending = False         # FALLBACK_WARNING waits for the end of the running cell

# lab -> {parameter: choices}. Names start with the question they belong to (q1_...).
SPECS: dict[str, dict] = {
    "00-welcome": {
        "q2_net_ms": [0.02, 0.05, 0.1, 0.15, 0.2, 0.3],     # one network hop
        "q2_disk_ms": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0],  # every disk's commit
        "q2_osd_ms": [0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0],  # OSD work per op
        "q2_size": [2, 3, 4, 5],
        "q3_net_ms": [0.02, 0.05, 0.1, 0.2],
        "q3_osd_ms": [0.2, 0.3, 0.5, 0.8, 1.0],
        "q3_size": [2, 3, 4, 5],
        "q3_slow": ["7.2k SATA HDD", "10k SAS HDD", "15k SAS HDD"],   # the one slow replica's disk
        "q4_size": [3, 4, 5, 6],                     # Q2's parts, another size (size 2 saves one disk commit)
    },
    "02-placement": {
        "q1_pool": range(2, 40),
        "q1_pg_num": [16, 32, 64, 128, 256],
        "q1_object": ["hello", "vm-disk-0001", "photo.jpg", "rbd_data.1f2a", "backup.tar", "index.html",
                      "mail-42", "log-2026-11", "thumbnail-7", "report.pdf"],
        "q2_osds": [n for n in range(12, 301, 2) if n not in (10, 40, 100)],   # the layouts table shows 10, 40, 100
        "q2_size": [2, 3, 4],
        "q3_osds": range(4, 13),
        "q3_small": [8, 16, 32],
        "q3_big": [64, 128, 256, 512],
    },
    "03-disk-iops": {
        "q1_disks": range(6, 16, 3),                 # SAS data disks (3 per node)
        "q1_disk_iops": range(450, 751, 50),         # each disk's random-write IOPS
        "q1_planned": [12000, 15000, 18000, 20000],  # what the journal SSDs promised
        "q1_measured": range(1800, 2801, 25),
        "q2_iops": range(8000, 16001, 250),          # Little's law, first part
        "q2_latency_ms": [22.5, 25.0, 27.5, 30.0, 32.5, 35.0, 37.5, 40.0, 42.5, 45.0],
        "q2_base_iops": range(1500, 3001, 50),       # Little's law, second part
        "q2_queue": [8, 16, 24, 32, 48, 64],         # I/Os in flight
        "q3_disks": range(6, 25, 2),                 # BlueStore HDDs
        "q3_disk_iops": range(150, 401, 25),
        "q3_size": [2, 3, 4],
        "q4_ssds": range(4, 41),                     # NVMe SSDs of data/disk_classes.csv
        "q4_servers": [2, 3, 4, 5],
        "q4_cores": range(6, 41),                    # per server
        "q5_read_iops": range(6000, 14001, 250),
        "q5_write_iops": range(600, 1501, 25),
        "q6_rpm": [5400, 7200, 10000, 15000],
        # not 8.5, 4.5 or 3.5 ms: models.iops.hdd_iops's docstring works those through
        "q6_seek_ms": [3.0, 4.0, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 9.0, 9.5, 10.0],
    },
    "04-throttles": {
        "q1_low": [0.2, 0.3, 0.4, 0.5],
        "q1_high": [0.7, 0.8, 0.9],
        "q1_fill": [0.92, 0.94, 0.95, 0.96, 0.98],    # above every high
        "q1_throughput": [100, 150, 200, 250, 300, 400, 500],
        "q1_high_multiple": [1, 2, 3, 4],
        "q1_max_multiple": [8, 10, 12, 16, 20],
        # not 300: its cap with the example learner's multiple (60/s) is a number printed above Q2
        "q2_throughput": [120, 150, 180, 240, 250, 320, 360, 400, 450],
        "q2_multiple": range(2, 21),
        "q5_kib": [8, 12, 16, 20, 24, 32, 40, 48, 56],  # not 4: the table above shows 4 KiB
        "q5_budget_mib": [32, 64, 96, 128, 256],
    },
    "06-capacity": {
        "q1_vms": range(100, 2001, 50),
        "q1_disk_gib": [50, 100, 150, 200, 300, 500],
        "q1_thin": [1.5, 2.0, 2.5, 3.0, 4.0],
        "q1_size": [2, 3, 4],
        "q3_osd_gib": [4, 6, 8, 10, 12, 16],
        # the 96 copies of a 32-PG size-3 pool over 4 OSDs, none of them even (CRUSH's spread at 24 PGs/OSD)
        "q3_pgs": [(a, b, c, 96 - a - b - c) for a in range(18, 31) for b in range(18, 31) for c in range(18, 31)
                   if 18 <= 96 - a - b - c <= 30 and max(a, b, c, 96 - a - b - c) > 24
                   and (a, b, c) != (19, 28, 26)],   # the table above shows 19 : 28 : 26 : 23
        "q4_hosts": [n for n in range(4, 31) if n != 10],   # the seed's example is 10
    },
    "05-threads": {
        "q1_clients": range(50, 501, 10),
        "q1_pgs": range(50, 301, 10),
        "q2_host_osds": range(6, 13),                # OSDs per host
        "q2_pgs": range(100, 201, 10),
        "q2_osd_clients": range(50, 201, 10),        # clients per OSD, second part
        "q3_clients": range(50, 201, 10),
        "q3_pgs": range(100, 301, 20),
        "q3_big_pool": [500, 800, 1000, 1200, 1500],
        "q3_small_pool": range(20, 61, 4),
        "q4_clients": range(8, 65),
        "q4_pgs": range(16, 65),
    },
    "01-redundancy": {
        "q1_k": [5, 7, 9, 10, 11, 12, 13, 14, 15, 16],   # EC data chunks (k = 2m, 50 %, is in the tables above)
        "q1_m": range(1, 5),                          # EC coding chunks
        "q2_raw_tb": range(300, 1201, 20),
        "q2_k": range(3, 11),
        "q2_m": range(1, 4),
        "q2_fill": [0.70, 0.75, 0.80, 0.85],           # planned fill ratio (0.85 = nearfull)
        "q3_afr": [0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10],   # not 0.02: the tables above use it
        "q3_days": range(1, 15),                      # days until a failed disk is replaced
        "q3_k": range(3, 13),                         # the EC profile compared with size 3
        "q3_m": range(1, 5),
        "q4_objects": range(8, 25),                   # objects the measurement writes into each pool
        "q4_object_mib": [1, 2, 4],
        "q5_k": range(2, 11),
        "q5_m": range(1, 5),
        "q5_failed": range(1, 4),                     # OSDs of one PG that go down
    },
    "07-write-amplification": {
        "q2_small_kib": [8, 12, 16, 24, 32, 48],        # deferred on HDD (< 64 KiB); not 4: the table above shows it
        "q2_big_kib": [128, 256, 512, 1024, 2048],      # direct; not 64: the table above shows it
        "q2_replicas": [2, 3, 4],
        "q5_client_tb": [x / 2 for x in range(1, 41) if x != 4],   # 0.5 .. 20 TB/day, not the seed's 2
    },
    "08-failure-and-recovery": {
        "q3_osds": [n for n in range(60, 401, 20) if n != 100],   # the plots above show 100 OSDs
        "q3_disk_tb": [2, 4, 6, 8, 10, 12, 16],
        "q3_fill": [0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.85],
        "q3_stream_mbs": [20, 30, 40, 60, 80, 100, 150],  # per PG stream; the bottleneck changes with it
        "q4_afr": [0.02, 0.03, 0.04, 0.06, 0.08, 0.1],
        "q4_days": range(3, 15),
    },
    "09-cephfs-metadata": {
        "q2_operation": ["File Creation", "File Removal", "Directory Creation", "Directory Removal", "File Rename"],
        "q2_rtt_ms": [1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0],   # one request's round trip without queueing
        "q3_private_clients": range(2, 9),
        "q3_shared_clients": range(30, 101, 5),
        "q3_requests": [2, 3, 4, 5, 6],                     # MDS requests per operation in a shared folder
    },
    "10-database-on-ceph": {
        "q1_hop_ms": [0.05, 0.1, 0.15, 0.2, 0.3],
        "q1_cpu_ms": [0.1, 0.2, 0.3, 0.4, 0.5],
        "q1_flush_ms": [0.2, 0.3, 0.5, 0.8, 1.0, 1.5, 2.0],
        "q1_size": [2, 3, 4],
        "q1_flushes": [2, 3, 4],
        "q2_other_ms": [1.5, 2.0, 2.5, 3.0, 4.0],     # with q2_few <= 6: the few clients stay under any cap
        "q2_few": range(2, 7),
        "q2_many": range(16, 65, 4),
        "q2_cap": [3000, 4000, 5000, 6000, 8000],      # the database host's CPU ceiling (tps)
        "q3_commit_ms": [3, 4, 5, 6, 8, 10, 12],
        "q3_clients": range(8, 41, 2),
        "q3_avg_ms": range(20, 81, 5),
        "q4_ssd_ms": [0.05, 0.1, 0.2, 0.3],
        "q4_other_ms": [0.5, 1.0, 1.5, 2.0],
        "q4_ratio": [50, 80, 100, 120, 150],
    },
    "11-containers-and-cephadm": {
        "q1_osd": range(4, 64),                       # the redeployed OSD (the table above shows osd.3)
        "q1_node": range(0x100, 0x1100),              # last part of the cluster's fsid (the table above: c0ffee)
        "q2_hosts": range(3, 11),
        "q2_per_host": range(3, 9),                   # not 2: the table above is 4 hosts x 2 OSDs
        "q2_size": [3, 4],                            # min_size 2, Ceph's default for both
        "q3_size": range(2, 7),
        "q3_per_host": range(2, 9),
        "q3_extra_hosts": range(0, 5),                # the cluster has q3_size + this many hosts
        "q4_hosts": range(2, 9),                      # Docker hosts the thesis's OSDs are spread over
        "q4_per_host": range(3, 9),
        "q4_size": [2, 3],
    },
}


def learner_id(value: str | None = None) -> str:
    """The learner whose parameters this notebook uses (see the module's docstring for the
    order). A non-empty value is recorded, so later calls without one (the hidden tests) agree.
    A call with a value, even "", is the notebook's own (cell 2): it installs the self-check
    display (selfcheck.install) and, when no id is found anywhere, prints FALLBACK_WARNING
    (not while grading: the warning is the learner's). Calls without one print nothing."""
    global _recorded
    from_notebook = value is not None
    value = (value or "").strip()
    grading = bool(os.environ.get("CEPHLAB_GRADING"))
    if value:
        _recorded = value
        hub = "" if grading else os.environ.get("JUPYTERHUB_USER", "").strip()
        if hub and hub != value:
            print(f"warning: you typed learner id {value!r}, but the hub knows you as {hub!r}: your "
                  f"numbers are {hub!r}'s, and grading uses that id; leave the id \"\" on the hub",
                  file=sys.stderr)
    if from_notebook:
        from cephlab.course import selfcheck
        selfcheck.install()
    for found in (os.environ.get("CEPHLAB_LEARNER", ""),
                  "" if grading else os.environ.get("JUPYTERHUB_USER", ""),
                  _recorded or ""):
        if found.strip():
            return found.strip()
    if from_notebook and not grading:
        _after_this_cell(FALLBACK_WARNING)
    return DEFAULT_LEARNER


def _after_this_cell(line: str) -> None:
    """Print line on stdout once: in IPython when the running cell has finished (so it comes
    under the cell's own output, the "learner ...: the exercises use ..." line), elsewhere now."""
    global _warning_pending
    if _warning_pending:
        return                  # already waiting for this cell's end
    try:
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None else None
        if shell is not None:
            def show(*_result) -> None:
                global _warning_pending
                _warning_pending = False
                try:
                    shell.events.unregister("post_run_cell", show)
                except ValueError:      # someone else took it off: still say it, once
                    pass
                print(line, flush=True)
            shell.events.register("post_run_cell", show)
            _warning_pending = True
            return
    except Exception:       # noqa: BLE001 - then it shows before the cell's line, but shows
        _warning_pending = False
    print(line, flush=True)


def seed(lab: str, learner: str) -> bytes:
    """sha256(lab + NUL + learner): the seed of one learner's parameters in one lab."""
    return hashlib.sha256(f"{lab}\0{learner}".encode()).digest()


def draw(lab: str, learner: str, spec: dict) -> dict:
    """{name: value}: one value per parameter of spec ({name: choices}), the same for the same
    lab and learner on every machine and Python version."""
    base = seed(lab, learner)
    values = {}
    for name, choices in spec.items():
        choices = list(choices)
        if not choices:
            raise ValueError(f"parameter {name!r} of lab {lab} has no choices")
        rng = random.Random(int.from_bytes(hashlib.sha256(base + name.encode()).digest(), "big"))
        values[name] = choices[rng.randrange(len(choices))]
    return values


def lab_params(lab: str, learner: str | None = None) -> dict:
    """A lab's parameters (SPECS[lab]) for learner, by default learner_id()'s. The notebook and
    its hidden tests both call this."""
    if lab not in SPECS:
        raise KeyError(f"no per-learner parameters for lab {lab!r} (parameterised: {', '.join(SPECS)})")
    return draw(lab, learner if learner is not None else learner_id(), SPECS[lab])


def question_text(template: str, values: dict) -> str:
    """template with {name} filled from values; integers of 1,000 or more get thousands commas."""
    shown = {k: f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 1000 else v
             for k, v in values.items()}
    return template.format(**shown)


def show(template: str, values: dict):
    """Display a question's text (Markdown) with the learner's parameters in a notebook."""
    from IPython.display import Markdown, display
    display(Markdown(question_text(template, values)))


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m cephlab.course.params",
                                 description="A learner's question parameters in a lab (what their notebook shows "
                                             "and their hidden tests use).")
    ap.add_argument("lab", help=f"the lab ({', '.join(SPECS)}; a prefix such as 03 works)")
    ap.add_argument("learners", nargs="+", help="learner ids (as in $CEPHLAB_LEARNER / the hub user name)")
    ap.add_argument("--json", action="store_true", help="one JSON object {learner: {parameter: value}}")
    args = ap.parse_args(argv)
    labs = [lab for lab in SPECS if lab == args.lab or lab.startswith(args.lab)]
    if len(labs) != 1:
        print(f"unknown or ambiguous lab {args.lab!r}: one of {', '.join(SPECS)}", file=sys.stderr)
        return 2
    drawn = {learner: lab_params(labs[0], learner) for learner in args.learners}
    if args.json:
        print(json.dumps(drawn, indent=1))
        return 0
    for learner, values in drawn.items():
        print(f"{labs[0]}, learner {learner}:")
        for name, value in values.items():
            print(f"  {name:16s} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
