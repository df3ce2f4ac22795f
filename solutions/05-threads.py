# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lab 05 — Threads: one pair per connection, or a fixed pool
#
# **Objectives.** After this lab you can
# - compute how many threads an OSD needed with SimpleMessenger, from seed 004's formula
#   2 × (clients + 1 + 6 × PGs per OSD), and what a whole host needs;
# - compare a host's threads with the kernel's limits (`kernel.pid_max`, `kernel.threads-max`,
#   the user's process limit) and find how many clients fit;
# - explain why Qihoo 360 split one big pool into many small ones;
# - measure today's AsyncMessenger: an OSD's threads stay flat from 1 to 32 clients while its
#   TCP connections grow one per client.
#
# **Prerequisites:** lab 00 (the daemons as Linux processes, with their threads) and lab 02 (PGs,
# and how many of them an OSD holds). New words are in the [glossary](../glossary.md).
#
# **You need:** the lab cluster (3 OSDs or more, daemons on this machine; `make lab` starts
# it). About 1 minute.

# %% [raw]
# # ASSIGNMENT CONFIG
# init_cell: true
# check_all_cell: false
# export_cell: false
# run_tests: false
# generate: true
# tests:
#   files: true

# %% tags=["nbval-ignore-output"]
# Your learner id, once: leave "" on the course hub (it knows you), else type the id your instructor gave you.
from cephlab.course import params
LEARNER = params.learner_id("")
print(f"learner {LEARNER}: the exercises use this learner's numbers")

# %%
import numpy as np
import pandas as pd
import ipywidgets as W

from models import threads as th
from models.threads import (async_messenger_threads, headroom, host_threads, max_clients_per_osd,
                            pipe_threads, simple_messenger_threads, simple_messenger_threads_in_pool)
from cephlab.display.widgets import LivePlot
from cephlab.helpers.compare import Comparison
from cephlab.display import plots

pd.set_option("display.precision", 3)

# %% [markdown]
# ## Background
#
# Every OSD talks to many others: clients send it operations, the monitor and manager keep it
# informed, and it exchanges data and heartbeats (small periodic "I am alive" messages) with the
# OSDs that share its placement groups.
# The **messenger** is the part of Ceph that carries those conversations.
#
# **SimpleMessenger** (called PipeMessenger in the seed; the default up to Jewel, Ceph's 2016
# release) gave every
# connection its own *pair* of threads, one reading and one writing. Seed 004 (Xu Xuehan,
# *Ceph Goes Online at Qihoo 360*, Cephalocon APAC 2018) gives the worst case per OSD:
#
# $$\text{threads per OSD} = 2 \times (\text{clients} + 1 + 6 \times \text{PGs per OSD})$$
#
# — two threads for each client, for the monitor, and for the peer connections its PGs bring.
# Qihoo ran 30+ clusters on Hammer and Jewel (the 2015 and 2016 releases), the largest with 135 nodes and 1000+ OSDs, and
# warned: *too many OSDs in one pool could lead to too many threads in one machine*. Their
# answer was many small pools instead of one big one (with OpenStack patched to use several
# pools). We found no primary Ceph source for the formula, so we label it historical and
# course-defined; SimpleMessenger was removed from Ceph in 2019 (pull request #27007), so it can
# be computed here, not run.
#
# Why it matters: on Linux every thread is a kernel task with its own ID, taken from the same
# space as process IDs. A host fails to start new threads (`pthread_create` returns `EAGAIN`)
# when it reaches one of three limits. They are `kernel.pid_max` (32,768 by default; systemd
# raises it to 4,194,304 on many distributions), `kernel.threads-max` (set from the RAM size at
# boot) and the Ceph user's `RLIMIT_NPROC` (Linux kernel documentation,
# `admin-guide/sysctl/kernel.rst`).
#
# **AsyncMessenger** has been the default since Kraken (Luminous is the first long-term release
# with it), and the only messenger since Octopus (so in Pacific, Reef and Tentacle). It serves
# every connection from a fixed pool of event-loop threads (`ms_async_op_threads`, default 3)
# using `epoll`, Linux's call to wait on many sockets at once. An OSD then has a constant number of threads, whatever its clients; the connections
# remain, but they cost a file descriptor and some memory each, not two threads.

# %% [markdown]
# ## The model
#
# A host with some OSDs, 100 clients per OSD, for a few PG counts (`host_threads`,
# `headroom` from `models.threads`). Headroom is how many more threads fit under the default
# `pid_max` of 32,768, before counting any other process on the host:

# %%
def host_table(clients=100, limit=th.PID_MAX_DEFAULT):
    rows = []
    for osds in (8, 12, 24):
        for pgs in (100, 200, 300):
            simple = host_threads(osds, clients, pgs)
            rows.append({"OSDs/host": osds, "PGs/OSD": pgs,
                         "threads/OSD (Simple)": simple_messenger_threads(clients, pgs),
                         "host threads (Simple)": simple,
                         "headroom under pid_max": int(headroom(simple, threads_max=10**9, pid_max=limit)),
                         "host threads (Async)": host_threads(osds, clients, pgs, messenger="async")})
    return pd.DataFrame(rows).set_index(["OSDs/host", "PGs/OSD"])

host_table()

# %% [markdown]
# **One big pool or many small pools?** The 6 × PGs term assumes each PG brings new peers: two
# per PG in a size-3 pool, three connections per peer (data plus front and back heartbeats). An
# OSD cannot have more distinct peers than its pool has other OSDs, though
# (`simple_messenger_threads_in_pool`, our reading of the formula). 100 clients, 200 PGs per OSD:

# %%
pd.DataFrame([{"pool of": f"{n} OSDs", "peer OSDs at most": min(2 * 200, n - 1),
               "threads/OSD (Simple)": simple_messenger_threads_in_pool(100, 200, n),
               "12-OSD host": 12 * simple_messenger_threads_in_pool(100, 200, n)}
              for n in (1000, 300, 100, 30)]).set_index("pool of")

# %% [markdown]
# ### Threads per host as clients grow
# Move the sliders. The dashed line is the kernel limit you pick; where the SimpleMessenger line
# crosses it, the host's OSDs start failing to create threads. The readout gives the most
# clients per OSD that fit.

# %% tags=["nbval-ignore-output"]
LIMITS = {"pid_max default (32,768)": th.PID_MAX_DEFAULT,
          "pid_max raised (4,194,304)": th.PID_MAX_LIMIT_64BIT,
          "nproc 65,536 (a common ulimit)": 65536}
CLIENTS = np.arange(0, 3001, 15)

def threads_readout(osds, pgs, pool_osds, limit):
    fit = max_clients_per_osd(limit, osds, pgs)
    return (f"{osds} OSDs x {simple_messenger_threads(100, pgs):,} threads at 100 clients = "
            f"{host_threads(osds, 100, pgs):,} (Simple) vs {host_threads(osds, 100, pgs, 'async'):,} (Async); "
            + (f"at most <b>{fit:,}</b> clients per OSD under {limit:,}" if fit >= 0 else
               f"<b>over {limit:,} with no clients at all</b>"))

threads_plot = LivePlot(
    x=CLIENTS, xlabel="clients per OSD", ylabel="threads on the host", logy=True, ylim=(100, 1e7),
    curves={"SimpleMessenger (seed 004)": lambda x, osds, pgs, pool_osds, limit: host_threads(osds, x, pgs),
            "SimpleMessenger, pool of N OSDs": lambda x, osds, pgs, pool_osds, limit: osds * simple_messenger_threads_in_pool(x, pgs, pool_osds),
            "AsyncMessenger (measured 59/OSD)": lambda x, osds, pgs, pool_osds, limit: host_threads(osds, x, pgs, "async"),
            "kernel limit": lambda x, osds, pgs, pool_osds, limit: np.full(x.shape, float(limit))},
    controls={"osds": W.IntSlider(value=12, min=1, max=36, description="OSDs/host"),
              "pgs": W.IntSlider(value=200, min=10, max=400, step=10, description="PGs/OSD"),
              "pool_osds": W.IntSlider(value=30, min=3, max=1000, description="pool OSDs (N)"),
              "limit": W.Dropdown(options=LIMITS, value=th.PID_MAX_DEFAULT, description="limit")},
    readout=threads_readout)
threads_plot.lines["kernel limit"].set_linestyle("--")
threads_plot.update()
threads_plot

# %% [markdown]
# ## Exercises
# Use `simple_messenger_threads`, `simple_messenger_threads_in_pool`, `host_threads`,
# `max_clients_per_osd` and `async_messenger_threads`, then run the check cell under each answer.
# The numbers in each question are your own (drawn for your learner id, in `P`): a neighbour's
# answers are wrong for your notebook.

# %% tags=["nbval-ignore-output"]
P = params.lab_params("05-threads")

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q1.** With SimpleMessenger, how many threads does one OSD run when it serves {q1_clients}
clients and holds {q1_pgs} PGs? Store it in `q1_threads` (an int).""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q1_threads = simple_messenger_threads(P["q1_clients"], P["q1_pgs"])  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(q1_threads, (int, np.integer)), "q1_threads should be a whole number of threads"
assert q1_threads > 2 * P["q1_clients"] and q1_threads % 2 == 0, "Two threads per connection (an even count): the clients alone take 2 each, the monitor and the PG peers add more"
assert q1_threads > 2 * (P["q1_clients"] + 1 + P["q1_pgs"]), \
    "Your count allows at most one connection per PG: in seed 004's formula each PG brings several peer connections"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("05-threads")
assert q1_threads == simple_messenger_threads(_p["q1_clients"], _p["q1_pgs"]) and simple_messenger_threads(10, 50) == 2 * (10 + 1 + 6 * 50), "Use simple_messenger_threads(clients, pgs) with your clients and PGs"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 2
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q2.** A host has {q2_host_osds} OSDs with {q2_pgs} PGs each and the default `pid_max` of 32,768.
How many clients per OSD can it serve before its OSDs run out of thread IDs? Store it in
`q2_clients` (an int, rounded down). Then, in `q2_osds`, the most OSDs such a host can run at
{q2_osd_clients} clients per OSD (still {q2_pgs} PGs each), also an int.""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q2_clients = max_clients_per_osd(32768, P["q2_host_osds"], P["q2_pgs"])  # SOLUTION
q2_osds = 32768 // simple_messenger_threads(P["q2_osd_clients"], P["q2_pgs"])  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert int(q2_clients) == q2_clients and 0 < q2_clients < 32768 / (P["q2_host_osds"] * 2), \
    "Whole clients (round down); each OSD runs 2 threads per client and more for its peers: fewer than pid_max / (OSDs x 2)"
assert q2_clients < 0.9 * 32768 / (P["q2_host_osds"] * 2), \
    "Your clients take every thread ID at 2 threads each: each OSD also runs threads for its PG peers and the monitor, whatever its clients"
assert P["q2_host_osds"] * simple_messenger_threads(q2_clients, P["q2_pgs"]) <= 32768, \
    "With your clients the host's threads add up to more than pid_max: the count must fit under it (round down)"

# %%
assert int(q2_osds) == q2_osds and 0 < q2_osds < 32768 / (2 * P["q2_osd_clients"]), \
    "Whole OSDs (round down); one OSD runs 2 threads per client, its PG peers add more"
assert q2_osds < 0.9 * 32768 / (2 * P["q2_osd_clients"]), \
    "Your OSDs count only their clients' threads: each OSD also runs threads for its PG peers and the monitor"
assert q2_osds * simple_messenger_threads(P["q2_osd_clients"], P["q2_pgs"]) <= 32768, \
    "Your OSDs' threads add up to more than pid_max: the count must fit under it (round down)"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("05-threads")
assert isinstance(q2_clients, (int, np.integer)) and isinstance(q2_osds, (int, np.integer)), "Both answers are whole numbers (round down)"
assert _p["q2_host_osds"] * simple_messenger_threads(q2_clients, _p["q2_pgs"]) <= 32768 < _p["q2_host_osds"] * simple_messenger_threads(q2_clients + 1, _p["q2_pgs"]), "The largest client count whose OSDs still fit under pid_max"
assert q2_osds * simple_messenger_threads(_p["q2_osd_clients"], _p["q2_pgs"]) <= 32768 < (q2_osds + 1) * simple_messenger_threads(_p["q2_osd_clients"], _p["q2_pgs"]), "The most OSDs of your clients and PGs that fit under pid_max"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q3.** Qihoo's fix. {q3_clients} clients and {q3_pgs} PGs per OSD, size 3: threads per OSD when its
pool spans {q3_big_pool} OSDs, and when it spans {q3_small_pool}. Store the two thread counts (whole numbers) in
`q3_big_pool` and `q3_small_pool`.""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q3_big_pool = simple_messenger_threads_in_pool(P["q3_clients"], P["q3_pgs"], P["q3_big_pool"])  # SOLUTION
q3_small_pool = simple_messenger_threads_in_pool(P["q3_clients"], P["q3_pgs"], P["q3_small_pool"])  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert q3_big_pool % 2 == 0 and q3_small_pool % 2 == 0, "Two threads per connection: thread counts are even"
assert 2 * P["q3_clients"] < q3_small_pool < q3_big_pool, "The clients alone take 2 threads each; a small pool caps the peers an OSD can have, so it needs fewer threads"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("05-threads")
assert (q3_big_pool, q3_small_pool) == (simple_messenger_threads_in_pool(_p["q3_clients"], _p["q3_pgs"], _p["q3_big_pool"]), simple_messenger_threads_in_pool(_p["q3_clients"], _p["q3_pgs"], _p["q3_small_pool"])), \
    "Use simple_messenger_threads_in_pool(clients, pgs, pool_osds) with your big and then your small pool"
assert q3_small_pool < q3_big_pool, "The small pool caps the peers, so it needs fewer threads than the big one"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# **W1. Why did Qihoo 360 split one big pool into many small ones?** Answer in two or three
# sentences with your Q3 figures (graded by hand).
#
# *Your answer:*

# %% [raw]
# # BEGIN QUESTION
# name: q4
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q4.** Before measuring: with AsyncMessenger, how many threads will one OSD run with
{q4_clients} clients? And how many would SimpleMessenger's formula give for {q4_clients} clients at
{q4_pgs} PGs per OSD? Store them in `q4_async` and `q4_simple` (ints).""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q4_async = async_messenger_threads(P["q4_clients"])  # SOLUTION
q4_simple = simple_messenger_threads(P["q4_clients"], P["q4_pgs"])  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert int(q4_async) == q4_async > 0, "A whole number of threads: AsyncMessenger's per-OSD count does not depend on clients"
assert q4_async < q4_simple, "AsyncMessenger does not run SimpleMessenger's 2 threads per connection: a fixed pool of worker threads serves every connection"
assert q4_async > 3, \
    "That is only the messenger's event-loop pool (ms_async_op_threads): an OSD runs many other threads too, for its op queue, BlueStore and RocksDB"
assert q4_async - 2 * P["q4_clients"] != async_messenger_threads(0), \
    "AsyncMessenger gives no client connection threads of its own: an OSD's thread count does not grow with its clients"
assert q4_simple > 2 * P["q4_clients"] and q4_simple % 2 == 0, "Two threads per connection: the clients alone take 2 each, the monitor and the PG peers add more"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("05-threads")
assert isinstance(q4_async, (int, np.integer)) and q4_async == async_messenger_threads(_p["q4_clients"]) == async_messenger_threads(1000), "AsyncMessenger runs a fixed number of threads whatever the client count"
assert q4_simple == 2 * (_p["q4_clients"] + 1 + 6 * _p["q4_pgs"]), "Two threads per connection: your clients, one monitor, 6 peers per PG"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q5
# points: 2
# all_or_nothing: true

# %% [markdown]
# **Q5. Your experiment: clients.** Choose how many independent clients join in the middle step of
# the measurement below, a whole number from 2 to 16, and store it in `my_clients` (the run also
# measures 0, 1 and 32). Each client writes one object to each OSD (the OSD is that object's primary).
# Before it runs, predict with the lab's AsyncMessenger model how many threads one OSD runs while your
# clients write (`q5_threads`), and how many connections from your clients each OSD holds
# (`q5_client_connections`), both whole numbers. Count your clients' connections only: any
# connection this notebook itself keeps to an OSD is in the measured count at 0 clients, not in
# your answer.

# %% [raw]
# # BEGIN SOLUTION

# %%
my_clients = 6  # SOLUTION
q5_threads = async_messenger_threads(my_clients)  # SOLUTION
q5_client_connections = my_clients  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(my_clients, (int, np.integer)) and 2 <= my_clients <= 16, "Choose a whole number of clients from 2 to 16"

# %%
assert int(q5_threads) == q5_threads > 0 and int(q5_client_connections) == q5_client_connections >= 0, \
    "Whole numbers: threads of one OSD, and TCP connections from clients to one OSD"
assert q5_threads < 2 * my_clients + async_messenger_threads(0), \
    "AsyncMessenger does not give each client connection its own pair of threads: reconsider the model you used"
assert q5_client_connections <= 2 * my_clients, "Count the connections from clients to one OSD: not to the whole cluster, and not those to other daemons"
assert q5_client_connections > my_clients / 2, \
    "Each client writes an object to every OSD, so it connects to every OSD: its connections are not spread over the OSDs"

# %%
# HIDDEN
assert q5_threads == async_messenger_threads(my_clients), "AsyncMessenger: a fixed pool of threads per OSD, whatever the clients (async_messenger_threads)"
assert q5_client_connections == my_clients, "Each client has its own messenger and writes to every OSD: one connection per client on each OSD"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# ## Measure: threads and connections as clients arrive
#
# We make a size-3 pool, and find one object name per OSD that has that OSD as its primary (a
# client talks only to primaries). Then we bring in 1, your Q5 number and 32 **independent
# clients**. Each is its own librados instance (the client library of RADOS, Ceph's object store)
# with its own messenger, as separate VMs would be. Every
# client writes each of those objects at once, so it opens a connection to every OSD. While they
# write, we sample each OSD's thread count (`/proc/<pid>/status`), and afterwards count its
# established TCP connections (`/proc/<pid>/fd` sockets matched in `/proc/net/tcp`), split into
# connections to other daemons and to clients.

# %% tags=["nbval-ignore-output"]
from pathlib import Path
from cephlab.helpers import experiment
from cephlab.helpers.lab import LabSession
from cephlab.helpers.connections import (ClientCrowd, connection_counts, max_threads_during,
                                 primary_object_names, process_threads)

lab = LabSession("05", min_osds=3)
c = lab.cluster
assert c.local_daemons, "this measurement reads /proc of the OSDs: use a native cluster (`cephlab up`)"
limits = th.kernel_thread_limits()
host_now = sum(1 for _ in Path("/proc").glob("[0-9]*/task/[0-9]*"))
print(f"this machine: {host_now:,} threads running; kernel.threads-max {limits['threads_max']:,}, "
      f"kernel.pid_max {limits['pid_max']:,}, RLIMIT_NPROC {limits['nproc'] or 'unlimited'}")

pool = lab.replicated_pool("conn", size=3, pg_num=32)
targets = primary_object_names(c, pool)
pgs_here = round(np.mean([o["pgs"] for o in c.osd_df()]))
print(f"pool {pool}: objects {list(targets.values())} have primaries {[f'osd.{o}' for o in targets]}; "
      f"{pgs_here} PGs per OSD")

# %% tags=["nbval-ignore-output"]
MINE = experiment.choice(my_clients, 6, "my_clients (Q5)", lab="05")
STEPS = tuple(sorted({0, 1, MINE, 32}))
osd_names = [f"osd.{o}" for o in targets]

def snapshot(clients, peak):
    conns = connection_counts(c)
    return {"clients": clients,
            "OSD threads (max during writes)": max(peak[d] for d in osd_names),
            "client connections per OSD": np.mean([conns[d]["clients"] for d in osd_names]),
            "daemon connections per OSD": np.mean([conns[d]["daemons"] for d in osd_names]),
            "all connections per OSD": np.mean([conns[d]["total"] for d in osd_names]),
            "threads in this notebook": process_threads()}

rows = []
with ClientCrowd(c) as crowd:
    for n in STEPS:
        crowd.grow(n)
        _, peak = max_threads_during(c, lambda: [crowd.touch(pool, targets.values()) for _ in range(3)] if n else None)
        rows.append(snapshot(n, peak))
        print(f"{n:2d} clients: OSD threads {rows[-1]['OSD threads (max during writes)']}, "
              f"connections per OSD {rows[-1]['all connections per OSD']:.0f}")
measured = pd.DataFrame(rows).set_index("clients")
run = experiment.RunFigures()
notebook_threads = measured["threads in this notebook"]
run.record(threads_per_client=(notebook_threads[MINE] - notebook_threads[0]) / MINE)
measured

# %% [markdown]
# ### Model vs measurement
#
# The AsyncMessenger model says the threads per OSD do not grow with the clients. They stay at
# the count this run measured with no client, within one thread for a timer that may come and
# go. That count itself is *measured*: it depends on the build and the configuration, not on a
# formula. Connections grow by exactly one per client on each OSD it writes to. Each row has a negative
# control that the same tolerance must reject: two threads per client connection
# (SimpleMessenger's reader and writer) for the threads, and one connection per client spread
# over the OSDs for the connections. For contrast, the same clients under SimpleMessenger:
# seed 004's formula with this cluster's PGs per OSD, and two threads for each connection we
# actually counted.

# %%
base_clients = measured.loc[0, "client connections per OSD"]
base_threads = measured.loc[0, "OSD threads (max during writes)"]   # measured, with no client
threads_cmp = Comparison()
for n in STEPS[1:]:
    threads_cmp.add(f"OSD threads, {n} clients (no slope)", model=base_threads,
                    measured=measured.loc[n, "OSD threads (max during writes)"], unit="threads",
                    rel_tol=round(1 / base_threads, 4),
                    why="the thread pools are sized by configuration (op shards, BlueStore, RocksDB), not by "
                        "clients; another Ceph build or config shifts the constant, it does not add a slope",
                    control=("2 threads per client connection", base_threads + 2 * n))
for n in STEPS[1:]:
    threads_cmp.add(f"client connections per OSD, {n} clients", model=base_clients + n,
                    measured=measured.loc[n, "client connections per OSD"], unit="connections", rel_tol=0.05,
                    why="each librados client keeps one connection to each primary it writes to",
                    control=("one connection per client, spread over the OSDs", base_clients + n / len(osd_names)))
contrast = pd.DataFrame({
    "AsyncMessenger model": [async_messenger_threads(n) for n in STEPS],
    "measured": measured["OSD threads (max during writes)"].values,
    "Simple, seed 004 formula": [simple_messenger_threads(n, pgs_here) for n in STEPS],
    "Simple, 2 per measured connection": pipe_threads(measured["all connections per OSD"].round().astype(int).values),
}, index=pd.Index(STEPS, name="clients"))

# %% tags=["nbval-ignore-output"]
display(threads_cmp.table()[["model", "measured", "measured/model", "tolerance", "agrees", "control", "control fails"]])
contrast

# %%
fig, (ax1, ax2) = plots.figure(ncols=2)
ax1.plot(STEPS, contrast["Simple, seed 004 formula"], "s--", label="SimpleMessenger, seed 004 formula")
ax1.plot(STEPS, contrast["Simple, 2 per measured connection"], "^--", label="SimpleMessenger, 2 x measured connections")
ax1.plot(STEPS, contrast["AsyncMessenger model"], "-", label="AsyncMessenger model")
ax1.plot(STEPS, contrast["measured"], "o", label="measured (AsyncMessenger)")
ax1.set(xlabel="clients", ylabel="threads per OSD", title="threads")
ax1.legend(fontsize=8)
ax2.plot(STEPS, base_clients + np.array(STEPS) + measured["daemon connections per OSD"].values, "-", label="model: daemons + clients")
ax2.plot(STEPS, measured["all connections per OSD"], "o", label="measured")
ax2.set(xlabel="clients", ylabel="TCP connections per OSD", title="connections")
ax2.legend(fontsize=8)
for ax in (ax1, ax2):
    ax.grid(True, alpha=0.3)
plots.show(fig)

# %%
threads_cmp.assert_agree()
assert measured["OSD threads (max during writes)"].nunique() == 1, \
    f"the OSDs' thread count changed with the clients:\n{measured}"
print("threads flat, connections one per client: AsyncMessenger decouples threads from connections")

# %% [markdown]
# ### Your clients (Q5)
# Your prediction took its threads from `async_messenger_threads`, a count the lab's authors
# measured once (data/native_cluster_reference.csv); the model row takes this run's own count with
# no client, also measured. Connections come from clients only: one per client on each OSD. The
# measured connections also hold any connection this notebook keeps to the OSDs (the column at 0
# clients). So the model adds your clients to that count, and your prediction is the growth from
# 0 clients.

# %% tags=["nbval-ignore-output"]
your = [globals().get(name) for name in ("q5_threads", "q5_client_connections")]
pd.DataFrame({"your prediction": [v if isinstance(v, (int, float, np.integer)) else None for v in your],
              "0 clients, measured": [base_threads, base_clients],
              f"model, {MINE} clients": [base_threads, base_clients + MINE],
              f"measured, {MINE} clients": measured.loc[MINE, ["OSD threads (max during writes)",
                                                               "client connections per OSD"]].values},
             index=["threads per OSD", "connections from clients per OSD"])

# %% [markdown]
# **Your gap.** The OSDs' threads stayed flat, yet the threads of this notebook's process grew.
# Read the "threads in this notebook" column of the measurement: how many threads did each of your
# clients add? Store `my_threads_per_client` (threads at your step minus threads with no client,
# divided by your clients) and run the check.

# %%
my_threads_per_client = (notebook_threads[MINE] - notebook_threads[0]) / MINE  # SOLUTION
run.check("my_threads_per_client", my_threads_per_client, "threads_per_client",
          hint="take the notebook's threads at your number of clients, subtract those at 0 clients, "
               "and divide by your number of clients")

# %% [markdown]
# ## What the model said, what the cluster did
#
# - **Threads**: the AsyncMessenger model said 59 threads per OSD for any number of clients, and
#   the OSDs kept one constant thread count from 0 to 32 clients, even while all of them wrote.
# - **Connections**: they did grow, exactly one per client on every OSD it wrote to, on top of
#   the fixed connections to the other OSDs (data and heartbeats), the monitor and the manager.
#   Connections are still a cost (a file descriptor, buffers), but no longer two threads each.
# - **SimpleMessenger** would have needed two threads for each of those connections, and seed
#   004's worst case adds 12 per PG. At 32 clients that is many times today's count on this
#   tiny cluster. On Qihoo's hosts (a dozen OSDs, hundreds of PGs, hundreds of clients) it
#   reached the 32,768 of `pid_max`. Many small pools capped the peer term; AsyncMessenger
#   removed the problem.
# - **Where the threads went**: the notebook's own thread count grew with every client, because
#   each librados instance starts its own messenger workers and timers. The cost moved to the
#   clients, one process each in real life, where it is spread over many machines.

# %% [markdown]
# **W2. Threads and connections as clients grew.** Use your measured table and your threads per
# client (graded by hand).
#
# *Your answer:*

# %% [markdown]
# ## Clean up
# Deletes the lab's pool (the clients have already disconnected).

# %% tags=["nbval-ignore-output"]
lab.cleanup()
