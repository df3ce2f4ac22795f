"""Rule execution: crush_do_rule, vectorised over many inputs x at once.

A rule is a tiny program. `take B` puts bucket B in the working vector; `choose firstn N type
T` replaces every bucket in it by N distinct items of type T found below it; `chooseleaf`
does the same and then descends from each of those items to one device; `emit` appends the
working vector to the result. N <= 0 means (result size + N). Each choice is straw2 in the
bucket at hand with attempt number r:

* firstn (replicated pools): replica `rep` tries r = rep + ftotal, where ftotal counts
  failures (a collision with an item already chosen, a device that is out, or no leaf
  below); it gives up on that replica after `tries` failures, so the result may be short.
* indep (erasure-coded pools): positions are filled breadth first with r = rep +
  numrep * ftotal; a position that cannot be filled holds ITEM_NONE (0x7fffffff), so the
  other shards keep their places when a device fails.
* chooseleaf recursion: with chooseleaf_vary_r the inner descent uses r >> (vary_r - 1) of
  the outer attempt, with chooseleaf_stable it starts at replica 0, and it gets
  `recurse_tries` attempts (1 when chooseleaf_descend_once, else choose_total_tries + 1,
  or set_chooseleaf_tries).
* device weights (16.16, from reweight / `ceph osd out`): >= 0x10000 always in, 0 always
  out, otherwise in when hash32_2(x, device) & 0xffff < weight (is_out).

Vectorisation: the inputs are processed in chunks of lanes; within a chunk every lane walks
its own state machine, and each pass draws for all lanes still undecided at once (lanes
sitting in different buckets draw in one padded numpy pass), so the retry loops iterate over
the shrinking unresolved subset, never per x in Python.

Speed: the numpy passes cost ~40 ns a hash, slower than crushtool, so do_rule runs the same
rule through mapper_c (a C port of Ceph's mapper.c, built on first use) when a C compiler is
there; engine="numpy" runs this file's code. Both give the same placements bit for bit.

Not modelled (ValueError): bucket algorithms other than straw2, choose_local_fallback_tries >
0 (legacy tunables), choose_args weight-sets. Also not needed for the lab: the per-try
histogram (`crushtool --show-choose-tries`).

Provenance: Ceph code, Pacific (16.2) src/crush/mapper.c (crush_do_rule,
crush_choose_firstn, crush_choose_indep, is_out).
"""
from __future__ import annotations

import os

import numpy as np

from . import mapper_c
from .crushmap import ITEM_NONE, WEIGHT_ONE, CrushMap
from .hash import as_u32, hash32_2
from .straw2 import choose_in

ITEM_UNDEF = 0x7FFFFFFE      # CRUSH_ITEM_UNDEF: position not decided yet (indep)
PAD = -(1 << 62)             # marks "no entry" in result arrays (results may be short)
CHUNK = 8192                 # lanes per pass: keeps the (lanes x bucket size) arrays in cache


def do_rule(cmap: CrushMap, rule, x, result_max, weights=None, chunk=CHUNK, threads=None,
            engine=None):
    """Run a CRUSH rule for every input in x.

    cmap: CrushMap; rule: id or name; x: integer array (inputs, taken modulo 2**32 like C);
    result_max: the number of replicas asked for (crushtool --num-rep, pool size);
    weights: 16.16 device weights indexed by device id (default: 0x10000 for every device
    in a bucket, as crushtool --test). Returns (result, length): result is an int64 array
    (len(x), result_max) with PAD beyond each row's length; ITEM_NONE marks holes of indep
    rules. Chunks of `chunk` inputs run on `threads` threads (default: one per CPU; numpy
    and the compiled mapper release the GIL, so the chunks really run in parallel).
    engine: "c" (mapper_c, the C port), "numpy" (this module) or None: "c" when it can be
    built (mapper_c.status() says), else "numpy".
    """
    rule_obj = cmap.rules[cmap.rule_id(rule)]
    cm = cmap.compiled()
    result_max = int(result_max)
    if result_max < 1:
        raise ValueError(f"result_max (num_rep) must be >= 1, got {result_max}")
    if engine not in (None, "c", "numpy"):
        raise ValueError(f"engine must be 'c', 'numpy' or None (the best available), "
                         f"got {engine!r}")
    for step in rule_obj.steps:                 # what the numpy code refuses, the C code must too
        if step.op.startswith("set_"):
            _apply_set_step({}, step.op, step.arg1)
    x = as_u32(np.atleast_1d(np.asarray(x)))
    weight = cmap.device_weights() if weights is None else np.asarray(weights, np.uint32)
    result = np.full((len(x), result_max), PAD, dtype=np.int64)
    length = np.zeros(len(x), dtype=np.int64)
    if engine == "c" or (engine is None and mapper_c.available()):
        prepared = mapper_c.Prepared(cm, rule_obj, weight)

        def run(lo):
            prepared.do_rule(x[lo:lo + chunk], result_max, result[lo:lo + chunk],
                             length[lo:lo + chunk])
    else:
        def run(lo):
            res, n = _do_rule_chunk(cm, rule_obj, x[lo:lo + chunk], result_max, weight)
            result[lo:lo + chunk] = res
            length[lo:lo + chunk] = n

    starts = range(0, len(x), chunk)
    threads = threads or os.cpu_count() or 1
    if threads > 1 and len(starts) > 1:
        # imported here: ~6 ms that a single thread does not need
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(threads, len(starts))) as pool:
            list(pool.map(run, starts))
    else:
        for lo in starts:
            run(lo)
    return result, length


def mappings(cmap, rule, x, result_max, weights=None):
    """do_rule as Python lists, one per input: [[osd, osd, osd], ...]."""
    result, length = do_rule(cmap, rule, x, result_max, weights)
    return [row[:n].tolist() for row, n in zip(result, length)]


def _do_rule_chunk(cm, rule, x, result_max, weight):
    t = cm.tunables
    tries = {
        "choose": t["choose_total_tries"] + 1,    # the tunable counts retries, not tries
        "leaf": 0,
        "local": t["choose_local_tries"],
        "vary_r": t["chooseleaf_vary_r"],
        "stable": t["chooseleaf_stable"],
    }
    m = len(x)
    result = np.full((m, result_max), PAD, dtype=np.int64)
    rlen = np.zeros(m, dtype=np.int64)
    w = np.full((m, 1), PAD, dtype=np.int64)
    wsize = np.zeros(m, dtype=np.int64)
    for step in rule.steps:
        op, a1, a2 = step.op, step.arg1, step.arg2
        if op == "take":
            if (0 <= a1 < cm.max_devices) or cm.is_bucket(np.array([a1]))[0]:
                w = np.full((m, 1), a1, dtype=np.int64)
                wsize = np.ones(m, dtype=np.int64)
        elif op.startswith("set_"):
            _apply_set_step(tries, op, a1)
        elif op.startswith("choose"):
            w, wsize = _choose_step(cm, op, a1, a2, x, w, wsize, result_max, weight, tries)
        elif op == "emit":
            for i in range(w.shape[1]):
                rows = np.nonzero((wsize > i) & (rlen < result_max))[0]
                result[rows, rlen[rows]] = w[rows, i]
                rlen[rows] += 1
            wsize = np.zeros(m, dtype=np.int64)
    return result, rlen


def _apply_set_step(tries, op, value):
    # positive values override the tries; the other settings accept 0 as well
    if op == "set_choose_tries" and value > 0:
        tries["choose"] = value
    elif op == "set_chooseleaf_tries" and value > 0:
        tries["leaf"] = value
    elif op == "set_choose_local_tries" and value >= 0:
        tries["local"] = value
    elif op == "set_choose_local_fallback_tries" and value > 0:
        raise ValueError("set_choose_local_fallback_tries > 0 is not supported (legacy)")
    elif op == "set_chooseleaf_vary_r" and value >= 0:
        tries["vary_r"] = value
    elif op == "set_chooseleaf_stable" and value >= 0:
        tries["stable"] = value


def _choose_step(cm, op, numrep, type_, x, w, wsize, result_max, weight, tries):
    """One choose/chooseleaf step applied to every item of the working vector w."""
    m = len(x)
    firstn = op.endswith("firstn")
    leaf = op.startswith("chooseleaf")
    if numrep <= 0:
        numrep += result_max
    o = np.full((m, result_max), PAD, dtype=np.int64)
    c = np.full((m, result_max), PAD, dtype=np.int64)
    osize = np.zeros(m, dtype=np.int64)
    if numrep <= 0 or not wsize.any():
        return (o, osize) if wsize.any() else (w, wsize)
    if tries["leaf"]:
        recurse_tries = tries["leaf"]
    elif firstn:
        recurse_tries = 1 if cm.tunables["chooseleaf_descend_once"] else tries["choose"]
    else:
        recurse_tries = 1
    for i in range(w.shape[1]):
        lanes = np.nonzero((wsize > i) & cm.is_bucket(w[:, i]))[0]
        if lanes.size == 0:
            continue
        start, xs = w[lanes, i], x[lanes]
        if firstn:
            out, out2, n = _firstn(cm, start, xs, numrep, type_, result_max - osize[lanes],
                                   tries, recurse_tries, leaf, weight)
        else:
            out_size = np.minimum(numrep, result_max - osize[lanes])
            out, out2, n = _indep_sized(cm, start, xs, out_size, numrep, type_,
                                        tries["choose"], recurse_tries, leaf, weight)
        _scatter(o, lanes, osize[lanes], out, n)
        _scatter(c, lanes, osize[lanes], out2, n)
        osize[lanes] += n
    return (c if leaf else o), osize


def _scatter(dst, rows, offsets, src, lengths):
    """dst[rows[k], offsets[k] + j] = src[k, j] for j < lengths[k]."""
    if src.shape[1] == 0:
        return
    cols = np.arange(src.shape[1])
    mask = cols[None, :] < lengths[:, None]
    rr, cc = np.nonzero(mask)
    dst[rows[rr], offsets[rr] + cc] = src[rr, cc]


# ---- firstn ------------------------------------------------------------------------------

def _firstn(cm, start, x, numrep, type_, count, tries, recurse_tries, leaf, weight):
    """crush_choose_firstn at the top of a step: replicas rep = 0 .. numrep-1 while count > 0."""
    k = len(start)
    out = np.full((k, numrep), PAD, dtype=np.int64)
    out2 = np.full((k, numrep), PAD, dtype=np.int64)
    outpos = np.zeros(k, dtype=np.int64)
    count = count.copy()
    zeros = np.zeros(k, dtype=np.int64)
    for rep in range(numrep):
        act = np.nonzero(count > 0)[0]
        if act.size == 0:
            break
        ok, item, leaf_item = _firstn_one(
            cm, start[act], x[act], np.full(act.size, rep), zeros[act], type_,
            out[act], out2[act], outpos[act], tries["choose"], recurse_tries,
            tries["local"], leaf, tries["vary_r"], tries["stable"], weight)
        got = act[ok]
        out[got, outpos[got]] = item[ok]
        out2[got, outpos[got]] = leaf_item[ok]
        outpos[got] += 1
        count[got] -= 1
    return out, out2, outpos


def _firstn_one(cm, start, x, rep, parent_r, type_, prior, prior_leaf, prior_len,
                tries, recurse_tries, local_tries, leaf, vary_r, stable, weight):
    """Choose one replica for each lane (the body of crush_choose_firstn's rep loop).

    prior[k, :prior_len[k]] are the items already chosen (collisions); for chooseleaf,
    prior_leaf holds the devices already chosen. Returns (ok, item, leaf_item).
    """
    k = len(start)
    ok = np.zeros(k, dtype=bool)
    item_out = np.full(k, PAD, dtype=np.int64)
    leaf_out = np.full(k, PAD, dtype=np.int64)
    cur = start.copy()
    ftotal = np.zeros(k, dtype=np.int64)
    flocal = np.zeros(k, dtype=np.int64)
    todo = np.arange(k)
    while todo.size:
        r = rep[todo] + parent_r[todo] + ftotal[todo]
        item, fail, descend, hit = _descend_step(cm, cur[todo], x[todo], r, type_)
        cur[todo[descend]] = item[descend]
        collide = np.zeros(todo.size, dtype=bool)
        collide[hit] = _collides(prior[todo[hit]], prior_len[todo[hit]], item[hit])
        reject = ~(fail | descend | hit)           # the bucket was empty
        cand = hit & ~collide
        leaf_item = np.full(todo.size, PAD, dtype=np.int64)
        if leaf:
            inner = np.nonzero(cand & (item < 0))[0]
            if inner.size:
                lanes = todo[inner]
                sub_r = r[inner] >> (vary_r - 1) if vary_r else np.zeros(inner.size, np.int64)
                inner_rep = np.zeros(inner.size, np.int64) if stable else prior_len[lanes]
                ok2, got, _ = _firstn_one(
                    cm, item[inner], x[lanes], inner_rep, sub_r, 0, prior_leaf[lanes], None,
                    prior_len[lanes], recurse_tries, 0, local_tries, False, vary_r, stable,
                    weight)
                leaf_item[inner] = got
                reject[inner] = ~ok2
            direct = cand & (item >= 0)
            leaf_item[direct] = item[direct]
        device = np.nonzero(cand & ~reject & (item >= 0) & (type_ == 0))[0]
        reject[device] = is_out(weight, item[device], x[todo[device]])
        good = cand & ~reject
        done = todo[good]
        ok[done] = True
        item_out[done] = item[good]
        leaf_out[done] = leaf_item[good]
        failed = (reject | collide) & ~fail
        lanes = todo[failed]
        ftotal[lanes] += 1
        flocal[lanes] += 1
        local = collide[failed] & (flocal[lanes] <= local_tries)
        retry = ~local & (ftotal[lanes] < tries)
        cur[lanes[retry]] = start[lanes[retry]]
        flocal[lanes[retry]] = 0
        todo = np.concatenate([todo[descend], lanes[local | retry]])
    return ok, item_out, leaf_out


def _descend_step(cm, bucket, x, r, type_):
    """Draw once in each lane's bucket. Returns the item and masks: fail (bad item, give up
    this replica), descend (an intermediate bucket: continue inside it), hit (desired type).
    Lanes in none of the three masks sat in an empty bucket."""
    n = len(bucket)
    item = np.full(n, PAD, dtype=np.int64)
    full = cm.size[-1 - bucket] > 0
    if full.any():
        item[full] = choose_in(cm, bucket[full], x[full], as_u32(r[full]))
    fail = full & (item >= cm.max_devices)
    itype = cm.item_type(np.where(full & ~fail, item, 0))
    wrong = full & ~fail & (itype != type_)
    descend = wrong & cm.is_bucket(np.where(wrong, item, 0))
    fail |= wrong & ~descend
    hit = full & ~fail & ~wrong
    return item, fail, descend, hit


def _collides(prior, prior_len, item):
    cols = np.arange(prior.shape[1])
    return ((prior == item[:, None]) & (cols[None, :] < prior_len[:, None])).any(axis=1)


def is_out(weight, item, x):
    """True where device `item` is out for input x: weight 0x10000 (or more) never, 0 always,
    otherwise when hash32_2(x, item) & 0xffff >= weight. Devices past the end of the weight
    vector are out. (Ceph code, Pacific mapper.c is_out.)"""
    item = np.asarray(item, dtype=np.int64)
    out = item >= len(weight)
    w = np.zeros(item.shape, dtype=np.int64)
    w[~out] = weight[item[~out]]
    partial = ~out & (w > 0) & (w < WEIGHT_ONE)
    out |= w == 0
    if partial.any():
        h = hash32_2(as_u32(np.asarray(x)[partial]), as_u32(item[partial])) & 0xFFFF
        out[partial] = h >= w[partial]
    return out


# ---- indep -------------------------------------------------------------------------------

def _indep_sized(cm, start, x, out_size, numrep, type_, tries, recurse_tries, leaf, weight):
    """crush_choose_indep for lanes that may ask for different numbers of positions."""
    k = len(start)
    width = int(out_size.max()) if k else 0
    out = np.full((k, max(width, 0)), PAD, dtype=np.int64)
    out2 = out.copy()
    for size in np.unique(out_size):
        if size <= 0:
            continue
        rows = np.nonzero(out_size == size)[0]
        o, o2 = _indep(cm, start[rows], x[rows], int(size), numrep, type_, tries,
                       recurse_tries, leaf, np.zeros(rows.size, np.int64), 0, weight)
        out[rows, :size] = o
        out2[rows, :size] = o2
    return out, out2, np.maximum(out_size, 0)


def _indep(cm, start, x, left, numrep, type_, tries, recurse_tries, leaf, parent_r,
           outpos, weight):
    """crush_choose_indep: fill `left` positions breadth first; returns (out, out2)."""
    k = len(start)
    out = np.full((k, left), ITEM_UNDEF, dtype=np.int64)
    out2 = np.full((k, left), ITEM_UNDEF, dtype=np.int64)
    for ftotal in range(tries):
        if not (out == ITEM_UNDEF).any():
            break
        for j in range(left):
            lanes = np.nonzero(out[:, j] == ITEM_UNDEF)[0]
            if lanes.size:
                _indep_position(cm, start, x, lanes, j, outpos + j, ftotal, numrep, type_,
                                recurse_tries, leaf, parent_r, out, out2, weight)
    out[out == ITEM_UNDEF] = ITEM_NONE
    out2[out2 == ITEM_UNDEF] = ITEM_NONE
    return out, out2


def _indep_position(cm, start, x, lanes, j, rep, ftotal, numrep, type_, recurse_tries,
                    leaf, parent_r, out, out2, weight):
    """One attempt at position j for the given lanes (the for(;;) descent in indep)."""
    cur = start[lanes].copy()
    r_all = rep + parent_r[lanes] + numrep * ftotal   # fixed during the descent
    todo = np.arange(lanes.size)
    while todo.size:
        ln = lanes[todo]
        r = r_all[todo]
        item, fail, descend, hit = _descend_step(cm, cur[todo], x[ln], r, type_)
        out[ln[fail], j] = ITEM_NONE
        out2[ln[fail], j] = ITEM_NONE
        cur[todo[descend]] = item[descend]
        collide = np.zeros(todo.size, dtype=bool)
        collide[hit] = (out[ln[hit]] == item[hit][:, None]).any(axis=1)
        good = hit & ~collide
        if leaf:
            inner = np.nonzero(good & (item < 0))[0]
            if inner.size:
                got, _ = _indep(cm, item[inner], x[ln[inner]], 1, numrep, 0, recurse_tries,
                                0, False, r[inner], rep, weight)
                out2[ln[inner], j] = got[:, 0]
                good[inner] = got[:, 0] != ITEM_NONE
            direct = good & (item >= 0)
            out2[ln[direct], j] = item[direct]
        device = np.nonzero(good & (item >= 0) & (type_ == 0))[0]
        good[device] = ~is_out(weight, item[device], x[ln[device]])
        out[ln[good], j] = item[good]
        todo = todo[descend]
