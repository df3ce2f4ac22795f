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
# # Lab 02 — Placement: objects → PGs → OSDs
#
# **Objectives.** After this lab you can
# - compute by hand (well, with numpy) which placement group an object lands in and which OSDs
#   CRUSH picks for it, and check the answer against `ceph osd map`;
# - explain why a failure domain of `host` protects data that a failure domain of `osd` does not;
# - predict how unevenly PGs spread over OSDs for a given `pg_num`, and why PGCalc and the
#   autoscaler aim at about 100 PGs per OSD;
# - predict how much data moves when one more OSD joins, and compare it with what the cluster does.
#
# **Prerequisites:** lab 00 (objects, pools and PGs, the primary OSD and the acting set) and lab 01
# (replicated pools, `size` and `min_size`). New words are in the [glossary](../glossary.md).
#
# **You need:** the lab cluster with 4 OSDs or more (`make lab` starts 4). With only 3 OSDs
# and 3 copies, every OSD holds every PG, so there is no spread to measure. The lab adds one OSD
# and removes it again at the end. About 1 minute.

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

from models import pgs
from models import placement as pl
from models.crush import analysis as an
from models.crush import build, mapper, objects
from cephlab.display.widgets import LivePlot
from cephlab.helpers import conclusions
from cephlab.helpers.compare import Comparison
from cephlab.display import plots

pd.set_option("display.precision", 3)

# %% [markdown]
# ## Background
#
# Ceph keeps no table of where objects live. Every client *computes* an object's location
# ("no metadata bottleneck (no lookup) — CRUSH algorithm determines data placement", seed 000,
# NAVER, *Persistent storage for Docker containers with Ceph*, OpenStack Days 2017). The
# computation has two steps (seed 002, J. Neudecker, *Running a CEPH-Cluster from a
# containerized infrastructure*, HAW Hamburg 2021, section 2.2):
#
# 1. **object → PG**: the object name is hashed (with the rjenkins hash function) and folded onto the pool's `pg_num`
#    placement groups with `ceph_stable_mod`, which keeps PGs stable when `pg_num` doubles.
# 2. **PG → OSDs**: CRUSH (Weil et al., *CRUSH: Controlled, Scalable, Decentralized Placement of
#    Replicated Data*, SC 2006) walks the CRUSH map with the PG's hash as its only input. The map
#    is a tree of *buckets* (the root, hosts, racks) with the OSDs as its leaves. In each
#    bucket every item draws a pseudo-random "straw" scaled by its weight and the longest straw
#    wins (`straw2`, Ceph Hammer 2015). A new item only *wins* draws, it never reshuffles the
#    draws among the others — so adding an OSD moves only what the new OSD must receive.
#
# The rule says where to pick: `step chooseleaf firstn 0 type host` puts each copy on a different
# host, `type osd` only on different disks. Seed 002 (section 2.2.3, "CRUSH Fail mode") walks
# through the choices — OSD, chassis, rack, datacenter — and recommends the host level as soon
# as there is more than one machine. Our lab cluster lives on one machine, so its rule picks
# OSDs (`osd crush chooseleaf type = 0`).
#
# PGs, not objects, are what CRUSH places, so how evenly the *PGs* spread decides how evenly
# the disks fill. Seed 002 shows `ceph osd df tree` on its cluster with `MIN/MAX VAR:
# 0.66/1.36`: one disk 36 % above average, one 34 % below. Ceph's placement-group guide (PGCalc,
# docs.ceph.com) and the pg_autoscaler, the manager module that picks `pg_num`, aim at about 100
# PGs per OSD to keep this small (the autoscaler's `mon_target_pg_per_osd` is 100 in Pacific, Reef
# and Tentacle).
# Code: Ceph v16.2.15 `src/common/ceph_hash.cc`, `src/include/rados.h`, `src/crush/mapper.c`,
# `src/osd/OSDMap.cc`; our numpy copy is `models.crush` (tested bit for bit against `crushtool`).

# %% [markdown]
# ## The model
#
# ### How many PGs, and how even?
#
# Each PG puts its `size` copies on `size` *different* OSDs. If CRUSH picks that set at random,
# one OSD belongs to a PG's set with probability *q = size / OSDs*, so its PG count is
# Binomial(pg_num, q) (`models.placement`). The pool is full when its *fullest* OSD is, so the
# number that matters is the fullest OSD's count over the mean. For a few cluster sizes, the
# pg_num PGCalc suggests and the Pacific autoscaler would pick for one pool holding all data:

# %%
def pg_table(layouts):
    rows = []
    for label, osds, size in layouts:
        pg_num = pgs.pgcalc(osds, size)
        stats = pl.pg_count_stats(pg_num, size, osds)
        factor = pl.fullest_factor(pg_num, size, osds)
        rows.append({"cluster": label, "OSDs": osds, "size": size, "PGCalc pg_num": pg_num,
                     "autoscaler pg_num": pgs.autoscale_target(1.0, osds, size).pg_num,
                     "PGs per OSD": stats.mean, "std": stats.std,
                     "fullest / mean": factor, "fillable % (1 / factor)": 100 / factor})
    return pd.DataFrame(rows).set_index("cluster")

LAYOUTS = [("lab cluster", 4, 3), ("small", 10, 3), ("medium", 40, 3), ("large", 100, 3),
           ("EC 4+2, 12 OSDs", 12, 6)]
pg_table(LAYOUTS)

# %% [markdown]
# Move the sliders: the curve is how much fuller than average the fullest OSD is, against
# `pg_num`. It falls roughly like 1 / √(PGs per OSD). The dashed reference treats every copy as
# independent (`models.pgs`), which ignores that a PG never uses one OSD twice: on a few OSDs
# that overstates the spread a lot, on hundreds it makes no difference.

# %% tags=["nbval-ignore-output"]
PG_NUMS = np.unique(np.geomspace(8, 4096, 200).astype(int))

def spread_readout(osds, size):
    size = min(size, osds)
    calc = int(pgs.pgcalc(osds, size))
    return (f"{osds} OSDs, size {size}: PGCalc says pg_num {calc} "
            f"({pl.pg_count_stats(calc, size, osds).mean:.0f} PGs per OSD, fullest OSD "
            f"{pl.fullest_factor(calc, size, osds):.2f}× the mean); the autoscaler says "
            f"{pgs.autoscale_target(1.0, osds, size).pg_num}")

spread_plot = LivePlot(
    x=PG_NUMS, xlabel="pg_num of the pool", ylabel="fullest OSD / mean (PGs)", logx=True,
    curves={"distinct OSDs (models.placement)":
                lambda x, osds, size: pl.fullest_factor(x, min(size, osds), osds, fast=True),
            "copies independent (models.pgs)":
                lambda x, osds, size: pgs.fullest_osd_factor(x, min(size, osds), osds)},
    controls={"osds": W.IntSlider(value=4, min=3, max=200, description="OSDs"),
              "size": W.IntSlider(value=3, min=1, max=6, description="size")},
    readout=spread_readout)
spread_plot.lines["copies independent (models.pgs)"].set_linestyle("--")
spread_plot

# %% [markdown]
# ### 10,000 OSDs, placed by CRUSH itself
#
# The curves above are statistics. Here the CRUSH model does the placing, on a map built in code:
# 500 hosts of 20 equal OSDs (10,000 OSDs), a size-3 pool and a rule that puts each copy on a
# different host. The cell places the largest pool, 524,288 PGs (1.6 million copies), once. That
# takes seconds the first time on a small machine. The counts are then kept on disk, so the same
# cell run again reads them at once (`an.pg_counts_by_pg_num` says how). Every smaller `pg_num` is
# exactly its first `pg_num` PGs: a PG's CRUSH input is its number hashed with the pool id, and `ceph_stable_mod` leaves a PG number below `pg_num` as it is
# (`an.pg_counts_by_pg_num`). Move `pg_num`: the solid line is how many OSDs hold how many PGs,
# in units of the mean; the dashed one is the binomial model of `models.placement`, binned the
# same way. The readout names the fullest OSD, the one that fills first. PGCalc and the
# autoscaler both pick 262,144 PGs for this cluster (about 79 per OSD).

# %% tags=["nbval-ignore-output"]
BIG_MAP = build.hosts_map(500, 20, prefix="h", first=0)     # osd.N lives on host h(N // 20)
BIG_OSDS, BIG_SIZE = 500 * 20, 3
BIG_PG_NUMS = [2**k for k in range(14, 20)]                  # 16,384 .. 524,288 PGs
BIG_COUNTS = dict(zip(BIG_PG_NUMS, an.pg_counts_by_pg_num(BIG_MAP, "by_host", BIG_SIZE, BIG_PG_NUMS)))

def big_readout(pg_num):
    counts, stats = BIG_COUNTS[pg_num], pl.pg_count_stats(pg_num, BIG_SIZE, BIG_OSDS)
    return (f"pg_num {pg_num:,}: {stats.mean:.1f} PGs per OSD. CRUSH's fullest OSD holds {counts.max()} PGs, "
            f"{counts.max() / stats.mean:.2f}× the mean (the model expects "
            f"{pl.fullest_factor(pg_num, BIG_SIZE, BIG_OSDS):.2f}×), the emptiest {counts.min()}; std "
            f"{counts.std():.2f} PGs (model {stats.std:.2f}). The pool is full when {stats.mean / counts.max():.0%} of the raw space is used")

big_plot = LivePlot(
    x=np.linspace(0, 3.2, 641), xlabel="PGs on an OSD / mean", ylabel="% of OSDs per 1 % of the mean",
    curves={"CRUSH, 500 hosts × 20 OSDs":
                lambda x, pg_num: pl.observed_count_density(BIG_COUNTS[pg_num], pg_num, BIG_SIZE, x),
            "binomial model (models.placement)":
                lambda x, pg_num: pl.pg_count_density(pg_num, BIG_SIZE, BIG_OSDS, x)},
    controls={"pg_num": W.SelectionSlider(options=BIG_PG_NUMS, value=65536, description="pg_num")},
    readout=big_readout)
big_plot.lines["binomial model (models.placement)"].set_linestyle("--")
big_plot

# %% [markdown]
# ### Failure domains
#
# Here is a small map built in code: 4 hosts with 3 OSDs each, and two rules that differ only in
# the failure domain. We place 1,024 PGs of a size-3 pool with each rule (the CRUSH model, no
# cluster needed) and ask what happens when host `h0` fails. With `min_size` 2 a PG that loses
# two copies stops serving I/O; one that loses all three has lost data.

# %%
def host_failure(rule, host=0):
    """Shares of PGs with two copies on one host, and what losing `host` does to them: 1,024 PGs
    of a size-3 pool on hosts h0..h3 of 3 OSDs each (models.crush.analysis.host_failure)."""
    return an.host_failure(4, 3, rule, failed_host=host)

pd.DataFrame({rule: host_failure(rule) for rule in ("by_host", "by_osd")}).T

# %% [markdown]
# With `by_host`, losing a host costs each PG at most one copy: nothing blocks, nothing is lost.
# With `by_osd`, CRUSH happily puts two or three copies behind the same power supply.

# %% [markdown]
# **W1. Why does failure domain `host` protect data that failure domain `osd` does not?** Answer
# in two or three sentences, with the shares of the table above (graded by hand).
#
# *Your answer:*

# %% [markdown]
# ## Exercises
# Answer with the model: `objects.Pool(...).object_ps`, `pgs.pgcalc`, `pl.pg_count_stats`,
# `pl.fullest_factor`, `pl.movement_on_add` and `host_failure` above. Then run the check cell.
# The numbers in Q1-Q3 are your own (drawn for your learner id, in `P`): a neighbour's answers
# are wrong for your notebook.

# %% tags=["nbval-ignore-output"]
P = params.lab_params("02-placement")

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q1.** A pool with id {q1_pool} has `pg_num` {q1_pg_num}. In which PG does the object `{q1_object}` land?
`objects.Pool(id={q1_pool}, name="rbd", pg_num={q1_pg_num}, size=3, crush_rule=0).object_ps("{q1_object}")`
returns the raw hashes and the PG numbers, an array of each. Store your object's PG number (an int) in `q1_ps`.
Store the PG id as Ceph prints it (a string `"<pool id>.<pg number in hex>"`, e.g. `"5.a"`) in `q1_pgid`.""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q1_ps = int(objects.Pool(id=P["q1_pool"], name="rbd", pg_num=P["q1_pg_num"], size=3, crush_rule=0).object_ps(P["q1_object"])[1][0])  # SOLUTION
q1_pgid = f"{P['q1_pool']}.{q1_ps:x}"  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(q1_pgid, str) and q1_pgid.startswith(f"{P['q1_pool']}."), "A PG id is a string: the pool id, a dot, and the PG number in hex"
assert "0x" not in q1_pgid and q1_pgid == q1_pgid.lower(), "Write the PG number in lowercase hex without a 0x prefix, as `ceph osd map` prints it"
assert q1_ps < 10 or q1_pgid.split(".", 1)[1] != str(q1_ps), "The part after the dot is your PG number written in hexadecimal (base 16): in decimal it reads as another PG"
assert int(q1_pgid.split(".", 1)[1], 16) < P["q1_pg_num"], "Fold the hash with stable_mod onto the pool's PGs: the PG number is below pg_num"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("02-placement")
_ps = int(objects.Pool(id=_p["q1_pool"], name="x", pg_num=_p["q1_pg_num"], size=3, crush_rule=0).object_ps(_p["q1_object"])[1][0])
assert q1_pgid == f"{_p['q1_pool']}.{_ps:x}" and "0x" not in q1_pgid, \
    "Hash your object's name in your pool (your pool id and pg_num), and write the PG number in lowercase hex without 0x, as `ceph osd map` prints it"

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
params.show("""**Q2.** A cluster has {q2_osds} OSDs and one size-{q2_size} pool that will hold all the data. What
`pg_num` does PGCalc suggest (target 100 PGs per OSD)? Store it in `q2_pg_num` (a whole number, a power of
two), and in `q2_per_osd` the average number of PGs per OSD that gives (a number, not rounded).""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q2_pg_num = pgs.pgcalc(P["q2_osds"], P["q2_size"])  # SOLUTION
q2_per_osd = pl.pg_count_stats(q2_pg_num, P["q2_size"], P["q2_osds"]).mean  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert int(q2_pg_num) == q2_pg_num > 0 and int(q2_pg_num) & (int(q2_pg_num) - 1) == 0, "PGCalc suggests a power of two (pgs.pgcalc)"
assert 100 * P["q2_osds"] / P["q2_size"] / 2 < q2_pg_num < 100 * P["q2_osds"] / P["q2_size"] * 2, \
    "PGCalc's power of two is within a factor 2 of target x OSDs / size"
assert 100 / 2 < q2_per_osd < 100 * 2, "PGs per OSD count every copy of a PG: near the target of 100, not pg_num / OSDs"
assert q2_per_osd > 1.5 * q2_pg_num / P["q2_osds"], "PGs per OSD count every copy of a PG, one per replica, each on its own OSD: not pg_num / OSDs"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("02-placement")
_calc = pgs.pgcalc(_p["q2_osds"], _p["q2_size"])
assert int(q2_pg_num) == q2_pg_num == _calc and abs(q2_per_osd - _calc * _p["q2_size"] / _p["q2_osds"]) < 1e-9, \
    "Both must come from the model exactly, with your OSDs and size: the power of two from pgs.pgcalc, then pg_num x size / OSDs"

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
params.show("""**Q3.** On a cluster of {q3_osds} equal OSDs with a size-3 pool, how much fuller than average is the
fullest OSD expected to be with `pg_num` {q3_small}, and with {q3_big}? Store the two factors in `q3_factor_small`
and `q3_factor_big`. Then: how many times more PGs per OSD does it take to halve the *excess*
(factor − 1)? Store your estimate in `q3_pgs_to_halve` (a round number is fine).""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q3_factor_small = pl.fullest_factor(P["q3_small"], 3, P["q3_osds"])  # SOLUTION
q3_factor_big = pl.fullest_factor(P["q3_big"], 3, P["q3_osds"])  # SOLUTION
q3_pgs_to_halve = 4  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert q3_factor_small > q3_factor_big > 1, \
    "Factors are fullest / average, above 1, and more PGs must give a smaller excess: use pl.fullest_factor(pg_num, size=3, osds=...)"

# %%
assert 1 < q3_pgs_to_halve < 20, "A factor of PGs per OSD, more than 1: the excess shrinks like std / mean of the PG count per OSD"
assert q3_pgs_to_halve > 2.5, "Twice the PGs per OSD do not halve the excess: it shrinks more slowly than the PG count grows"

# %%
# HIDDEN
assert 3 <= q3_pgs_to_halve <= 5, "The excess shrinks like std / mean = 1 / sqrt(PGs per OSD) roughly: halving it takes about 4x the PGs"
from cephlab.course import params as _params
_p = _params.lab_params("02-placement")
assert abs(q3_factor_small - pl.fullest_factor(_p["q3_small"], 3, _p["q3_osds"])) < 1e-9 \
    and abs(q3_factor_big - pl.fullest_factor(_p["q3_big"], 3, _p["q3_osds"])) < 1e-9 and q3_factor_small > q3_factor_big > 1, \
    "Use the exact form (no fast=True) with size 3 on your number of OSDs; more PGs always means a smaller excess"

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
# **Q4.** A fifth OSD, equal to the others, joins the 4-OSD lab cluster. What share of all PG
# copies must move to it, and what share of the PGs change their OSD set? Store them in
# `q4_shards_moved` and `q4_pgs_changed`, as fractions between 0 and 1. (You will check both on the
# cluster below.)

# %% [raw]
# # BEGIN SOLUTION

# %%
q4_shards_moved = pl.movement_on_add(4, 3).shards_moved  # SOLUTION
q4_pgs_changed = pl.movement_on_add(4, 3).pgs_changed  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert 0 < q4_shards_moved < q4_pgs_changed < 1, \
    "Both are fractions; a PG changes its OSD set when any one of its copies moves, so more PGs change than copies move"

# %%
# HIDDEN
assert abs(q4_shards_moved - 1 / 5) < 1e-12 and abs(q4_pgs_changed - 3 / 5) < 1e-12, "Both are exact fractions for equal OSDs: the new OSD's share, and size / (OSDs + 1)"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q5
# points: 1
# all_or_nothing: true

# %% [markdown]
# **Q5.** On the 4-host map above with the `by_osd` rule, what share of the PGs loses *every*
# copy when host `h0` fails? Store it in `q5_lost` as a fraction between 0 and 1 (not a count of
# PGs), and in `q5_safe_rule` the name of the rule that loses nothing, as a string.

# %% [raw]
# # BEGIN SOLUTION

# %%
q5_lost = host_failure("by_osd")["PGs with every copy lost"]  # SOLUTION
q5_safe_rule = "by_host"  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert 0 < q5_lost < 1, "A share of the PGs, between 0 and 1, not a count of PGs: host_failure('by_osd') gives shares"
assert q5_lost < 0.05, "Use host_failure('by_osd'): it counts the PGs whose 3 copies all sit on h0's OSDs"

# %%
assert q5_safe_rule in ("by_host", "by_osd"), "Store the name of one of the two rules of the map above"

# %%
# HIDDEN
assert q5_safe_rule == "by_host", "Only a rule that picks one OSD per host keeps a copy elsewhere when a host fails"
assert abs(q5_lost - an.host_failure(4, 3, "by_osd")["PGs with every copy lost"]) < 1e-12 and isinstance(q5_safe_rule, str), "Take the share straight from host_failure('by_osd') (a fraction, not a PG count) and the rule's name as a string"

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
# **Q6. Your experiment: your own pg_num.** Choose a `pg_num`, a power of two from 8 to 128 (an
# int), and store it in `my_pg_num`. The measurement below makes a size-3 pool with it, next to pools of
# 16 and 128 PGs, and counts the PGs on each OSD. Before it runs, predict with `pl` for the
# 4-OSD lab cluster: the mean number of PGs per OSD in `q6_per_osd` (a number), and the expected
# fullest OSD over the mean in `q6_fullest_factor` (a factor above 1).

# %% [raw]
# # BEGIN SOLUTION

# %%
my_pg_num = 64  # SOLUTION
q6_per_osd = pl.pg_count_stats(my_pg_num, 3, 4).mean  # SOLUTION
q6_fullest_factor = pl.fullest_factor(my_pg_num, 3, 4)  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(my_pg_num, (int, np.integer)) and not isinstance(my_pg_num, bool) and 8 <= my_pg_num <= 128 and my_pg_num & (my_pg_num - 1) == 0, \
    "Choose a whole power of two from 8 to 128 (8, 16, 32, 64 or 128)"

# %%
assert 0 < q6_per_osd < my_pg_num, \
    "PGs per OSD: every PG has 3 copies spread over 4 OSDs, so an OSD holds fewer PGs than the pool has"
assert q6_per_osd > 1.5 * my_pg_num / 4, "PGs per OSD count every copy of a PG, not each PG once: my_pg_num / 4 leaves out two copies of three"
assert 1 < q6_fullest_factor <= my_pg_num / q6_per_osd, \
    "A factor: fullest OSD over the mean, above 1, and no OSD can hold more PGs than the pool has"
assert abs(q6_fullest_factor / pgs.fullest_osd_factor(my_pg_num, 3, 4) - 1) > 0.005, \
    "That is the model with every copy placed independently (pgs.fullest_osd_factor): a PG's 3 copies sit on 3 different OSDs, which evens the counts, as the model in pl assumes"

# %%
# HIDDEN
assert abs(q6_per_osd - pl.pg_count_stats(my_pg_num, 3, 4).mean) < 1e-9, "The mean counts every copy: pg_num x size / OSDs"
assert abs(q6_fullest_factor - pl.fullest_factor(my_pg_num, 3, 4)) < 1e-9, \
    "Use pl.fullest_factor(my_pg_num, 3, 4) in its exact form (no fast=True)"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# ## Measure 1: does `ceph osd map` say what the model says?
#
# We create size-3 pools with 16 PGs, 128 PGs and your `my_pg_num` (Q6), and read the live CRUSH
# map (`ceph osd crush dump`) and OSD map (`ceph osd dump`). The model then predicts, for 30
# object names in your pool, the PG and the OSDs — and `ceph osd map` gives the cluster's answer.
# The manager's *balancer* module evens out the PGs over the OSDs with `pg_upmap` entries,
# exceptions to CRUSH's choices. We switch it off for the lab: it would soon even out the spread we
# want to see (the model reads those entries too, but the spread would no longer be CRUSH's own).

# %% tags=["nbval-ignore-output"]
from cephlab.helpers import experiment
from cephlab.helpers.lab import LabSession
from cephlab.helpers.placement import crush_snapshot, fullest_band, live_up_sets

lab = LabSession("02", min_osds=4)          # 3 OSDs with 3 copies: every OSD in every PG, no spread
c = lab.cluster
lab.config_set("mgr", "mgr/balancer/active", "false")
mine = experiment.choice(my_pg_num, 64, "my_pg_num (Q6)", lab="02")
POOL_PGS = tuple(sorted({16, mine, 128}))
pools = {n: lab.replicated_pool(f"pg{n}", size=3, pg_num=n) for n in POOL_PGS}

cmap, known, state = crush_snapshot(c)      # the live CRUSH map, pools and OSD states
names = [f"vm-disk-{i}" for i in range(30)]
rows = []
for name in names:
    got = objects.map_object(cmap, known[pools[mine]], name, state)
    live = c.ceph("osd", "map", pools[mine], name)
    rows.append({"object": name, "model PG": got["pgid"], "model up": got["up"],
                 "cluster PG": live["pgid"], "cluster up": live["up"],
                 "same": got["pgid"] == live["pgid"] and got["up"] == live["up"]
                         and got["acting"] == live["acting"],
                 # a plausibly wrong model: the right OSDs, but in id order (no primary first)
                 "same if sorted": got["pgid"] == live["pgid"] and sorted(got["up"]) == live["up"]})
osd_map = pd.DataFrame(rows).set_index("object")
print(f"{osd_map['same'].sum()} of {len(osd_map)} objects: model and `ceph osd map` agree")
osd_map.head(8)

# %% [markdown]
# ## Measure 2: PGs per OSD for 16, 128 and your pg_num
#
# `ceph pg dump pgs_brief` lists every PG with its *up set*, the OSDs CRUSH maps it to. We count
# the PGs on each OSD. Next to each count we put the CRUSH model's count for the same map (it
# should be identical) and the statistical expectation for the fullest OSD. The last column is the
# band in which fullest / mean falls for 90 % of random placements (`fullest_band`): one pool is
# one draw from that spread.

# %% tags=["nbval-ignore-output"]
POOL_IDS = [known[p].id for p in pools.values()]

def counts_per_osd(sets, pool, osds):
    return objects.pgs_per_osd(sets, known[pool].id, osds)

c.wait_for_clean(timeout=120, progress=False)
in_osds = [int(o) for o in np.flatnonzero(state.up & (state.weight > 0))]
live_before = live_up_sets(c, POOL_IDS)
model_before = {}
for pool in pools.values():
    model_before.update(objects.pool_up_sets(cmap, known[pool], state))
spread_rows = []
for n, pool in pools.items():
    live = counts_per_osd(live_before, pool, in_osds)
    crush = counts_per_osd(model_before, pool, in_osds)
    stats = pl.pg_count_stats(n, 3, len(in_osds))
    spread_rows.append({"pg_num": n, "PGs per OSD (cluster)": live.tolist(),
                        "CRUSH model": crush.tolist(), "mean": stats.mean,
                        "fullest (cluster)": live.max(), "fullest expected (statistics)":
                        pl.expected_fullest(n, 3, len(in_osds)),
                        "fullest/mean (cluster)": live.max() / stats.mean,
                        "fullest/mean expected": pl.fullest_factor(n, 3, len(in_osds)),
                        "90 % of placements": "{:.3f} to {:.3f}".format(*fullest_band(n, 3, len(in_osds)))})
spread = pd.DataFrame(spread_rows).set_index("pg_num")
yours = globals().get("q6_fullest_factor")
spread.insert(0, "your prediction (fullest/mean)",
              [yours if n == mine and isinstance(yours, (int, float)) else None for n in spread.index])
run = experiment.RunFigures()
run.record(fullest_vs_expected=spread.loc[mine, "fullest/mean (cluster)"] / spread.loc[mine, "fullest/mean expected"])
spread

# %% [markdown]
# **Your gap.** The statistics give the fullest OSD's factor on average over many placements;
# CRUSH made one placement for your pool. Read your pool's row: store `my_fullest_vs_expected`,
# the cluster's fullest/mean divided by the expected fullest/mean, and run the check. Is your
# cluster's factor inside the band of 90 % of placements?

# %%
my_fullest_vs_expected = spread.loc[mine, "fullest/mean (cluster)"] / spread.loc[mine, "fullest/mean expected"]  # SOLUTION
run.check("my_fullest_vs_expected", my_fullest_vs_expected, "fullest_vs_expected",
          hint="in your pg_num's row of the table above: fullest/mean (cluster) over fullest/mean expected")

# %% [markdown]
# ## Measure 3: one more OSD joins
#
# Before adding it, the model predicts the new map: the same host bucket with one more OSD of
# the same weight (it is an 8 GiB file like the others), the next free id, up and in. From that
# it predicts every PG's new up set. Then `lab.add_osd()` formats and starts the OSD, we wait for
# the cluster to settle and read `pgs_brief` again. The OSDs report each PG's new place a second
# or so after the map changes. So `live_up_sets` waits until every report matches where the
# monitor's copy of the OSD map puts the PG (`ceph pg map`). Counting earlier would miss PGs still
# on their way.

# %% tags=["nbval-ignore-output"]
new_id = max(c.state["osds"]) + 1            # cephlab numbers new OSDs after the highest one
map_after, state_after = objects.with_new_osd(cmap, state, new_id)
model_after = {}
for pool in pools.values():
    model_after.update(objects.pool_up_sets(map_after, known[pool], state_after))

added = lab.add_osd()
assert added == new_id, f"cephlab made osd.{added}, the model assumed osd.{new_id}"
c.wait_for_clean(timeout=120, progress=False)
live_after = live_up_sets(c, POOL_IDS)

model_changed, model_new = objects.up_set_changes(model_before, model_after)
live_changed, live_new = objects.up_set_changes(live_before, live_after)
total_copies = sum(len(up) for up in live_before.values())
print(f"osd.{added} joined. PGs whose up set changed: model {len(model_changed)}, cluster "
      f"{len(live_changed)} of {len(live_before)}; the same PGs: {set(model_changed) == set(live_changed)}")
print(f"copies moved to a new place: model {model_new}, cluster {live_new} of {total_copies} "
      f"({live_new / total_copies:.1%}; the least possible is {pl.movement_on_add(len(in_osds), 3).shards_moved:.1%})")

# %% [markdown]
# ### Model vs measurement

# %% tags=["nbval-ignore-output"]
osds_before = len(in_osds)
least = pl.movement_on_add(osds_before, 3)
pgs_total = len(live_before)
# binomial noise of the share of PGs that include the new OSD, as a fraction of the least share
noise = np.sqrt(pgs_total * least.pgs_changed * (1 - least.pgs_changed)) / (3 * pgs_total) / least.shards_moved

# Each row has a negative control, a plausibly wrong model the same tolerance must reject. For
# the movement rows it is a plain hash table (slot = hash mod number of OSDs): adding one OSD
# to n moves about n / (n + 1) of everything.
rehash = osds_before / (osds_before + 1)
placement = Comparison()
placement.add("objects placed as `ceph osd map` says", model=len(osd_map),
              measured=osd_map["same"].sum(), rel_tol=0,
              why="CRUSH is deterministic: the same maps and name must give the same OSDs",
              control=("the right OSDs in id order (no primary first)", osd_map["same if sorted"].sum()))
for n, row in spread.iterrows():
    placement.add(f"PGs on the fullest OSD, pg_num {n} (CRUSH model)",
                  model=max(row["CRUSH model"]), measured=row["fullest (cluster)"], rel_tol=0,
                  why="the CRUSH model computes the very same placement",
                  control=("the statistics' expected fullest OSD", row["fullest expected (statistics)"]))
placement.add("PGs whose up set changed (CRUSH model)", model=len(model_changed),
              measured=len(live_changed), rel_tol=0, why="exact prediction from the edited map",
              control=("hash mod number of OSDs", rehash * pgs_total))
placement.add("copies moved (CRUSH model)", model=model_new, measured=live_new, rel_tol=0,
              why="exact prediction from the edited map", control=("hash mod number of OSDs", rehash * total_copies))
placement.add("share of copies moved vs the least possible", model=least.shards_moved,
              measured=live_new / total_copies, rel_tol=round(float(0.04 + 3 * noise), 3),
              why="straw2 moves little beyond what the new OSD must hold (+4 % from retried draws "
                  "in the CRUSH model); plus 3 sigma of the PG draw", control=("hash mod number of OSDs", rehash))
display(placement.table()[["model", "measured", "measured/model", "tolerance", "agrees", "control", "control fails"]])
# The spread of the counts (squared deviations from the means, over the variance the model
# predicts: 1.0 on average, about 3 if copies were independent) is shown, not checked: 3 pools x
# 4 counts estimate a variance only to about ±57 % (1 sigma), too loose to tell 1 from 3.
squares = sum(((np.array(row["PGs per OSD (cluster)"]) - row["mean"]) ** 2).sum() for _, row in spread.iterrows())
expected_squares = sum(osds_before * pl.pg_count_stats(n, 3, osds_before).std ** 2 for n in spread.index)
print(f"spread of PGs per OSD: measured / model variance {squares / expected_squares:.2f} "
      f"(the CRUSH model's statistics: 1; copies independent: about 3)")

# %% tags=["nbval-ignore-output"]
fig, (ax1, ax2) = plots.figure(ncols=2)
xs = np.array(POOL_PGS)
ax1.plot(PG_NUMS, pl.fullest_factor(PG_NUMS, 3, osds_before), label="model (distinct OSDs)")
ax1.plot(PG_NUMS, pgs.fullest_osd_factor(PG_NUMS, 3, osds_before), "--", label="copies independent")
ax1.plot(xs, spread["fullest/mean (cluster)"], "o", color="black", label="cluster")
ax1.set(xscale="log", xlabel="pg_num", ylabel="fullest OSD / mean", title=f"{osds_before} OSDs, size 3")
ax1.legend()
ax1.grid(True, alpha=0.3)
osds_after = in_osds + [added]
before_counts = sum(counts_per_osd(live_before, p, osds_after) for p in pools.values())
after_counts = sum(counts_per_osd(live_after, p, osds_after) for p in pools.values())
plots.bars_model_vs_measured(ax2, [f"osd.{o}" for o in osds_after], before_counts, after_counts,
                             ylabel="PGs (all lab pools)")
ax2.legend(["before (hatched)", "after osd joined"])
plots.show(fig)

# %%
placement.assert_agree()

# %% [markdown]
# ## What the model said, what the cluster did
#
# - **Placement is a computation.** From the two maps alone, the model named the PG and the
#   OSDs of every object exactly as `ceph osd map` did, and predicted every PG's up set — there
#   is no lookup table to consult, which is seed 000's "no metadata bottleneck".
# - **Spread.** The fewer PGs per OSD, the further the fullest OSD is expected to sit above the
#   average; the statistics of distinct-OSD sets predict how far on average, CRUSH itself
#   predicts the exact counts. One placement can land on either side of the average it is drawn
#   from, so a small pool may even come out more even than a larger one (this run's figures
#   below). Seed 002's `MIN/MAX VAR 0.66/1.36` is what too few PGs per OSD looks like.
# - **Growth.** A new OSD changes the set of many PGs but moves about one copy per changed PG,
#   almost all of them to the new OSD: close to the least any placement could move. Moving so
#   little is why straw2 replaced the older bucket types. A few PGs also swap an old OSD: CRUSH
#   draws again when a draw picks an OSD the PG already has, and a draw the new OSD wins can
#   change those later draws. A hash table would have moved most of everything.
#
# This run's figures:

# %% tags=["nbval-ignore-output"]
conclusions.render("""
- **Placement:** {same} of {objects} objects where `ceph osd map` put them; {changed_model} PGs
  predicted to change their set when osd.{added} joined, {changed_live} did.
- **Spread:** the fullest OSD held {f16:.2f}x the mean with 16 PGs and {f128:.2f}x with 128
  (the statistics expect {e16:.2f}x and {e128:.2f}x on average over placements). With your
  {mine} PGs it held {fmine:.2f}x, against {emine:.2f}x expected and {bmine} for 90 % of placements.
- **Growth:** {pgs_share:.0%} of the PGs changed their set, {copies_share:.1%} of the copies moved
  (the least possible: {least:.1%}; a hash table: {rehash:.0%}).
""", same=int(osd_map["same"].sum()), objects=len(osd_map), changed_model=len(model_changed),
    changed_live=len(live_changed), added=added, f16=spread.loc[16, "fullest/mean (cluster)"],
    f128=spread.loc[128, "fullest/mean (cluster)"], e16=spread.loc[16, "fullest/mean expected"],
    e128=spread.loc[128, "fullest/mean expected"], mine=mine, fmine=spread.loc[mine, "fullest/mean (cluster)"],
    emine=spread.loc[mine, "fullest/mean expected"], bmine=spread.loc[mine, "90 % of placements"], pgs_share=len(live_changed) / pgs_total,
    copies_share=live_new / total_copies, least=least.shards_moved, rehash=rehash)

# %% [markdown]
# - **Not modelled here:** the balancer's `pg_upmap` entries (switched off for the lab), data
#   per PG (objects vary in size, so bytes spread a bit more than PGs do), and device classes.

# %% [markdown]
# **W2. The fullest OSD and the data moved when an OSD joined: model vs cluster.** Use your run's
# factors for 16 PGs, 128 PGs and your pg_num, and the shares that moved (graded by hand).
#
# *Your answer:*

# %% [markdown]
# ## Clean up
# Removes the added OSD, turns the balancer back on and deletes the lab's pools.

# %% tags=["nbval-ignore-output"]
lab.cleanup()
