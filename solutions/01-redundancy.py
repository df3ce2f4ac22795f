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
# # Lab 01 — Replication vs erasure coding
#
# **Objectives.** After this lab you can
# - compute what a redundancy scheme costs: raw space per usable byte, overhead, write fan-out
#   and the chunks read to rebuild a lost one, for replication and for erasure coding;
# - estimate durability in "nines" from the disks' annual failure rate (AFR) and the time a
#   failed disk stays unreplaced;
# - predict the raw space `ceph df` reports for the same data in a size-3 pool and an EC 2+1
#   pool, and check it on a real cluster;
# - explain with `min_size` why a pool keeps serving I/O, or stops, when an OSD goes down.
#
# **You need:** the lab cluster (3 OSDs or more; `make lab` starts it). About 2 minutes.

# %% [raw]
# # ASSIGNMENT CONFIG
# init_cell: true
# check_all_cell: false
# export_cell: false
# run_tests: false
# generate: true
# tests:
#   files: true

# %%
import numpy as np
import pandas as pd
import ipywidgets as W

from models import redundancy as red
from models.redundancy import replicated, erasure
from cephlab.widgets import LivePlot
from cephlab.compare import Comparison
from cephlab import plots

pd.set_option("display.precision", 3)

# %% [markdown]
# ## Background
#
# A Ceph pool keeps every object in one of two ways (seed 000, NAVER, *Persistent storage for
# Docker containers with Ceph*, OpenStack Days 2017):
#
# - **Replicated**: `size` full copies on different OSDs. Three copies cost 200 % extra raw space,
#   and recovery is quick: a lost copy is rebuilt by reading one surviving copy.
# - **Erasure coded** (EC): the object is cut into *k* data chunks and *m* coding chunks are
#   computed from them; any *k* of the *k + m* chunks rebuild the object. EC 4+2 costs 50 % extra
#   and survives two lost chunks, but rebuilding one chunk means reading *k* others ("expensive
#   recovery" in the seed's words).
#
# Whether a placement group (PG) *serves* I/O is a separate question from whether its data
# *survives*. A PG accepts reads and writes only while at least `min_size` of its shards are up;
# below that Ceph blocks the client rather than acknowledge a write that too few copies hold.
# That is the CP side of the CAP trade-off that seed 000 names: consistency over availability.
# Pacific's defaults are `min_size = size - size // 2` for replication (2 for size 3) and
# `k + min(1, m - 1)` for EC (Ceph source `src/mon/OSDMonitor.cc`, `prepare_pool_size`).
#
# Durability follows Backblaze's stripe model (B. Beach, *Backblaze durability calculator*,
# 2018): each disk fails with probability *p = AFR × days / 365* in one replacement period, a
# stripe of *n* shards is lost when more than *n − min_shards* fail within the same period, and
# the yearly loss probability compounds the periods. Reference docs: Ceph *Erasure code* and
# *Pools* pages (docs.ceph.com, Pacific).

# %% [markdown]
# ## The model
#
# `models.redundancy` turns a scheme into numbers. Here are the common ones side by side (AFR 2 %,
# a failed disk replaced after 7 days):

# %%
def scheme_table(schemes, afr=0.02, days=7.0):
    rows = []
    for s in schemes:
        rows.append({"scheme": s.label, "raw/usable": s.raw_per_usable, "overhead %": 100 * s.overhead,
                     "efficiency %": 100 * s.efficiency, "failures tolerated": s.tolerated_failures,
                     "min_size": s.min_size, "shards per write": s.write_fanout,
                     "reads to rebuild a chunk": s.rebuild_reads,
                     "nines/year": red.durability_nines(s, afr, days)})
    return pd.DataFrame(rows).set_index("scheme")

SCHEMES = [replicated(2), replicated(3), erasure(2, 1), erasure(4, 2), erasure(8, 3), erasure(17, 3)]
scheme_table(SCHEMES)

# %% [markdown]
# ### Durability vs replacement time
# Move the AFR slider: each line is the probability that a given stripe loses data within a year.
# The faster a failed disk is replaced (left), the fewer chances a second and third failure have to
# land in the same window.

# %% tags=["nbval-ignore-output"]
DAYS = np.linspace(0.25, 30, 200)
durability_plot = LivePlot(
    x=DAYS, xlabel="days until a failed disk is replaced", ylabel="annual loss probability",
    logy=True, ylim=(1e-22, 1),
    curves={s.label: (lambda x, afr, s=s: np.maximum(red.annual_loss_probability(s, afr, x), 1e-300))
            for s in SCHEMES[1:5]},
    controls={"afr": W.FloatSlider(value=0.02, min=0.005, max=0.20, step=0.005,
                                    description="AFR", readout_format=".3f")},
    readout=lambda afr: " | ".join(f"{s.label}: {red.durability_nines(s, afr, 1):.0f} nines (1 day), "
                                   f"{red.durability_nines(s, afr, 7):.0f} (7 days)" for s in SCHEMES[1:5]))
durability_plot

# %% [markdown]
# ### Design your own EC profile
# Pick *k* and *m*: the readout gives the cost, and the plot shows durability against AFR next to
# three-way replication.

# %% tags=["nbval-ignore-output"]
def ec_readout(k, m, days):
    s = erasure(k, m)
    return (f"<b>{s.label}</b>: overhead {s.overhead:.0%}, tolerates {s.tolerated_failures} failures, "
            f"{s.write_fanout} shards per write, {s.rebuild_reads} reads to rebuild one chunk, "
            f"{red.durability_nines(s, 0.02, days):.0f} nines at AFR 2 %")

AFRS = np.linspace(0.005, 0.2, 200)
ec_plot = LivePlot(
    x=AFRS, xlabel="annual failure rate (AFR)", ylabel="annual loss probability", logy=True,
    ylim=(1e-30, 1),
    curves={"your EC k+m": lambda x, k, m, days: np.maximum(red.annual_loss_probability(erasure(k, m), x, days), 1e-300),
            "replicated size 3": lambda x, k, m, days: np.maximum(red.annual_loss_probability(replicated(3), x, days), 1e-300)},
    controls={"k": W.IntSlider(value=4, min=1, max=16, description="k"),
              "m": W.IntSlider(value=2, min=1, max=4, description="m"),
              "days": W.FloatSlider(value=3, min=0.5, max=30, description="days")},
    readout=ec_readout)
ec_plot

# %% [markdown]
# ## Exercises
# Answer each with the model functions (`replicated`, `erasure`, `red.usable_capacity`,
# `red.durability_nines`, `red.serves_io`), then run the check cell under it.

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 1

# %% [markdown]
# **Q1.** What is the overhead (raw / usable − 1, as a fraction) of an EC 8+3 pool? Store it in
# `q1_overhead`.

# %% [raw]
# # BEGIN SOLUTION

# %%
q1_overhead = erasure(8, 3).overhead  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(q1_overhead, float), "q1_overhead should be a number such as 0.5 (not a percentage string)"
assert abs(q1_overhead - 0.375) < 1e-9, "Overhead is (k + m) / k - 1: EC 8+3 writes 11 chunks for 8 chunks of data"

# %%
# HIDDEN
assert abs(q1_overhead - 3 / 8) < 1e-12 and 0 < q1_overhead < 1, "The overhead is a fraction of the usable space: 3 coding chunks per 8 data chunks"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 1

# %% [markdown]
# **Q2.** A cluster has 600 TB of raw disk. How many TB of client data fit in an EC 4+2 pool if
# you plan to fill it to 85 % (Ceph's nearfull ratio)? Store it in `q2_usable_tb`.

# %% [raw]
# # BEGIN SOLUTION

# %%
q2_usable_tb = red.usable_capacity(600, erasure(4, 2), fill_ratio=0.85)  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(q2_usable_tb, (int, float)), "q2_usable_tb should be a number of TB"
assert abs(q2_usable_tb - 340) < 0.5, "Usable = raw / raw_per_usable x fill ratio; EC 4+2 stores 1.5 raw bytes per client byte"

# %%
# HIDDEN
assert abs(q2_usable_tb - 600 / 1.5 * 0.85) < 1e-6, "Apply both factors exactly: divide the raw TB by (k + m) / k, then keep 85 % of it"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 2

# %% [markdown]
# **Q3.** With disks of AFR 5 % replaced within 7 days, how many nines of annual durability do
# replicated size 3 and EC 4+2 give? Store them in `q3_nines_rep3` and `q3_nines_ec42`, and in
# `q3_more_durable` the label of the more durable one (`"replicated size 3"` or `"EC 4+2"`).

# %% [raw]
# # BEGIN SOLUTION

# %%
q3_nines_rep3 = red.durability_nines(replicated(3), 0.05, 7)  # SOLUTION
q3_nines_ec42 = red.durability_nines(erasure(4, 2), 0.05, 7)  # SOLUTION
q3_more_durable = "replicated size 3" if q3_nines_rep3 > q3_nines_ec42 else "EC 4+2"  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert q3_nines_rep3 == 7 and q3_nines_ec42 == 6, "Use red.durability_nines(scheme, afr=0.05, replacement_days=7) for each scheme"

# %%
assert q3_more_durable == "replicated size 3", "Both lose data on a third failure in the window, but EC 4+2 has 6 disks that can fail, replication 3"

# %%
# HIDDEN
_q3_expected = (red.durability_nines(replicated(3), 0.05, 7), red.durability_nines(erasure(4, 2), 0.05, 7))
assert (q3_nines_rep3, q3_nines_ec42) == _q3_expected, "Call red.durability_nines with AFR 0.05 (not 5) and 7 days for both schemes"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q4
# points: 1

# %% [markdown]
# **Q4.** Before measuring: you will write 64 MiB of objects into an EC 2+1 pool. How many MiB of
# raw space will `ceph df` report as used? Store it in `q4_ec21_used_mib`.

# %% [raw]
# # BEGIN SOLUTION

# %%
q4_ec21_used_mib = 64 * erasure(2, 1).raw_per_usable  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert abs(q4_ec21_used_mib - 96) < 0.01, "Raw used = stored x (k + m) / k: two data chunks and one parity chunk per stripe"

# %%
# HIDDEN
assert abs(q4_ec21_used_mib - 64 * 3 / 2) < 1e-9, "The answer is in MiB of raw space: 64 MiB of data times (k + m) / k, with no rounding"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q5
# points: 1

# %% [markdown]
# **Q5.** One OSD of an EC 2+1 pool goes down. Does a PG on that OSD still serve writes with the
# default `min_size`, and with `min_size` 3? Store two booleans in `q5_default` and `q5_strict`.

# %% [raw]
# # BEGIN SOLUTION

# %%
q5_default = red.serves_io(erasure(2, 1), failed=1)  # SOLUTION
q5_strict = red.serves_io(erasure(2, 1, min_size=3), failed=1)  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert q5_default is True or q5_default == True, "Pacific's default min_size for EC 2+1 is k + min(1, m-1) = 2, and 2 shards are still up"
assert q5_strict is False or q5_strict == False, "With min_size 3 every shard must be up: one down OSD makes the PG stop serving I/O"

# %%
# HIDDEN
assert isinstance(q5_default, (bool, np.bool_)) and isinstance(q5_strict, (bool, np.bool_)), "Store booleans (True/False) as red.serves_io returns them, not strings or numbers"
assert (bool(q5_default), bool(q5_strict)) == (True, False), "Default min_size 2 tolerates one lost shard of three; min_size 3 tolerates none"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# ## Measure: the same data in a size-3 pool and an EC 2+1 pool
#
# We create two pools, write the same 64 MiB (16 objects of 4 MiB, random bytes with their MD5
# recorded) into each, and read `ceph df detail`: **stored** is client data, **used** is raw space
# on the OSDs. Every pool this lab makes is named `lab01-…` and deleted in the last cell.

# %% tags=["nbval-ignore-output"]
from cephlab.lab import LabSession, wait_for_df, io_probe

lab = LabSession("01", min_osds=3)
c = lab.cluster
print(f"cluster {c.name}: {c.health()}, {len(c.ceph('osd', 'ls'))} OSDs")

OBJECTS, OBJECT_SIZE = 16, 4 * 2**20
MIB = 2**20
pools = {"replicated size 3": lab.replicated_pool("rep3", size=3, pg_num=16),
         "EC 2+1": lab.ec_pool("ec21", k=2, m=1, pg_num=16)}
model_schemes = {"replicated size 3": replicated(3), "EC 2+1": erasure(2, 1)}
manifests = {label: c.write_checked_objects(pool, count=OBJECTS, size=OBJECT_SIZE, prefix="data")
             for label, pool in pools.items()}
usage = {label: wait_for_df(c, pool, OBJECTS) for label, pool in pools.items()}
pd.DataFrame({label: {"stored MiB": u["stored"] / MIB, "used MiB": u["used"] / MIB, "objects": u["objects"]}
              for label, u in usage.items()}).T

# %% [markdown]
# ### Model vs measurement

# %% tags=["nbval-ignore-output"]
raw_usage = Comparison()
for label, u in usage.items():
    raw_usage.add(f"raw used, {label}", model=u["stored"] * model_schemes[label].raw_per_usable / MIB,
                  measured=u["used"] / MIB, unit="MiB", rel_tol=0.03,
                  why="BlueStore allocates 4 KiB units; 4 MiB objects split evenly, so no padding is expected")
raw_usage.table()[["model", "measured", "measured/model", "tolerance", "agrees"]]

# %%
fig, ax = plots.figure()
plots.bars_model_vs_measured(ax, list(usage), [r.model for r in raw_usage.rows],
                             [r.measured for r in raw_usage.rows], ylabel="raw MiB used for 64 MiB of data")
plots.show(fig)

# %%
raw_usage.assert_agree()

# %% [markdown]
# ## Measure: one OSD down — which pool still serves I/O?
#
# We stop one OSD (a clean shutdown, as for maintenance) and try to write and read a small object
# in a PG that has a shard on that OSD, with a 5-second timeout. Then we raise the EC pool's
# `min_size` to 3 (= k + m) and try again. The model predicts each outcome with `red.serves_io`.

# %% tags=["nbval-ignore-output"]
import time

DOWN = int(c.ceph("osd", "ls")[-1])          # the last OSD; any would do

def probe_name(pool, osd):
    """An object name whose PG has a shard on `osd` (CRUSH decides; we ask the cluster)."""
    for i in range(1000):
        name = f"probe-{i}"
        if osd in c.ceph("osd", "map", pool, name)["acting"]:
            return name
    raise RuntimeError(f"no object of {pool} maps to osd.{osd}")

def wait_peered(timeout=60):
    deadline = time.monotonic() + timeout
    while any("peering" in s or "unknown" in s for s in c.pg_states()) and time.monotonic() < deadline:
        time.sleep(1)

probes = {label: probe_name(pool, DOWN) for label, pool in pools.items()}
lab.stop_osd(DOWN)
wait_peered()
availability = []
for label, pool in pools.items():
    min_size = c.ceph("osd", "pool", "get", pool, "min_size")["min_size"]
    availability.append({"pool": label, "min_size": min_size,
                         "model serves I/O": bool(red.serves_io(model_schemes[label], failed=1)),
                         "measured": io_probe(c, pool, probes[label])})
c.ceph("osd", "pool", "set", pools["EC 2+1"], "min_size", "3")
wait_peered()
strict = erasure(2, 1, min_size=3)
availability.append({"pool": "EC 2+1", "min_size": 3, "model serves I/O": bool(red.serves_io(strict, failed=1)),
                     "measured": io_probe(c, pools["EC 2+1"], probes["EC 2+1"])})
c.ceph("osd", "pool", "set", pools["EC 2+1"], "min_size", "2")
availability = pd.DataFrame(availability)
availability

# %%
agree = (availability["model serves I/O"] == (availability["measured"] == "ok")).all()
assert agree, f"the min_size model and the cluster disagree:\n{availability}"
print("the model predicted every outcome: a PG serves I/O exactly while live shards >= min_size")

# %% [markdown]
# Now bring the OSD back. The PGs that missed writes while it was down catch up (recovery), and
# every object we wrote at the start must still have its checksum.

# %% tags=["nbval-ignore-output"]
lab.start_osd(DOWN)
c.wait_for_clean(timeout=180)
lost = {label: c.verify_objects(pools[label], manifests[label]) for label in pools}
lost

# %%
assert all(not bad for bad in lost.values()), f"objects lost or changed: {lost}"
print(f"all {OBJECTS * len(pools)} objects intact after the OSD came back")

# %% [markdown]
# ## What the model said, what the cluster did
#
# - **Raw space**: the model said 192 MiB (size 3) and 96 MiB (EC 2+1) for 64 MiB of data, and
#   `ceph df` agrees to within BlueStore's allocation rounding. Erasure coding halves the raw cost
#   of replication here, exactly as seed 000's "200 % vs 50 %" comparison says for 4+2.
# - **Availability**: with one OSD down, both pools kept serving I/O at their default `min_size`
#   (2 of 3 shards up). Raising the EC pool's `min_size` to 3 made its PG stop accepting I/O —
#   the data was safe, but Ceph would rather block than acknowledge a write held by too few
#   shards. Durability (the nines) and availability (`min_size`) are separate dials.
# - **Why the nines are a model, not a measurement**: a real cluster re-replicates in minutes
#   (lab 08), so its "replacement period" is the recovery time, and failures are not independent
#   (a host or a rack takes several disks at once — the reason for CRUSH failure domains, lab 02).

# %% [markdown]
# ## Clean up
# Restarts any OSD still stopped, reverts every config change and deletes the lab's pools.

# %% tags=["nbval-ignore-output"]
lab.cleanup()
