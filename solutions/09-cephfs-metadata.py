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
# # Lab 09 — CephFS metadata: one MDS for everyone
#
# **Objectives.** After this lab you can
# - explain why CephFS needs a metadata server (MDS) and why its throughput, not the OSDs',
#   limits workloads of many small files;
# - predict metadata operations per second from the number of clients, one request's round trip
#   and the single-threaded MDS's time per request (a closed loop with one server);
# - read seed 004's mdtest table: what a directory shared by many clients costs, operation by
#   operation;
# - measure create, stat, rename and remove on CephFS (ceph-fuse) with private and shared
#   directories, count the MDS requests each costs, and compare with the local disk.
#
# **Prerequisites:** lab 00 (the daemons, among them the MDS) and lab 03 (Little's law, and
# throughput against latency). New words are in the [glossary](../glossary.md).
#
# **You need:** the lab cluster (3 OSDs or more; `make lab`). The lab adds an MDS and a small
# file system if the cluster has none, and removes them at the end. It mounts CephFS with
# ceph-fuse, so `/dev/fuse` must be readable and writable for you. Stock Debian lets every user
# use it; the course's container image needs `--device /dev/fuse --cap-add SYS_ADMIN` for it.
# About 1 minute.

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

from models import metadata as md
from cephlab.display.widgets import LivePlot
from cephlab.helpers.compare import Comparison
from cephlab.display import plots

pd.set_option("display.precision", 3)

# %% [markdown]
# ## Background
#
# RADOS stores objects; a file system also needs names, folders, permissions, sizes and times.
# CephFS keeps that *metadata* apart from the file data: file contents go straight from the
# client to the OSDs, while every change to the namespace (create, rename, unlink, mkdir) is a
# request to the **metadata server**. The MDS caches the namespace in memory, journals each
# change to the metadata pool, and hands clients **capabilities** ("caps"). A cap is permission to
# cache an inode's attributes (a file's size, owner and times) or a directory's entries, and to
# answer from that cache. J. Neudecker's
# thesis (seed 002, HAW Hamburg 2021) describes the MDS as the journaling and access service of
# CephFS that large clusters run several of, on fast flash.
#
# Xu Xuehan's talk *Ceph Goes Online at Qihoo 360* (Cephalocon APAC 2018, seed 004) measured one
# active MDS with mdtest, a standard benchmark of metadata operations, from 70 clients (data/seed004_mdtest.csv) and found two things:
#
# - the MDS is **single-threaded**: one rank (one active MDS) handles requests one at a time under one big lock
#   (`mds_lock` in Ceph's `MDSRank`), so a rank's CPU use stays low while clients queue;
# - **shared directories are slower**: with all 70 clients in one directory, file creation ran
#   at 2,624 ops/s instead of 4,311, removal at 789 instead of 2,532, rename at 485 instead of
#   3,073. The MDS must take a shared directory's caps back from one client before another may
#   change it, and clients that lose them must ask the MDS about names they used to answer
#   themselves. The seed also lists a slow `getattr` under heavy shared access (Ceph tracker
#   issue 22925).
#
# **The model** (`models.metadata`). mdtest's clients each wait for one reply before sending the
# next request, a *closed loop*. With $N$ clients, $R_0$ one request's round trip when nobody
# queues, and $S$ the MDS's serialised time per request, the operational laws (Denning and
# Buzen, 1978) bound the throughput:
#
# $$X(N) = \min\left(\frac{N}{R_0},\ \frac{1}{S}\right) \qquad N^* = \frac{R_0}{S}$$
#
# Below $N^*$ clients, more clients mean more ops/s; beyond, they only queue (Little's law: each
# waits $N/X$). An operation that costs $k$ MDS requests runs at $X/k$: $k = 1$ for a create in
# a private directory, $k = 0$ for a `stat` the client's caps answer, $k > 1$ in a directory
# other clients change too. Seed 004's ratio *separate ÷ shared* is that factor at 70 clients.

# %% [markdown]
# ## The model
# Seed 004's table with what the model reads from it: the MDS time per operation ($S = 1/X$, the
# MDS being saturated), each client's time per operation by Little's law ($70 / X$), and the
# shared-directory factor.

# %%
seed = md.seed_table()
rows = []
for op in ["File Creation", "File Removal", "File Rename", "Directory Creation", "Directory Removal"]:
    rows.append({"operation": op, "separate ops/s": seed[(op, "separate")], "shared ops/s": seed[(op, "shared")],
                 "MDS ms per op (separate)": 1e3 * md.seed_service_time(op),
                 "client ms per op (separate)": 1e3 * md.seed_client_latency(op),
                 "shared-directory factor": md.seed_serialisation(op)})
for op in ["Stat", "File Open", "Utime", "Readdir"]:
    rows.append({"operation": op, "separate ops/s": seed[(op, "n/a")], "shared ops/s": np.nan,
                 "MDS ms per op (separate)": 1e3 * md.seed_service_time(op, "n/a"),
                 "client ms per op (separate)": 1e3 * md.seed_client_latency(op, "n/a"),
                 "shared-directory factor": np.nan})
pd.DataFrame(rows).set_index("operation")

# %% [markdown]
# Readdir's 243,844 ops/s is not an MDS rate: a client that holds a directory's caps lists it
# from its own cache, so most of those operations never reach the MDS.
#
# ### Throughput vs clients
# Set one request's round trip, the MDS time per request and the shared directory's requests per
# operation. The knee is $N^*$; the seed's 70 clients sit far to its right for creates.

# %% tags=["nbval-ignore-output"]
CLIENTS = np.arange(1, 129)
clients_plot = LivePlot(
    x=CLIENTS, xlabel="clients (one request in flight each)", ylabel="metadata ops/s",
    curves={"private directories (k = 1)": lambda x, r0_ms, s_ms, k: md.closed_loop_ops(x, r0_ms / 1e3, s_ms / 1e3),
            "one shared directory": lambda x, r0_ms, s_ms, k: md.ops_with_requests(x, r0_ms / 1e3, s_ms / 1e3, k)},
    controls={"r0_ms": W.FloatSlider(value=2.0, min=0.2, max=20, step=0.1, description="R0 (ms)"),
              "s_ms": W.FloatSlider(value=0.232, min=0.05, max=2, step=0.01, description="S (ms)"),
              "k": W.FloatSlider(value=1.64, min=1, max=8, step=0.01, description="k shared")},
    readout=lambda r0_ms, s_ms, k: (
        f"knee N* = {md.saturation_clients(r0_ms, s_ms):.1f} clients; cap {1e3 / s_ms:,.0f} ops/s "
        f"private, {1e3 / s_ms / k:,.0f} shared; 70 clients wait {1e3 * md.response_time(70, r0_ms / 1e3, s_ms / 1e3):.1f} ms each"))
clients_plot

# %% [markdown]
# ## Exercises
# Answer with `md.seed_table`, `md.seed_serialisation`, `md.seed_service_time`,
# `md.seed_client_latency`, `md.closed_loop_ops`, `md.saturation_clients` and
# `md.ops_with_requests`, then run the check cell under each. The numbers in Q2 and Q3 are your own
# (drawn for your learner id, in `P`): a neighbour's answers are wrong for your notebook.

# %% tags=["nbval-ignore-output"]
P = params.lab_params("09-cephfs-metadata")

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 1
# all_or_nothing: true

# %% [markdown]
# **Q1.** Which file operation of seed 004's table suffers most from a shared directory, and by
# what factor (its separate ops/s ÷ its shared ops/s)? Store the operation's name as the table
# spells it in `q1_operation` and the factor in `q1_factor`.

# %% [raw]
# # BEGIN SOLUTION

# %%
q1_operation = max(["File Creation", "File Removal", "File Rename"], key=md.seed_serialisation)  # SOLUTION
q1_factor = md.seed_serialisation(q1_operation)  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert q1_operation in ("File Creation", "File Removal", "File Rename"), "Name one of the table's three file operations exactly as it spells it"

# %%
assert q1_factor > 1, "The factor is separate ops/s divided by shared ops/s: more than 1 when sharing a directory hurts"

# %%
# HIDDEN
assert q1_operation == "File Rename", "Compare separate / shared for the three file operations of the table"
assert isinstance(q1_operation, str) and abs(q1_factor - md.seed_serialisation("File Rename")) < 1e-9, "Store the name as a string and the exact factor md.seed_serialisation gives for it"
assert q1_factor > max(md.seed_serialisation("File Creation"), md.seed_serialisation("File Removal")), "The operation that suffers most has the largest factor"

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
params.show("""**Q2.** In seed 004's run, how many milliseconds did each of the 70 clients wait per operation
"{q2_operation}" in separate directories? If one request's round trip without queueing is {q2_rtt_ms} ms and
the MDS needs the seed's time per operation, from how many clients on does the MDS cap the
throughput? Store the wait in `q2_wait_ms` (ms). Store the knee in `q2_knee_clients` as a number of clients,
not rounded: the real number `md.saturation_clients` gives.""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q2_wait_ms = 1e3 * md.seed_client_latency(P["q2_operation"])  # SOLUTION
q2_knee_clients = md.saturation_clients(P["q2_rtt_ms"] / 1000, md.seed_service_time(P["q2_operation"]))  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert P["q2_rtt_ms"] < q2_wait_ms < 1000, "In milliseconds, more than the bare round trip: 70 clients queue at the MDS (Little's law)"

# %%
assert 1 < q2_knee_clients < 70, "A number of clients, above 1 and below the 70 that saturated the MDS: N* = R0 / S"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("09-cephfs-metadata")
assert abs(q2_wait_ms - 1e3 * md.seed_client_latency(_p["q2_operation"])) < 1e-9, "The wait is in milliseconds, from your operation's separate-directory rate"
assert abs(q2_knee_clients - md.saturation_clients(_p["q2_rtt_ms"] / 1000, md.seed_service_time(_p["q2_operation"]))) < 1e-9, \
    "The round trip in seconds (ms / 1000) over your operation's MDS time; keep the knee unrounded"

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
params.show("""**Q3.** Same operation, MDS and round trip as Q2. Store the MDS time per operation (the seed's, as in
Q2), in seconds, in `q3_s`. How many operations per second do {q3_private_clients} clients get in private
directories, and {q3_shared_clients} clients in one shared directory where each operation costs {q3_requests} MDS
requests? Store both rates, in operations per second, in `q3_private` and `q3_shared`.""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q3_s = md.seed_service_time(P["q2_operation"])  # SOLUTION
q3_private = md.closed_loop_ops(P["q3_private_clients"], P["q2_rtt_ms"] / 1000, q3_s)  # SOLUTION
q3_shared = md.ops_with_requests(P["q3_shared_clients"], P["q2_rtt_ms"] / 1000, q3_s, P["q3_requests"])  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert q3_private > P["q3_private_clients"], "Operations per second (not per ms): where are your private-directory clients relative to the knee of Q2?"
assert 1e-5 < q3_s < 1e-2, "q3_s is the MDS's time per operation in seconds, not in ms"
assert q3_private <= 1.000001 / q3_s, "More than the MDS can serve: one MDS serves at most 1 / S requests a second, however many clients ask"

# %%
assert 0 < q3_shared < P["q3_shared_clients"] / (P["q2_rtt_ms"] / 1000), \
    "Operations per second: saturated clients complete less than one operation per round trip each, and each operation costs several MDS requests"
assert q3_shared < 0.75 / q3_s, \
    "One operation in the shared folder is several MDS requests, one after the other: the MDS serves at most 1 / S requests a second, so fewer operations"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("09-cephfs-metadata")
_s, _r0 = md.seed_service_time(_p["q2_operation"]), _p["q2_rtt_ms"] / 1000
assert abs(q3_private - min(_p["q3_private_clients"] / _r0, 1 / _s)) < 1e-6, \
    "Use md.closed_loop_ops with your private-directory clients, the round trip in seconds and your operation's MDS time"
assert abs(q3_shared - min(_p["q3_shared_clients"] / (_r0 * _p["q3_requests"]), 1 / (_p["q3_requests"] * _s))) < 1e-6, \
    "Each operation costs k requests one after the other: k times the round trip and k times the MDS time (md.ops_with_requests)"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q4
# points: 1
# all_or_nothing: true

# %% [markdown]
# **Q4. Before measuring.** A client creates files in a directory no other client touches, then
# `stat`s each of them. How many MDS requests per file does the model expect for the creates,
# and for the stats? Store them as ints in `q4_create_requests` and `q4_stat_requests`.

# %% [raw]
# # BEGIN SOLUTION

# %%
q4_create_requests = 1  # SOLUTION
q4_stat_requests = 0  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert int(q4_create_requests) == q4_create_requests > 0, "A whole number of requests; a create changes the namespace: the MDS must do it (and journal it)"

# %%
assert int(q4_stat_requests) == q4_stat_requests <= q4_create_requests, "A whole number of requests, no more than a create needs: the client that created the file holds its caps"

# %%
# HIDDEN
assert isinstance(q4_create_requests, (int, np.integer)) and isinstance(q4_stat_requests, (int, np.integer)), "Store whole numbers of requests"
assert (q4_create_requests, q4_stat_requests) == (1, 0), "One request per create; the stats are answered by the client's own caps"

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
# **Q5. Your experiment: more clients.** After the lab's four runs, the benchmark runs once more
# with as many ceph-fuse clients as you choose, each in a folder of its own. Choose a whole number
# from 2 to 6 and store it in `my_clients`. Assume one create's round trip R0 = 0.7 ms and an MDS time of
# S = 0.3 ms per request (the order this lab measures on a small cluster). How many times the
# creations per second of one client does the closed-loop model give your clients? Store the
# speed-up (a ratio) in `q5_speedup`.

# %% [raw]
# # BEGIN SOLUTION

# %%
my_clients = 3  # SOLUTION
q5_speedup = md.closed_loop_ops(my_clients, 0.0007, 0.0003) / md.closed_loop_ops(1, 0.0007, 0.0003)  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(my_clients, (int, np.integer)) and not isinstance(my_clients, bool) and 2 <= my_clients <= 6, "Choose a whole number of clients from 2 to 6"

# %%
assert 1 <= q5_speedup <= my_clients + 1e-9, \
    "A ratio of two throughputs, not ops/s: in the model more clients never do worse than one, and N clients at most N times better"
assert my_clients * 0.0003 <= 0.0007 or q5_speedup < 0.9 * my_clients, \
    "Past the knee N* = R0 / S the MDS is busy all the time: more clients then queue for it, they do not each add one client's rate"

# %%
# HIDDEN
assert abs(q5_speedup - md.closed_loop_ops(my_clients, 0.0007, 0.0003) / md.closed_loop_ops(1, 0.0007, 0.0003)) < 1e-9, "X(N) = min(N / R0, 1 / S) with R0 = 0.0007 s and S = 0.0003 s, divided by X(1); beyond the knee N* = R0 / S the MDS caps it"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# ## Measure: an mdtest in miniature on CephFS
#
# We make sure the cluster has an MDS and a file system. ceph-fuse is the CephFS client that runs
# as a normal process, through Linux's FUSE (file systems in user space). We mount the file system
# **four times** with it (four clients, each its own session with the MDS) and run
# `cephlab.helpers.cephfs.metadata_bench`. Each worker creates, stats, renames and removes its
# files, phase by phase. Runs:
#
# | run | clients | threads | directory |
# |---|---|---|---|
# | 1 client | 1 mount | 1 | private |
# | 4 clients, private | 4 mounts | 1 each | one per client (mdtest `-u`) |
# | 4 clients, shared | 4 mounts | 1 each | one for all |
# | 1 client, 4 threads, shared | 1 mount | 4 | one for all |
#
# For each run we count the MDS's requests (its `mds.request` perf counter, read from its admin
# socket) and the CPU time the MDS process used. Each run starts once the MDS has purged the files
# the run before it removed, so its CPU time is its own. The two 4-client runs then go again as
# two more pairs, for the reading of the MDS's CPU below. Then the same benchmark on the local disk.

# %% tags=["nbval-ignore-output"]
import tempfile
import time

from cephlab.helpers.lab import LabSession, connect
from cephlab.helpers.cephfs import (CephFS, metadata_bench, mds_requests, bench_mds_cpu, cpu_pair,
                                    mds_cpu_pairs, mds_cpu_table, OPS)

leftovers = CephFS.remove_leftovers(connect(), "lab09-")
if leftovers:
    print("an earlier run was interrupted; undone:", ", ".join(leftovers))
lab = LabSession("09", min_osds=3)
c = lab.cluster
t0 = time.monotonic()
fs = CephFS.ensure(lab)
mounts = [fs.mount() for _ in range(4)]
print(f"file system {fs.name} ({'created for this lab' if fs.created else 'the cluster’s own'}), "
      f"MDS active, {len(mounts)} ceph-fuse clients mounted in {time.monotonic() - t0:.1f} s")

# %% tags=["nbval-ignore-output"]
RUNS = {"1 client": (mounts[:1], 1, "separate", 200),
        "4 clients, private": (mounts, 4, "separate", 100),
        "4 clients, shared": (mounts, 4, "shared", 100),
        "1 client, 4 threads, shared": (mounts[:1], 4, "shared", 100)}
bench_args = {label: dict(zip(("roots", "workers", "layout", "files"), run)) for label, run in RUNS.items()}
results, mds_cpu = {}, {}
for i, label in enumerate(RUNS):
    results[label], mds_cpu[label] = bench_mds_cpu(c, **bench_args[label], tag=f"r{i}")
    print(f"{label}: " + ", ".join(f"{op} {results[label].ops_per_s[op]:,.0f}/s" for op in OPS))
# the two 4-client runs above are the first pair (they ran one after the other)
cpu_pairs = [cpu_pair(*((results[k], mds_cpu[k]) for k in ("4 clients, private", "4 clients, shared"))),
             *mds_cpu_pairs(c, bench_args["4 clients, private"], bench_args["4 clients, shared"], pairs=2)]
print("shared / private, three pairs: requests " + ", ".join(f"{r:.2f}" for r, _ in cpu_pairs)
      + "; MDS CPU " + ", ".join(f"{cpu:.2f}" for _, cpu in cpu_pairs))

with tempfile.TemporaryDirectory() as local:
    local_results = {label: metadata_bench([local], files=files, workers=workers, layout=layout, tag=f"l{i}")
                     for i, (label, (_, workers, layout, files)) in enumerate(RUNS.items()) if "4 clients" not in label}

# %% tags=["nbval-ignore-output"]
measured = pd.DataFrame({f"CephFS, {label}": r.ops_per_s for label, r in results.items()} |
                        {f"local disk, {label}": r.ops_per_s for label, r in local_results.items()}).T
measured.round(0)

# %% tags=["nbval-ignore-output"]
per_op = pd.DataFrame({label: {**{f"MDS requests per {op}": r.requests_per_op(op) for op in OPS},
                               "MDS CPU ms per operation": 1e3 * mds_cpu[label] / (4 * r.workers * r.files)}
                       for label, r in results.items()}).T
per_op

# %% [markdown]
# ### Model vs measurement
#
# What the model claims about *requests* is checked against the MDS's own counter. It claims one
# request per create, rename and remove in a private directory, and none for a `stat` the client's
# caps answer. A directory shared by threads of *one* client costs nothing extra (one client, one
# set of caps).

# %%
metadata_cmp = Comparison()
private = results["4 clients, private"]
for op in ("create", "rename", "remove"):
    metadata_cmp.add(f"MDS requests per {op}, private directories", model=1,
                     measured=private.requests_per_op(op), rel_tol=0.1,
                     why="a few lookups of the client's own folder come on top",
                     control=("no caps: a lookup before every operation", 2))
metadata_cmp.add("MDS requests per stat, private directories", model=0, measured=private.requests_per_op("stat"),
                 rel_tol=0.05, why="the creating client holds the file's caps; a stray revoke costs one",
                 control=("no caps: every stat asks the MDS", 1))
metadata_cmp.add("MDS requests per create, one client sharing among threads", model=1,
                 measured=results["1 client, 4 threads, shared"].requests_per_op("create"), rel_tol=0.1,
                 why="threads of one client share its caps; only other clients cause revocations",
                 control=("threads revoke caps like separate clients",
                          results["4 clients, shared"].requests_per_op("create")))
print(f"{len(metadata_cmp.rows)} model-vs-measurement rows")

# %% tags=["nbval-ignore-output"]
metadata_cmp.table()[["model", "measured", "measured/model", "tolerance", "agrees", "control", "control fails"]]

# %% tags=["nbval-ignore-output"]
fig, (ax1, ax2) = plots.figure(ncols=2)
plots.bars_model_vs_measured(ax1, ["create", "rename", "remove", "stat"], [1, 1, 1, 0],
                             [private.requests_per_op(op) for op in ("create", "rename", "remove", "stat")],
                             ylabel="MDS requests per operation (4 clients, private)")
x = np.arange(len(OPS))
for i, (label, series) in enumerate(measured.iterrows()):
    ax2.bar(x + (i - 2.5) * 0.13, [series[op] for op in OPS], 0.13, label=label)
ax2.set_xticks(x, OPS)
ax2.set_yscale("log")
ax2.set_ylabel("ops/s (log)")
ax2.legend(fontsize=6)
plots.show(fig)

# %%
metadata_cmp.assert_agree()

# %% [markdown]
# ### The MDS's CPU time: a reading, not a check
# The single-server model gives every request the same service time $S$. If that held, the MDS's
# CPU time per operation would grow, shared over private, by the same factor as its requests. But
# the requests that sharing adds are lookups and getattrs: they change nothing, so they allocate
# no inode and write no journal entry, where a create does both. The requests' factor is where the
# CPU would land if those requests cost what a create costs, and 1 where they cost nothing; the
# lab shows where it lands instead of checking it against either. The table has three pairs (the
# runs above and two more) and their median. Each run starts once the MDS has purged the files of
# the run before. One CPU window is a second or less, so a background task of another daemon
# moves one pair, not the median. Where between the two does this run land, and what does that
# make of a single $S$?

# %% tags=["nbval-ignore-output"]
mds_cpu_table(cpu_pairs).round(2)

# %% [markdown]
# ### The shared directory: this cluster vs seed 004
# This table sets the slowdown of a directory shared by four clients beside the factor seed 004
# saw with 70. It adds the closed-loop model's view: one private client's round trip $R_0$ and the
# MDS's CPU time per request as $S$ give the knee $N^*$.

# %% tags=["nbval-ignore-output"]
seed_ops = {"create": "File Creation", "rename": "File Rename", "remove": "File Removal"}
shared_vs_seed = pd.DataFrame({op: {"this cluster: private / shared": md.serialisation_factor(
                                        private.ops_per_s[op], results["4 clients, shared"].ops_per_s[op]),
                                    "MDS requests per op, shared": results["4 clients, shared"].requests_per_op(op),
                                    "seed 004 (70 clients)": md.seed_serialisation(name)}
                               for op, name in seed_ops.items()}).T
r0 = results["1 client"].latency_s["create"]
s_mds = mds_cpu["4 clients, private"] / sum(private.requests.values())
print(f"R0 = {1e3 * r0:.2f} ms per create, MDS CPU {1e3 * s_mds:.3f} ms per request: knee at "
      f"N* = {md.saturation_clients(r0, s_mds):.1f} clients; the model's cap {1 / s_mds:,.0f} requests/s")
shared_vs_seed

# %% [markdown]
# ### Your clients (Q5)
# Your clients each create, stat, rename and remove 100 files in a folder of their own, as in the
# run "4 clients, private" (mounts beyond those four are added). The table sets their creations
# per second beside the 1-client run's, with the model fed this run's $R_0$ and $S$ (printed
# above), your prediction and an MDS that caps nothing. The operational laws *bound* throughput,
# they do not promise it, so no agreement is asserted: read the gap instead.

# %% tags=["nbval-ignore-output"]
from cephlab.helpers import experiment

n_yours = experiment.choice(my_clients, 3, "my_clients (Q5)", lab="09")
mounts += [fs.mount() for _ in range(n_yours - len(mounts))]
yours = metadata_bench(mounts[:n_yours], files=100, workers=n_yours, layout="separate", tag="yours",
                       counter=lambda: mds_requests(c))
one = results["1 client"]
your_prediction = globals().get("q5_speedup")
run = experiment.RunFigures()
run.record(speedup=yours.ops_per_s["create"] / one.ops_per_s["create"])
pd.DataFrame({"measured creations/s": [one.ops_per_s["create"], yours.ops_per_s["create"]],
              "MDS requests per create": [one.requests_per_op("create"), yours.requests_per_op("create")],
              "model creations/s (this run's R0, S)": [md.closed_loop_ops(n, r0, s_mds) for n in (1, n_yours)],
              "model speed-up": [1.0, md.closed_loop_ops(n_yours, r0, s_mds) / md.closed_loop_ops(1, r0, s_mds)],
              "your predicted speed-up (Q5)": [1.0, your_prediction if isinstance(your_prediction, (int, float)) else None],
              "no MDS cap speed-up": [1.0, float(n_yours)]},
             index=["1 client", f"{n_yours} clients (yours)"])

# %% [markdown]
# **Your gap.** Read your run: how many times the 1-client run's creations per second did your
# clients get? Store `my_speedup` (your clients' measured creations per second divided by those of
# one client) and run the check. Then set it beside your prediction and the model's speed-up.

# %%
my_speedup = yours.ops_per_s["create"] / one.ops_per_s["create"]  # SOLUTION
run.check("my_speedup", my_speedup, "speedup",
          hint="divide the measured creations per second of your clients by those of the 1-client run, from the table above")

# %% [markdown]
# **W1. Why does CephFS need an MDS, and why does it limit small-file workloads?** Answer in two or
# three sentences, with your speed-up and this run's knee $N^*$ (graded by hand).
#
# *Your answer:*

# %% [markdown]
# ## What the model said, what the cluster did
#
# - **Requests.** Exactly as the model counts them: one MDS request per create, rename and
#   remove in a private directory, none for the stats (the creating client holds the caps), and
#   threads of one client sharing a folder cost nothing extra.
# - **Shared directories.** Four clients in one folder make the MDS handle several requests per
#   operation: lookups after losing the folder's caps, and the revocations themselves (this run's
#   figures follow the list). Its CPU time per operation rises with them. How far it follows them
#   is the reading above: the requests are not all of one cost.
# - **Against seed 004.** Compare this run's slowdowns (below; they vary from run to run) with the
#   seed's in order and in pattern. The seed's 70 clients kept the MDS saturated, so only its extra
#   *work* per operation showed. Our four clients sit near the knee, so every revocation's round
#   trip to another client is waiting time on the critical path. That hits the operations that
#   look a name up before they change the directory (create, rename) hardest.
# - **Scaling.** More clients in private folders, the lab's four and yours, gained less than N
#   times one client (tables above). Beyond the knee the MDS caps them. And the model's
#   independent round trips leave out that the ceph-fuse clients, the MDS and the OSDs share the
#   machine's few CPU cores. The MDS's own CPU time per request (printed above) puts its cap at
#   one to a few thousand requests per second, the order of seed 004's 4,311 creations per second.
# - **Local disk.** The same benchmark on the local file system ran every operation roughly ten
#   to a hundred times faster. There each is a system call the kernel answers, often from its
#   cache. On CephFS it crosses FUSE into the ceph-fuse process and, unless the client's caps
#   answer it, goes to the MDS and back.

# %% tags=["nbval-ignore-output"]
from cephlab.helpers import conclusions

slow = shared_vs_seed["this cluster: private / shared"]
per_op = shared_vs_seed["MDS requests per op, shared"]
seed = shared_vs_seed["seed 004 (70 clients)"]
cpu = mds_cpu_table(cpu_pairs).loc["median"]
conclusions.render("""
- **This run, shared directory.** The MDS handled {req_lo:.1f} to {req_hi:.1f} requests per operation;
  operations ran {slow_lo:.1f} to {slow_hi:.1f} times slower than in private folders (seed 004 with 70
  clients: {seed_lo:.1f} to {seed_hi:.1f} times). Creates: {create:.1f} times here, {seed_create:.1f}
  times in the seed.
- **This run, the MDS's CPU.** Its CPU time per operation went up {cpu_x:.1f} times for {req_x:.1f} times
  the requests (medians of three pairs): a request of the shared run cost it {per_req:.2f} of one of the
  private run.
""", req_lo=per_op.min(), req_hi=per_op.max(), slow_lo=slow.min(), slow_hi=slow.max(),
    seed_lo=seed.min(), seed_hi=seed.max(), create=slow["create"], seed_create=seed["create"],
    cpu_x=cpu["MDS CPU, shared / private"], req_x=cpu["MDS requests, shared / private"],
    per_req=cpu["MDS CPU per request, shared / private"])

# %% [markdown]
# **W2. Private vs shared directories on your cluster.** Answer in three or four sentences, with
# your run's MDS requests per operation and its MDS CPU ratio, shared over private (graded by hand).
#
# *Your answer:*

# %% [markdown]
# ## Clean up
# Unmounts the clients, removes the lab's folder, the file system and the MDS if this lab
# created them, and deletes the lab's pools.

# %% tags=["nbval-ignore-output"]
fs.close()
lab.cleanup()
