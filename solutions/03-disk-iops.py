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
# # Lab 03 — How many IOPS should a cluster give? Disks, replicas, the WAL and the CPU
#
# **Objectives.** After this lab you can
# - predict the client write IOPS of a replicated cluster from the IOPS of its disks, the number
#   of replicas and the extra device writes of a journal or write-ahead log (seed 000's rule);
# - explain why seed 000's SSD-journal cluster reached 2,273 IOPS and not the planned 15,000;
# - use Little's law to move between IOPS, queue depth (threads) and latency;
# - check a planning figure against disk mechanics (seek + half a rotation);
# - tell a disk-bound cluster from a CPU-bound one (seed 004's "10^4 IOPS per CPU", read here per
#   core) and read IOPS against the read percentage of a mixed workload (seed 001);
# - measure the disk under your cluster with fio, the cluster with `rados bench` and a read/write
#   mix with fio's rbd engine, and explain the gap to the model.
#
# **Prerequisites:** lab 00 (the path of one write to the primary and its replicas, and its
# latency) and lab 01 (replicated pools). New words are in the [glossary](../glossary.md).
#
# **You need:** the lab cluster (3 OSDs or more; `make lab` starts it). About 2 minutes: the
# measurement runs fio twice for 3 s, `rados bench` four times for 5 s and fio's read/write mix
# 15 times for 3 s.

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
import os

import numpy as np
import pandas as pd
import ipywidgets as W

from models import data, iops
from cephlab.display.widgets import LivePlot
from cephlab.helpers.compare import Comparison
from cephlab.display import plots

pd.set_option("display.precision", 3)

# %% [markdown]
# ## Background
#
# **The planning rule.** Every client write to a pool of size 3 is written by three OSDs, each on
# its own disk. If the disks are the bottleneck, a cluster of *D* disks that each do *R* random
# writes per second takes about *R × D / 3* client writes per second. Seed 000 (NAVER,
# *Persistent storage for Docker containers with Ceph*, OpenStack Days 2017) plans its test
# cluster this way: 10k rpm SAS disks at 600 IOPS, 3 per node, 3 nodes, 3 replicas → 1,800 IOPS
# expected. fio on KRBD (the Linux kernel's RBD driver) measured 2,094 IOPS of 4 KiB random writes
# at 34.36 ms.
#
# **Journals and WALs: two device writes per replica write.** FileStore (the seed's backend)
# writes every op to its journal first and to the file system later; with the journal on the
# data disk each replica write costs two device writes. BlueStore (the default since Luminous,
# the only back end from Reef on, and the one your cluster runs) keeps data and metadata apart. It
# sends a new write smaller than `bluestore_prefer_deferred_size_hdd` (64 KiB in Pacific, Reef and
# Tentacle; 0 on SSD) into its RocksDB write-ahead log with the transaction's commit and writes it
# in place later (Ceph source `src/os/bluestore/BlueStore.cc`, `_do_alloc_write`, v16.2.15). A
# larger write goes in place first, and then its commit is written to the same log. So a 4 KiB
# and a 64 KiB write each cost the disk two writes when each write commits alone, one write in
# flight, the case a disk's random-IOPS figure describes. Deferring changes how many bytes reach
# the disk (lab 07), not how many writes. With many writes in flight BlueStore commits them
# together, one log write for the lot, and the count falls towards one per replica write. Lab 04
# counts the same I/Os for BlueStore's throttle: both labs use
# `models.throttle.bluestore_device_ios`. Seed 000's case 2
# moved the journals to one SSD per node and planned 15,000 IOPS (the SSD's figure), but
# measured 2,273. The journal absorbs a write quickly, yet every byte still has to reach the
# SAS disks. So the long-run rate stays near what the SAS disks can take.
#
# **Little's law.** In a steady system, the number of I/Os in flight equals throughput × time
# in the system: *queue depth = IOPS × latency*. `rados bench -t 16` keeps 16 writes in flight,
# so its average latency must be 16 / IOPS. Seed 000's 2,094 IOPS at 34.36 ms means ~72 I/Os
# were in flight.
#
# **The CPU is a bound too.** Seed 004 (Xu Xuehan, *Ceph Goes Online at Qihoo 360*, Cephalocon
# APAC 2018) found its all-SSD cluster on Hammer (Ceph's 2015 release) "really cpu consuming", with "10^4 IOPS per CPU (CPU:
# Xeon E5-2630 v3)". This lab reads it per core; an E5-2630 v3 has 8 cores (Intel ARK), so read per
# socket, it gives each core 8 times fewer IOPS and a CPU bound 8 times lower. Fast disks move the
# bottleneck from the disks to the cores.
#
# **Reads and writes mix.** Seed 001 (Ocado Technology, *Improving the performance of the Ceph
# storage platform*) plots IOPS against the read percentage (fio, 8 KiB, queue depth 16 in each of
# 24 parallel jobs). If a read costs 1/R of the device's time and a write 1/W, a mix with read
# fraction *f* runs at *1 / (f/R + (1−f)/W)*: slow to rise, then steep near 100 % reads.
#
# Seed 002 (J. Neudecker, HAW Hamburg thesis, 2021) benchmarked its containerised cluster with
# `rados bench` for 10 s with 16 threads, 30 s with 32 and 60 s with 64. This lab runs the same
# three thread counts, 5 s each, to stay inside a one-minute budget.

# %% [markdown]
# ## The model
#
# `models.iops` holds the arithmetic. First the disk classes (data/disk_classes.csv) and what
# seed 000's layout — 9 disks, 3 replicas — would give with each, with one device write per
# replica write and with two (a journal or WAL on the same disk):

# %%
def class_table(disks=9, replicas=3):
    rows = []
    for d in iops.disk_classes():
        rows.append({"class": d["class"], "disk IOPS": d["iops"], "QD1 latency ms": d["latency_ms"],
                     f"cluster IOPS, {disks} disks / {replicas} replicas":
                         iops.expected_write_iops(d["iops"], disks, replicas),
                     "same, journal/WAL on the disk": iops.expected_write_iops(d["iops"], disks, replicas, 2)})
    return pd.DataFrame(rows).set_index("class")

class_table()

# %% [markdown]
# Seed 000's four measured cases against its plan, with the I/Os in flight that Little's law
# reads from each (IOPS × latency):

# %%
def seed000_table():
    rows = []
    for r in iops.seed000_cases():
        expected = r["expected_iops"] or np.nan
        rows.append({"case": r["case"], "what": r["description"], "expected IOPS": expected,
                     "measured IOPS": r["measured_iops"], "measured / expected": r["measured_iops"] / expected,
                     "latency ms": r["latency_ms"],
                     "in flight (Little)": iops.queue_depth_from(r["measured_iops"], r["latency_ms"])})
    return pd.DataFrame(rows).set_index("case")

seed000_table()

# %% [markdown]
# ### Disk bound, CPU bound
# Pick a disk class and a cluster. The blue line is the disk bound (*disk IOPS × disks /
# (replicas × device writes per write)*), the orange one the CPU bound (*cores × IOPS per core*).
# The cluster gets the lower of the two. With HDDs the disks bind; with NVMe the cores do.

# %% tags=["nbval-ignore-output"]
CLASSES = {d["class"]: d["iops"] for d in iops.disk_classes()}
DISKS = np.arange(3, 121)

def bounds_readout(disk_class, replicas, wal_writes, cores_per_disk, iops_per_core):
    disk = iops.expected_write_iops(CLASSES[disk_class], 36, replicas, wal_writes)
    cpu = iops.cpu_ceiling_iops(36 * cores_per_disk, iops_per_core)
    binds = "the disks" if disk < cpu else "the CPU"
    return (f"36 disks: disk bound {disk:,.0f} IOPS, CPU bound {cpu:,.0f} IOPS &rarr; "
            f"<b>{min(disk, cpu):,.0f} IOPS</b>, limited by {binds}")

bounds_plot = LivePlot(
    x=DISKS, xlabel="disks (one OSD each)", ylabel="client write IOPS", logy=True,
    curves={"disk bound": lambda x, disk_class, replicas, wal_writes, cores_per_disk, iops_per_core:
                iops.expected_write_iops(CLASSES[disk_class], x, replicas, wal_writes),
            "CPU bound": lambda x, disk_class, replicas, wal_writes, cores_per_disk, iops_per_core:
                iops.cpu_ceiling_iops(x * cores_per_disk, iops_per_core),
            "cluster (lower of the two)": lambda x, disk_class, replicas, wal_writes, cores_per_disk, iops_per_core:
                iops.cluster_write_iops(CLASSES[disk_class], x, replicas, wal_writes,
                                        cores=x * cores_per_disk, iops_per_core=iops_per_core)},
    controls={"disk_class": W.Dropdown(options=list(CLASSES), value="10k SAS HDD", description="disks"),
              "replicas": W.IntSlider(value=3, min=1, max=5, description="replicas"),
              "wal_writes": W.IntSlider(value=1, min=1, max=2, description="writes/write"),
              "cores_per_disk": W.FloatSlider(value=1.0, min=0.25, max=4, step=0.25, description="cores/disk"),
              "iops_per_core": W.FloatLogSlider(value=1e4, base=10, min=2.5, max=5, description="IOPS/core")},
    readout=bounds_readout)
bounds_plot

# %% [markdown]
# ### Mixed reads and writes
# Seed 001's chart has this shape. The sliders start at `rados bench` figures measured once by
# the lab's authors on a lab cluster like this one (data/native_cluster_reference.csv: 4 KiB
# random reads and writes, 16 in flight): a measured starting point, not a model.

# %% tags=["nbval-ignore-output"]
FRACTIONS = np.linspace(0, 1, 201)
mix_plot = LivePlot(
    x=100 * FRACTIONS, xlabel="reads (% of operations)", ylabel="IOPS",
    curves={"mixed IOPS": lambda x, read_iops, write_iops: iops.mixed_iops(read_iops, write_iops, x / 100)},
    controls={"read_iops": W.FloatLogSlider(value=10174, base=10, min=2, max=6, description="read IOPS"),
              "write_iops": W.FloatLogSlider(value=984, base=10, min=2, max=6, description="write IOPS")},
    readout=lambda read_iops, write_iops: " | ".join(
        f"{p} % reads: {iops.mixed_iops(read_iops, write_iops, p / 100):,.0f} IOPS" for p in (0, 50, 70, 90, 100)))
mix_plot

# %% [markdown]
# ## Exercises
# Answer with `models.iops` (`iops.expected_write_iops`, `iops.queue_depth_from`,
# `iops.latency_ms`, `iops.device_writes_per_write`, `iops.cluster_write_iops`,
# `iops.cpu_ceiling_iops`, `iops.mixed_iops`), then run the check cell under each. The numbers
# in each question are your own (drawn for your learner id, in `P`): a neighbour's answers are
# wrong for your notebook.

# %% tags=["nbval-ignore-output"]
P = params.lab_params("03-disk-iops")

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q1.** A cluster built like seed 000's case 2 planned {q1_planned} IOPS from one journal SSD
per node, and measured {q1_measured}. The SSDs only hold the journals: every write still lands on
the {q1_disks} SAS data disks ({q1_disk_iops} IOPS each, 3 replicas). What does the planning rule
give for those data disks? Store it in `q1_data_disk_bound`, and in `q1_fraction_of_plan` the
measured {q1_measured} as a fraction of the {q1_planned} planned.""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q1_data_disk_bound = iops.expected_write_iops(P["q1_disk_iops"], P["q1_disks"], 3)  # SOLUTION
q1_fraction_of_plan = P["q1_measured"] / P["q1_planned"]  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert 0 < q1_data_disk_bound < P["q1_disk_iops"] * P["q1_disks"], "Each client write lands on 3 of the data disks: the bound is below the disks' summed IOPS"
assert q1_data_disk_bound > 0.75 * P["q1_disk_iops"] * P["q1_disks"] / 3, \
    "Your bound counts two device writes per replica write, a journal write too: here the journals sit on the SSDs, not on the data disks"
assert 0 < q1_fraction_of_plan < 1, "A fraction (measured / planned, below 1 here), not a percentage"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("03-disk-iops")
assert abs(q1_data_disk_bound - iops.expected_write_iops(_p["q1_disk_iops"], _p["q1_disks"], 3)) < 1e-9 and abs(q1_fraction_of_plan - _p["q1_measured"] / _p["q1_planned"]) < 1e-12, \
    "Use the exact planning rule (disk IOPS x data disks / 3) and the exact ratio measured / planned (a fraction, not a percentage), with your numbers"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# **W1. Why did seed 000's SSD-journal cluster reach 2,273 IOPS, not the planned 15,000?** Answer in
# two or three sentences with your Q1 figures (graded by hand).
#
# *Your answer:*

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q2.** A cluster measured {q2_iops} IOPS at {q2_latency_ms} ms. How many I/Os were in flight
(`q2_in_flight`)? And if a cluster kept {q2_base_iops} IOPS with only {q2_queue} I/Os in flight,
what latency in ms would Little's law give (`q2_latency_ms`)?""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q2_in_flight = iops.queue_depth_from(P["q2_iops"], P["q2_latency_ms"])  # SOLUTION
q2_latency_ms = iops.latency_ms(P["q2_base_iops"], P["q2_queue"])  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert 1 < q2_in_flight < P["q2_iops"], "Little's law: in flight = IOPS x latency, with the latency in seconds (fewer I/Os than one second's worth)"
assert 1 < q2_latency_ms < 1000, "Give the latency in milliseconds: a few dozen I/Os at a few thousand IOPS take more than a millisecond, less than a second"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("03-disk-iops")
assert abs(q2_in_flight - _p["q2_iops"] * _p["q2_latency_ms"] / 1000) < 1e-6 and abs(q2_latency_ms - _p["q2_queue"] / _p["q2_base_iops"] * 1000) < 1e-6, \
    "Keep full precision: in flight = IOPS x seconds, latency = in flight / IOPS x 1000 ms, with your numbers"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 2
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q3.** A BlueStore cluster has {q3_disks} HDDs (OSDs classed *hdd*) that each do {q3_disk_iops}
random 4 KiB writes per second, and a pool of size {q3_size}. Count the writes to the disk, data and
commit, for a write that commits alone (`iops.device_writes_per_write`). How many device writes does
one 4 KiB replica write cost (`q3_writes_4k`), and one 64 KiB replica write (`q3_writes_64k`)? What
client IOPS of 4 KiB writes do the disks allow (`q3_cluster_4k`)?""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q3_writes_4k = iops.device_writes_per_write(4096)  # SOLUTION
q3_writes_64k = iops.device_writes_per_write(65536)  # SOLUTION
q3_cluster_4k = iops.cluster_write_iops(P["q3_disk_iops"], P["q3_disks"], P["q3_size"], q3_writes_4k)  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert int(q3_writes_4k) == q3_writes_4k and int(q3_writes_64k) == q3_writes_64k, "Count whole device writes per replica write"
assert 0 < q3_writes_64k <= q3_writes_4k, "Every replica write reaches the device at least once, and a small write never costs fewer device writes than a large one"

# %%
assert 0 < q3_cluster_4k < P["q3_disk_iops"] * P["q3_disks"] / P["q3_size"], "Each client write costs one replica write per copy, and each replica write more than one device write (its data and its commit): fewer IOPS than disks x IOPS / replicas"
assert q3_cluster_4k < 0.75 * P["q3_disk_iops"] * P["q3_disks"] / P["q3_size"], \
    "Your IOPS count one device write per replica write: each replica write also writes its commit to the disk, with its data or after it"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("03-disk-iops")
assert (q3_writes_4k, q3_writes_64k) == (iops.device_writes_per_write(4096), iops.device_writes_per_write(65536)) and iops.device_writes_per_write(65536) == 2, \
    "Count the commit too: a deferred write's commit carries its data and the data goes in place later; a direct write's data goes first and its commit follows"
assert abs(q3_cluster_4k - iops.cluster_write_iops(_p["q3_disk_iops"], _p["q3_disks"], _p["q3_size"], 2)) < 1e-9, "Use your disks, their IOPS, your pool size and the 4 KiB write's device writes"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q4
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q4.** An all-flash cluster has {q4_ssds} NVMe SSDs (175,000 IOPS each, data/disk_classes.csv),
one device write per replica write (on flash an aligned 4 KiB write is not deferred), the RocksDB commit being shared
by the many writes in flight, a pool of size 3 and {q4_servers} servers with
{q4_cores} cores each. With seed 004's "10^4 IOPS per CPU", read per core as in this lab, what client
write IOPS should it give (`q4_iops`), and is it limited by `"disks"` or `"cpu"` (`q4_limit`)?""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q4_iops = iops.cluster_write_iops(175000, P["q4_ssds"], 3, iops.device_writes_per_write(4096, commit_share=0), cores=P["q4_servers"] * P["q4_cores"])  # SOLUTION
q4_limit = "cpu" if iops.cpu_ceiling_iops(P["q4_servers"] * P["q4_cores"]) < iops.expected_write_iops(175000, P["q4_ssds"], 3) else "disks"  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert 0 < q4_iops < 175000 * P["q4_ssds"], "Each client write lands on 3 SSDs: fewer client IOPS than the disks' summed IOPS; then mind the cores"
assert q4_limit in ("disks", "cpu"), "q4_limit is one of the strings \"disks\" or \"cpu\""
assert q4_iops > 25000 * P["q4_servers"], "Seed 004's 10^4 IOPS per CPU is per core in this lab, and each server has many cores: count them all"
assert q4_iops <= 1.001 * min(175000 * P["q4_ssds"] / 3, 10**4 * P["q4_servers"] * P["q4_cores"]), \
    "Your IOPS are above one of the two bounds: the cluster runs at the lower of what its SSDs allow (3 copies of each write) and what its cores allow"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("03-disk-iops")
assert abs(q4_iops - min(iops.cpu_ceiling_iops(_p["q4_servers"] * _p["q4_cores"]), iops.expected_write_iops(175000, _p["q4_ssds"], 3))) < 1e-6, "Take the lower of the two bounds, with all the cores (servers x cores each)"
assert isinstance(q4_limit, str) and q4_limit == ("cpu" if iops.cpu_ceiling_iops(_p["q4_servers"] * _p["q4_cores"]) < iops.expected_write_iops(175000, _p["q4_ssds"], 3) else "disks"), "Compare the SSDs' bound with the cores' bound"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q5
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q5.** A cluster does {q5_read_iops} read IOPS and {q5_write_iops} write IOPS. What IOPS does a
workload of 70 % reads get (`q5_iops_70`)? Is that closer to the write IOPS or to the read IOPS
(`q5_closer_to`: `"writes"` or `"reads"`)?""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q5_iops_70 = iops.mixed_iops(P["q5_read_iops"], P["q5_write_iops"], 0.7)  # SOLUTION
q5_closer_to = "writes" if abs(q5_iops_70 - P["q5_write_iops"]) < abs(q5_iops_70 - P["q5_read_iops"]) else "reads"  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert P["q5_write_iops"] < q5_iops_70 < P["q5_read_iops"], "A mix of reads and writes runs between the write IOPS and the read IOPS; each op costs 1/R or 1/W of the time"
assert abs(q5_iops_70 / (0.7 * P["q5_read_iops"] + 0.3 * P["q5_write_iops"]) - 1) > 0.005, \
    "That is the linear mix, 70 % of the read IOPS plus 30 % of the write IOPS: each op takes its share of the time, so add up the time per op (1/R or 1/W), not the rates"
assert q5_closer_to in ("writes", "reads"), "Answer with \"writes\" or \"reads\""
assert (q5_closer_to == "writes") == (q5_iops_70 - P["q5_write_iops"] < P["q5_read_iops"] - q5_iops_70), "Name the side your mixed IOPS is closer to"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("03-disk-iops")
assert abs(q5_iops_70 - 1 / (0.7 / _p["q5_read_iops"] + 0.3 / _p["q5_write_iops"])) < 1e-6, "A weighted harmonic mean: 70 % of the ops at your read IOPS, 30 % at your write IOPS"
_mix = iops.mixed_iops(_p["q5_read_iops"], _p["q5_write_iops"], 0.7)
assert q5_closer_to == ("writes" if abs(_mix - _p["q5_write_iops"]) < abs(_mix - _p["q5_read_iops"]) else "reads"), "The slow writes take most of the time even when they are only 30 % of the ops"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q6
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q6. Find the gap in the plan.** Seed 000 planned with 600 IOPS per 10k rpm SAS disk. A spinning
disk serves one random I/O in an average seek plus, on average, half a rotation. How many random IOPS does
a {q6_rpm} rpm disk with an average seek of {q6_seek_ms} ms do at queue depth 1 (`q6_disk_iops`,
`iops.hdd_iops`)? And how many times that is seed 000's 600 (`q6_overstated`)?""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q6_disk_iops = iops.hdd_iops(P["q6_rpm"], P["q6_seek_ms"])  # SOLUTION
q6_overstated = 600 / q6_disk_iops  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert 30 < q6_disk_iops < 500, "IOPS of one spinning disk: 1000 ms divided by the milliseconds one random I/O takes (seek + half a rotation)"
assert q6_disk_iops < 0.97 * 1000 / P["q6_seek_ms"], "Your I/O takes about the seek alone: add half a rotation, in milliseconds (one rotation lasts 60,000 ms / rpm)"
assert q6_disk_iops > 1.03 * 1000 / (P["q6_seek_ms"] + 60000 / P["q6_rpm"]), \
    "Your I/O waits a full rotation after its seek: on average the sector it wants is half a rotation away"
assert abs(q6_overstated * q6_disk_iops - 600) < 1e-6, "The factor is 600 divided by your disk's IOPS"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("03-disk-iops")
_iops = 1000 / (_p["q6_seek_ms"] + 0.5 * 60000 / _p["q6_rpm"])
assert abs(q6_disk_iops - _iops) < 1e-9, "Half a rotation at your rpm is 0.5 x 60,000 / rpm ms; add your seek, then IOPS = 1000 / that"
assert abs(q6_overstated - 600 / _iops) < 1e-9, "600 over your disk's IOPS"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q7
# points: 2
# all_or_nothing: true

# %% [markdown]
# **Q7. Your experiment: writes in flight.** Choose how many writes `rados bench` keeps in flight,
# a whole number from 2 to 32 but not 16 (the run it is compared with), and store it in
# `my_threads`. After seed 002's three runs the measurement below runs yours, 5 s like the others,
# and compares it with the 16-thread run. Before it runs, predict your run's IOPS and its mean
# latency with the lab's model of this cluster. The model assumes the cluster is CPU-bound (the
# cores, not the queue, set the IOPS) and that Little's law holds; your run tests that assumption.
# Store each as a fraction of the 16-thread run's (yours / its) in `q7_iops_ratio` and
# `q7_latency_ratio`.

# %% [raw]
# # BEGIN SOLUTION

# %%
my_threads = 4  # SOLUTION
q7_iops_ratio = 1.0  # SOLUTION
q7_latency_ratio = iops.latency_ms(q7_iops_ratio, my_threads) / iops.latency_ms(1.0, 16)  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(my_threads, (int, np.integer)) and 2 <= my_threads <= 32 and my_threads != 16, \
    "Choose a whole number of writes in flight from 2 to 32, other than the 16 your run is compared with"

# %%
assert 0 < q7_iops_ratio <= 4 and 0 < q7_latency_ratio <= 20, "Give fractions of the 16-thread run (your run's figure / its figure), not IOPS or milliseconds"
assert abs(q7_latency_ratio * q7_iops_ratio - my_threads / 16) < 1e-6, \
    "Little's law: latency = writes in flight / IOPS, so (latency ratio) x (IOPS ratio) = (your writes in flight) / 16"
assert abs(q7_latency_ratio - 1) > 0.01, \
    "An unchanged latency with IOPS that follow the writes in flight is a queue-bound cluster: the model you predict with assumes the cores, not the queue, set the IOPS"

# %%
# HIDDEN
assert abs(q7_iops_ratio - 1) < 1e-9, "CPU-bound: the cores set the IOPS, so a different queue depth does not change them"
assert abs(q7_latency_ratio - iops.latency_ms(1.0, my_threads) / iops.latency_ms(1.0, 16)) < 1e-9, \
    "Little's law at fixed IOPS: the mean latency grows in proportion to the writes in flight"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# ## Measure: the disk, then the cluster
#
# First the device itself. The OSDs of this lab cluster keep their BlueStore block devices as
# files in the cluster's folder. So fio on a file in that folder measures the disk they write to.
# It runs 4 KiB random writes with `direct=1` (no page cache) at queue depth 16. Then it runs them
# at queue depth 1 with an `fdatasync` after each write, which is what a write-ahead log does to
# make each commit durable. 3 s each.

# %% tags=["nbval-ignore-output"]
from tqdm.auto import tqdm

from cephlab.helpers import experiment
from cephlab.helpers.lab import LabSession
from cephlab.helpers.diskbench import against_base, fio_file, cpu_meter
from cephlab.helpers import conclusions, readmix

lab = LabSession("03", min_osds=3)
c = lab.cluster
OSDS = len(c.ceph("osd", "ls"))
CORES = os.cpu_count()
device_class = {n.get("device_class") for n in c.ceph("osd", "tree")["nodes"] if n["type"] == "osd"}
WAL_WRITES = float(iops.device_writes_per_write(4096))     # data and commit, deferred or not

device = fio_file(c.dir / "tmp", iodepth=16, seconds=3)
synced = fio_file(c.dir / "tmp", iodepth=1, seconds=3, fdatasync=True)
print(f"cluster {c.name}: {OSDS} OSDs classed {sorted(device_class)}, {CORES} cores; "
      f"4 KiB writes cost {WAL_WRITES:.0f} device write(s) per replica")
pd.DataFrame({"fio 4 KiB randwrite, direct, QD 16": {"IOPS": device.iops, "ms per write": 16e3 / device.iops},
              "fio 4 KiB write + fdatasync, QD 1": {"IOPS": synced.iops, "ms per write": 1e3 / synced.iops}}).T

# %% [markdown]
# Now the model's prediction from that device speed. The disk bound is this cluster's: pool size
# 3, every OSD on this one disk, so the disks are really *one* disk shared by all OSDs. The CPU
# bound is seed 004's, for this machine's cores.

# %% tags=["nbval-ignore-output"]
disk_bound = iops.cluster_write_iops(device.iops, 1, 3, WAL_WRITES)
# seed 004's figure, from its table (data/seed004_qos.csv): IOPS per CPU on its all-SSD cluster, read per core
SEED004_IOPS_PER_CPU = next(r["value"] for r in data.load("seed004_qos") if r["limit"] == "iops_per_cpu")
cpu_bound_seed004 = iops.cpu_ceiling_iops(CORES, SEED004_IOPS_PER_CPU)
model_seed_rules = iops.cluster_write_iops(device.iops, 1, 3, WAL_WRITES, cores=CORES)
print(f"disk bound: {device.iops:,.0f} IOPS x 1 disk / (3 replicas x {WAL_WRITES:.0f}) = {disk_bound:,.0f} IOPS")
print(f"CPU bound (seed 004): {CORES} cores x {SEED004_IOPS_PER_CPU:,} = {cpu_bound_seed004:,.0f} IOPS")
print(f"model prediction: {model_seed_rules:,.0f} client write IOPS")

# %% [markdown]
# Then `rados bench` with 4 KiB writes into a size-3 pool at seed 002's three thread counts. We
# also count the CPU seconds the OSD processes and the `rados bench` client use during each run
# (from `/proc`): CPU time per write is what seed 004's "IOPS per CPU" (read per core) is made of.

# %% tags=["nbval-ignore-output"]
pool = lab.replicated_pool("bench", size=3, pg_num=32)
# seed 002's scbench (rados bench) runs, from its table (data/seed002_rados_bench.csv): 16, 32, 64
THREADS = [int(r["value"]) for r in data.load("seed002_rados_bench") if r["parameter"] == "threads"]
SECONDS = 5
runs = {}
for t in tqdm(THREADS, desc="rados bench 4 KiB writes"):
    with cpu_meter(c) as cpu:       # objects stay until the pool goes: deleting them one by one takes longer
        r = c.rados_bench(pool, SECONDS, "write", block_size=4096, threads=t, cleanup=False)
    runs[t] = (r, cpu)
bench = pd.DataFrame([{"threads": t, "IOPS": r.iops, "latency ms": r.lat_mean_ms, "max ms": r.lat_max_ms,
                       "OSD CPU ms/write": 1e3 * cpu["osd_s"] / r.ops,
                       "client CPU ms/write": 1e3 * cpu["client_s"] / r.ops,
                       "host CPU busy": cpu["host_busy"]} for t, (r, cpu) in runs.items()]).set_index("threads")
bench

# %% [markdown]
# The measured CPU cost of a write turns seed 004's rule into this host's own. In each run, every
# client write cost the cluster (OSDs + client) the CPU milliseconds below. So one core does
# 1000 / that many writes per second, and the machine's cores set the ceiling. The cost is not a
# constant: with more writes in flight the OSDs handle several per wake-up (one RocksDB commit
# for many writes, fuller messenger reads), so it falls as the threads grow.

# %% tags=["nbval-ignore-output"]
cost_ms = {t: 1e3 * (cpu["osd_s"] + cpu["client_s"]) / r.ops for t, (r, cpu) in runs.items()}
ceiling = {t: iops.cluster_write_iops(device.iops, 1, 3, WAL_WRITES, cores=CORES, iops_per_core=1e3 / cost_ms[t])
           for t in THREADS}
print(f"at 16 threads: {cost_ms[16]:.2f} CPU ms per client write -> {1e3 / cost_ms[16]:,.0f} IOPS per core "
      f"(seed 004: 10,000 per CPU, read per core)")
pd.DataFrame({"CPU ms per write": cost_ms, "IOPS per core": {t: 1e3 / v for t, v in cost_ms.items()},
              f"ceiling, {CORES} cores": ceiling,
              "measured IOPS": {t: r.iops for t, (r, _) in runs.items()}}).rename_axis("threads")

# %% [markdown]
# ### Model vs measurement
#
# Two kinds of row, each with a negative control (a plausibly wrong model the same tolerance must
# reject). **Little's law** must hold tightly: `rados bench` keeps exactly *t* writes in flight,
# so its mean latency is *t* / IOPS; the control is "one write at a time" (latency = 1 / IOPS).
# The **CPU ceiling** is built from the CPU cost per write *measured* in each run, so it is a
# measured ceiling, not a model from first principles. Its row claims the cluster is CPU-bound:
# measured / ceiling is the share of the two cores the OSDs and the client kept busy. In
# principle it cannot exceed 1 (the mon, mgr, kernel and this notebook take part of the rest). The
# row's band is symmetric (±50 %), so it would also pass a ratio up to 1.5. Such a ratio could only
# come from a CPU cost per write counted too high (other processes' time in the sample). Below one half
# the CPU would not be what limits (a disk- or latency-bound cluster leaves cores idle), and the row
# fails; the control is "disk-bound" (fio's bound as the prediction).
#
# The **disk bound** from fio is shown, not checked: the cluster stays so far below it that a
# check "IOPS <= disk bound" could not fail, so it would not tell us anything.

# %% tags=["nbval-ignore-output"]
cmp = Comparison()
for t, (r, cpu) in runs.items():
    cmp.add(f"latency, {t} threads (Little: t / IOPS)", model=iops.latency_ms(r.iops, t),
            measured=r.lat_mean_ms, unit="ms", rel_tol=0.05,
            why="rados bench averages over all ops; while it starts and stops fewer than t are in flight",
            control=("one write at a time: 1 / IOPS", iops.latency_ms(r.iops, 1)))
for t, (r, cpu) in runs.items():
    cmp.add(f"IOPS, {t} threads vs CPU ceiling (measured cost per write)", model=ceiling[t],
            measured=r.iops, unit="IOPS", rel_tol=0.5,
            why="CPU-bound: the OSDs and client keep over half of the cores busy (the other daemons and the kernel use some)",
            control=("disk-bound: fio's bound", disk_bound))
display(cmp.table()[["model", "measured", "measured/model", "tolerance", "agrees", "control", "control fails"]])
pd.DataFrame({"measured IOPS": {t: r.iops for t, (r, _) in runs.items()},
              "disk bound (fio)": disk_bound,
              "share of the disk bound": {t: r.iops / disk_bound for t, (r, _) in runs.items()}}).rename_axis("threads")

# %% tags=["nbval-ignore-output"]
fig, (ax1, ax2) = plots.figure(ncols=2)
labels = [f"{t} thr" for t in THREADS]
measured = [runs[t][0].iops for t in THREADS]
ax1.bar(labels, measured, color="tab:green", edgecolor="black", label="measured (rados bench)")
for y, name, style in [(disk_bound, "disk bound (fio)", "--"), (cpu_bound_seed004, "CPU bound, seed 004", ":")]:
    ax1.axhline(y, linestyle=style, color="black", label=f"{name}: {y:,.0f}")
ax1.plot(labels, [ceiling[t] for t in THREADS], "_", color="tab:red", markersize=40, markeredgewidth=2,
         label="CPU ceiling, each run's own cost")
ax1.set(yscale="log", ylabel="client write IOPS (4 KiB)", title="IOPS against the model's bounds")
ax1.legend(fontsize=7)
ax2.plot(THREADS, [iops.latency_ms(runs[t][0].iops, t) for t in THREADS], "o--", label="Little: threads / IOPS")
ax2.plot(THREADS, [runs[t][0].lat_mean_ms for t in THREADS], "s-", label="rados bench mean latency")
ax2.set(xlabel="threads (writes in flight)", ylabel="ms", title="latency grows with the queue")
ax2.legend()
ax2.grid(True, alpha=0.3)
plots.show(fig)

# %%
cmp.assert_agree()

# %% [markdown]
# ### Your writes in flight (Q7)
# One more run with the number of writes in flight you chose, against the 16-thread run above.
# Little's law is checked as before (same tolerance, same control). The saturated model is your
# prediction's: the cores set the IOPS, so IOPS stay at the 16-thread run's and the latency
# scales with the writes in flight. It is shown, not asserted: where it misses is what you explain.

# %% tags=["nbval-ignore-output"]
t_mine = experiment.choice(my_threads, 4, "my_threads (Q7)", lab="03")
mine = c.rados_bench(pool, SECONDS, "write", block_size=4096, threads=t_mine, cleanup=False)
base = runs[16][0]
mine_cmp = Comparison()
mine_cmp.add(f"latency, {t_mine} threads (Little: t / IOPS)", model=iops.latency_ms(mine.iops, t_mine),
             measured=mine.lat_mean_ms, unit="ms", rel_tol=0.05,
             why="rados bench averages over all ops; while it starts and stops fewer than t are in flight",
             control=("one write at a time: 1 / IOPS", iops.latency_ms(mine.iops, 1)))
display(mine_cmp.table()[["model", "measured", "measured/model", "tolerance", "agrees", "control", "control fails"]])
run = experiment.RunFigures()
run.record(iops_ratio=mine.iops / base.iops)
against_base(mine, base, t_mine, prediction=(globals().get("q7_iops_ratio"), globals().get("q7_latency_ratio")))

# %%
mine_cmp.assert_agree()

# %% [markdown]
# **Your gap.** The saturated model gave your run the 16-thread run's IOPS. Read your run: what
# fraction of the 16-thread IOPS did your writes in flight reach? Store `my_iops_ratio` (your
# run's measured IOPS / the 16-thread run's) and run the check.

# %%
my_iops_ratio = mine.iops / base.iops  # SOLUTION
run.check("my_iops_ratio", my_iops_ratio, "iops_ratio",
          hint="divide your run's measured IOPS by the 16-thread run's, both in the table above")

# %% [markdown]
# ## Measure: reads and writes mixed (seed 001's curve)
#
# The model of mixed reads and writes above needs two numbers, the read-only and the write-only
# IOPS, and predicts everything in between. Each operation takes its share of one shared
# resource (here the two cores). So a mix runs at *1 / (f/R + (1−f)/W)*, the *harmonic mean* of
# R and W weighted by the mix. fio's rbd engine measures the two ends and three mixes on a 256 MiB
# RBD image in the size-3 pool, written in full first. It runs 8 KiB random I/O with 16 in flight,
# 3 s per point. The whole sweep runs three times, every other time in reverse order, so slow
# drift falls on every point alike. Seed 001 ran
# "relatively high queue-depth (16), small block size (8kB), and some parallelism (24)": 24 fio
# jobs with 16 I/Os in flight each. This lab runs one job of 16, because its machine has only two
# cores: 24 jobs would only wait in line for them.
#
# One client setting changes for this measurement (the clean-up restores it): the cache of librbd,
# the client library for RBD, is switched off (`rbd_cache false` for the clients). Pacific's
# defaults, unchanged in Reef and Tentacle, turn it on with the policy `writearound` (Ceph v16
# `src/common/options.cc`). Then writes go to the OSDs at once, but may be acknowledged to fio
# before the OSDs finish them, within the cache's dirty-byte budget. With
# `rbd_cache_writethrough_until_flush` (true), the cache stays write-through (a write is
# acknowledged only once the OSDs have it) until the client's first flush. Switched off, every write fio counts was acknowledged by the OSDs, so the curve
# describes the cluster: try it, by leaving the setting out. Reads are not what it changes:
# `writearound` keeps no read cache (only the `writethrough` and `writeback` policies do).
#
# The model's inputs are the measured ends, so the check tests only the *shape*. It is paired:
# each round's point is divided by the model fed with that same round's ends (`readmix.paired`).
# So whatever the machine did to a whole round (a busy moment, slow drift) cancels. The table
# compares the round at the median of those ratios: its point against its own model. Its
# tolerance adds two independent errors in quadrature (the square root of the sum of their
# squares), *√(h² + 0.10²)*. One is the run's own noise *h*: half the range of those ratios over
# the three rounds, relative to their median. The other is 10 %, how far a whole run's ratios moved
# between separate runs on the CI machines, the course's test machines (`readmix.tolerance`; the
# runs are kept in the tests' data). Unpaired, the ends alone have spread 13–50 % over three rounds
# on the 2-core CI machine, enough to hide the difference between the two shapes. Below the model it allows
# more, for one effect the harmonic mean leaves out and that can only slow a mix (explained
# after the plot): a read waits while a write to its object is in flight. The extra room
# is that wait's upper bound from the physics, not the gap seen. With 16 I/Os in flight on the
# image's 64 objects, the writes in flight follow from their share of the time. A read meets one
# on its object with probability *p = 1 − (1 − 1/64)^writes*, and it waits at most one whole write
# (`readmix.lock_wait_allowance`). The negative control is the plausible wrong shape "IOPS mix
# linearly" (*f·R + (1−f)·W*), which reads would follow if they used resources the writes leave
# idle; it lies above the model, where there is no extra room. The mixes stop at 70 % reads. The
# wait's bound is widest where reads dominate, and at 90 % it comes close to the gap between the
# two shapes. So with a few seconds per point the check could not tell them apart there.

# %% tags=["nbval-ignore-output"]
image = readmix.prepare(lab, pool)
mix_rounds = readmix.sweep(c, pool, image, read_pcts=(0, 30, 50, 70, 100), rounds=3, seconds=3,
                           progress=lambda runs: tqdm(runs, desc="fio randrw, 8 KiB"))
mix = readmix.summary(mix_rounds)
mix_cmp = readmix.compare(mix_rounds)
display(mix_cmp.table()[["model", "measured", "measured/model", "tolerance", "agrees", "control", "control fails"]])
mix

# %% tags=["nbval-ignore-output"]
fig, ax = plots.figure()
mix_w, mix_r, mix_ratio = readmix.ends(mix)
ax.plot(100 * FRACTIONS, iops.mixed_iops(mix_r, mix_w, FRACTIONS), label="model: harmonic mean of the measured ends")
ax.plot(100 * FRACTIONS, readmix.linear(mix, 100 * FRACTIONS), "--", color="gray", label="control: linear mix")
ax.errorbar(mix.index, mix["median IOPS"], yerr=[mix["median IOPS"] - mix["min"], mix["max"] - mix["median IOPS"]],
            fmt="o", color="tab:green", capsize=4, label="measured (median, min-max of 3 rounds)")
ax.set(xlabel="reads (% of operations)", ylabel="IOPS (8 KiB, 16 in flight)", title="seed 001's curve on this cluster")
ax.legend(fontsize=8)
ax.grid(True, alpha=0.3)
plots.show(fig)

# %%
mix_cmp.assert_agree()

# %% tags=["nbval-ignore-output"]
gap_pct, gap_model, gap_linear, gap_measured = readmix.widest_gap(mix_rounds)
conclusions.render("""
- **This run's ends.** Writes only: {w:,.0f} IOPS; reads only: {r:,.0f} IOPS, {ratio:.1f} times as many
  (the sliders above start at the lab authors' reference run, data/native_cluster_reference.csv).
- **Between them.** At {pct} % reads, in the round the table compares, the model fed with that round's
  ends predicted {model:,.0f} IOPS and the cluster did {measured:,.0f}; a linear mix would have given {linear:,.0f}.
  The spread over the rounds was {spread:.0%} (median over the points).
""", w=mix_w, r=mix_r, ratio=mix_ratio, pct=gap_pct, model=gap_model, measured=gap_measured,
    linear=gap_linear, spread=readmix.median_spread(mix))

# %% [markdown]
# Why the curve bends: the slow writes take most of the time even when they are a minority of
# the operations. At 70 % reads three operations in ten are writes, yet each costs several reads'
# worth of the cores, so the writes fill most of the run and the IOPS stay near the write end
# until the reads are nearly all. That is seed 001's lesson for capacity planning: quote a
# cluster's IOPS for the workload's mix, not its read figure.
#
# What the model leaves out: reads and writes meet. An OSD lets a read of an object wait while a
# write to that object is in flight (`ObjectContext::get_read` in `src/osd/osd_types.h`, v16.2.15:
# the object's read/write lock, taken by `PrimaryLogPG` for every client op). So a mix
# can fall below the harmonic mean, more so the more reads there are to wait and the fewer
# objects the I/Os spread over (a smaller image makes the gap grow). The check's extra room below
# the model is this wait at its largest; the table's tolerance column shows it per point.

# %% [markdown]
# ## What the model said, what the cluster did
#
# - **Seed 000's rule, fed with fio's device speed, over-predicts by a large factor** (the table
#   above has your run's rule, its `rados bench` figure and their ratio). The disk under the OSDs
#   is a virtual disk on flash: many thousands of direct 4 KiB writes per second at queue depth 16.
#   Every OSD of this lab shares that one disk, so the rule gives *device IOPS × 1 disk / (3
#   replicas × 2 WAL writes)* client writes per second. Seed 004's "10^4 IOPS per CPU", read per
#   core, says two cores would allow 20,000. `rados bench` reaches far less than either.
# - **The CPU is the bottleneck here, not the disk.** Each client write costs this cluster the
#   CPU time in the cost column above: three OSD ops, the RocksDB WAL, the messenger and the
#   client. At that cost, one core does at least five times fewer writes per second than seed
#   004's 10^4 (the IOPS per core column). The host's cores are busy the whole run while the disk
#   has headroom. Seed 004's figure was Hammer on bare-metal Xeons with the
#   OSDs spread over many cores; here every daemon and the client share two virtual cores.
#   Measure your own per-core figure before you plan. On a machine shared with other work the
#   OSDs get only part of the cores, and IOPS fall further below the CPU ceiling.
# - **Four times the threads buy far less than four times the IOPS once a resource is
#   saturated:** from 16 to 64 threads the IOPS grew by well under 2x. Even that growth came only
#   because batching made each write cheaper in CPU (the cost column). The latency grew as Little's
#   law says it must, latency = threads / IOPS: by the threads' factor divided by the IOPS' factor.
#   Little's law held to within a few percent in every run. Seed 002 saw the same: its 64-thread
#   run had the worst latency.
# - **Seed 000's own gap ran the other way.** Its case 1 kept the FileStore journals on the SAS
#   data disks. So this lab's rule counts two device writes per replica write: 600 × 9 / (3 × 2)
#   = 900 IOPS, or 200 with the 133 IOPS that a seek and half a rotation allow (Q6's kind of
#   disk). The cluster measured 2,094. The rule prices every device write as a random write at
#   queue depth 1, a seek and half a rotation each, and the seed's writes were not that. Little's
#   law puts 72 of them in flight (2,094 IOPS × 34.36 ms). The journal appends its entries one
#   after another, up to `journal_max_write_entries` (100) in one disk write. The data writes land
#   in the page cache. The kernel writes them back in batches that its I/O scheduler sorts by
#   position and merges where blocks touch, and the disk's command queue reorders them again. So
#   a write costs a short seek, or none when it merges with its neighbour. The rule is a floor for
#   queue-depth-1 random writes, not a forecast for a deep, sorted queue. To predict 2,094 a model
#   would need two things the seed does not give. One is how many journal entries share one disk
#   write. The other is how the time per write falls with the number of sorted writes queued at
#   the disk (its seek curve).
# - **The SSD journal (case 2) gained only 9 %.** It took the journal writes off the SAS disks,
#   which puts the rule at 600 × 9 / 3 = 1,800 IOPS for the data writes alone. The journal takes
#   a write quickly, but the data still has to reach the SAS disks, which the plan of 15,000
#   (the SSDs' figure) ignored.

# %% [markdown]
# **W2. `rados bench` on your cluster vs the disk rule and the CPU ceiling.** Use your fio figure,
# your per-core figure, the busy cores and your own run against the 16-thread one (graded by hand).
#
# *Your answer:*

# %% [markdown]
# ## Clean up
# Deletes the lab's pool (fio's files are already gone).

# %% tags=["nbval-ignore-output"]
lab.cleanup()
