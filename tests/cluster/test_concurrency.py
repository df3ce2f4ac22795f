"""Two commands on one cluster at the same time, and commands killed half-way (SIGKILL): every
interleaving ends with a working cluster or a clear error, then a `down` that leaves no daemon,
mount, folder or lock file, and objects acknowledged before a fault read back intact.

Each test runs its own small clusters (1 OSD, names "cc-<pid>-..." in a tmp folder), two at a time
on distinct port blocks. Delays come from random.Random(seed): the seed is printed, and
CEPHLAB_TEST_SEED=<seed> replays a run. CEPHLAB_CONCURRENCY_ROUNDS scales the rounds (default 20
interleavings per pair, 10 kills of each command)."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import threading
import time
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cephlab import Cluster
from cephlab.backends.native import daemons, paths
from cephlab.cluster.checksums import verify_objects, write_objects
from cephlab.core import lock

pytestmark = pytest.mark.cluster
ROOT = Path(__file__).resolve().parents[2]
ROUNDS = int(os.environ.get("CEPHLAB_CONCURRENCY_ROUNDS", "20"))
KILLS = max(1, ROUNDS // 2)
CHAINS = 2                          # clusters worked on at once (2 cores)
TIMEOUT = 600
OPTION = ("osd", "osd_max_backfills")


@pytest.fixture
def rng(request):
    seed = int(os.environ.get("CEPHLAB_TEST_SEED") or time.time_ns() % 1_000_000)
    print(f"{request.node.name}: seed {seed} (CEPHLAB_TEST_SEED={seed} replays it)")
    return random.Random(seed)


@pytest.fixture
def clusters(tmp_path):
    """names(kind, n): n cluster folders of their own (distinct port blocks, so clusters made at
    the same moment never pick the same ports); each is taken down at the end, come what may."""
    if not paths.find_binary("ceph-mon"):
        pytest.skip("Ceph is not installed (bash cephlab/bootstrap.sh setup)")
    made = []

    def names(kind, n):
        taken = {zlib.crc32(f.name.encode()) % paths.PORT_SLOTS for f in made}
        out, i = [], 0
        while len(out) < n:
            name = f"cc-{os.getpid()}-{kind}{i}"
            slot = zlib.crc32(name.encode()) % paths.PORT_SLOTS
            i += 1
            if slot not in taken and paths.port_free(paths.block_ports(slot)["mon_v2"]):
                taken.add(slot)
                out.append(tmp_path / name)
        made.extend(out)
        return out
    yield names
    for folder in made:
        cephlab("down", folder).wait(timeout=TIMEOUT)


# -- running commands ------------------------------------------------------------------------------
def cephlab(command, folder, *args):
    """`cephlab <command> --name <folder name> --dir <folder>` started in the background."""
    return subprocess.Popen([sys.executable, "-m", "cephlab.cli", command, "--name", folder.name,
                             "--dir", str(folder), *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


class Run:
    """A finished command: its PID, exit code and output."""

    def __init__(self, proc):
        self.pid = proc.pid
        self.out, self.err = proc.communicate(timeout=TIMEOUT)
        self.rc = proc.returncode
        assert "Traceback" not in self.err, self.err

    def __repr__(self):
        return f"<pid {self.pid} rc {self.rc}\nstdout: {self.out}\nstderr: {self.err}>"


def together(first, second, delay):
    """Start first(), then second() `delay` s later; both Runs."""
    a = first()
    time.sleep(delay)
    b = second()
    return Run(a), Run(b)


class Victim(int):
    """The PID of a command sent SIGKILL; .finished when it had already exited by then (a
    1-OSD `up` takes ~3.5 s here, so a kill 4 s in may come after it is done)."""
    finished = False


def killed(start, after):
    """Start a command and SIGKILL it `after` s later (as `kill -9`); its PID as a Victim."""
    proc = start()
    time.sleep(after)
    victim = Victim(proc.pid)
    victim.finished = proc.poll() is not None
    proc.kill()
    proc.communicate(timeout=60)
    return victim


def up(folder, *args):
    return cephlab("up", folder, "--osds", "1", *args)


def down(folder, *args):
    return cephlab("down", folder, *args)


def waited_for(run, what, other):
    """True when `run` said it waited for `what` ("cephlab up") run by process `other`."""
    return f"waiting for {what}` (PID {other.pid}, started " in run.err or \
        f"waiting for another {what}` (PID {other.pid}, started " in run.err


def holder_record(folder):
    return lock.Lock(lock.lock_file(folder), "").holder()


# -- what must hold afterwards -----------------------------------------------------------------------
def state(folder):
    try:
        return json.loads((folder / paths.MARKER).read_text())
    except OSError:
        return None


def assert_healthy(folder):
    c = Cluster.connect(folder.name, folder)
    try:
        health = c.health_detail()
        assert health["status"] == "HEALTH_OK", health
        return c
    except BaseException:
        c.close()
        raise


def assert_gone(folder):
    """No process works in the folder (daemons, mkfs, FUSE clients), no mount, no folder, no lock."""
    assert daemons.processes_in(folder) == {}
    assert [line for line in Path("/proc/mounts").read_text().splitlines() if f" {folder}/" in line] == []
    assert not folder.exists()
    assert not lock.lock_file(folder).exists()


def clean_down(folder):
    run = Run(down(folder))
    assert run.rc == 0, run
    assert_gone(folder)


def write_manifest(folder):
    """A pool of checksummed objects on the cluster; {name: md5} of those acknowledged."""
    c = assert_healthy(folder)
    try:
        if "cc-data" not in c.pools():
            c.create_replicated_pool("cc-data", size=1, pg_num=8)
        return write_objects(c, "cc-data", count=16, size=64 * 1024)
    finally:
        c.close()


def assert_intact(folder, manifest):
    c = assert_healthy(folder)
    try:
        assert verify_objects(c, "cc-data", manifest) == []
    finally:
        c.close()


def chains(work, folders, rounds, rng):
    """Run work(folder, round, rng) for `rounds` rounds spread over the folders, one thread per
    folder; each thread draws its delays from its own generator seeded from `rng`."""
    seeds = [rng.randrange(2 ** 32) for _ in folders]
    lock_ = threading.Lock()
    outcomes = Counter()

    def chain(i):
        r = random.Random(seeds[i])
        for n in range(i, rounds, len(folders)):
            got = work(folders[i], n, r)
            with lock_:
                outcomes[got] += 1
    with ThreadPoolExecutor(len(folders)) as pool:
        for f in [pool.submit(chain, i) for i in range(len(folders))]:
            f.result()
    return outcomes


# -- up / up, then down / down --------------------------------------------------------------------------
def test_two_ups_then_two_downs(clusters, rng):
    """The learner's case: `cephlab up` twice, 0-4 s apart. One creates the cluster, the other
    waits for it and finds it running; then two `down`s, 0-1 s apart: one removes it, the other
    finds nothing left (or waits for the first)."""
    def work(folder, n, r):
        first, second = together(lambda: up(folder), lambda: up(folder), r.uniform(0, 4))
        for run in (first, second):
            assert run.rc == 0, run
        created = [run for run in (first, second) if f"cluster {folder.name} is up: HEALTH_OK" in run.err]
        running = [run for run in (first, second) if "is already running" in run.out]
        assert len(created) == 1 and len(running) == 1, (first, second)
        overlap = waited_for(running[0], "`cephlab up", created[0])
        assert "cephlab: waiting for" not in created[0].err
        assert overlap or "cephlab: waiting for" not in running[0].err, running[0]
        assert_healthy(folder).close()

        a, b = together(lambda: down(folder), lambda: down(folder), r.uniform(0, 1))
        for run in (a, b):
            assert run.rc == 0, run
        removed = [run for run in (a, b) if f"stopped 3 daemons; removed {folder}" in run.out]
        empty = [run for run in (a, b) if f"nothing was running; removed {folder}" in run.out]
        assert len(removed) == 1 and len(empty) == 1, (a, b)
        assert_gone(folder)
        return ("up waited" if overlap else "up after up") + (
            ", down waited" if waited_for(empty[0], "`cephlab down", removed[0]) else ", down after down")
    outcomes = chains(work, clusters("uu", CHAINS), ROUNDS, rng)
    print(f"up/up and down/down: {ROUNDS} rounds: {dict(outcomes)}")
    assert sum(outcomes.values()) == ROUNDS


# -- up / down, after an `up` killed while creating --------------------------------------------------------
def test_up_and_down_together_even_after_a_killed_up(clusters, rng):
    """`up` and `down` 0-4 s apart, in either order; in every other round a first `up` is killed
    (SIGKILL) 0.3-4.5 s into creating the cluster. Whichever gets the cluster last decides: a
    `down` that waited for the `up` removes the cluster, an `up` that waited for the `down` leaves
    one running. Either way a final `down` leaves nothing."""
    def work(folder, n, r):
        victim, made = None, False
        if n % 2:
            victim = killed(lambda: up(folder), r.uniform(0.3, 4.5))
            record = holder_record(folder)
            # killed after it wrote a ready cluster but before its process ended: nothing to repair
            made = ((state(folder) or {}).get("status") == "ready")
        order = r.choice(["up first", "down first"])
        starts = (lambda: up(folder), lambda: down(folder))
        first, second = together(*(starts if order == "up first" else starts[::-1]), r.uniform(0, 4))
        u, d = (first, second) if order == "up first" else (second, first)
        for run in (u, d):
            assert run.rc == 0, run
        if victim and record.get("pid") == victim:      # it had taken the lock: the kernel freed it
            taker = u if "taking over" in u.err else d
            assert f"the previous holder of {folder.name}, `cephlab up` (PID {victim}, started " \
                   in taker.err and "is gone; taking over" in taker.err, (u, d)
        st = state(folder)
        if waited_for(d, "`cephlab up", u):
            assert st is None, "a down that waited for an up left the cluster"
        if waited_for(u, "`cephlab down", d):
            assert st and st["status"] == "ready", "an up that waited for a down left no cluster"
        if st is None:
            assert_gone(folder)
            assert f"stopped 3 daemons; removed {folder}" in d.out, d
            # The `up` made the cluster, or found the one a victim finished making (killed
            # too late), or restarted one a victim made but was killed before unlocking.
            if f"cluster {folder.name} is up: HEALTH_OK" not in u.err:
                assert victim, u
                if victim.finished or made:
                    assert f"cluster {folder.name} is already running" in u.out, (victim, u)
                else:
                    assert f"cluster {folder.name} repaired: HEALTH_OK" in u.err, (victim, u)
            last = "down last"
        else:
            assert_healthy(folder).close()
            clean_down(folder)
            last = "up last"
        killed_what = "" if not victim else "up done before its kill, " if victim.finished else "killed up, "
        return f"{killed_what}{order}, {last}"
    outcomes = chains(work, clusters("ud", CHAINS), ROUNDS, rng)
    print(f"up/down: {ROUNDS} rounds, {ROUNDS // 2} after a killed up: {dict(outcomes)}")
    assert sum(outcomes.values()) == ROUNDS


# -- kills of `down` and of a repairing `up`, with data ------------------------------------------------------
def test_killed_down_and_killed_repair_keep_acknowledged_data(clusters, rng):
    """On a cluster holding checksummed objects: `down --keep` or `down` killed 0-1.5 s in, then
    `up`; or `down --keep`, then an `up` (repairing) killed 0.3-3 s in, then `up`. The cluster
    comes back with every object intact, except after a plain `down` that had begun discarding
    it: then `up` makes a new, empty cluster."""
    folders = clusters("kd", CHAINS)
    manifests = {}
    for f, run in [(f, up(f)) for f in folders]:
        assert Run(run).rc == 0
        manifests[f] = write_manifest(f)

    def work(folder, n, r):
        fsid = state(folder)["fsid"]
        if n % 2 == 0:
            keep = ("--keep",) if n % 4 == 0 else ()
            victim = killed(lambda: down(folder, *keep), r.uniform(0, 1.5))
            what = f"killed down{' --keep' if keep else ''}"
        else:
            assert Run(down(folder, "--keep")).rc == 0
            victim = killed(lambda: up(folder), r.uniform(0.3, 3))
            what, keep = "killed repair", ("--keep",)
        gone_holder = holder_record(folder).get("pid") == victim
        left = state(folder), folder.exists()
        after = Run(up(folder))
        assert after.rc == 0, after
        if gone_holder:
            assert f"(PID {victim}, started " in after.err and "is gone; taking over" in after.err, after
        if state(folder)["fsid"] == fsid:
            assert_intact(folder, manifests[folder])
            return f"{what}: same cluster, objects intact"
        assert not keep, f"{what} lost the cluster: {after}"
        if left[0]:                            # marked before it discarded anything
            assert left[0]["status"] == "removing" and \
                f"an earlier `cephlab down` of {folder.name} did not finish" in after.err, after
        elif left[1]:                          # cut off while removing the folder
            assert "has no cluster.json" in after.err and "removing it and starting afresh" in after.err, after
        manifests[folder] = write_manifest(folder)
        return f"{what}: recreated"
    outcomes = chains(work, folders, 2 * KILLS, rng)
    for f in folders:
        clean_down(f)
    print(f"kills: {KILLS} of `down`, {KILLS} of a repairing `up`: {dict(outcomes)}")
    assert sum(outcomes.values()) == 2 * KILLS


# -- two labs at once ----------------------------------------------------------------------------------------------
LAB = textwrap.dedent("""
    import json, sys, time
    from cephlab import Cluster
    from cephlab.cluster.checksums import verify_objects, write_objects
    from cephlab.helpers.lab import LabBusy, LabSession
    name, folder, lab_id, value, hold = sys.argv[1:]
    c = Cluster.connect(name, folder)
    print("ready", flush=True)
    sys.stdin.readline()
    out = {"opened": time.monotonic()}
    try:
        lab = LabSession(lab_id, min_osds=1, cluster=c)
    except LabBusy as e:
        print(json.dumps({"busy": str(e)}))
        sys.exit()
    out["opened"] = time.monotonic()
    pool = lab.replicated_pool("p", size=1, pg_num=4)
    manifest = write_objects(c, pool, count=8, size=4096)
    try:
        lab.config_set("osd", "osd_max_backfills", value)
        out["set"] = c.config_db("osd", "osd_max_backfills")
    except LabBusy as e:
        out["refused"] = str(e)
    time.sleep(float(hold))                    # the learner works
    out["held"] = c.config_db("osd", "osd_max_backfills")
    out["bad"] = verify_objects(c, pool, manifest)
    out["cleanup"] = time.monotonic()          # it holds the lab until in its clean-up
    lab.cleanup()
    out["closed"] = time.monotonic()
    print(json.dumps(out))
""")


def lab_process(folder, lab_id, value, hold):
    proc = subprocess.Popen([sys.executable, "-c", LAB, folder.name, str(folder), lab_id, str(value),
                             str(hold)], cwd=ROOT, text=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for line in proc.stdout:
        if line == "ready\n":
            return proc
    raise AssertionError(proc.communicate())


def lab_result(proc):
    out, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0 and "Traceback" not in err, err
    return json.loads(out.strip().splitlines()[-1])


def test_two_labs_at_once(clusters, rng):
    """Two notebooks (processes) open a LabSession 0-2.5 s apart, each making a pool of
    checksummed objects and setting osd_max_backfills. The same lab twice: the second says the
    lab is open elsewhere, unless the first had finished. Two labs: both work; the option is the
    first's until its clean-up, and the other is refused. Nothing outlives the clean-ups."""
    folders = clusters("ll", CHAINS)
    for run in [up(f) for f in folders]:
        assert Run(run).rc == 0

    def work(folder, n, r):
        ids = ("91", "91") if n % 2 == 0 else ("91", "92")
        a, b = (lab_process(folder, lab_id, value, r.uniform(0, 1)) for lab_id, value in zip(ids, (3, 5)))
        a.stdin.write("go\n")
        a.stdin.flush()
        time.sleep(r.uniform(0, 2.5))
        b.stdin.write("go\n")
        b.stdin.flush()
        ra, rb = lab_result(a), lab_result(b)
        busy = [(res, other) for res, other in ((ra, a), (rb, b)) if "busy" in res]
        if busy:
            assert ids[0] == ids[1] and len(busy) == 1, (ra, rb)
            holder = b if busy[0][1] is a else a
            assert busy[0][0]["busy"] == f"lab 91 is already open in another notebook (PID {holder.pid}); " \
                                        "close it (Kernel > Shut Down) or run its clean-up cell, then run " \
                                        "this cell again"
            outcome = "same lab: second refused"
        else:
            if ids[0] == ids[1]:                # one after the other, never both open
                assert ra["cleanup"] < rb["opened"] or rb["cleanup"] < ra["opened"], (ra, rb)
            refused = [res for res in (ra, rb) if "refused" in res]
            for res, value, other in ((ra, "3", b), (rb, "5", a)):
                assert res["bad"] == [], res
                if "refused" in res:
                    assert res["refused"].startswith("osd osd_max_backfills was changed by lab 9") and \
                        f"still open in another notebook (PID {other.pid})" in res["refused"], res
                else:                           # its value stayed until its own clean-up
                    assert res["set"] == res["held"] == value, (ra, rb)
            outcome = f"{'same lab' if ids[0] == ids[1] else 'two labs'}: both worked" + (
                ", option refused to one" if refused else "")
        c = assert_healthy(folder)
        try:
            assert c.config_db(*OPTION) is None, "a lab's option outlived its clean-up"
            assert [p for p in c.pools() if p.startswith("lab9")] == []
        finally:
            c.close()
        assert sorted(p.name for p in (folder / "lab-sessions").glob("lab*")) == []
        return outcome
    outcomes = chains(work, folders, ROUNDS, rng)
    for f in folders:
        clean_down(f)
    print(f"lab/lab: {ROUNDS} rounds: {dict(outcomes)}")
    assert sum(outcomes.values()) == ROUNDS
