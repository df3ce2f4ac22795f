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
# # Lab 06 — Capacity: how much to buy, and how much you can fill
#
# **Objectives.** After this lab you can
# - size a block-storage pool with seed 004's rule C_total = N_vm × C_per_vm / (thin_ratio × 0.7)
#   and say what each of its assumptions means;
# - measure thin provisioning on RBD images: provisioned vs used, and the thin ratio;
# - name Ceph's fill thresholds (nearfull 0.85, backfillfull 0.90, full 0.95) and what each does;
# - compute a pool's MAX AVAIL the way `ceph df` does, and explain why "one OSD full = cluster
#   full" makes the fullest OSD, not the average, decide how much you can store.
#
# **Prerequisites:** lab 01 (replicated and EC pools, and the raw space `ceph df` reports) and
# lab 02 (PGs, CRUSH weights, and how unevenly PGs spread over OSDs). New words are in the
# [glossary](../glossary.md).
#
# **You need:** the lab cluster (3 OSDs or more; `make lab` starts it). The lab lowers the
# cluster's full ratios for a minute and restores them at the end. About 1 minute.

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

from models import capacity as cap
from models import placement as pl
from models.redundancy import replicated, erasure
from cephlab.display.widgets import LivePlot
from cephlab.helpers.compare import Comparison
from cephlab.display import plots

pd.set_option("display.precision", 3)
GIB, MIB = 2**30, 2**20

# %% [markdown]
# ## Background
#
# Qihoo 360 ran Ceph RBD (RADOS block devices: virtual disks stored as objects in a pool) for
# thousands of virtual machines (seed 004, Xu Xuehan, *Ceph Goes Online at Qihoo 360*, Cephalocon
# APAC 2018). Two lines of their slides are this lab:
#
# - **Capacity requirement prediction:** C_total = (N_vm × C_per_vm) / (thin_ratio × 0.7).
#   RBD images are *thin*: a 100 GiB disk takes space only where the guest has written, so the
#   thin ratio (provisioned / really used) lets you sell more than you own. The 0.7 keeps the
#   cluster at 70 % when everything promised is in use.
# - **One OSD full == cluster full.** Ceph checks fill per OSD. An OSD above the *nearfull* ratio
#   (0.85) raises a health warning. Above *backfillfull* (0.90) it refuses to receive *backfill*
#   (PGs moved to it whole: `backfill_toofull`). Log-based recovery of PGs it already holds, which
#   copies only the objects that changed, goes on. Above *full* (0.95) recovery stops too
#   (`recovery_toofull`), and the cluster stops accepting writes to every pool that uses it.
#   (Sources: Ceph docs, *Monitor config reference — storage capacity*; `mon_osd_nearfull_ratio`
#   etc. in `src/common/options.cc`, v16.2.15, the same defaults in Reef and Tentacle.) The options only
#   seed the OSD map when the cluster is made; `ceph osd set-nearfull-ratio`,
#   `set-backfillfull-ratio` and `set-full-ratio` change the ratios the cluster uses, as this lab
#   does. Because CRUSH spreads data only roughly evenly (lab 02),
#   the fullest OSD reaches 0.95 while the average is lower: the rest of the space is stranded.
#
# Why 0.7 and not 0.85? Headroom for failure: when a host dies, its data is re-replicated onto
# the survivors, whose fill rises by hosts / (hosts − 1); that must still fit under the
# backfillfull ratio, with growth on top. `ceph df` reports, per pool, **MAX AVAIL**: how much
# more client data fits before the first OSD under the pool's rule hits the full ratio
# (`PGMap::get_rule_avail` in `src/mon/PGMap.cc`, v16.2.15), which is `models.capacity.max_avail`.

# %% [markdown]
# ## The model
#
# Seed 004's rule for 1,000 VMs of 100 GiB each, at a few thin ratios, and the raw disk that
# means for replicated size 3 and for EC 4+2:

# %%
def sizing_table(n_vms=1000, gib_per_vm=100, thin_ratios=(1.0, 1.5, 2.0, 3.0)):
    rows = []
    for thin in thin_ratios:
        usable = cap.required_capacity(n_vms, gib_per_vm, thin) / 1024
        rows.append({"thin ratio": thin, "written TiB": n_vms * gib_per_vm / thin / 1024,
                     "usable to buy TiB": usable,
                     "raw TiB, size 3": cap.raw_capacity(usable, replicated(3)),
                     "raw TiB, EC 4+2": cap.raw_capacity(usable, erasure(4, 2))})
    return pd.DataFrame(rows).set_index("thin ratio")

sizing_table()

# %% [markdown]
# Ceph's names for the fill level of one OSD (`cap.fill_state`) and what it stops:

# %%
pd.DataFrame({"fill": [0.70, 0.86, 0.91, 0.96],
              "state": [cap.fill_state(f) for f in (0.70, 0.86, 0.91, 0.96)],
              "what Ceph does": ["nothing", "HEALTH_WARN OSD_NEARFULL",
                                 "no backfill into this OSD (log recovery goes on)", "no client writes to its pools"]}
             ).set_index("fill")

# %% [markdown]
# "One OSD full = cluster full" on four 8 GiB OSDs (the lab cluster's size) when the data
# spreads like 19 : 28 : 26 : 23 PGs, against a perfectly even spread (`cap.usable_before_full`):

# %%
def one_full_table(shares_by_case, sizes=(8, 8, 8, 8), scheme=replicated(3)):
    rows = {}
    for case, shares in shares_by_case.items():
        r = cap.usable_before_full(np.array(sizes, float), np.array(shares, float), scheme)
        rows[case] = {"usable GiB at first full OSD": r.usable, "raw stored GiB": r.raw_stored,
                      "stranded by imbalance %": 100 * r.stranded_fraction,
                      "fills first": f"osd.{r.fullest_osd}"}
    return pd.DataFrame(rows).T

one_full_table({"even spread": [1, 1, 1, 1], "19:28:26:23 PGs": [19, 28, 26, 23]})

# %% [markdown]
# ### Plan your own cluster
# The seed's rule as sliders: how much usable and raw capacity N VMs need. Move the fill ratio
# towards 0.85 and watch how little you save compared with the risk you take.

# %% tags=["nbval-ignore-output"]
N_VMS = np.linspace(0, 5000, 200)

def sizing_readout(gib_per_vm, thin, fill, size):
    usable = cap.required_capacity(N_VMS[-1], gib_per_vm, thin, fill) / 1024
    raw = cap.raw_capacity(usable, replicated(size))
    lost_host = fill * 10 / 9
    return (f"{N_VMS[-1]:.0f} VMs: buy {usable:.0f} TiB usable = {raw:.0f} TiB raw (size {size}). "
            f"After losing 1 of 10 hosts the fill is {lost_host:.2f} ({cap.fill_state(min(lost_host, 1.0))})")

sizing_plot = LivePlot(
    x=N_VMS, xlabel="virtual machines", ylabel="TiB",
    curves={"usable (seed 004)": lambda x, gib_per_vm, thin, fill, size:
                cap.required_capacity(x, gib_per_vm, thin, fill) / 1024,
            "raw": lambda x, gib_per_vm, thin, fill, size:
                cap.raw_capacity(cap.required_capacity(x, gib_per_vm, thin, fill) / 1024, replicated(size))},
    controls={"gib_per_vm": W.IntSlider(value=100, min=10, max=1000, step=10, description="GiB/VM"),
              "thin": W.FloatSlider(value=2.0, min=1.0, max=5.0, step=0.1, description="thin ratio"),
              "fill": W.FloatSlider(value=0.7, min=0.5, max=0.95, step=0.01, description="fill"),
              "size": W.IntSlider(value=3, min=1, max=4, description="size")},
    readout=sizing_readout)
sizing_plot

# %% [markdown]
# ### The fullest OSD decides
# Usable share of the raw space before the first OSD passes the full ratio, when PGs spread as
# lab 02's model says: few PGs per OSD strand a lot of space.

# %% tags=["nbval-ignore-output"]
PGS = np.unique(np.geomspace(8, 4096, 200).astype(int))
imbalance_plot = LivePlot(
    x=PGS, xlabel="pg_num", ylabel="share of raw space fillable", logx=True, ylim=(0.5, 1.0),
    curves={"fillable at full ratio": lambda x, osds, full:
                cap.usable_with_imbalance(1.0, replicated(1), pl.fullest_factor(x, 3, osds, fast=True), full)},
    controls={"osds": W.IntSlider(value=4, min=3, max=200, description="OSDs"),
              "full": W.FloatSlider(value=0.95, min=0.7, max=0.99, step=0.01, description="full ratio")},
    readout=lambda osds, full: (f"{osds} OSDs, size 3: with 100 PGs per OSD "
                                f"({int(100 * osds / 3)} PGs) you can fill "
                                f"{cap.usable_with_imbalance(1.0, replicated(1), pl.fullest_factor(max(int(100 * osds / 3), 1), 3, osds), full):.1%} of the raw space"))
imbalance_plot

# %% [markdown]
# ## Exercises
# Use `cap.required_capacity`, `cap.raw_capacity`, `cap.fill_state`, `cap.usable_before_full`
# and the thresholds `cap.NEARFULL`, `cap.BACKFILLFULL`, `cap.FULL`. The numbers in Q1, Q3 and Q4
# are your own (drawn for your learner id, in `P`): a neighbour's answers are wrong for your
# notebook.

# %% tags=["nbval-ignore-output"]
P = params.lab_params("06-capacity")

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q1.** {q1_vms} VMs with {q1_disk_gib} GiB disks each, thin ratio {q1_thin}, seed 004's 0.7 fill. How many
GiB of usable capacity should you buy, and how many GiB of raw disk is that in a size-{q1_size} pool? Store
them in `q1_usable_gib` and `q1_raw_gib`.""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q1_usable_gib = cap.required_capacity(P["q1_vms"], P["q1_disk_gib"], P["q1_thin"])  # SOLUTION
q1_raw_gib = cap.raw_capacity(q1_usable_gib, replicated(P["q1_size"]))  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert P["q1_vms"] * P["q1_disk_gib"] / P["q1_thin"] < q1_usable_gib < P["q1_vms"] * P["q1_disk_gib"], \
    "In GiB: more than the thin-provisioned data (the 0.7 fill leaves headroom), less than every VM disk full"
assert q1_usable_gib > 1.2 * P["q1_vms"] * P["q1_disk_gib"] / P["q1_thin"], \
    "Your capacity holds little more than the thin-provisioned data: with the 0.7 fill the data may take only 70 % of what you buy, so divide by 0.7"
assert q1_usable_gib < q1_raw_gib < 10 * q1_usable_gib, "Raw space is usable space times the replica count"
assert P["q1_size"] == 3 or abs(q1_raw_gib - 3 * q1_usable_gib) > 1e-6 * q1_raw_gib, \
    "Your raw space holds 3 copies of the usable space, but this pool's size is not 3: it keeps as many copies as its size"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("06-capacity")
assert abs(q1_usable_gib - _p["q1_vms"] * _p["q1_disk_gib"] / (_p["q1_thin"] * 0.7)) < 1e-6 \
    and abs(q1_raw_gib - _p["q1_size"] * q1_usable_gib) < 1e-6, \
    "With your VMs, disks, thin ratio and size: keep the units in GiB and apply the 0.7 fill exactly once"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 1
# all_or_nothing: true

# %% [markdown]
# **Q2.** One OSD is 87 % full, another 93 %. What does Ceph call each state? Store the names
# (strings, as `cap.fill_state` returns them) in `q2_at_87` and `q2_at_93`.

# %% [raw]
# # BEGIN SOLUTION

# %%
q2_at_87 = cap.fill_state(0.87)  # SOLUTION
q2_at_93 = cap.fill_state(0.93)  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert {q2_at_87, q2_at_93} <= {"ok", "nearfull", "backfillfull", "full"}, "Store the names exactly as cap.fill_state returns them"
assert q2_at_87 != q2_at_93 and q2_at_87 != "full", "The two OSDs are past different thresholds: compare each fill with the ratios Ceph checks, in the order it checks them"

# %%
# HIDDEN
assert isinstance(q2_at_87, str) and (q2_at_87, q2_at_93) == (cap.fill_state(0.87), cap.fill_state(0.93)), "Store the names exactly as cap.fill_state returns them"

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
params.show("""**Q3.** Four {q3_osd_gib} GiB OSDs hold a size-3 pool of 32 PGs whose copies spread {q3_spread} over them.
How many GiB of client data fit before the first OSD reaches the full ratio? Store it in `q3_usable_gib`, and
in `q3_stranded` the fraction of the fillable space (0.95 × raw) left empty by the imbalance.""",
            {**P, "q3_spread": " : ".join(map(str, P["q3_pgs"]))})

# %% [raw]
# # BEGIN SOLUTION

# %%
q3_usable_gib = cap.usable_before_full([P["q3_osd_gib"]] * 4, list(P["q3_pgs"]), replicated(3)).usable  # SOLUTION
q3_stranded = cap.usable_before_full([P["q3_osd_gib"]] * 4, list(P["q3_pgs"]), replicated(3)).stranded_fraction  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert 0 < q3_usable_gib < 0.95 * 4 * P["q3_osd_gib"] / 3, "Client GiB: less than an even spread would hold (the fullest OSD fills first), and 3 copies each"
assert q3_usable_gib < 0.97 * 0.95 * 4 * P["q3_osd_gib"] / 3, \
    "Your GiB fit an even spread: with these PG counts the fullest OSD reaches the full ratio first, while the others still have room"

# %%
assert 0 < q3_stranded < 1, "A fraction of the fillable space (not a percentage): compare with an even spread"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("06-capacity")
_share = max(_p["q3_pgs"]) / sum(_p["q3_pgs"])         # the fullest OSD's share of the copies
assert abs(q3_usable_gib - 0.95 * _p["q3_osd_gib"] / _share / 3) < 1e-9 and abs(q3_stranded - (1 - 0.25 / _share)) < 1e-9, \
    "Use your PG counts as the shares, your OSD size, the default full ratio 0.95 and 3 copies"

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
params.show("""**Q4.** A cluster has {q4_hosts} equal hosts. When one fails, its data is re-replicated onto the other
{q4_survivors}. What is the highest planning fill such that the survivors stay at or below the nearfull
ratio afterwards? Store it in `q4_max_fill`. Is seed 004's 0.7 below it? Store `True` or
`False` in `q4_seed_is_safe`.""", {**P, "q4_survivors": P["q4_hosts"] - 1})

# %% [raw]
# # BEGIN SOLUTION

# %%
q4_max_fill = cap.NEARFULL * (P["q4_hosts"] - 1) / P["q4_hosts"]  # SOLUTION
q4_seed_is_safe = cap.PLANNING_FILL <= q4_max_fill  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert 0 < q4_max_fill < cap.NEARFULL, "A fill ratio below nearfull: the same data on one host fewer fills each survivor more"
assert q4_max_fill < 0.9 * (P["q4_hosts"] - 1) / P["q4_hosts"], \
    "Your fill lets the survivors fill up completely: they must stay at or below the nearfull ratio once they hold the failed host's data too"
assert isinstance(q4_seed_is_safe, (bool, np.bool_)) and q4_seed_is_safe == (0.7 <= q4_max_fill), "Store a boolean: compare 0.7 with your answer"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("06-capacity")
_max = cap.NEARFULL * (_p["q4_hosts"] - 1) / _p["q4_hosts"]
assert abs(q4_max_fill - _max) < 1e-12 and bool(q4_seed_is_safe) is (0.7 <= _max), \
    "Scale the nearfull ratio by survivors / hosts exactly, with your number of hosts, and store a boolean"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# **W1. Why does "one OSD full = cluster full" make the fullest OSD, not the average, decide what you
# can store?** Answer in two or three sentences, with your stranded fraction from Q3 (graded by hand).
#
# *Your answer:*

# %% [raw]
# # BEGIN QUESTION
# name: q5
# points: 2
# all_or_nothing: true

# %% [markdown]
# **Q5. Your experiment: how much you write.** Measure 3 below writes objects of 4 MiB into a
# size-3 pool and reads the pool's MAX AVAIL before and after. Choose how many objects, a whole
# number from 48 to 160, and store it in `my_objects`. Then predict by how many MiB MAX AVAIL falls
# if your data spreads over the OSDs exactly as their CRUSH weights say.
#
# Use `cap.max_avail` on four equal OSDs of any size and fill, in bytes (`8 * GIB`, say, with
# `300 * MIB` used).
# Store its result before your writes in `q5_avail_before` (bytes). Your writes add raw bytes to the OSDs:
# copies × objects × 4 MiB, spread evenly, so each of the four OSDs' used bytes grows by a quarter
# of that. Store MAX AVAIL after the writes in `q5_avail_after` (bytes). Store the fall in MiB (a
# number) in `q5_avail_drop_mib`.

# %% [raw]
# # BEGIN SOLUTION

# %%
my_objects = 96  # SOLUTION
q5_avail_before = cap.max_avail([8 * GIB] * 4, [1] * 4, replicated(3), 300 * MIB)  # SOLUTION
q5_avail_after = cap.max_avail([8 * GIB] * 4, [1] * 4, replicated(3), 300 * MIB + 3 * my_objects * 4 * MIB / 4)  # SOLUTION
q5_avail_drop_mib = (q5_avail_before - q5_avail_after) / MIB  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(my_objects, (int, np.integer)) and not isinstance(my_objects, bool) and 48 <= my_objects <= 160, "Choose a whole number of objects from 48 to 160"

# %%
assert 0 < q5_avail_drop_mib < 100 * my_objects, \
    "In MiB, a drop (before minus after): think about what MAX AVAIL counts, the client's data or the raw space its copies take"
assert q5_avail_drop_mib < 2 * 4 * my_objects, \
    "Your drop counts every copy's raw space: MAX AVAIL is already divided by the pool's size, it is what clients can still store"
assert q5_avail_drop_mib > 2 * my_objects, \
    "Your osd_used grew by one copy of each object only: each OSD stores its share of every copy (copies x objects x 4 MiB), and MAX AVAIL divides by the copies after that"
assert q5_avail_before > q5_avail_after > 0 and \
    abs((q5_avail_before - q5_avail_after) / 2**20 - q5_avail_drop_mib) <= 1e-6 * abs(q5_avail_drop_mib), \
    "q5_avail_before and q5_avail_after are MAX AVAIL in bytes, before and after: q5_avail_drop_mib is their difference in MiB"

# %%
# HIDDEN
assert abs(q5_avail_drop_mib - 4 * my_objects) < 1e-6 * my_objects, "Spread by weight, every OSD's room over its share falls by 3 x the data, and MAX AVAIL divides by 3 copies"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# ## Measure 1: thin provisioning
#
# We create a size-3 RBD pool with three 1 GiB images and write 4, 8 and 16 MiB of random data
# to them (whole 4 MiB RBD objects, 1 MiB at a time, through librbd). `rbd du` reports each
# image's provisioned and used size; `ceph df` the pool's stored and raw used bytes.

# %% tags=["nbval-ignore-output"]
import json
import os
import subprocess
import time

import rbd
from cephlab.helpers.lab import LabSession, wait_for_df
from cephlab.helpers.capacity import osd_usage, steady_max_avail, wait_for_data, wait_for_nearfull
from cephlab.helpers.placement import crush_snapshot, pgs_per_osd

lab = LabSession("06", min_osds=3)
c = lab.cluster
rbd_pool = lab.replicated_pool("rbd", size=3, pg_num=32, application="rbd")
WRITE_MIB = {"vm0": 4, "vm1": 8, "vm2": 16}
chunk = os.urandom(MIB)
with c.ioctx(rbd_pool) as ioctx:
    for image, mib in WRITE_MIB.items():
        lab.rbd_image(rbd_pool, image, 1024)
        with rbd.Image(ioctx, image) as img:
            for offset in range(mib):
                img.write(chunk, offset * MIB)

du = json.loads(subprocess.run(["rbd", "-c", c.conf, "du", "-p", rbd_pool, "--format", "json"],
                               capture_output=True, text=True, check=True).stdout)
thin = pd.DataFrame([{"image": i["name"], "provisioned MiB": i["provisioned_size"] / MIB,
                      "used MiB": i["used_size"] / MIB, "written MiB": WRITE_MIB[i["name"]],
                      "thin ratio": i["provisioned_size"] / i["used_size"]} for i in du["images"]]).set_index("image")
written = sum(WRITE_MIB.values()) * MIB
deadline = time.monotonic() + 60
pool_df = wait_for_df(c, rbd_pool, objects=sum(WRITE_MIB.values()) // 4)
while pool_df["stored"] < written and time.monotonic() < deadline:   # stats lag the writes
    time.sleep(1)
    pool_df = c.df()[rbd_pool]
print(f"total: provisioned {du['total_provisioned_size'] / MIB:.0f} MiB, used "
      f"{du['total_used_size'] / MIB:.0f} MiB, thin ratio "
      f"{du['total_provisioned_size'] / du['total_used_size']:.0f}; ceph df: stored "
      f"{pool_df['stored'] / MIB:.1f} MiB, raw used {pool_df['used'] / MIB:.1f} MiB")
thin

# %% [markdown]
# ## Measure 2: MAX AVAIL, computed as `ceph df` does
#
# `ceph osd df` gives each OSD's size, use and CRUSH weight. Fed into `cap.max_avail` with the
# full ratio from the OSD map, the model should give `ceph df`'s MAX AVAIL for the pool. Then we
# feed it the pool's real PG counts per OSD instead of the weights: that is how much you could
# really store, because data follows PGs, not weights.
#
# **Used is not data.** The table has two MiB columns per OSD. `data MiB` is the bytes of the
# objects the OSD stores. `used MiB` is all the space the OSD has taken on its device. It also
# holds BlueStore's own metadata: its RocksDB database and RocksDB's write-ahead log. They live in
# BlueFS, a small file system BlueStore keeps on the same device. `ceph osd df` shows that part in
# its OMAP and META columns. An OSD takes this space before it stores any object, so its fill
# never starts at 0 %. The full ratios and MAX AVAIL count it as used, like data.

# %% tags=["nbval-ignore-output"]
ratios = lab.full_ratios()
df_avail, usage = steady_max_avail(c, rbd_pool)
pg_share = pgs_per_osd(c, rbd_pool, usage.index)
avail_weights = cap.max_avail(usage["size"], usage["weight"], replicated(3), usage["used"], ratios["full"])
avail_pgs = cap.max_avail(usage["size"], pg_share, replicated(3), usage["used"], ratios["full"])
print(f"full ratio {ratios['full']}; MAX AVAIL: ceph df {df_avail / GIB:.3f} GiB, model with CRUSH "
      f"weights {avail_weights / GIB:.3f} GiB, model with the pool's PG spread {avail_pgs / GIB:.3f} GiB")
usage.assign(**{"used %": 100 * usage["used"] / usage["size"], "PGs of the pool": pg_share}) \
     .assign(size=usage["size"] / GIB, used=usage["used"] / MIB, data=usage["data"] / MIB) \
     .rename(columns={"size": "size GiB", "used": "used MiB", "data": "data MiB"})

# %% [markdown]
# ## Measure 3: lower the ratios, write, watch the warning and MAX AVAIL
#
# Filling 8 GiB OSDs for real would take minutes, so we move the thresholds down to where the
# OSDs are instead. The model first predicts where your objects of 4 MiB (Q5) will land (lab 02's
# CRUSH model on the live maps), hence each OSD's fill after the write. We then set
#
# - **nearfull** between the OSDs' fills. Before the write, every OSD is under it. After the
#   write, the CRUSH model and a plausible wrong model, data spread exactly by weight, should
#   disagree on how many OSDs are over it: then the check can tell the two models apart. So we
#   take the fills, now and predicted, and put nearfull in the middle of the widest gap between
#   two of them where the two models disagree;
# - **backfillfull** and **full** 200 and 400 MiB above the fullest OSD after the write, so
#   writes never stop.
#
# MAX AVAIL should collapse as soon as the full ratio drops. After the write it shrinks again. How
# far depends on the OSD that fills first: an even spread would take exactly the data written, and
# CRUSH's real spread is in the table after the write.

# %% tags=["nbval-ignore-output"]
from models.crush import objects
from cephlab.helpers import experiment

fill_pool = lab.replicated_pool("fill", size=3, pg_num=32)
OBJECTS, OBJ = experiment.choice(my_objects, 96, "my_objects (Q5)", lab="06"), 4 * MIB
names = [f"fill-{i:03d}" for i in range(OBJECTS)]
cmap, known, state = crush_snapshot(c)
start = osd_usage(c)
predicted_add = pd.Series(0.0, index=start.index)
for name in names:
    for osd in objects.map_object(cmap, known[fill_pool], name, state)["up"]:
        predicted_add[osd] += OBJ
fill_now = start["used"] / start["size"]
fill_after = (start["used"] + predicted_add) / start["size"]
top = start["size"].max()
# The plausible wrong model spreads the data exactly by CRUSH weight. nearfull goes in the middle
# of the widest gap between fills (now, and after the write by either model) above every OSD now
# and below the fullest predicted by CRUSH (so at least one OSD crosses it), where the two models
# disagree on how many OSDs cross it, so the check can tell them apart.
fill_even = (start["used"] + predicted_add.sum() * start["weight"] / start["weight"].sum()) / start["size"]
ends = np.unique(np.concatenate([[fill_now.max()], fill_after.to_numpy(), fill_even.to_numpy()]))
ends = ends[ends >= fill_now.max()]
gaps = [(b - a, (a + b) / 2) for a, b in zip(ends[:-1], ends[1:]) if (a + b) / 2 < fill_after.max()]
telling = [g for g in gaps if (fill_after > g[1]).sum() != (fill_even > g[1]).sum()
           and g[0] * top >= 32 * MIB]          # and wide enough for the OSDs' own metadata growth
width, middle = max(telling or gaps)
new_ratios = {"nearfull": round(float(middle), 4),
              "backfillfull": round(float(fill_after.max() + 200 * MIB / top), 4),
              "full": round(float(fill_after.max() + 400 * MIB / top), 4)}
lab.set_full_ratios(**new_ratios)      # returns once `ceph df` uses the new ratios
avail_low, usage_low = steady_max_avail(c, fill_pool)
model_low = cap.max_avail(usage_low["size"], usage_low["weight"], replicated(3), usage_low["used"], new_ratios["full"])
predicted_after = cap.max_avail(start["size"], start["weight"], replicated(3),
                                start["used"] + predicted_add, new_ratios["full"])
margin = width / 2 * top / MIB
print(f"ratios now {new_ratios} (nearfull {margin:.0f} MiB from the nearest OSD fill, now or predicted "
      f"after the write); health {c.health()}")
print(f"MAX AVAIL with the lowered full ratio: ceph df {avail_low / MIB:.0f} MiB, model {model_low / MIB:.0f} MiB")

t0 = time.monotonic()
with c.ioctx(fill_pool) as ioctx:
    for name in names:
        ioctx.write_full(name, os.urandom(OBJ))
print(f"wrote {OBJECTS * OBJ / MIB:.0f} MiB in {time.monotonic() - t0:.1f} s")
wait_for_df(c, fill_pool, OBJECTS)
wait_for_data(c, start, predicted_add.sum())   # OSDs report their usage every few seconds
# Each OSD checks its own fill against the ratios and tells the monitor on its next report (every
# few seconds), so the warning names the OSDs one by one: give them up to 45 s.
predicted_nearfull = int((fill_after > new_ratios["nearfull"]).sum())
checks, nearfull_osds = wait_for_nearfull(c, predicted_nearfull, timeout=45)
avail_after, usage_after = steady_max_avail(c, fill_pool)
print(f"health {c.health()}: {', '.join(checks) or 'no checks'}; near full: {', '.join(nearfull_osds)}")
print(f"MAX AVAIL after the write: ceph df {avail_after / MIB:.0f} MiB, predicted before writing "
      f"{predicted_after / MIB:.0f} MiB")
placed = pd.DataFrame({"predicted MiB": predicted_add / MIB,
                       "data written MiB": (usage_after["data"] - start["data"]) / MIB,
                       "fill before": fill_now, "predicted fill after": fill_after,
                       "fill after": usage_after["used"] / usage_after["size"]})
placed

# %% [markdown]
# ### Model vs measurement
#
# The near-full count is a check only when the nearfull ratio above could sit where CRUSH's
# placement and a spread exactly by weight disagree on the count. The gap must also leave room for
# the OSDs' own metadata to grow. With 4 MiB objects on four OSDs of equal weight, the two models
# often land too close for that. When the count is a check, the spread by weight is its control.
# Otherwise the row is a reading with no claim, and its tolerance column says so: it shows the
# count without claiming CRUSH's own placement was needed to predict it.

# %% tags=["nbval-ignore-output"]
# Each row has a negative control: a plausibly wrong model that the same tolerance must reject.
capacity = Comparison()
capacity.add("RBD used, 3 images (rbd du)", model=written / MIB, measured=du["total_used_size"] / MIB,
             unit="MiB", rel_tol=0.01, why="whole 4 MiB objects were written, and rbd du counts objects",
             control=("thick provisioning: the images' full size", 3 * GIB / MIB))
capacity.add("thin ratio, 3 x 1 GiB images", model=3 * GIB / written,
             measured=du["total_provisioned_size"] / du["total_used_size"], rel_tol=0.01,
             why="provisioned / used, both exact", control=("thick provisioning", 1.0))
capacity.add("raw used = 3 x stored (ceph df)", model=3 * pool_df["stored"] / MIB,
             measured=pool_df["used"] / MIB, unit="MiB", rel_tol=0.03,
             why="4 KiB allocation units; RBD headers and object maps are tiny",
             control=("size 2", 2 * pool_df["stored"] / MIB))
capacity.add("MAX AVAIL, default full ratio", model=avail_weights / MIB, measured=df_avail / MIB,
             unit="MiB", rel_tol=0.01, why="the same formula as PGMap::get_rule_avail on the same numbers",
             control=("raw free / 3 (no full ratio, no fullest OSD)", (usage["size"] - usage["used"]).sum() / 3 / MIB))
capacity.add("MAX AVAIL, lowered full ratio", model=model_low / MIB, measured=avail_low / MIB,
             unit="MiB", rel_tol=0.03, why="same formula; usage read a moment apart",
             control=("the full ratio left at its default", cap.max_avail(
                 usage_low["size"], usage_low["weight"], replicated(3), usage_low["used"], ratios["full"]) / MIB))
capacity.add("data written to the OSDs (CRUSH placement)", model=predicted_add.sum() / MIB,
             measured=(usage_after["data"] - start["data"]).sum() / MIB, unit="MiB", rel_tol=0.02,
             why="each 4 MiB object lands on the 3 OSDs CRUSH names; BlueStore allocates it exactly",
             control=("size 2", predicted_add.sum() * 2 / 3 / MIB))
even_nearfull = int((fill_even > new_ratios["nearfull"]).sum())
if telling:     # a nearfull ratio where CRUSH's placement and a spread by weight disagree
    capacity.add("OSDs reported near full", model=predicted_nearfull, measured=len(nearfull_osds), rel_tol=0,
                 why="nearfull sits in the widest gap between the OSDs' fills", control=("a spread exactly by "
                                                                                        "CRUSH weight", even_nearfull))
else:           # no such ratio at this size: the count is shown, not checked
    capacity.add_reading("OSDs reported near full", model=predicted_nearfull, measured=len(nearfull_osds),
                         why="no nearfull ratio 32 MiB clear of every fill where the two models disagree",
                         control=("a spread exactly by CRUSH weight", even_nearfull))
capacity.add("MAX AVAIL after the write, predicted in advance", model=predicted_after / MIB,
             measured=avail_after / MIB, unit="MiB", rel_tol=0.12,
             why="BlueFS metadata moves in 12-24 MiB steps on an OSD with ~400 MiB of room",
             control=("writing does not change MAX AVAIL", avail_low / MIB))
capacity.table()[["model", "measured", "measured/model", "tolerance", "agrees", "control", "control fails"]]

# %% tags=["nbval-ignore-output"]
fig, (ax1, ax2) = plots.figure(ncols=2)
plots.bars_model_vs_measured(ax1, [f"osd.{o}" for o in placed.index], placed["predicted MiB"],
                             placed["data written MiB"], ylabel=f"MiB of the {OBJECTS} objects (x3)")
ax1.set_title("where the data landed")
labels = ["default ratios", "lowered full", "after write"]
plots.bars_model_vs_measured(ax2, labels, [avail_weights / MIB, model_low / MIB, predicted_after / MIB],
                             [df_avail / MIB, avail_low / MIB, avail_after / MIB], ylabel="MAX AVAIL MiB")
ax2.set_yscale("log")
ax2.set_title("MAX AVAIL (ceph df)")
plots.show(fig)

# %% tags=["nbval-ignore-output"]
# the near-full row is a check or a reading depending on the run, so the verdict's counts vary
capacity.assert_agree()

# %% [markdown]
# ### Your objects (Q5)
# How far MAX AVAIL fell when your objects went in: your prediction, the even spread the CRUSH
# weights promise (MAX AVAIL falls by exactly the data written), the CRUSH placement the model
# computed before writing, and `ceph df`.

# %% tags=["nbval-ignore-output"]
your_drop = pd.DataFrame({"MAX AVAIL fall MiB": {
    "your prediction (Q5)": globals().get("q5_avail_drop_mib"),
    "model, even spread (the weights)": OBJECTS * OBJ / MIB,
    "model, CRUSH placement": (model_low - predicted_after) / MIB,
    "measured (ceph df)": (avail_low - avail_after) / MIB}})
run = experiment.RunFigures()
run.record(avail_per_mib=(avail_low - avail_after) / (OBJECTS * OBJ))
your_drop

# %% [markdown]
# **Your gap.** Spread evenly, each MiB you write takes one MiB of MAX AVAIL. Read your run: how
# many MiB of MAX AVAIL did each MiB of client data cost? Store `my_avail_per_mib` (the measured
# fall divided by the MiB you wrote) and run the check.

# %%
my_avail_per_mib = (avail_low - avail_after) / (OBJECTS * OBJ)  # SOLUTION
run.check("my_avail_per_mib", my_avail_per_mib, "avail_per_mib",
          hint="divide the measured fall of MAX AVAIL (MiB) by the client MiB you wrote (objects x 4), not by the raw MiB")

# %% [markdown]
# ## What the model said, what the cluster did
#
# The figures in the next cell are your run's.
#
# - **Thin provisioning** is real and measurable: the images promised far more than the guests
#   wrote. Seed 004's thin_ratio is this number for a whole fleet — a fleet average you must
#   measure and keep watching, because a guest that fills its disk drops it towards 1.
# - **MAX AVAIL** is a formula, not a measurement: `ceph df` takes each OSD's room below the full
#   ratio, divides by the OSD's share of the CRUSH weight, keeps the smallest and divides by the
#   replica count. The model gave the same number. Fed with the pool's *PG* spread instead of
#   the weights it gives what you could really store before the first OSD fills: less than
#   `ceph df` whenever the OSD that limits holds more than its share of the pool's PGs.
# - **One OSD full = cluster full.** Lowering the ratios showed it in seconds: the OSDs the
#   CRUSH placement predicted crossed nearfull, and the cluster went HEALTH_WARN (`OSD_NEARFULL`,
#   `POOL_NEARFULL`). MAX AVAIL shrank by about the data written times the limiting OSD's excess
#   share: its share of your objects over its share of the CRUSH weight. Where BlueFS resized its
#   metadata in the meantime, the prediction is off by those 12-24 MiB steps.
# - **Your objects.** MAX AVAIL follows the OSD with the least room for its share of the weight.
#   So it falls by exactly the data you wrote only if CRUSH gives that OSD exactly its share of
#   your objects. If CRUSH gives it more, MAX AVAIL falls faster; if less, it can fall slower. Your
#   objects' table above sets the CRUSH placement's prediction beside `ceph df`. More objects bring the
#   spread closer to the pool's PG counts, not to the weights: only more PGs do that (lab 02).
# - **Deletes are not instant.** A deleted pool leaves the maps at once, but each OSD removes its
#   PGs' objects in the background, and the space returns only as BlueStore frees it. Under
#   Pacific's default I/O scheduler (wpq, a weighted priority queue), with this cluster's deletion sleep of 0, that takes
#   seconds. Under mClock, the default from Quincy on, PG deletion is a best-effort background
#   class and the deletion sleeps are ignored, so a pool of many small objects (an earlier lab's
#   `rados bench`) can take minutes. Had this lab written while an earlier lab's pools were still
#   going, the OSDs' data would have shrunk under the measurement and the data row would have
#   read short of the model. So the lab's first cell waits until no OSD is still removing PGs
#   (the counter `numpg_removing` in `ceph tell osd.N perf dump`). And where mClock is the
#   default, every lab empties its pools with client deletes before deleting them (`rados purge`,
#   client I/O that mClock serves first). That leaves the background little to do.
# - **Not modelled:** growth over time, compression, and the per-pool quotas that can stop writes
#   before any ratio does.

# %% tags=["nbval-ignore-output"]
from cephlab.helpers import conclusions

conclusions.render("""
- **Thin provisioning.** {promised:.0f} MiB promised, {used:.0f} MiB used: a thin ratio of {thin:.0f}.
- **MAX AVAIL.** `ceph df` said {df:.2f} GiB, the model {model:.2f} GiB; with the pool's PG spread
  instead of the weights, {pgs:.2f} GiB.
- **Your objects.** {objects} objects ({written:.0f} MiB) made {nearfull} of {osds} OSDs near full
  and took {drop:.0f} MiB of MAX AVAIL: {per_mib:.2f} MiB for each MiB written.
""", promised=du["total_provisioned_size"] / MIB, used=du["total_used_size"] / MIB,
    thin=du["total_provisioned_size"] / du["total_used_size"], df=df_avail / GIB, model=avail_weights / GIB,
    pgs=avail_pgs / GIB, objects=OBJECTS, written=OBJECTS * OBJ / MIB, nearfull=len(nearfull_osds),
    osds=len(usage_after), drop=(avail_low - avail_after) / MIB, per_mib=(avail_low - avail_after) / (OBJECTS * OBJ))

# %% [markdown]
# **W2. MAX AVAIL and the thin ratio on your cluster.** Answer in three or four sentences, with
# your run's MAX AVAIL figures, your `my_avail_per_mib` and your thin ratio (graded by hand).
#
# *Your answer:*

# %% [markdown]
# ## Clean up
# Restores the full ratios (and waits for the warnings to clear), deletes the images and pools.

# %% tags=["nbval-ignore-output"]
lab.cleanup()
