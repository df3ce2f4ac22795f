"""Per-learner question parameters (issue 14, item 2), as PrairieLearn draws them.

    LEARNER = params.learner_id("")            # the notebook's first cell: "" or the learner's id
    P = params.lab_params("03-disk-iops")      # {"q1_disks": 12, "q1_disk_iops": 550, ...}
    params.show("**Q1.** {q1_disks} disks of {q1_disk_iops} IOPS ...", P)   # the question's text

Which learner (`learner_id`), first that is set:
1. $CEPHLAB_LEARNER: what the instructor sets to grade (or regenerate) one learner's notebook;
2. $JUPYTERHUB_USER, the hub's user name (skipped while grading, $CEPHLAB_GRADING: it is then
   the grader's own name);
3. the value the learner typed once in the notebook's first cell (`learner_id("alice")`);
4. DEFAULT_LEARNER ("example"): the solutions and the course site show its parameters.

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
_recorded: str | None = None     # the id the notebook's first cell gave (learner_id("..."))

# lab -> {parameter: choices}. Names start with the question they belong to (q1_...).
SPECS: dict[str, dict] = {
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


def learner_id(value: str = "") -> str:
    """The learner whose parameters this notebook uses (see the module's docstring for the
    order). A non-empty value is recorded, so later calls without one (the hidden tests) agree."""
    global _recorded
    value = (value or "").strip()
    if value:
        _recorded = value
    for found in (os.environ.get("CEPHLAB_LEARNER", ""),
                  "" if os.environ.get("CEPHLAB_GRADING") else os.environ.get("JUPYTERHUB_USER", ""),
                  _recorded or ""):
        if found.strip():
            return found.strip()
    return DEFAULT_LEARNER


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
