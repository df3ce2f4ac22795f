"""straw2 bucket selection: every item draws a straw, the longest straw wins.

For input x and attempt r, item i of a bucket draws

    u_i    = hash32_3(x, id_i, r) & 0xffff                 (16 uniform random bits)
    draw_i = trunc((crush_ln(u_i) - 2**48) / w_i)          (w_i = 16.16 weight, draw <= 0)

and the bucket returns the item with the largest draw (the first one on a tie; weight 0
never wins unless every item has weight 0, then item 0). Since crush_ln(u) - 2**48 is
2**44 * log2((u+1)/2**16), a fixed-point ln of a uniform variable, draw_i is (a scaled)
ln(U)/w_i: an exponential race in which item i wins with probability w_i / sum(w). Changing
one item's weight only moves inputs to or from that item -- the property that makes straw2
move the minimum of data (Sage Weil, "straw2", Ceph Hammer release, 2015).

Division: C's div64_s64 truncates toward zero. The quotients are computed in float64 and
truncated; this is exact because |ln| < 2**49 and w < 2**32 keep every non-integer quotient
more than one rounding step away from the next integer.

Provenance: Ceph code, Pacific (16.2) src/crush/mapper.c, bucket_straw2_choose.
"""
from __future__ import annotations

import numpy as np

from .hash import _hash3_inplace, as_u32
from .ln import LN_MINUS_ONE_F


def draws(items, weights, x, r):
    """The straw lengths: array of shape (len(x), len(items)), float64 holding integers
    (-inf for weight 0, Ceph's S64_MIN). items: ids; weights: 16.16 ints; x, r: inputs."""
    items = as_u32(np.atleast_1d(items))
    weights = np.atleast_1d(np.asarray(weights, dtype=np.float64))
    x = as_u32(np.atleast_1d(x))[:, None]
    r = as_u32(np.broadcast_to(np.asarray(r), x.shape[:1]))[:, None]
    return _draws(items[None, :], weights[None, :], x, r)


def choose(items, weights, x, r=0):
    """The item a straw2 bucket with these items and 16.16 weights picks for each x (array).

    Example: choose([0, 1, 2], [0x10000] * 3, x=range(6)) gives one device per input; with
    weights [0x10000, 0x10000, 0x20000] device 2 wins about half of the inputs.
    """
    items_arr = np.atleast_1d(np.asarray(items, dtype=np.int64))
    d = draws(items_arr, weights, np.asarray(x), r)
    return items_arr[np.argmax(d, axis=1)]


def choose_in(cm, bucket_ids, x, r):
    """Vectorised bucket choice for the mapper: lane k draws in bucket bucket_ids[k] with
    input x[k] and attempt r[k] (uint32 arrays). cm is a CompiledMap. Returns item ids."""
    pos = -1 - np.asarray(bucket_ids, dtype=np.int64)
    rows = pos[:1] if (pos == pos[0]).all() else pos   # one bucket: its row broadcasts
    width = cm.size[rows].max()
    u = _straws(cm.items_u32[rows, :width], x[:, None], r[:, None])
    w = cm.uniform_weight[rows]
    if w[0] > 0 and (w == w[0]).all() and (cm.size[rows] == width).all():
        # every item weighs the same w: the draw is a function of u alone, so a table of
        # its dense rank (equal draws, equal ranks) decides the race without dividing
        best = np.argmax(_rank_table(int(w[0]))[u], axis=1)
    else:
        best = np.argmax(_draws_from_straws(u, cm.weights[rows, :width]), axis=1)
    ids = cm.items[rows, :width]
    return ids[0, best] if len(rows) == 1 else ids[np.arange(len(best)), best]


_RANKS: dict[int, np.ndarray] = {}     # 16.16 weight -> _rank_table's answer


def _rank_table(weight):
    """For one 16.16 weight: the dense rank of the draw trunc((crush_ln(u) - 2**48) / weight)
    for u = 0..0xffff, as uint16. Ranked by value, not by u: the shipped tables make
    crush_ln decrease at about 10,000 of the 65,536 steps."""
    table = _RANKS.get(weight)
    if table is None:
        level = np.trunc(LN_MINUS_ONE_F / weight)
        table = np.unique(level, return_inverse=True)[1].astype(np.uint16)
        _RANKS[weight] = table
    return table


def _draws(items, weights, x, r):
    """items/weights: (1 or k, n); x, r: (k, 1) uint32. Returns (k, n) draws."""
    return _draws_from_straws(_straws(items, x, r), weights)


def _straws(items, x, r):
    """The 16-bit straw of each (lane, item): hash32_3(x, item, r) & 0xffff."""
    shape = np.broadcast_shapes(items.shape, x.shape)
    a = np.empty(shape, dtype=np.uint32)
    b = np.empty(shape, dtype=np.uint32)
    c = np.empty(shape, dtype=np.uint32)
    a[...] = x
    b[...] = items
    c[...] = r
    u = _hash3_inplace(a, b, c)
    return np.bitwise_and(u, 0xFFFF, out=u)


def _draws_from_straws(u, weights):
    ln = LN_MINUS_ONE_F[u]
    with np.errstate(divide="ignore"):
        np.divide(ln, weights, out=ln)      # weight 0 -> -inf (ln is always < 0)
    return np.trunc(ln, out=ln)
