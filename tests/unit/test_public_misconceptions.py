"""A public self-check rejects the most common wrong answer to its question, with a hint that names
the misconception and never the value (issue 47 item 3).

Every graded question of every lab is decided, in exactly one of two tables:

- MISCONCEPTIONS: the wrong model a learner most often reaches for, and the public check that
  rejects it. Each row computes, for a learner's parameters P, the right answers (with the lab's
  own models) and the answers the misconception changes; the public cases of the student release
  (labs/NN/tests/qN.py, exactly what the learner runs, in the namespace the grader builds: the
  solution's imports and P) must pass the right answers and fail the wrong ones with a hint that
  holds the row's words and states none of the right values it changed. Several learners are
  tried; a row may return no wrong answers for a learner whose numbers make the wrong model
  agree with the right one (lab 02's PG id in decimal when the PG number is below 10), but at
  least one learner must exercise it. A question with more than one common wrong model has a
  list of rows, each checked on its own.
- CANNOT: why the public check does not (a choice among a few names or booleans, which a
  rejection would give away, or a wrong model only the exact answer tells apart).

tests/unit/test_public_hints.py keeps the checks honest the other way: no public message states a
right answer, and no public check pins one."""
from __future__ import annotations

import doctest
import json
import math
import numbers
import runpy
from functools import cache
from pathlib import Path

import pytest

from cephlab.course import checks, params, selfcheck
from models import capacity as cap
from models import database as db
from models import failure_domain as fd
from models import iops, pgs, waf
from models import metadata as md
from models import placement as pl
from models import recovery as rec
from models import redundancy as red
from models import threads as th
from models import throttle as thr
from models.containers import cephadm_layout
from models.crush import analysis as an
from models.crush import objects
from models.filestore import CASE4_WBTHROTTLE, simulate
from models.redundancy import erasure, replicated
from models.writepath import serial_write_latency_ms, write_latency_ms
from tests.unit.test_public_hints import close, numbers_in

ROOT = Path(__file__).resolve().parents[2]
LABS = ROOT / "labs"
LEARNERS = ("alice", "bob", "carol", "learner07", "student21", "example")
MIB, GIB = 2**20, 2**30


# -- the right answers and the misconceptions' answers, per question --------------------------------
def _lab00_q2_args(P):
    return P["q2_net_ms"], P["q2_disk_ms"], P["q2_osd_ms"], P["q2_size"]


def _lab00_q3(P):
    slow = iops.disk_class(P["q3_slow"])["latency_ms"]
    ssd = iops.disk_class("SATA SSD")["latency_ms"]
    ms = float(write_latency_ms(P["q3_net_ms"], ssd, P["q3_osd_ms"], P["q3_size"], slowest_disk_ms=slow))
    return {"q3_slow_ms": slow, "q3_ms": ms,
            "q3_slowdown": ms / float(write_latency_ms(P["q3_net_ms"], ssd, P["q3_osd_ms"], P["q3_size"]))}


def _lab00_q4(P):
    args = (P["q2_net_ms"], P["q2_disk_ms"], P["q2_osd_ms"], P["q4_size"])
    return {"q4_args": args, "q4_saved_ms": float(serial_write_latency_ms(*args)) - float(write_latency_ms(*args))}


def _lab00_q4_q2_size(P, right):
    """Q4's saving with Q2's size in the arguments (the same answers when the two sizes agree)."""
    if P["q2_size"] == P["q4_size"]:
        return None
    args = _lab00_q2_args(P)
    return {"q4_args": args, "q4_saved_ms": float(serial_write_latency_ms(*args)) - float(write_latency_ms(*args))}


def _lab01_q3(P):
    schemes = {"replicated size 3": replicated(3), f"EC {P['q3_k']}+{P['q3_m']}": erasure(P["q3_k"], P["q3_m"])}
    nines = [red.durability_nines(s, P["q3_afr"], P["q3_days"]) for s in schemes.values()]
    loss = {label: red.annual_loss_probability(s, P["q3_afr"], P["q3_days"]) for label, s in schemes.items()}
    return {"q3_nines_rep3": nines[0], "q3_nines_ec": nines[1], "q3_more_durable": min(loss, key=lambda k: loss[k])}


def _lab01_q3_wrong(P, right):
    """The scheme one believes more durable (EC for its many disks, or size 3 for its copies),
    named against one's own nines: identifiable when the nines differ."""
    if right["q3_nines_rep3"] == right["q3_nines_ec"]:
        return None
    other = "replicated size 3" if right["q3_more_durable"] != "replicated size 3" else f"EC {P['q3_k']}+{P['q3_m']}"
    return {"q3_more_durable": other}


def _lab01_q6(P):
    b = 1000
    return {"my_object_bytes": b, "q6_rep3_kib": 16 * red.allocated_bytes(b, replicated(3)) / 1024,
            "q6_ec21_kib": 16 * red.allocated_bytes(b, erasure(2, 1)) / 1024}


def _lab02_q1(P):
    pool = objects.Pool(id=P["q1_pool"], name="rbd", pg_num=P["q1_pg_num"], size=3, crush_rule=0)
    ps = int(pool.object_ps(P["q1_object"])[1][0])
    return {"q1_ps": ps, "q1_pgid": f"{P['q1_pool']}.{ps:x}"}


def _lab02_q2(P):
    pg_num = pgs.pgcalc(P["q2_osds"], P["q2_size"])
    return {"q2_pg_num": pg_num, "q2_per_osd": pl.pg_count_stats(pg_num, P["q2_size"], P["q2_osds"]).mean}


def _pgs_to_halve():
    """How many times more PGs per OSD halve the fullest OSD's excess: the excess goes like the PG
    count's std / mean (pl.pg_count_stats), so 2 ** (1 / the exponent of its fall)."""
    falls = pl.pg_count_stats(64, 3, 8).cv / pl.pg_count_stats(128, 3, 8).cv
    return round(2 ** (1 / math.log2(falls)))


def _lab02_q3(P):
    return {"q3_factor_small": pl.fullest_factor(P["q3_small"], 3, P["q3_osds"]),
            "q3_factor_big": pl.fullest_factor(P["q3_big"], 3, P["q3_osds"]), "q3_pgs_to_halve": _pgs_to_halve()}


def _lab02_q5(P):
    lost = {rule: an.host_failure(4, 3, rule)["PGs with every copy lost"] for rule in ("by_host", "by_osd")}
    return {"q5_lost": lost["by_osd"], "q5_safe_rule": min(lost, key=lambda rule: lost[rule])}


def _lab03_q3(P):
    w4 = iops.device_writes_per_write(4096)
    return {"q3_writes_4k": w4, "q3_writes_64k": iops.device_writes_per_write(65536),
            "q3_cluster_4k": iops.cluster_write_iops(P["q3_disk_iops"], P["q3_disks"], P["q3_size"], w4)}


def _lab03_q5(P):
    mix = iops.mixed_iops(P["q5_read_iops"], P["q5_write_iops"], 0.7)
    return {"q5_iops_70": mix, "q5_closer_to": "writes" if mix - P["q5_write_iops"] < P["q5_read_iops"] - mix
            else "reads"}


def _lab03_q4(P, cores=None):
    cores = P["q4_servers"] * P["q4_cores"] if cores is None else cores
    value = iops.cluster_write_iops(175000, P["q4_ssds"], 3, 1, cores=cores)
    disks = iops.expected_write_iops(175000, P["q4_ssds"], 3)
    return {"q4_iops": value, "q4_limit": "cpu" if iops.cpu_ceiling_iops(cores) < disks else "disks"}


def _lab03_q6(P, disk_iops=None):
    disk_iops = iops.hdd_iops(P["q6_rpm"], P["q6_seek_ms"]) if disk_iops is None else disk_iops
    return {"q6_disk_iops": disk_iops, "q6_overstated": 600 / disk_iops}


def _lab04_q1(P):
    return {"q1_delay_s": float(thr.backoff_delay(P["q1_fill"], low=P["q1_low"], high=P["q1_high"],
                                                  expected_throughput=P["q1_throughput"],
                                                  high_multiple=P["q1_high_multiple"],
                                                  max_multiple=P["q1_max_multiple"]))}


def _lab04_q2(P):
    return {"q2_max_ops": float(thr.max_rate(0.0, low=0.0, high=0.0, expected_throughput=P["q2_throughput"],
                                             high_multiple=P["q2_multiple"], max_multiple=P["q2_multiple"]))}


def _lab04_q1_ramp(P, right):
    """The delay of the ramp between low and high carried on past high (the right delay when the
    ramp and the top segment lie on one line)."""
    ramp = (P["q1_fill"] - P["q1_low"]) * P["q1_high_multiple"] / P["q1_throughput"] / (P["q1_high"] - P["q1_low"])
    return None if math.isclose(ramp, right["q1_delay_s"], rel_tol=1e-9) else {"q1_delay_s": ramp}


def _lab04_q4(P):
    means = {mode: simulate(throttle=mode, **CASE4_WBTHROTTLE).mean_iops(0, 120) for mode in ("none", "backoff")}
    return {"q4_means": means, "q4_best": max(means, key=lambda k: means[k]), "q4_backoff_iops": means["backoff"]}


def _lab04_q5(P, budget=None):
    budget = P["q5_budget_mib"] * MIB if budget is None else budget
    count = {kind: int(thr.bluestore_max_inflight(P["q5_kib"] * 1024, ios=1, cost_per_io=cost, throttle_bytes=budget))
             for kind, cost in (("hdd", 670000), ("ssd", 4000))}
    return {"q5_budget": budget, "q5_hdd": count["hdd"], "q5_ssd": count["ssd"]}


def _lab04_q6(P):
    return {"my_delay_multiple": 5, "q6_cap_ops": thr.max_rate(0.0, low=0.0, high=0.0, expected_throughput=200,
                                                              high_multiple=5, max_multiple=5)}


def _lab05_q1(P):
    return {"q1_threads": th.simple_messenger_threads(P["q1_clients"], P["q1_pgs"])}


def _lab05_q4(P):
    return {"q4_async": th.async_messenger_threads(P["q4_clients"]),
            "q4_simple": th.simple_messenger_threads(P["q4_clients"], P["q4_pgs"])}


def _lab05_q5(P):
    return {"my_clients": 6, "q5_threads": th.async_messenger_threads(6), "q5_client_connections": 6}


def _lab05_q2(P):
    return {"q2_clients": th.max_clients_per_osd(32768, P["q2_host_osds"], P["q2_pgs"]),
            "q2_osds": 32768 // th.simple_messenger_threads(P["q2_osd_clients"], P["q2_pgs"])}


def _lab06_q1(P, fill=cap.PLANNING_FILL):
    usable = cap.required_capacity(P["q1_vms"], P["q1_disk_gib"], P["q1_thin"], fill_ratio=fill)
    return {"q1_usable_gib": usable, "q1_raw_gib": cap.raw_capacity(usable, replicated(P["q1_size"]))}


def _lab06_q3(P, shares=None):
    shares = list(P["q3_pgs"] if shares is None else shares)
    found = cap.usable_before_full([P["q3_osd_gib"]] * 4, shares, replicated(3))
    return {"q3_usable_gib": found.usable, "q3_stranded": found.stranded_fraction}


def _lab06_q5(P):
    """MAX AVAIL of four equal OSDs before and after 96 objects of 4 MiB, spread by weight."""
    objects_ = 96
    before = cap.max_avail([8 * GIB] * 4, [1] * 4, replicated(3), 300 * MIB)
    after = cap.max_avail([8 * GIB] * 4, [1] * 4, replicated(3), 300 * MIB + 3 * objects_ * 4 * MIB / 4)
    return {"my_objects": objects_, "q5_avail_before": before, "q5_avail_after": after,
            "q5_avail_drop_mib": (before - after) / MIB}


def _lab07_q1(P):
    parts = waf.longterm_breakdown("filestore")
    return {"q1_parts": parts, "q1_journal_share": (parts["ceph_journal"] + parts["fs_journal"]) / parts["total"]}


def _lab07_q2(P, per=1):
    return {name: float(waf.bluestore_waf(P[f"{name}_kib"] * 1024, replicas=P["q2_replicas"])) / per
            for name in ("q2_small", "q2_big")}


def _lab07_q4(P):
    parts = waf.bluestore_waf(16384).parts
    return {"q4_parts": parts, "q4_deferred": parts["deferred_data"] > 0,
            "q4_data_waf": parts["data"] + parts["deferred_data"]}


def _lab08_q2(P, mib=128 * 3 / 4):
    copying = rec.concurrent_recoveries(3, 3, 1, backfill=True, receivers=1)
    return {"q2_mib": mib, "q2_copying": copying,
            "q2_seconds": rec.recovery_time(mib * MIB, copying, 30 * MIB, 1, 0.1, object_size=MIB)}


def _lab08_q3(P):
    data, rate = P["q3_fill"] * P["q3_disk_tb"] * 1e12, P["q3_stream_mbs"] * 1e6
    return {"q3_bytes": data,
            "q3_seconds_1": rec.reservation_time(data, P["q3_osds"], 100, rate, 1, 0.1),
            "q3_seconds_4": rec.reservation_time(data, P["q3_osds"], 100, rate, 4, 0.1),
            "q3_bottleneck": rec.reservation_bottleneck(P["q3_osds"], 100, rate, 1, 0.1)}


def _lab08_q4(P):
    seconds = _lab08_q3(P)["q3_seconds_1"]
    window = rec.window_days(rec.degraded_window(seconds))
    pg_count = P["q3_osds"] * 100 // 3
    return {"q3_seconds_1": seconds, "q4_recovery_s": seconds,       # Q4's check reads Q3's answer
            "q4_nines_ceph": red.nines(rec.annual_loss_with_recovery(replicated(3), P["q4_afr"], seconds)),
            "q4_nines_late": red.durability_nines(replicated(3), P["q4_afr"], P["q4_days"]),
            "q4_window_days": window, "q4_pgs": pg_count,
            "q4_nines_cluster": red.nines(red.cluster_loss_probability(P["q3_osds"], pg_count, replicated(3),
                                                                       P["q4_afr"], window))}


def _lab08_q5(P, mib=192 * 3 / 4):
    return {"my_objects": 192, "q5_mib": mib,
            "q5_seconds": rec.recovery_time(mib * MIB, 1, 30 * MIB, 1, 0.1, object_size=MIB)}


def _lab09_q1(P):
    operation = max(["File Creation", "File Removal", "File Rename"], key=md.seed_serialisation)
    return {"q1_operation": operation, "q1_factor": md.seed_serialisation(operation)}


def _lab09_q2(P):
    return {"q2_wait_ms": 1e3 * md.seed_client_latency(P["q2_operation"]),
            "q2_knee_clients": md.saturation_clients(P["q2_rtt_ms"] / 1000, md.seed_service_time(P["q2_operation"]))}


def _lab09_q3(P, requests=None):
    s, r0 = md.seed_service_time(P["q2_operation"]), P["q2_rtt_ms"] / 1000
    return {"q3_s": s, "q3_private": md.closed_loop_ops(P["q3_private_clients"], r0, s),
            "q3_shared": md.ops_with_requests(P["q3_shared_clients"], r0, s,
                                              P["q3_requests"] if requests is None else requests)}


def _lab09_q5(P):
    return {"my_clients": 3,
            "q5_speedup": md.closed_loop_ops(3, 0.0007, 0.0003) / md.closed_loop_ops(1, 0.0007, 0.0003)}


def _lab10_q1(P, size=None):
    size = P["q1_size"] if size is None else size
    commit = db.ceph_commit_ms(P["q1_hop_ms"], P["q1_flush_ms"], P["q1_cpu_ms"], size)
    return {"q1_commit_ms": commit, "q1_serial_ms": db.ceph_commit_ms(P["q1_hop_ms"], P["q1_flush_ms"], P["q1_cpu_ms"],
                                                                      size, flushes=P["q1_flushes"])}


def _lab10_q2(P, per=1.0):
    txn = db.transaction_ms(P["q2_other_ms"], _lab10_q1(P)["q1_commit_ms"])
    few = db.closed_loop_tps(P["q2_few"], txn)
    return {"q2_txn_ms": txn, "q2_tps_few": few / per,
            "q2_tps_many": db.closed_loop_tps(P["q2_many"], txn, P["q2_cap"]) / per,
            "q2_batch_s": db.batch_seconds(1024, few)}


def _lab10_q3(P, seconds=1000):
    cap_ = db.max_tps(commit_ms=P["q3_commit_ms"], group_commit=False)
    tps = P["q3_clients"] * seconds / P["q3_avg_ms"]
    return {"q3_cap": cap_, "q3_tps": tps, "q3_possible": bool(tps <= cap_)}


def _lab10_q4(P):
    commit = P["q4_ratio"] * db.transaction_ms(P["q4_other_ms"], P["q4_ssd_ms"]) - P["q4_other_ms"]
    return {"q4_commit_ms": commit, "q4_looks_like": "many slow flushes" if commit > 20 else "LAN write"}


def _lab10_q5(P, size=3):
    commit = db.ceph_commit_ms(0.05, 0.1, 0.4, size)
    return {"my_clients": 6, "q5_commit_ms": commit, "q5_tps": db.closed_loop_tps(6, db.transaction_ms(1.0, commit))}


def _lab11_q1(P):
    layout = cephadm_layout(f"5f0c1a2e-7b3d-11ee-8c4a-525400{P['q1_node']:06x}", f"osd.{P['q1_osd']}")
    return {"q1_data_dir": layout["host data dir"], "q1_container": layout["container"]}


def _lab11_q3(P):
    size, hosts = P["q3_size"], P["q3_size"] + P["q3_extra_hosts"]
    return {"q3_hosts": next(h for h in range(1, 20) if fd.recovers_without_host(h, 1, size, "host")),
            "q3_osd_hosts": next(h for h in range(1, 20) if fd.recovers_without_host(h, P["q3_per_host"], size, "osd")),
            "q3_hosts_lost": sum(bool(fd.recovers_without_host(hosts - i, 1, size, "host")) for i in range(hosts))}


# (lab, question): (right(P) -> answers, wrong(P, right) -> the answers the misconception changes
#                   or None, words the hint of the wrong answers holds)
MISCONCEPTIONS = {
    ("00-welcome", "q1"): [
        # every container kept on a volume, the stateless ones too
        (lambda P: {"q1_stateful": {"MySQL database", "CI repository data", "secret keys"}},
         lambda P, r: {"q1_stateful": {"nginx front end", "MySQL database", "CI repository data",
                                       "stateless API worker", "secret keys"}},
         "stateless"),
        # the database alone: the one obvious piece of state
        (lambda P: {"q1_stateful": {"MySQL database", "CI repository data", "secret keys"}},
         lambda P, r: {"q1_stateful": {"MySQL database"}},
         "not just one")],
    # copies one after another (the serial model) instead of the replicas in parallel
    ("00-welcome", "q2"): (
        lambda P: {"q2_ms": float(write_latency_ms(*_lab00_q2_args(P)))},
        lambda P, r: {"q2_ms": float(serial_write_latency_ms(*_lab00_q2_args(P)))},
        "one after another"),
    # the slowdown as the two disks' ratio, not the two writes' latencies
    ("00-welcome", "q3"): (
        lambda P: _lab00_q3(P),
        lambda P, r: {"q3_slowdown": r["q3_slow_ms"] / iops.disk_class("SATA SSD")["latency_ms"]},
        "every disk an SSD"),
    ("00-welcome", "q4"): [
        # the saving as (size - 1) whole copies: the parallel write taken for one copy's time
        (lambda P: _lab00_q4(P),
         lambda P, r: {"q4_saved_ms": float(serial_write_latency_ms(*r["q4_args"]))
                       - float(write_latency_ms(*r["q4_args"][:3], 1))},
         "one replica's round trip"),
        # Q2's size carried into Q4's arguments
        (_lab00_q4, _lab00_q4_q2_size, "not Q2's")],
    # the primary's own write counted as a subop too: size subops per write, not size - 1
    ("00-welcome", "q6"): (
        lambda P: {"my_pool_size": 2, "q6_op_w": 20, "q6_subop_w": 20 * (2 - 1)},
        lambda P, r: {"q6_subop_w": 20 * 2},
        "once by each replica"),
    ("01-redundancy", "q1"): [
        # raw / usable itself, not its excess over 1
        (lambda P: {"q1_overhead": erasure(P["q1_k"], P["q1_m"]).overhead},
         lambda P, r: {"q1_overhead": erasure(P["q1_k"], P["q1_m"]).raw_per_usable},
         "raw / usable itself"),
        # the coding chunks' share of the raw space, m / (k + m)
        (lambda P: {"q1_overhead": erasure(P["q1_k"], P["q1_m"]).overhead},
         lambda P, r: {"q1_overhead": P["q1_m"] / (P["q1_k"] + P["q1_m"])},
         "m / (k + m)")],
    # the EC pool filled to the brim: the planned fill forgotten
    ("01-redundancy", "q2"): (
        lambda P: {"q2_usable_tb": red.usable_capacity(P["q2_raw_tb"], erasure(P["q2_k"], P["q2_m"]),
                                                       fill_ratio=P["q2_fill"])},
        lambda P, r: {"q2_usable_tb": red.usable_capacity(P["q2_raw_tb"], erasure(P["q2_k"], P["q2_m"]))},
        "planned fill"),
    # the scheme one believes more durable, whatever its nines say
    ("01-redundancy", "q3"): (_lab01_q3, _lab01_q3_wrong, "more nines"),
    # EC 2+1 taken for 3 full copies, as a size-3 pool
    ("01-redundancy", "q4"): (
        lambda P: {"q4_ec21_used_mib": P["q4_objects"] * P["q4_object_mib"] * erasure(2, 1).raw_per_usable},
        lambda P, r: {"q4_ec21_used_mib": P["q4_objects"] * P["q4_object_mib"] * replicated(3).raw_per_usable},
        "3 full copies"),
    ("01-redundancy", "q6"): [
        # no padding: raw space = the object's bytes x raw / usable
        (_lab01_q6,
         lambda P, r: {"q6_rep3_kib": 16 * 1000 * 3 / 1024, "q6_ec21_kib": 16 * 1000 * 1.5 / 1024},
         "4 KiB allocation unit"),
        # one object's raw space, not the 16 objects'
        (_lab01_q6, lambda P, r: {"q6_rep3_kib": r["q6_rep3_kib"] / 16, "q6_ec21_kib": r["q6_ec21_kib"] / 16},
         "not one")],
    # the PG number written in decimal (the same string below 10)
    ("02-placement", "q1"): (
        _lab02_q1,
        lambda P, r: None if r["q1_ps"] < 10 else {"q1_pgid": f"{P['q1_pool']}.{r['q1_ps']}"},
        "hexadecimal"),
    # each PG counted once: pg_num / OSDs
    ("02-placement", "q2"): (
        _lab02_q2,
        lambda P, r: {"q2_per_osd": r["q2_pg_num"] / P["q2_osds"]},
        "not pg_num / OSDs"),
    # the excess shrinks in proportion to the PGs: twice the PGs halve it
    ("02-placement", "q3"): (_lab02_q3, lambda P, r: {"q3_pgs_to_halve": 2}, "more slowly"),
    # a PG changes its OSD set only when the copy on the new OSD is its own: as many PGs as copies move
    ("02-placement", "q4"): (
        lambda P: {"q4_shards_moved": pl.movement_on_add(4, 3).shards_moved,
                   "q4_pgs_changed": pl.movement_on_add(4, 3).pgs_changed},
        lambda P, r: {"q4_pgs_changed": r["q4_shards_moved"]},
        "more PGs change than copies move"),
    # the PGs that stop serving (fewer than min_size left) taken for those that lose every copy
    ("02-placement", "q5"): (
        _lab02_q5,
        lambda P, r: {"q5_lost": an.host_failure(4, 3, "by_osd")["PGs blocked (< min_size 2 left)"]},
        "3 copies all sit"),
    ("02-placement", "q6"): [
        # each PG counted once: my_pg_num / 4
        (lambda P: {"my_pg_num": 64, "q6_per_osd": pl.pg_count_stats(64, 3, 4).mean,
                    "q6_fullest_factor": pl.fullest_factor(64, 3, 4)},
         lambda P, r: {"q6_per_osd": 64 / 4},
         "every copy"),
        # the copies placed independently (the lab's dashed curve), not on distinct OSDs
        (lambda P: {"my_pg_num": 64, "q6_per_osd": pl.pg_count_stats(64, 3, 4).mean,
                    "q6_fullest_factor": pl.fullest_factor(64, 3, 4)},
         lambda P, r: {"q6_fullest_factor": float(pgs.fullest_osd_factor(64, 3, 4))},
         "placed independently")],
    ("03-disk-iops", "q1"): [
        # replication forgotten: the disks' summed IOPS
        (lambda P: {"q1_data_disk_bound": iops.expected_write_iops(P["q1_disk_iops"], P["q1_disks"], 3),
                    "q1_fraction_of_plan": P["q1_measured"] / P["q1_planned"]},
         lambda P, r: {"q1_data_disk_bound": iops.expected_write_iops(P["q1_disk_iops"], P["q1_disks"], 1)},
         "lands on 3"),
        # the journal's write counted on the data disks too (case 1's two device writes)
        (lambda P: {"q1_data_disk_bound": iops.expected_write_iops(P["q1_disk_iops"], P["q1_disks"], 3),
                    "q1_fraction_of_plan": P["q1_measured"] / P["q1_planned"]},
         lambda P, r: {"q1_data_disk_bound": iops.expected_write_iops(P["q1_disk_iops"], P["q1_disks"], 3, 2)},
         "two device writes")],
    # Little's law with the latency in ms
    ("03-disk-iops", "q2"): (
        lambda P: {"q2_in_flight": iops.queue_depth_from(P["q2_iops"], P["q2_latency_ms"]),
                   "q2_latency_ms": iops.latency_ms(P["q2_base_iops"], P["q2_queue"])},
        lambda P, r: {"q2_in_flight": P["q2_iops"] * P["q2_latency_ms"]},
        "in seconds"),
    ("03-disk-iops", "q3"): [
        # one device write per replica write: the commit's write forgotten
        (_lab03_q3,
         lambda P, r: {"q3_cluster_4k": iops.cluster_write_iops(P["q3_disk_iops"], P["q3_disks"], P["q3_size"], 1)},
         "commit")],
    # (q3_writes_64k = 1, the commit forgotten, is not rejected: with 0 < 64k <= 4k, rejecting 1
    # leaves 2, the answer; the q3_cluster_4k case rejects the same misconception in numbers)
    ("03-disk-iops", "q4"): [
        # seed 004's 10^4 IOPS per CPU read per server, not per core
        (_lab03_q4, lambda P, r: _lab03_q4(P, cores=P["q4_servers"]), "per core"),
        # the larger of the two bounds, named as the limit
        (_lab03_q4,
         lambda P, r: (lambda disks, cpu: {"q4_iops": max(disks, cpu), "q4_limit": "disks" if disks > cpu else "cpu"})(
             iops.expected_write_iops(175000, P["q4_ssds"], 3), iops.cpu_ceiling_iops(P["q4_servers"] * P["q4_cores"])),
         "lower of")],
    # the linear mix of the two rates (closer to the reads)
    ("03-disk-iops", "q5"): (
        _lab03_q5,
        lambda P, r: {"q5_iops_70": 0.7 * P["q5_read_iops"] + 0.3 * P["q5_write_iops"], "q5_closer_to": "reads"},
        "linear mix"),
    ("03-disk-iops", "q6"): [
        # a random I/O costs the seek alone (or half a rotation added in seconds)
        (_lab03_q6, lambda P, r: _lab03_q6(P, 1000 / P["q6_seek_ms"]), "half a rotation"),
        # a full rotation, not half of one on average
        (_lab03_q6, lambda P, r: _lab03_q6(P, 1000 / (P["q6_seek_ms"] + 60000 / P["q6_rpm"])), "full rotation")],
    # queue-bound: the IOPS follow the writes in flight at an unchanged latency
    ("03-disk-iops", "q7"): (
        lambda P: {"my_threads": 4, "q7_iops_ratio": 1.0, "q7_latency_ratio": 4 / 16},
        lambda P, r: {"q7_iops_ratio": 4 / 16, "q7_latency_ratio": 1.0},
        "queue-bound"),
    ("04-throttles", "q1"): [
        # the delay in ms
        (_lab04_q1, lambda P, r: {"q1_delay_s": 1000 * r["q1_delay_s"]}, "not ms"),
        # the ramp between low and high carried on past high
        (_lab04_q1, _lab04_q1_ramp, "ramp between low and high")],
    ("04-throttles", "q2"): [
        # the delay one transaction waits, not the rate that passes
        (_lab04_q2, lambda P, r: {"q2_max_ops": 1 / r["q2_max_ops"]}, "the delay one transaction waits"),
        # the rate shared among the 3 OSDs, though each sees every write
        (_lab04_q2, lambda P, r: {"q2_max_ops": r["q2_max_ops"] / 3}, "among the OSDs")],
    # the stall taken for a blip: the whole run's mean
    ("04-throttles", "q3"): (
        lambda P: {"q3_collapse_s": simulate(throttle="none", **CASE4_WBTHROTTLE).collapse_time,
                   "q3_iops_after": simulate(throttle="none", **CASE4_WBTHROTTLE).mean_iops(60, 120),
                   "q3_collapse_big_s": simulate(throttle="none", page_cache_mb=18000,
                                                 **CASE4_WBTHROTTLE).collapse_time},
        lambda P, r: {"q3_iops_after": simulate(throttle="none", **CASE4_WBTHROTTLE).mean_iops(0, 120)},
        "whole run"),
    # "none" named for its early speed, whatever the two means say
    ("04-throttles", "q4"): (_lab04_q4, lambda P, r: {"q4_best": "none"}, "larger mean"),
    # a MiB taken for a million bytes
    ("04-throttles", "q5"): (_lab04_q5, lambda P, r: _lab04_q5(P, P["q5_budget_mib"] * 10**6), "not a million"),
    ("04-throttles", "q6"): [
        # the delay, not the rate
        (_lab04_q6, lambda P, r: {"q6_cap_ops": 1 / r["q6_cap_ops"]}, "not the delay itself"),
        # the rate shared among the 3 OSDs, though each sees every write
        (_lab04_q6, lambda P, r: {"q6_cap_ops": r["q6_cap_ops"] / 3}, "among the OSDs")],
    ("05-threads", "q1"): [
        # the clients' threads alone
        (_lab05_q1, lambda P, r: {"q1_threads": 2 * P["q1_clients"]}, "PG peers add more"),
        # one connection per PG, not seed 004's 6
        (_lab05_q1, lambda P, r: {"q1_threads": 2 * (P["q1_clients"] + 1 + P["q1_pgs"])}, "one connection per PG")],
    ("05-threads", "q2"): [
        # the clients' threads alone: pid_max / (2 threads per client)
        (_lab05_q2,
         lambda P, r: {"q2_clients": 32768 // (2 * P["q2_host_osds"]), "q2_osds": 32768 // (2 * P["q2_osd_clients"])},
         "PG peers"),
        # the OSDs rounded up, past pid_max
        (_lab05_q2,
         lambda P, r: (lambda t: None if 32768 % t == 0 else {"q2_osds": 32768 // t + 1})(
             th.simple_messenger_threads(P["q2_osd_clients"], P["q2_pgs"])),
         "more than pid_max")],
    # the pool's size ignored: every OSD a possible peer
    ("05-threads", "q3"): (
        lambda P: {f"q3_{pool}": th.simple_messenger_threads_in_pool(P["q3_clients"], P["q3_pgs"], P[f"q3_{pool}"])
                   for pool in ("big_pool", "small_pool")},
        lambda P, r: {"q3_small_pool": r["q3_big_pool"]},
        "caps the peers"),
    ("05-threads", "q4"): [
        # AsyncMessenger counted with SimpleMessenger's 2 threads per connection
        (_lab05_q4, lambda P, r: {"q4_async": r["q4_simple"]}, "fixed pool"),
        # the messenger's event-loop threads (ms_async_op_threads) taken for the whole OSD
        (_lab05_q4, lambda P, r: {"q4_async": 3}, "event-loop pool"),
        # the measured constant plus a pair of threads per client
        (_lab05_q4, lambda P, r: {"q4_async": th.async_messenger_threads(0) + 2 * P["q4_clients"]},
         "does not grow")],
    ("05-threads", "q5"): [
        # AsyncMessenger with a pair of threads per client connection
        (_lab05_q5, lambda P, r: {"q5_threads": th.async_messenger_threads(0) + 2 * 6}, "its own pair of threads"),
        # one connection per client, spread over the 3 OSDs
        (_lab05_q5, lambda P, r: {"q5_client_connections": 6 // 3}, "not spread over the OSDs")],
    ("06-capacity", "q1"): [
        # the 0.7 fill forgotten: the thin-provisioned data alone
        (_lab06_q1, lambda P, r: _lab06_q1(P, fill=1.0), "0.7 fill"),
        # 3 copies whatever the pool's size (the same answers for a size-3 pool)
        (_lab06_q1, lambda P, r: None if P["q1_size"] == 3 else {"q1_raw_gib": 3 * r["q1_usable_gib"]},
         "as many copies as its size")],
    # the copies spread evenly, whatever the PG counts
    ("06-capacity", "q3"): (_lab06_q3, lambda P, r: _lab06_q3(P, shares=[24] * 4), "even spread"),
    # the survivors filled to the brim, nearfull forgotten
    ("06-capacity", "q4"): (
        lambda P: {"q4_max_fill": cap.NEARFULL * (P["q4_hosts"] - 1) / P["q4_hosts"],
                   "q4_seed_is_safe": cap.PLANNING_FILL <= cap.NEARFULL * (P["q4_hosts"] - 1) / P["q4_hosts"]},
        lambda P, r: {"q4_max_fill": (P["q4_hosts"] - 1) / P["q4_hosts"],
                      "q4_seed_is_safe": cap.PLANNING_FILL <= (P["q4_hosts"] - 1) / P["q4_hosts"]},
        "nearfull"),
    ("06-capacity", "q5"): [
        # the raw space of 3 copies, not the client data MAX AVAIL counts
        (_lab06_q5, lambda P, r: {"q5_avail_drop_mib": 3 * r["q5_avail_drop_mib"],
                                  "q5_avail_after": r["q5_avail_before"] - 3 * r["q5_avail_drop_mib"] * MIB},
         "every copy"),
        # osd_used grown by the client's bytes alone (one copy), so the fall is a third
        (_lab06_q5, lambda P, r: {"q5_avail_drop_mib": r["q5_avail_drop_mib"] / 3,
                                  "q5_avail_after": r["q5_avail_before"] - r["q5_avail_drop_mib"] / 3 * MIB},
         "one copy of each object")],
    ("07-write-amplification", "q1"): [
        # a percentage
        (_lab07_q1, lambda P, r: {"q1_journal_share": 100 * r["q1_journal_share"]}, "not a percentage"),
        # the Ceph journal alone
        (_lab07_q1, lambda P, r: {"q1_journal_share": r["q1_parts"]["ceph_journal"] / r["q1_parts"]["total"]},
         "one journal only"),
        # divided by the sum of every entry of the dict, 'total' included
        (_lab07_q1, lambda P, r: {"q1_journal_share": (r["q1_parts"]["ceph_journal"] + r["q1_parts"]["fs_journal"])
                                  / sum(r["q1_parts"].values())},
         "counts the total twice")],
    # one replica's WAF
    ("07-write-amplification", "q2"): (_lab07_q2, lambda P, r: _lab07_q2(P, per=P["q2_replicas"]), "over all replicas"),
    # Pacific's defaults: no zero fill of the 64 KiB unit
    ("07-write-amplification", "q3"): (
        lambda P: {"q3_jewel_4k": float(waf.bluestore_waf(4096, **waf.BLUESTORE_JEWEL_HDD)),
                   "q3_jewel_overwrite": float(waf.bluestore_waf(4096, overwrite=True, **waf.BLUESTORE_JEWEL_HDD)),
                   "q3_space": waf.space_amplification(1024, 65536)},
        lambda P, r: {"q3_jewel_4k": float(waf.bluestore_waf(4096))},
        "zero-filled"),
    # (q4_deferred, a boolean, is not checked: rejecting False would state True)
    ("07-write-amplification", "q4"): [
        # one replica's data
        (_lab07_q4, lambda P, r: {"q4_data_waf": r["q4_data_waf"] / 3}, "every replica"),
        # the data counted twice, its copy in the WAL too
        (_lab07_q4, lambda P, r: {"q4_data_waf": r["q4_parts"]["data"] + 2 * r["q4_parts"]["deferred_data"]},
         "WAL's copy")],
    ("07-write-amplification", "q5"): [
        # the replicas' copies alone
        (lambda P: {"q5_tb_per_day": P["q5_client_tb"] * waf.longterm_breakdown("filestore")["total"]},
         lambda P, r: {"q5_tb_per_day": P["q5_client_tb"] * replicated(3).raw_per_usable},
         "journal"),
        # the fresh cluster's 4 KiB WAF (the microbenchmark), not the long-term run's
        (lambda P: {"q5_tb_per_day": P["q5_client_tb"] * waf.longterm_breakdown("filestore")["total"]},
         lambda P, r: {"q5_tb_per_day": P["q5_client_tb"] * float(waf.filestore_waf(4096))},
         "fresh cluster's")],
    ("07-write-amplification", "q6"): [
        # the size in KiB passed as bytes
        (lambda P: {"my_write_kib": 48,
                    "q6_waf": float(waf.bluestore_waf(48 * 1024, sst_bytes=0, bluefs_log_bytes=0))},
         lambda P, r: {"q6_waf": float(waf.bluestore_waf(48, sst_bytes=0, bluefs_log_bytes=0))},
         "in bytes, not KiB"),
        # the 30 s calibration's WAF (SST files and the BlueFS log) for a 2-second run
        (lambda P: {"my_write_kib": 48,
                    "q6_waf": float(waf.bluestore_waf(48 * 1024, sst_bytes=0, bluefs_log_bytes=0))},
         lambda P, r: {"q6_waf": float(waf.bluestore_waf(48 * 1024))},
         "30 s calibration")],
    # the stale PGs counted as serving
    ("08-failure-and-recovery", "q1"): (
        lambda P: {"q1_serving": 42 + 7 + 3 + 12, "q1_not_serving": 1 + 20 + 5 + 7, "q1_degraded_fraction": 105 / 1119},
        lambda P, r: {"q1_serving": 42 + 7 + 3 + 12 + 7, "q1_not_serving": 1 + 20 + 5},
        "stale"),
    ("08-failure-and-recovery", "q2"): [
        # one copy per object: a quarter of the data
        (_lab08_q2, lambda P, r: _lab08_q2(P, mib=128 / 4), "3 copies"),
        # the reservations ignored: every survivor copies at once
        (_lab08_q2, lambda P, r: {"q2_copying": 3, "q2_seconds": rec.recovery_time(
            r["q2_mib"] * MIB, 3, 30 * MIB, 1, 0.1, object_size=MIB)}, "reservations")],
    ("08-failure-and-recovery", "q3"): [
        # four backfill slots, four times faster
        (_lab08_q3, lambda P, r: {"q3_seconds_4": r["q3_seconds_1"] / 4}, "four times faster"),
        # the whole disk backfilled, its fill forgotten
        (_lab08_q3, lambda P, r: (lambda data: {
            "q3_bytes": data,
            "q3_seconds_1": rec.reservation_time(data, P["q3_osds"], 100, P["q3_stream_mbs"] * 1e6, 1, 0.1),
            "q3_seconds_4": rec.reservation_time(data, P["q3_osds"], 100, P["q3_stream_mbs"] * 1e6, 4, 0.1)})(
                P["q3_disk_tb"] * 1e12),
         "not the whole disk")],
    ("08-failure-and-recovery", "q4"): [
        # a cluster as durable as one stripe
        (_lab08_q4, lambda P, r: {"q4_nines_cluster": r["q4_nines_ceph"]}, "fewer nines than one stripe"),
        # the window in seconds stored as days
        (_lab08_q4, lambda P, r: {"q4_window_days": rec.degraded_window(r["q4_recovery_s"])}, "in days, not seconds"),
        # the whole degraded window (600 s + recovery) stored as the recovery time
        (_lab08_q4, lambda P, r: {"q4_recovery_s": rec.degraded_window(r["q4_recovery_s"])}, "whole degraded window")],
    ("08-failure-and-recovery", "q5"): [
        # one copy per object
        (_lab08_q5, lambda P, r: _lab08_q5(P, mib=192 / 4), "3 copies"),
        # 3 PGs copying in parallel, though the question says one at a time
        (_lab08_q5, lambda P, r: {"q5_seconds": rec.recovery_time(r["q5_mib"] * MIB, 3, 30 * MIB, 1, 0.1,
                                                                  object_size=MIB)}, "one PG at a time")],
    # the ratio upside down: shared over separate
    ("09-cephfs-metadata", "q1"): (_lab09_q1, lambda P, r: {"q1_factor": 1 / r["q1_factor"]},
                                   "separate ops/s divided by shared ops/s"),
    # the wait in seconds
    ("09-cephfs-metadata", "q2"): (_lab09_q2, lambda P, r: {"q2_wait_ms": r["q2_wait_ms"] / 1000}, "In milliseconds"),
    ("09-cephfs-metadata", "q3"): [
        # one MDS request per operation in the shared folder too
        (_lab09_q3, lambda P, r: {"q3_shared": _lab09_q3(P, requests=1)["q3_shared"]}, "MDS serves at most"),
        # every private client adds a whole MDS's rate: N / S, past the MDS's cap
        (_lab09_q3, lambda P, r: {"q3_private": P["q3_private_clients"] / r["q3_s"]}, "however many clients ask")],
    # every client adds its own rate, past the knee too
    ("09-cephfs-metadata", "q5"): (_lab09_q5, lambda P, r: {"q5_speedup": 3.0}, "knee"),
    ("10-database-on-ceph", "q1"): [
        # no replica in the commit: client -> primary -> client
        (_lab10_q1, lambda P, r: _lab10_q1(P, size=1), "replica's round trip"),
        # the copies written one after another (the serial write path of lab 00)
        (_lab10_q1, lambda P, r: (lambda one: {"q1_commit_ms": one, "q1_serial_ms": P["q1_flushes"] * one})(
            float(serial_write_latency_ms(P["q1_hop_ms"], P["q1_flush_ms"], P["q1_cpu_ms"], P["q1_size"]))),
         "one after another")],
    ("10-database-on-ceph", "q2"): [
        # transactions per millisecond
        (_lab10_q2, lambda P, r: _lab10_q2(P, per=1000.0), "per millisecond"),
        # the CPU ceiling ignored (the same answers when the many clients stay under it)
        (_lab10_q2, lambda P, r: (lambda tps: None if tps <= P["q2_cap"] else {"q2_tps_many": tps})(
            db.closed_loop_tps(P["q2_many"], r["q2_txn_ms"])), "CPU allows")],
    # Little's law with the time in ms (q3_possible, a boolean, is not checked: rejecting True would state False)
    ("10-database-on-ceph", "q3"): (_lab10_q3, lambda P, r: _lab10_q3(P, seconds=1), "in seconds"),
    # the commit alone made ratio x slower
    ("10-database-on-ceph", "q4"): (
        _lab10_q4,
        lambda P, r: {"q4_commit_ms": P["q4_ratio"] * P["q4_ssd_ms"],
                      "q4_looks_like": "many slow flushes" if P["q4_ratio"] * P["q4_ssd_ms"] > 20 else "LAN write"},
        "other work does not grow"),
    ("10-database-on-ceph", "q5"): [
        # no replica in the commit
        (_lab10_q5, lambda P, r: _lab10_q5(P, size=1), "replica's round trip"),
        # the commit alone per transaction, the 1 ms of other work left out
        (_lab10_q5, lambda P, r: {"q5_tps": db.closed_loop_tps(6, r["q5_commit_ms"])}, "1 ms of other work")],
    # the path the OSD's folder has inside the container (and on a package-installed host)
    ("11-containers-and-cephadm", "q1"): (
        _lab11_q1, lambda P, r: {"q1_data_dir": f"/var/lib/ceph/osd/ceph-{P['q1_osd']}"}, "inside the container"),
    # the stopped host's share of the PGs
    ("11-containers-and-cephadm", "q2"): [
        (lambda P: {"q2_blocked": float(fd.blocked_fraction(P["q2_hosts"], P["q2_per_host"], P["q2_size"], 2, "osd"))},
         lambda P, r: {"q2_blocked": 1 / P["q2_hosts"]},
         "host's share"),
        # a size-3 pool's share whatever the size (the same answers for a size-3 pool)
        (lambda P: {"q2_blocked": float(fd.blocked_fraction(P["q2_hosts"], P["q2_per_host"], P["q2_size"], 2, "osd"))},
         lambda P, r: None if P["q2_size"] == 3 else {
             "q2_blocked": float(fd.blocked_fraction(P["q2_hosts"], P["q2_per_host"], 3, 2, "osd"))},
         "size-3 pool's share")],
    ("11-containers-and-cephadm", "q3"): [
        # one host per copy, none for the host that is down
        (_lab11_q3, lambda P, r: {"q3_hosts": P["q3_size"]}, "host that is down"),
        # "a cluster survives one host": 1, rejected where no spare host heals even one failure (with 2 or
        # more spare hosts 1 is below the answer, and a check rejecting it there would bound it from below)
        (_lab11_q3, lambda P, r: None if P["q3_extra_hosts"] != 0 else {"q3_hosts_lost": 1},
         "Not every one of those failures")],
    ("11-containers-and-cephadm", "q4"): [
        # the stopped host's share of the PGs
        (lambda P: {"q4_unavailable": float(fd.unavailable_fraction(P["q4_hosts"], P["q4_per_host"], P["q4_size"],
                                                                    "osd"))},
         lambda P, r: {"q4_unavailable": 1 / P["q4_hosts"]},
         "host's share"),
        # the PGs that stop serving (fewer than min_size 2 left) for those with no shard left (the same for size 2)
        (lambda P: {"q4_unavailable": float(fd.unavailable_fraction(P["q4_hosts"], P["q4_per_host"], P["q4_size"],
                                                                    "osd"))},
         lambda P, r: None if P["q4_size"] < 3 else {
             "q4_unavailable": float(fd.blocked_fraction(P["q4_hosts"], P["q4_per_host"], P["q4_size"], 2, "osd"))},
         "stops serving I/O")],
    ("11-containers-and-cephadm", "q5"): [
        # a PG stops only when every shard was on the host: none of them (2 OSDs a host, size 3)
        (lambda P: {"my_pg_num": 64, "q5_blocked_pgs": 64 * fd.blocked_fraction(3, 2, 3, 2, "osd")},
         lambda P, r: {"q5_blocked_pgs": 64 * fd.unavailable_fraction(3, 2, 3, "osd")},
         "two shards"),
        # the share of the PGs, not their count
        (lambda P: {"my_pg_num": 64, "q5_blocked_pgs": 64 * fd.blocked_fraction(3, 2, 3, 2, "osd")},
         lambda P, r: {"q5_blocked_pgs": float(fd.blocked_fraction(3, 2, 3, 2, "osd"))},
         "not a fraction")],
}

# (lab, question): why its public check does not reject the common wrong model
CANNOT = {
    ("00-welcome", "q5"): "two booleans: rejecting the common (True, True), 'a PG serves while a copy is left', "
                          "states q5_one_left; the check rejects only the impossible pair",
    ("01-redundancy", "q5"): "a count the question all but gives and three booleans: rejecting 'serves while the "
                             "data survives' (min_size = k) states q5_default; and since q5_left is all but given, "
                             "a check of q5_survives or q5_default against it (left >= k, left >= the default "
                             "min_size) would state them too; the check rejects only impossible combinations",
    ("06-capacity", "q2"): "names of states: ruling out the common wrong one ('full' at 93 %) leaves the answer "
                           "among two; the check rejects only impossible pairs",
    ("09-cephfs-metadata", "q4"): "two small whole numbers: rejecting the common 'a stat asks the MDS too' (one "
                                  "request) leaves only the answer",
}


# -- running the student release's public cases as the grader would --------------------------------
@cache
def master(lab: str) -> dict:
    return json.loads((ROOT / "solutions" / f"{lab}.ipynb").read_text())


def graded_questions() -> set[tuple[str, str]]:
    return {(p.stem, q.name) for p in sorted((ROOT / "solutions").glob("[0-9][0-9]-*.ipynb"))
            for q in checks.questions(master(p.stem)) if q.points > 0}


def base(lab: str, learner: str) -> dict:
    """The grader's trusted namespace for learner: the solution's imports the checks read, and P."""
    return checks.context(master(lab), lab, learner, checks._checks_free_names(checks.questions(master(lab))))


def public_failures(lab: str, question: str, namespace: dict, labs: Path = LABS) -> list[str]:
    """The messages of the public cases of lab/question (the release in `labs`) that fail with
    `namespace`."""
    test = runpy.run_path(str(labs / lab / "tests" / f"{question}.py"))["test"]
    failed = []
    for case in (c for suite in test["suites"] for c in suite["cases"] if not c["hidden"]):
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        parsed = doctest.DocTestParser().get_doctest(case["code"], dict(namespace), question, None, 0)
        out: list[str] = []
        if runner.run(parsed, out=out.append, clear_globs=False).failed:
            failed.append("".join(out))
    return failed


def hint(failure: str) -> str:
    """The hint the learner's self-check shows for a failed case: its first failure's error,
    worded as the grader words it (an assert's message)."""
    line = selfcheck.error_line(failure)
    return selfcheck.worded(line) if line else ""


def states(message: str, value) -> bool:
    """Whether a hint states value (a number within 0.5 %, or the string or set's items)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return any(close(x, float(value)) for x in numbers_in(message))
    if isinstance(value, str):
        return value in message
    if isinstance(value, (set, frozenset, list, tuple)):
        return any(states(message, v) for v in value)
    return False


def rows(key) -> list:
    """The rows of a question: one, or a list of them (one per common wrong model)."""
    found = MISCONCEPTIONS[key]
    return found if isinstance(found, list) else [found]


@pytest.mark.parametrize("key, n", [(k, n) for k in MISCONCEPTIONS for n in range(len(rows(k)))],
                         ids=lambda x: f"{x[0]}-{x[1]}" if isinstance(x, tuple) else f"row{x}")
def test_the_public_check_rejects_the_common_wrong_answer_and_says_why(key, n):
    lab, question = key
    right_of, wrong_of, words = rows(key)[n]
    exercised = []
    for learner in LEARNERS:
        namespace = base(lab, learner)
        P = namespace.get("P") or params.lab_params(lab, learner)
        right = right_of(P)
        assert public_failures(lab, question, {**namespace, **right}) == [], f"{learner}'s right answers fail"
        wrong = wrong_of(P, right)
        if wrong is None:
            continue
        changed = {n: v for n, v in wrong.items() if not isinstance(v, float) or not close(v, right[n])}
        assert changed, f"{learner}: the misconception gives the right answers"
        failures = public_failures(lab, question, {**namespace, **right, **wrong})
        assert failures and any(words in hint(f) for f in failures), (learner, failures)
        for name in changed:        # the hint never gives the right answer away
            assert not any(states(hint(f), right[name]) for f in failures), (learner, name, failures)
        exercised.append(learner)
    assert exercised, f"no learner of {LEARNERS} tells the misconception from the right answer"


def test_every_graded_question_is_decided_once():
    decided = set(MISCONCEPTIONS) | set(CANNOT)
    assert not set(MISCONCEPTIONS) & set(CANNOT), "a question is in both tables"
    assert graded_questions() - decided == set(), "questions without a decision: add them to one table"
    assert decided - graded_questions() == set(), "decisions for questions the labs no longer have"
    assert all(len(why) > 40 for why in CANNOT.values()), "say why the check cannot reject the common wrong model"


def test_a_check_that_lets_the_wrong_answer_through_is_caught(tmp_path):
    """Negative control: lab 06 Q5's public check before 2639fc8 (0 < drop < 100 x objects)
    passed the raw-space drop, so its row would have failed."""
    (tmp_path / "06-capacity" / "tests").mkdir(parents=True)
    (tmp_path / "06-capacity" / "tests" / "q5.py").write_text(
        'test = {"suites": [{"cases": [{"hidden": False, "code": '
        '">>> assert 0 < q5_avail_drop_mib < 100 * my_objects, \'In MiB, a drop\'\\n"}]}]}\n')
    right = _lab06_q5({})
    wrong = {**right, "q5_avail_drop_mib": 3 * right["q5_avail_drop_mib"]}
    assert public_failures("06-capacity", "q5", right, labs=tmp_path) == []
    assert public_failures("06-capacity", "q5", wrong, labs=tmp_path) == [], "the old check let it through"
    assert public_failures("06-capacity", "q5", {**base("06-capacity", "alice"), **wrong}) != [], "the new one does not"
