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
# - explain why small objects cost an EC pool far more than k/(k+m) suggests (stripe padding and
#   BlueStore's allocation unit), predict it for an object size you choose, and measure it;
# - explain with `min_size` why a pool keeps serving I/O, or stops, when an OSD goes down.
#
# **Prerequisites:** lab 00 (the daemons, objects, pools and PGs, the path of one write, and why
# Ceph is a CP system). New words are in the [glossary](../glossary.md).
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

# %% tags=["nbval-ignore-output"]
# Your learner id, once: leave "" on the course hub (it knows you), else type the id your instructor gave you.
from cephlab.course import params
LEARNER = params.learner_id("")
print(f"learner {LEARNER}: the exercises use this learner's numbers")

# %%
import numpy as np
import pandas as pd
import ipywidgets as W

from models import redundancy as red
from models.redundancy import replicated, erasure
from cephlab.display.widgets import LivePlot
from cephlab.helpers.compare import Comparison
from cephlab.helpers import conclusions
from cephlab.display import plots

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
# *survives*. A PG's *shards* are the pieces its OSDs hold: the copies of a replicated pool, the
# k + m chunks of an EC pool. A PG accepts reads and writes only while at least `min_size` of its
# shards are up;
# below that Ceph blocks the client rather than acknowledge a write that too few copies hold.
# That is the CP side of the CAP trade-off that seed 000 names: consistency over availability.
# The defaults, the same in Pacific, Reef and Tentacle (`osd_pool_default_min_size` is 0, "work
# it out"), are `min_size = size - size // 2` for replication (2 for size 3) and
# `k + min(1, m - 1)` for EC (Ceph source `src/mon/OSDMonitor.cc`, `prepare_pool_size`).
#
# Durability follows Backblaze's stripe model (B. Beach, *Backblaze durability calculator*,
# 2018). A *replacement period* is the time a failed disk's data stays missing. In one period, each
# disk fails with probability *p = AFR × days / 365*. A stripe of *n* shards is lost when more than
# *n − min_shards* of them fail within the same period. Here *min_shards* is the fewest shards that
# rebuild the data: 1 for replication, *k* for EC. The yearly loss probability compounds the
# periods: the stripe must survive each of the 365 / days periods of a year. Reference docs: Ceph *Erasure code* and
# *Pools* pages (docs.ceph.com, Pacific).
#
# **Small objects.** The 50 % of EC 4+2 holds for large objects only. An EC pool cuts an object
# into *stripes* of k × `stripe_unit` bytes (4 KiB per chunk by default,
# `osd_pool_erasure_code_stripe_unit`), and it pads the last stripe. BlueStore, the OSD's storage
# back end, then stores each of the k + m chunks in whole *allocation units*
# (`bluestore_min_alloc_size`). The unit is 4 KiB on HDD and SSD in Pacific, Reef and Tentacle,
# and was 64 KiB on HDD before Pacific; an OSD keeps the value it was created with. A 1 KiB object takes one 4 KiB unit on each of its 6 OSDs in EC 4+2:
# 24 KiB, where 3-way replication takes 12 KiB (Ceph docs, *Erasure code profiles* and
# *BlueStore configuration reference*). `red.allocated_bytes` computes it.

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

SCHEMES = [replicated(2), replicated(3), erasure(2, 1), erasure(4, 2), erasure(6, 3), erasure(17, 3)]
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
# `red.durability_nines`, `red.annual_loss_probability`, `red.serves_io`, `red.data_survives`),
# then run the check cell under it. The numbers in Q1-Q5 are your own (drawn for your learner
# id, in `P`): a neighbour's answers are wrong for your notebook.

# %% tags=["nbval-ignore-output"]
P = params.lab_params("01-redundancy")

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q1.** What is the overhead (raw / usable − 1, as a fraction) of an EC {q1_k}+{q1_m} pool?
Store it in `q1_overhead`.""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q1_overhead = erasure(P["q1_k"], P["q1_m"]).overhead  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(q1_overhead, float), "q1_overhead should be a number such as 0.5 (not a percentage string)"
assert not 1 <= q1_overhead < 2, "That is raw / usable itself: the overhead is only the extra raw space per usable byte, the part above one"
assert abs(q1_overhead * (P["q1_k"] + P["q1_m"]) / P["q1_m"] - 1) > 0.01, \
    "That is m / (k + m), the coding chunks' share of the raw space: the overhead compares the extra raw space with the usable space, not with all the raw"
assert 0 < q1_overhead < 1, "Overhead is extra raw space per usable byte, a fraction (not a percentage): fewer coding chunks than data chunks keep it below 1"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("01-redundancy")
assert abs(q1_overhead - _p["q1_m"] / _p["q1_k"]) < 1e-12 and 0 < q1_overhead < 1, \
    "The overhead is a fraction of the usable space: m coding chunks per k data chunks, with your k and m"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q2.** A cluster has {q2_raw_tb} TB of raw disk. How many TB of client data fit in an EC
{q2_k}+{q2_m} pool if you plan to fill it to {q2_fill_pct} % (Ceph's nearfull ratio is 85 %)? Store it in
`q2_usable_tb`.""", {**P, "q2_fill_pct": round(100 * P["q2_fill"])})

# %% [raw]
# # BEGIN SOLUTION

# %%
q2_usable_tb = red.usable_capacity(P["q2_raw_tb"], erasure(P["q2_k"], P["q2_m"]), fill_ratio=P["q2_fill"])  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(q2_usable_tb, (int, float)), "q2_usable_tb should be a number of TB"
assert P["q2_raw_tb"] / 3 < q2_usable_tb < P["q2_raw_tb"] * P["q2_fill"], \
    "EC stores less than the raw TB but more than 3-way replication would; and mind the planned fill"
assert q2_usable_tb < 0.9 * P["q2_raw_tb"] * P["q2_k"] / (P["q2_k"] + P["q2_m"]), \
    "Your TB fill the EC pool to the brim: keep only the planned fill of its usable capacity, to leave room before nearfull"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("01-redundancy")
assert abs(q2_usable_tb - _p["q2_raw_tb"] * _p["q2_k"] / (_p["q2_k"] + _p["q2_m"]) * _p["q2_fill"]) < 1e-6, \
    "Apply both factors exactly, with your numbers: divide the raw TB by (k + m) / k, then keep the planned fill of it"

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
params.show("""**Q3.** With disks of AFR {q3_afr_pct} % and a failed disk replaced after {q3_period}, how many
nines of annual durability do replicated size 3 and EC {q3_k}+{q3_m} give? Store them in `q3_nines_rep3` and
`q3_nines_ec`, and in `q3_more_durable` the label of the more durable one, the one less likely to lose
a stripe in a year (`red.annual_loss_probability`): `"replicated size 3"` or `"EC {q3_k}+{q3_m}"`.""",
            {**P, "q3_afr_pct": round(100 * P["q3_afr"]),
             "q3_period": "1 day" if P["q3_days"] == 1 else f"{P['q3_days']} days"})

# %% [raw]
# # BEGIN SOLUTION

# %%
q3_nines_rep3 = red.durability_nines(replicated(3), P["q3_afr"], P["q3_days"])  # SOLUTION
q3_nines_ec = red.durability_nines(erasure(P["q3_k"], P["q3_m"]), P["q3_afr"], P["q3_days"])  # SOLUTION
q3_more_durable = "replicated size 3" if red.annual_loss_probability(replicated(3), P["q3_afr"], P["q3_days"]) < red.annual_loss_probability(erasure(P["q3_k"], P["q3_m"]), P["q3_afr"], P["q3_days"]) else f"EC {P['q3_k']}+{P['q3_m']}"  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert all(float(x).is_integer() and 1 <= x <= 20 for x in (q3_nines_rep3, q3_nines_ec)), \
    "Nines are whole numbers between 1 and 20 here: use red.durability_nines with AFR as a fraction (0.05 for 5 %)"

# %%
assert q3_more_durable in ("replicated size 3", f"EC {P['q3_k']}+{P['q3_m']}"), "Store one of the two labels exactly"
assert q3_nines_rep3 == q3_nines_ec or (q3_more_durable == "replicated size 3") == (q3_nines_rep3 > q3_nines_ec), \
    "Your label should name the scheme with more nines (on a tie, the one with the lower annual loss probability)"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("01-redundancy")
_q3_schemes = (replicated(3), erasure(_p["q3_k"], _p["q3_m"]))
_q3_expected = tuple(red.durability_nines(s, _p["q3_afr"], _p["q3_days"]) for s in _q3_schemes)
assert (q3_nines_rep3, q3_nines_ec) == _q3_expected, "Call red.durability_nines with your AFR as a fraction (not a percentage) and your days, for both schemes"
_q3_loss = [red.annual_loss_probability(s, _p["q3_afr"], _p["q3_days"]) for s in _q3_schemes]
assert q3_more_durable == ("replicated size 3" if _q3_loss[0] < _q3_loss[1] else f"EC {_p['q3_k']}+{_p['q3_m']}"), \
    "Name the scheme with the lower annual loss probability, spelt as in the question"

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
params.show("""**Q4.** Before measuring: the measurement below writes {q4_objects} objects of {q4_object_mib} MiB
into an EC 2+1 pool. How many MiB of raw space will `ceph df` report as used for them? Store it in
`q4_ec21_used_mib`.""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q4_ec21_used_mib = P["q4_objects"] * P["q4_object_mib"] * erasure(2, 1).raw_per_usable  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert P["q4_objects"] * P["q4_object_mib"] < q4_ec21_used_mib < 3 * P["q4_objects"] * P["q4_object_mib"], \
    "Raw used is more than the MiB stored (there is a parity chunk) but less than 3 full copies"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("01-redundancy")
assert abs(q4_ec21_used_mib - _p["q4_objects"] * _p["q4_object_mib"] * 3 / 2) < 1e-9, \
    "The answer is in MiB of raw space: your objects' MiB of data times (k + m) / k, with no rounding"

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
params.show("""**Q5.** A PG of an EC {q5_k}+{q5_m} pool keeps its {q5_n} shards on {q5_n} OSDs, and {q5_down} down.
How many of its shards are still up (`q5_left`, a whole number)? Is its data still there, readable or
rebuildable (`q5_survives`)? Does it still serve writes with the default `min_size` (`q5_default`), and with
`min_size` {q5_n} (`q5_strict`)? Store booleans in the last three.""",
            {**P, "q5_n": P["q5_k"] + P["q5_m"],
             "q5_down": {1: "one of them goes", 2: "two of them go", 3: "three of them go"}[P["q5_failed"]]})

# %% [raw]
# # BEGIN SOLUTION

# %%
q5_left = P["q5_k"] + P["q5_m"] - P["q5_failed"]  # SOLUTION
q5_survives = red.data_survives(erasure(P["q5_k"], P["q5_m"]), failed=P["q5_failed"])  # SOLUTION
q5_default = red.serves_io(erasure(P["q5_k"], P["q5_m"]), failed=P["q5_failed"])  # SOLUTION
q5_strict = red.serves_io(erasure(P["q5_k"], P["q5_m"], min_size=P["q5_k"] + P["q5_m"]), failed=P["q5_failed"])  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert int(q5_left) == q5_left and 0 <= q5_left <= P["q5_k"] + P["q5_m"], "Count the shards whose OSDs are still up"
assert all(isinstance(x, (bool, np.bool_)) for x in (q5_survives, q5_default, q5_strict)), "Store three booleans (True/False)"
assert not (q5_strict and not q5_default), "Raising min_size can only make a PG stop serving sooner, never keep serving longer"
assert not (q5_default and not q5_survives), "A PG that serves I/O has its data: min_size is never below k"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("01-redundancy")
assert all(isinstance(x, (bool, np.bool_)) for x in (q5_survives, q5_default, q5_strict)), \
    "Store booleans (True/False) as red.serves_io and red.data_survives return them, not strings or numbers"
_q5_ec = erasure(_p["q5_k"], _p["q5_m"])
assert q5_left == _q5_ec.size - _p["q5_failed"] and bool(q5_survives) == bool(red.data_survives(_q5_ec, _p["q5_failed"])), \
    "Your shards left are k + m minus the ones down; the data survives while no more than m shards are lost"
assert (bool(q5_default), bool(q5_strict)) == (bool(red.serves_io(_q5_ec, _p["q5_failed"])), False), \
    "A PG serves writes while its live shards reach min_size: k + 1 by default when m >= 2 (k when m = 1), and k + m allows no lost shard"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q6
# points: 2
# all_or_nothing: true

# %% [markdown]
# **Q6. Your experiment: small objects.** Choose an object size in bytes, from 512 to 65,536, and
# store it in `my_object_bytes`; not a multiple of 4 KiB, since padding is what it measures. EC 2+1
# cuts an object into stripes of 8 KiB. Padding costs it more than it costs the size-3 pool only
# when the part after the whole stripes, `my_object_bytes % 8192`, is 1 to 4095 bytes (1000 or
# 10000, say). With any other size EC 2+1 saves as much as it does on large objects. The
# measurement below writes 16 objects of that size into a size-3 pool and into an EC 2+1 pool.
# Before it runs, predict with `red.allocated_bytes` the raw KiB each pool will use for those 16
# objects: store `q6_rep3_kib` and `q6_ec21_kib`.

# %% [raw]
# # BEGIN SOLUTION

# %%
my_object_bytes = 1000  # SOLUTION
q6_rep3_kib = 16 * red.allocated_bytes(my_object_bytes, replicated(3)) / 1024  # SOLUTION
q6_ec21_kib = 16 * red.allocated_bytes(my_object_bytes, erasure(2, 1)) / 1024  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(my_object_bytes, (int, np.integer)) and not isinstance(my_object_bytes, bool) and 512 <= my_object_bytes <= 65536 and my_object_bytes % 4096 != 0, \
    "Choose a whole number of bytes from 512 to 65536, not a multiple of 4 KiB (such a size needs no padding, so it shows nothing)"

# %%
assert not (3 * 4 <= q6_rep3_kib < 16 * my_object_bytes * 3 / 1024 or 3 * 4 <= q6_ec21_kib < 16 * my_object_bytes * 1.5 / 1024), \
    "For all the objects, not one: each pool's raw KiB add up the 16 objects the measurement writes"
assert q6_ec21_kib >= 16 * my_object_bytes * 1.5 / 1024 and q6_rep3_kib >= 16 * my_object_bytes * 3 / 1024, \
    "Padding and allocation never make an object take less than its size times raw/usable"
assert min(q6_rep3_kib, q6_ec21_kib) >= 16 * 3 * 4, \
    "Padding: every copy, and every EC chunk, takes at least one whole 4 KiB allocation unit, however small the object"
assert q6_ec21_kib % 4 == 0 and q6_rep3_kib % 4 == 0, "BlueStore allocates whole 4 KiB units: raw KiB is a multiple of 4"

# %%
# HIDDEN
assert q6_rep3_kib == 16 * red.allocated_bytes(my_object_bytes, replicated(3)) / 1024, "Size 3: three copies, each rounded up to 4 KiB units"
assert q6_ec21_kib == 16 * red.allocated_bytes(my_object_bytes, erasure(2, 1)) / 1024, "EC 2+1: pad to 8 KiB stripes, 3 chunks of a 4 KiB unit each per stripe"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# ## Measure: the same data in a size-3 pool and an EC 2+1 pool
#
# We create two pools, write the same data into each (your Q4 objects: random bytes with their
# MD5 checksum recorded), and read `ceph df detail`: **stored** is client data, **used** is raw space on
# the OSDs. Every pool this lab makes is named `lab01-…` and deleted in the last cell.

# %% tags=["nbval-ignore-output"]
from cephlab.helpers import experiment
from cephlab.helpers.lab import LabSession, wait_for_df, io_probe
from cephlab.helpers.placement import object_on_osd, wait_peered

lab = LabSession("01", min_osds=3)
c = lab.cluster
print(f"cluster {c.name}: {c.health()}, {len(c.ceph('osd', 'ls'))} OSDs")

MIB = 2**20
OBJECTS, OBJECT_SIZE = P["q4_objects"], P["q4_object_mib"] * MIB      # Q4's objects
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
# the negative control of each row: the other scheme's raw/usable (3 for EC, 1.5 for replication)
WRONG = {"replicated size 3": erasure(2, 1), "EC 2+1": replicated(3)}
raw_usage = Comparison()
for label, u in usage.items():
    raw_usage.add(f"raw used, {label}", model=u["stored"] * model_schemes[label].raw_per_usable / MIB,
                  measured=u["used"] / MIB, unit="MiB", rel_tol=0.03,
                  why="BlueStore allocates 4 KiB units; objects of whole MiB split evenly, so no padding is expected; "
                      "the 3 % covers df's rounding of a pool still settling",
                  control=(f"stored as {WRONG[label].label}", u["stored"] * WRONG[label].raw_per_usable / MIB))
raw_usage.table()[["model", "measured", "measured/model", "tolerance", "agrees", "control", "control fails"]]

# %%
fig, ax = plots.figure()
plots.bars_model_vs_measured(ax, list(usage), [r.model for r in raw_usage.rows],
                             [r.measured for r in raw_usage.rows],
                             ylabel=f"raw MiB used for {OBJECTS * OBJECT_SIZE / MIB:.0f} MiB of data")
plots.show(fig)

# %%
raw_usage.assert_agree()

# %% [markdown]
# ### Your small objects (Q6)
# 16 objects of the size you chose go into both pools; the raw space they add is what `ceph df`
# reports after minus before. The model is exact here (whole stripes, whole allocation units),
# so the tolerance is zero; its negative control is the padding-blind model, stored × raw/usable.

# %% tags=["nbval-ignore-output"]
SMALL = 16
size = experiment.choice(my_object_bytes, 1000, "my_object_bytes (Q6)", lab="01")
small_manifests = {label: c.write_checked_objects(pool, count=SMALL, size=size, prefix="small")
                   for label, pool in pools.items()}
after = {label: wait_for_df(c, pool, OBJECTS + SMALL) for label, pool in pools.items()}
small_cmp = Comparison()
for label, scheme in model_schemes.items():
    small_cmp.add(f"raw KiB for {SMALL} x {size} B, {label}",
                  model=SMALL * red.allocated_bytes(size, scheme) / 1024,
                  measured=(after[label]["used"] - usage[label]["used"]) / 1024, unit="KiB", rel_tol=0.0,
                  why="stripes and allocation units are whole numbers: nothing is estimated",
                  control=("no padding", SMALL * size * scheme.raw_per_usable / 1024))
your = {"replicated size 3": globals().get("q6_rep3_kib"), "EC 2+1": globals().get("q6_ec21_kib")}
table = small_cmp.table()[["model", "measured", "tolerance", "agrees", "control", "control fails"]]
table.insert(0, "your prediction", [your[label] if isinstance(your[label], (int, float)) else None
                                    for label in model_schemes])
run = experiment.RunFigures()
run.record(ec_saving=small_cmp.rows[0].measured / small_cmp.rows[1].measured)
table

# %%
small_cmp.assert_agree()

# %% [markdown]
# **Your gap.** For large objects EC 2+1 needs half the raw space of size 3 (3 / 1.5 = 2x). Read
# your run: how many times more raw space did size 3 take than EC 2+1 for *your* objects? Store
# `my_ec_saving` (size 3's measured KiB / EC 2+1's measured KiB) and run the check.

# %%
my_ec_saving = small_cmp.rows[0].measured / small_cmp.rows[1].measured  # SOLUTION
run.check("my_ec_saving", my_ec_saving, "ec_saving",
          hint="divide the measured raw KiB of the size-3 pool by that of the EC 2+1 pool, for your 16 objects")

# %% [markdown]
# **W1. Why do small objects cost an EC pool more than k/(k+m) suggests?** Answer in two or three
# sentences with your object size and your two measured figures (graded by hand).
#
# *Your answer:*

# %% [markdown]
# ## Measure: one OSD down — which pool still serves I/O?
#
# We stop one OSD (a clean shutdown, as for maintenance) and try to write and read a small object
# in a PG that has a shard on that OSD, with a 5-second timeout. Then we raise the EC pool's
# `min_size` to 3 (= k + m) and try again. The model predicts each outcome with `red.serves_io`.

# %% tags=["nbval-ignore-output"]
DOWN = int(c.ceph("osd", "ls")[-1])          # the last OSD; any would do

probes = {label: object_on_osd(c, pool, DOWN) for label, pool in pools.items()}
lab.stop_osd(DOWN)
wait_peered(c)
availability = []
for label, pool in pools.items():
    min_size = c.ceph("osd", "pool", "get", pool, "min_size")["min_size"]
    availability.append({"pool": label, "min_size": min_size,
                         "model serves I/O": bool(red.serves_io(model_schemes[label], failed=1)),
                         "measured": io_probe(c, pool, probes[label])})
c.ceph("osd", "pool", "set", pools["EC 2+1"], "min_size", "3")
wait_peered(c)
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
lost = {label: c.verify_objects(pools[label], {**manifests[label], **small_manifests[label]}) for label in pools}
lost

# %%
assert all(not bad for bad in lost.values()), f"objects lost or changed: {lost}"
print(f"all {(OBJECTS + SMALL) * len(pools)} objects intact after the OSD came back")

# %% [markdown]
# ## What the model said, what the cluster did
#
# The figures in the next cell are your run's. For large objects erasure coding costs what
# k/(k+m) says, the "200 % vs 50 %" of seed 000; for small ones stripe padding and whole 4 KiB
# allocation units can erase the saving. With one OSD down a PG serves I/O exactly while its live
# shards reach `min_size`: raising the EC pool's `min_size` to k + m made it block rather than
# acknowledge a write held by too few shards. Durability (the nines) and availability
# (`min_size`) are separate dials. The nines stay a model, not a measurement. A real cluster
# re-replicates in minutes (lab 08), so its "replacement period" is the recovery time. And failures
# are not independent: a host or a rack takes several disks at once, the reason for CRUSH failure
# domains (lab 02).

# %% tags=["nbval-ignore-output"]
rows = {r.quantity: r for r in raw_usage.rows}
small_rows = {r.quantity.rsplit(", ", 1)[1]: r for r in small_cmp.rows}
serving = {(row["pool"], row["min_size"]): row["measured"] for _, row in availability.iterrows()}
conclusions.render("""
- **Raw space, {big} MiB objects.** Size 3 used {rep:.1f} MiB and EC 2+1 {ec:.1f} MiB for the same
  {stored:.0f} MiB (model {rep_model:.1f} and {ec_model:.1f}).
- **Raw space, {size} B objects.** {small} objects took {srep:.0f} KiB in size 3 and {sec:.0f} KiB in
  EC 2+1: EC saved {saving:.0%} of replication's raw space, against 50 % for large objects.
- **Availability.** With osd.{down} down, size 3 answered "{rep_io}", EC 2+1 "{ec_io}" at its
  default `min_size`, and "{strict_io}" at `min_size` 3.
""", big=OBJECT_SIZE // MIB, rep=rows["raw used, replicated size 3"].measured, ec=rows["raw used, EC 2+1"].measured,
    stored=usage["EC 2+1"]["stored"] / MIB, rep_model=rows["raw used, replicated size 3"].model,
    ec_model=rows["raw used, EC 2+1"].model, size=size, small=SMALL,
    srep=small_rows["replicated size 3"].measured, sec=small_rows["EC 2+1"].measured,
    saving=1 - small_rows["EC 2+1"].measured / small_rows["replicated size 3"].measured, down=DOWN,
    rep_io=serving[("replicated size 3", 2)], ec_io=serving[("EC 2+1", 2)], strict_io=serving[("EC 2+1", 3)])

# %% [markdown]
# **W2. A PG of your EC 2+1 pool kept (or stopped) serving I/O with one OSD down. Why?** Use the
# `min_size` values and the outcomes of your run (graded by hand).
#
# *Your answer:*

# %% [markdown]
# ## Clean up
# Restarts any OSD still stopped, reverts every config change and deletes the lab's pools.

# %% tags=["nbval-ignore-output"]
lab.cleanup()
