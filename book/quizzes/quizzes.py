"""Pre/post quizzes, one per lab: 4 auto-graded questions each, otter master notebooks.

    python book/quizzes/quizzes.py make      # (re)write book/quizzes/NN-topic-quiz.ipynb from QUIZZES
    python book/quizzes/quizzes.py assign [OUT]     # student quizzes + autograders (default build/quizzes/)
    python book/quizzes/quizzes.py grade NOTEBOOK ...   # grade filled-in quizzes (sandboxed, hidden tests)

A quiz is an otter master notebook in the labs' format (raw `# BEGIN QUESTION` cells, answers
marked `# SOLUTION`, hidden tests starting with `# HIDDEN`): `otter assign` makes the learner's
copy (answers `...`, public checks that test only the kind of answer) and an autograder zip.
Learners take the same quiz before the lab (pre) and after it (post); nothing in it needs a
cluster. The question text never holds the answer: the hidden tests check the values.

Grading goes through cephlab.course.grading (sandbox, timeout) with the *quiz's* autograder.
`cephlab grade` alone would pick the lab's autograder (it finds the lab by name), so grade
quizzes with this script.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONFIG = ("# ASSIGNMENT CONFIG\ninit_cell: true\ncheck_all_cell: false\nexport_cell: false\n"
          "run_tests: false\ngenerate: true\ntests:\n  files: true")


def choice(name, choices):
    """Public check of a multiple-choice answer: one of the letters."""
    return (f"assert {name} in {tuple(choices)!r}, "
            f"\"store one letter, as a string: {', '.join(repr(c) for c in choices)}\"")


def number(name):
    return (f"assert isinstance({name}, (int, float)) and not isinstance({name}, bool), "
            f"\"{name} should be a number\"")


def boolean(name):
    return f"assert isinstance({name}, bool), \"{name} should be True or False\""


def close(name, value, rel=1e-3, why="recompute it step by step"):
    return f"assert abs({name} - {value:.6g}) <= {rel} * {abs(value):.6g} + 1e-9, {why!r}"


# {stem: (title, [(question text, solution code, public test, hidden test), ...])}
QUIZZES = {
    "00-welcome": ("Lab 00 — a Ceph cluster and the path of one write", [
        ("Which daemon keeps the cluster map and forms the quorum that every other daemon trusts?\n"
         "(a) OSD, (b) MON, (c) MGR, (d) MDS. Store the letter in `q1`.",
         'q1 = "b"', choice("q1", "abcd"), 'assert q1 == "b", "think of the map, not the data"'),
        ("A client writes to a size-3 replicated pool. Where does it send the data?\n"
         "(a) to all three OSDs at once, (b) to the primary OSD only, which forwards it to the\n"
         "replicas, (c) to the monitor, which forwards it, (d) to any OSD of the pool, chosen at\n"
         "random. Store the letter in `q2`.",
         'q2 = "b"', choice("q2", "abcd"), 'assert q2 == "b", "follow the write flow of seed 000"'),
        ("The lab's write-path model: one hop client -> primary, the primary's OSD work, then the\n"
         "*slower* of (its own disk commit) and (the replica round trip: a hop out, the replica's\n"
         "OSD work and commit, a hop back), then the ack hop to the client. Hops take 0.2 ms, OSD\n"
         "work 0.3 ms, every disk commits in 3 ms, size 3. How many ms does one write take?\n"
         "Store it in `q3_ms`.",
         "q3_ms = 0.2 + 0.3 + max(3.0, 0.2 + 0.3 + 3.0 + 0.2) + 0.2", number("q3_ms"),
         close("q3_ms", 4.4, why="the replicas commit in parallel; add the hops on each side")),
        ("A PG of a size-3 pool with `min_size` 2 has only one copy left up. Does it keep\n"
         "accepting writes? Store `True` or `False` in `q4`.",
         "q4 = False", boolean("q4"), 'assert q4 is False, "compare the copies up with min_size"'),
    ]),
    "01-redundancy": ("Lab 01 — replication vs erasure coding", [
        ("You store 12 TB of client data in an erasure-coded pool with k = 4, m = 2. How many TB\n"
         "of raw disk does it use (no padding, no fill limit)? Store it in `q1_raw_tb`.",
         "q1_raw_tb = 12 * (4 + 2) / 4", number("q1_raw_tb"), close("q1_raw_tb", 18.0)),
        ("An erasure-coded pool writes 9 shards per object and uses 1.5 bytes of raw disk per byte\n"
         "of client data. How many of an object's shards can be lost at the same time without losing\n"
         "the object? Store the largest such number in `q2_failures`.",
         "q2_failures = 9 - 9 / 1.5", number("q2_failures"),
         'assert q2_failures == 3, "find k and m from k + m and (k + m) / k"'),
        ("Overhead = raw / usable - 1. What is the overhead of a replicated pool of size 3, as a\n"
         "fraction (not a percentage)? Store it in `q3_overhead`.",
         "q3_overhead = 3 / 1 - 1", number("q3_overhead"), close("q3_overhead", 2.0)),
        ("To rebuild one lost chunk of an EC k+m object, how many chunks must be read?\n"
         "(a) 1, (b) m, (c) k, (d) k + m. Store the letter in `q4`.",
         'q4 = "c"', choice("q4", "abcd"),
         'assert q4 == "c", "a Reed-Solomon decode needs as many chunks as it has data chunks"'),
    ]),
    "02-placement": ("Lab 02 — placement: objects, PGs, OSDs", [
        ("Put Ceph's placement chain in order: (a) object -> OSD -> PG, (b) object -> PG (hash) ->\n"
         "OSDs (CRUSH), (c) pool -> OSD -> object, (d) object -> OSDs (hash), no PGs. Store the\n"
         "letter in `q1`.",
         'q1 = "b"', choice("q1", "abcd"), 'assert q1 == "b", "PGs are the unit CRUSH places"'),
        ("PGCalc with a target of 100 PGs per OSD: 30 OSDs, one size-3 pool holding all the data.\n"
         "Divide, then round to the nearest power of two. Store the `pg_num` in `q2_pg_num`.",
         "q2_pg_num = 1024", number("q2_pg_num"),
         'assert q2_pg_num == 1024, "OSDs x target / size, then the nearest power of two"'),
        ("A CRUSH rule with failure domain `osd` (not `host`). Can two copies of one PG land on two\n"
         "OSDs of the same host? Store `True` or `False` in `q3`.",
         "q3 = True", boolean("q3"), 'assert q3 is True, "the rule only keeps copies on distinct OSDs"'),
        ("A fifth OSD, equal to the four already there, joins the cluster. Ideally, what share of\n"
         "all the data moves (onto the new OSD)? Store a fraction in `q4_share`.",
         "q4_share = 1 / 5", number("q4_share"),
         close("q4_share", 0.2, why="the new OSD ends with its fair share")),
    ]),
    "03-disk-iops": ("Lab 03 — IOPS from disks, replicas, the WAL and the CPU", [
        ("Seed 000's planning rule: client write IOPS = disks x IOPS per disk / replicas. A cluster\n"
         "has 12 disks of 150 random-write IOPS and a size-3 pool. Store the expected client IOPS in\n"
         "`q1_iops`.",
         "q1_iops = 12 * 150 / 3", number("q1_iops"), close("q1_iops", 600.0)),
        ("The same cluster, but every replica write also goes once to a journal on the same disk.\n"
         "Store the expected client IOPS in `q2_iops`.",
         "q2_iops = 12 * 150 / (3 * 2)", number("q2_iops"),
         close("q2_iops", 300.0, why="each replica write now costs two device writes")),
        ("Little's law: 16 I/Os are in flight and each takes 4 ms. How many IOPS is that? Store it in\n"
         "`q3_iops`.",
         "q3_iops = 16 / 0.004", number("q3_iops"),
         close("q3_iops", 4000.0, why="IOPS = in flight / latency (in seconds)")),
        ("Adding disks does not raise a cluster's IOPS, but faster CPUs do. The cluster is\n"
         "(a) disk-bound, (b) CPU-bound, (c) bound by the number of PGs, (d) bound by the monitor.\n"
         "Store the letter in `q4`.",
         'q4 = "b"', choice("q4", "abcd"), 'assert q4 == "b", "what changed the result?"'),
    ]),
    "04-throttles": ("Lab 04 — throttles: peak speed vs stability", [
        ("A backoff (\"dynamic\") throttle sees its queue fill past the low mark. What does it do?\n"
         "(a) rejects new requests, (b) delays each request, more the fuller the queue,\n"
         "(c) empties the queue, (d) nothing until the hard maximum. Store the letter in `q1`.",
         'q1 = "b"', choice("q1", "abcd"), 'assert q1 == "b", "see Throttle.cc\'s BackoffThrottle"'),
        ("A throttle makes every transaction wait 4 ms, one transaction at a time. At most how\n"
         "many transactions per second pass it? Store it in `q2_rate`.",
         "q2_rate = 1 / 0.004", number("q2_rate"), close("q2_rate", 250.0)),
        ("Seed 000: with the write-back throttle off, a FileStore OSD ran about 7x faster for half a\n"
         "minute, then collapsed. Why? (a) the network saturated, (b) the page cache filled with\n"
         "dirty data and the flush stalled writers, (c) the monitor throttled the client, (d) the\n"
         "journal SSD wore out. Store the letter in `q3`.",
         'q3 = "b"', choice("q3", "abcd"), 'assert q3 == "b", "where did the early writes go?"'),
        ("Can switching a write-back throttle off raise the *sustained* (long-run) write rate above\n"
         "what the data disks can write? Store `True` or `False` in `q4`.",
         "q4 = False", boolean("q4"), 'assert q4 is False, "every byte still has to reach the disks"'),
    ]),
    "05-threads": ("Lab 05 — threads per connection or a fixed pool", [
        ("Seed 004's SimpleMessenger formula: threads per OSD = 2 x (clients + 1 + 6 x PGs per\n"
         "OSD). An OSD serves 50 clients and holds 100 PGs. Store its threads in `q1_threads`.",
         "q1_threads = 2 * (50 + 1 + 6 * 100)", number("q1_threads"), close("q1_threads", 1302.0)),
        ("A host's `kernel.pid_max` is 32,768. With the OSDs of question 1, how many OSDs fit on the\n"
         "host before thread IDs run out (a whole number)? Store it in `q2_osds`.",
         "q2_osds = 32768 // 1302", number("q2_osds"), 'assert q2_osds == 25, "divide and round down"'),
        ("Today's AsyncMessenger: as an OSD's clients grow from 1 to 32, its threads (a) grow by two\n"
         "per client, (b) stay about flat, (c) grow by one per client, (d) halve. Store the letter\n"
         "in `q3`.",
         'q3 = "b"', choice("q3", "abcd"), 'assert q3 == "b", "a fixed pool of workers"'),
        ("Qihoo 360 split one big pool into many small ones. What did that cut? (a) the number of\n"
         "peer OSDs each OSD talks to, and so its connections and threads, (b) the disk space used,\n"
         "(c) the replica count, (d) the number of monitors. Store the letter in `q4`.",
         'q4 = "a"', choice("q4", "abcd"), 'assert q4 == "a", "who does an OSD have to talk to?"'),
    ]),
    "06-capacity": ("Lab 06 — capacity: what to buy, what you can fill", [
        ("Seed 004's rule: C_total = N_vm x C_per_vm / (thin_ratio x 0.7). 100 VMs with 100 GiB\n"
         "disks each, thin ratio 2. Store the usable GiB to buy in `q1_gib`.",
         "q1_gib = 100 * 100 / (2 * 0.7)", number("q1_gib"), close("q1_gib", 100 * 100 / 1.4)),
        ("How many GiB of raw disk hold 1,000 GiB of client data in a replicated size-3 pool?\n"
         "Store it in `q2_raw_gib`.",
         "q2_raw_gib = 1000 * 3", number("q2_raw_gib"), close("q2_raw_gib", 3000.0)),
        ("At what fill fraction does an OSD become *full* (writes blocked) with Ceph's default\n"
         "ratios? Store a fraction (not a percentage) in `q3_full`.",
         "q3_full = 0.95", number("q3_full"),
         close("q3_full", 0.95, why="the highest of the three default ratios")),
        ("Four 10 GiB OSDs hold a size-3 pool; the fullest OSD holds 30 % of all PG copies. How many\n"
         "GiB of client data fit before that OSD reaches the full ratio? Store it in `q4_gib`.",
         "q4_gib = 0.95 * 10 / (0.30 * 3)", number("q4_gib"),
         close("q4_gib", 0.95 * 10 / 0.9, why="3 GiB of copies per client GiB; the fullest gets its share")),
    ]),
    "07-write-amplification": ("Lab 07 — write amplification", [
        ("A client writes 2 GiB; the OSDs' devices write 15 GiB. What is the write amplification\n"
         "factor (WAF)? Store it in `q1_waf`.",
         "q1_waf = 15 / 2", number("q1_waf"), close("q1_waf", 7.5)),
        ("An erasure-coded 4+2 pool takes only full-stripe writes, on a back end that writes every\n"
         "byte once. What is its WAF? Store it in `q2_min_waf`.",
         "q2_min_waf = (4 + 2) / 4", number("q2_min_waf"),
         close("q2_min_waf", 1.5, why="count the shards per data chunk")),
        ("Seed 003 measured a WAF above 40 for 4 KiB writes on one back end. Which one? Store\n"
         '`"filestore"`, `"kstore"` or `"bluestore"` in `q3_backend`.',
         'q3_backend = "filestore"',
         'assert q3_backend in ("filestore", "kstore", "bluestore"), "one of the three names, in lower case"',
         'assert q3_backend == "filestore", "which one writes a journal *and* a file system journal?"'),
        ("BlueStore *defers* a small overwrite. Does such a write reach the devices more than once\n"
         "(not counting replicas)? Store `True` or `False` in `q4`.",
         "q4 = True", boolean("q4"), 'assert q4 is True, "where does a deferred write go first?"'),
    ]),
    "08-failure-and-recovery": ("Lab 08 — failure and recovery", [
        ("A status line: 10 active+clean, 5 active+undersized+degraded, 3 peering,\n"
         "2 stale+active+clean. How many PGs can be counted on to serve I/O now? Store it in\n"
         "`q1_serving`.",
         "q1_serving = 10 + 5", number("q1_serving"), 'assert q1_serving == 15, "active, and not stale"'),
        ("A failed OSD held 600 GiB. Six peers copy it back in parallel, each at 50 MiB/s. How many\n"
         "seconds does the copy take (no throttles)? Store it in `q2_seconds`.",
         "q2_seconds = 600 * 1024 / (6 * 50)", number("q2_seconds"),
         close("q2_seconds", 2048.0, why="mind GiB vs MiB")),
        ("An HDD cluster already runs `osd_max_backfills` 4 and recovers slowly. Which setting\n"
         "limits it now? (a) `osd_recovery_sleep_hdd`, (b) `pg_num`, (c) `mon_osd_down_out_interval`,\n"
         "(d) the pool's `size`. Store the letter in `q3`.",
         'q3 = "a"', choice("q3", "abcd"), 'assert q3 == "a", "what waits between recovery ops on HDDs?"'),
        ("Does a whole cluster with many PGs have *more* nines of durability than one PG's set of\n"
         "disks alone? Store `True` or `False` in `q4`.",
         "q4 = False", boolean("q4"),
         'assert q4 is False, "every PG is one more way to lose data (copysets)"'),
    ]),
    "09-cephfs-metadata": ("Lab 09 — CephFS metadata", [
        ("Which daemon serves a CephFS file creation? Store its short name (`\"mon\"`, `\"mgr\"`,\n"
         '`"osd"` or `"mds"`) in `q1_daemon`.',
         'q1_daemon = "mds"',
         'assert q1_daemon in ("mon", "mgr", "osd", "mds"), "one of the four names, lower case"',
         'assert q1_daemon == "mds", "metadata, not data"'),
        ("Closed loop, one MDS: X = min(N / R, 1 / S), R = one request's round trip without\n"
         "queueing, S = the MDS's time per request. R = 2 ms, S = 0.5 ms, N = 10 clients. Store the\n"
         "operations per second in `q2_ops`.",
         "q2_ops = min(10 / 0.002, 1 / 0.0005)", number("q2_ops"), close("q2_ops", 2000.0)),
        ("Same R and S: from how many clients on does the MDS cap the throughput (N / R = 1 / S)?\n"
         "Store it in `q3_clients`.",
         "q3_clients = 0.002 / 0.0005", number("q3_clients"), close("q3_clients", 4.0)),
        ("A file system has one active MDS. Does adding OSDs raise its file creations per second\n"
         "once the MDS is saturated? Store `True` or `False` in `q4`.",
         "q4 = False", boolean("q4"), 'assert q4 is False, "which daemon is the bottleneck?"'),
    ]),
    "10-database-on-ceph": ("Lab 10 — a database on Ceph", [
        ("With the write-path model of lab 00 (hop 0.2 ms, OSD work 0.3 ms, WAL flush 1.0 ms, size\n"
         "3, replicas in parallel), what is one commit's latency in ms? Store it in `q1_ms`.",
         "q1_ms = 0.2 + 0.3 + max(1.0, 0.2 + 0.3 + 1.0 + 0.2) + 0.2", number("q1_ms"), close("q1_ms", 2.4)),
        ("Closed loop: 8 clients, one transaction in flight each, 5 ms per transaction. How many\n"
         "transactions per second? Store it in `q2_tps`.",
         "q2_tps = 8 / 0.005", number("q2_tps"), close("q2_tps", 1600.0)),
        ("Little's law: 30 clients keep one transaction each in flight, and the database does\n"
         "1,500 tps. What is the mean time per transaction in ms? Store it in `q3_ms`.",
         "q3_ms = 30 / 1500 * 1000", number("q3_ms"), close("q3_ms", 20.0)),
        ("What is *group commit*? (a) several transactions share one log flush, (b) each\n"
         "transaction flushes twice, (c) the replicas commit one after another, (d) the database\n"
         "skips the flush. Store the letter in `q4`.",
         'q4 = "a"', choice("q4", "abcd"),
         'assert q4 == "a", "what does a busy log do with waiting commits?"'),
    ]),
    "11-containers-and-cephadm": ("Lab 11 — Ceph in containers", [
        ("cephadm removes an OSD's container and starts a new one. Where is the OSD's identity and\n"
         "state kept meanwhile? (a) in the old container's writable layer, (b) in a folder on the\n"
         "host, mounted into the container, (c) in the monitor's database only, (d) in the container\n"
         "image. Store the letter in `q1`.",
         'q1 = "b"', choice("q1", "abcd"), 'assert q1 == "b", "what outlives a container?"'),
        ("3 hosts x 2 OSDs, a size-3 pool with `min_size` 2 and failure domain `host`. One host stops.\n"
         "What share of the pool's PGs stops serving I/O? Store a fraction in `q2_blocked`.",
         "q2_blocked = 0.0", number("q2_blocked"),
         'assert abs(q2_blocked) < 1e-9, "how many copies can one host hold?"'),
        ("4 hosts x 2 OSDs, size 3, `min_size` 2, failure domain `osd` (CRUSH picks any 3 of the 8\n"
         "OSDs, all sets equally likely). One host stops. What share of the PGs stops serving I/O?\n"
         "Store a fraction in `q3_blocked`.",
         "q3_blocked = (1 * 6) / (8 * 7 * 6 / (3 * 2 * 1))", number("q3_blocked"),
         close("q3_blocked", 6 / 56, why="count the 3-OSD sets that include both OSDs of the host")),
        ("3 hosts, a size-3 pool with failure domain `host`, one host down for a day. Can Ceph\n"
         "rebuild the missing copies meanwhile? Store `True` or `False` in `q4`.",
         "q4 = False", boolean("q4"), 'assert q4 is False, "where would a third copy go?"'),
    ]),
}


def _raw(source):
    return {"cell_type": "raw", "metadata": {}, "source": source}


def _md(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _code(source):
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}


def master(stem):
    """The otter master notebook of one lab's quiz (a dict)."""
    title, questions = QUIZZES[stem]
    cells = [_md(f"# Quiz: {title}\n\nTake this quiz **before** the lab and again **after** it. Replace each "
                 "`...` with your answer (Python: a number, a string or `True`/`False`), run the cell, then "
                 "run the check under it. The checks only test the *kind* of answer; your instructor's "
                 "grader checks the values. Python is your calculator."),
             _raw(CONFIG)]
    for i, (text, solution, public, hidden) in enumerate(questions, start=1):
        sol = "\n".join(line if line.startswith(("from ", "import ")) else f"{line}  # SOLUTION"
                        for line in solution.splitlines())
        cells += [_raw(f"# BEGIN QUESTION\nname: q{i}\npoints: 1\nall_or_nothing: true"),
                  _md(f"**Q{i}.** {text}"),
                  _raw("# BEGIN SOLUTION"), _code(sol), _raw("# END SOLUTION"),
                  _raw("# BEGIN TESTS"), _code(public), _code(f"# HIDDEN\n{hidden}"), _raw("# END TESTS"),
                  _raw("# END QUESTION")]
    cells.append(_md("Done: run every check once more, then hand the notebook in."))
    for n, cell in enumerate(cells):
        cell["id"] = f"quiz-{n:03d}"
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}}}


def path_of(stem):
    return HERE / f"{stem}-quiz.ipynb"


def masters():
    return sorted(HERE.glob("[0-9][0-9]-*-quiz.ipynb"))


def make():
    for stem in QUIZZES:
        body = json.dumps(master(stem), indent=1, ensure_ascii=False) + "\n"
        path_of(stem).write_text(body, encoding="utf-8")
    return masters()


def assign(quiz, out):
    """otter assign of one quiz into out/ -> (student notebook, autograder zip)."""
    from cephlab.course import notebooks
    notebooks.otter_assign(quiz, out)
    return Path(out) / "student" / Path(quiz).name, sorted((Path(out) / "autograder").glob("*.zip"))[-1]


def grade(notebooks, master, parallel=2, timeout=300):
    """[GradeResult or GradingError] for each notebook, graded with the checks of the quiz's
    master notebook (run outside the learner's process)."""
    from cephlab.course import grading
    return grading.run_gradings([(nb, master) for nb in notebooks], parallel=parallel, timeout=timeout)


def main(argv):
    cmd, *args = argv or ["make"]
    if cmd == "make":
        print("\n".join(str(p.relative_to(ROOT)) for p in make()))
    elif cmd == "assign":
        out = Path(args[0]) if args else ROOT / "build" / "quizzes"
        for quiz in masters():
            student, zipped = assign(quiz, out / quiz.stem)
            print(f"{student}  (autograder {zipped})")
    elif cmd == "grade":
        for nb in map(Path, args):
            stem = nb.name.split("-quiz")[0]
            [result] = grade([nb], path_of(stem), parallel=1)
            print(f"{nb}: {result}" if isinstance(result, Exception) else
                  f"{nb}: {result.score:g}/{result.possible:g} "
                  + " ".join(f"{q}={s:g}" for q, (s, _) in sorted(result.questions.items())))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main(sys.argv[1:])
