"""The rjenkins1 hash family CRUSH uses for every pseudo-random choice.

CRUSH never stores where data lives: each choice is a hash of (input x, item id, attempt r).
This module reimplements Ceph's `crush_hash32_rjenkins1_*` functions (src/crush/hash.c),
themselves built on Bob Jenkins' 96-bit mix (http://burtleburtle.net/bob/hash/evahash.html).

All arithmetic is on numpy uint32 arrays, so additions and subtractions wrap modulo 2**32
exactly as C's __u32 does; shifts drop the bits that fall off. Negative inputs (bucket ids
are negative) are taken modulo 2**32, as C's cast from int to __u32 does.

Provenance: Ceph code, Pacific (16.2) src/crush/hash.c; unchanged since 2009.
"""
from __future__ import annotations

import numpy as np

SEED = np.uint32(1315423911)   # crush_hash_seed
_X0 = 231232                   # the two constants every variant mixes in
_Y0 = 1232

# (destination, first, second, shift, direction) for the nine lines of the mix:
# dst = dst - first - second; dst ^= second >> s  (or <<).
_MIX_STEPS = (
    (0, 1, 2, 13, "r"), (1, 2, 0, 8, "l"), (2, 0, 1, 13, "r"),
    (0, 1, 2, 12, "r"), (1, 2, 0, 16, "l"), (2, 0, 1, 5, "r"),
    (0, 1, 2, 3, "r"), (1, 2, 0, 10, "l"), (2, 0, 1, 15, "r"),
)


def mix(a, b, c, tmp):
    """Bob Jenkins' mix of three uint32 arrays, in place (a, b, c change; c is the output).

    Each of the nine steps is  dst = (dst - p - q) ^ (q >> s)  (or << s): for example the
    first is a = (a - b - c) ^ (c >> 13). `tmp` is a scratch array of the same shape, so a
    hash of a million lanes allocates nothing inside the loop.
    """
    regs = (a, b, c)
    for dst, p, q, s, direction in _MIX_STEPS:
        d = regs[dst]
        np.subtract(d, regs[p], out=d)
        np.subtract(d, regs[q], out=d)
        shift = np.right_shift if direction == "r" else np.left_shift
        shift(regs[q], s, out=tmp)
        np.bitwise_xor(d, tmp, out=d)


def as_u32(value):
    """Any integer or integer array as uint32, negative values wrapped modulo 2**32 like C."""
    arr = np.asarray(value)
    if arr.dtype == np.uint32:
        return arr
    if arr.dtype.kind not in "iub":
        raise ValueError(f"hash inputs must be integers, got dtype {arr.dtype}")
    return (arr.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)


def _registers(*inputs):
    """Broadcast the inputs; return writable 1-d uint32 copies (the mix works in place) and
    the shape to give the result back in."""
    arrays = np.broadcast_arrays(*[as_u32(v) for v in inputs])
    shape = arrays[0].shape
    return [np.array(a, dtype=np.uint32).ravel() for a in arrays], shape


def _shaped(h, shape):
    """The hash in the inputs' broadcast shape (a numpy uint32 scalar for scalar inputs)."""
    return h.reshape(shape)[()]


def _const(like, value):
    return np.full(like.shape, value, dtype=np.uint32)


def hash32_1(a):
    """crush_hash32_rjenkins1(a): hash = seed ^ a; mix(a, x, hash); mix(y, a, hash).

    Input: integer or array; output uint32 of the same shape. Ceph code, Pacific hash.c.
    """
    (a,), shape = _registers(a)
    h = a ^ SEED
    b = a.copy()
    x, y, t = _const(a, _X0), _const(a, _Y0), np.empty_like(a)
    mix(b, x, h, t)
    mix(y, a, h, t)
    return _shaped(h, shape)


def hash32_2(a, b):
    """crush_hash32_rjenkins1_2(a, b), used by is_out() and by the pool's placement seed.

    hash = seed ^ a ^ b; mix(a, b, h); mix(x, a, h); mix(b, y, h); x = 231232, y = 1232.
    Inputs broadcast like numpy operands; output uint32. Ceph code, Pacific hash.c.
    """
    (a, b), shape = _registers(a, b)
    h = SEED ^ a ^ b
    x, y, t = _const(a, _X0), _const(a, _Y0), np.empty_like(a)
    mix(a, b, h, t)
    mix(x, a, h, t)
    mix(b, y, h, t)
    return _shaped(h, shape)


def hash32_3(a, b, c):
    """crush_hash32_rjenkins1_3(a, b, c): the straw2 draw hash(x, item, r).

    hash = seed ^ a ^ b ^ c; mix(a, b, h); mix(c, x, h); mix(y, a, h); mix(b, x, h);
    mix(y, c, h). Inputs broadcast; output uint32. Ceph code, Pacific hash.c.
    """
    (a, b, c), shape = _registers(a, b, c)
    return _shaped(_hash3_inplace(a, b, c), shape)


def _hash3_inplace(a, b, c):
    """hash32_3 on uint32 arrays of one shape that the caller lets us overwrite (fast path)."""
    h = SEED ^ a
    np.bitwise_xor(h, b, out=h)
    np.bitwise_xor(h, c, out=h)
    x, y, t = _const(a, _X0), _const(a, _Y0), np.empty_like(a)
    mix(a, b, h, t)
    mix(c, x, h, t)
    mix(y, a, h, t)
    mix(b, x, h, t)
    mix(y, c, h, t)
    return h


def hash32_4(a, b, c, d):
    """crush_hash32_rjenkins1_4(a, b, c, d) (list and tree buckets; kept for completeness).

    hash = seed ^ a ^ b ^ c ^ d; mix(a, b, h); mix(c, d, h); mix(a, x, h); mix(y, b, h);
    mix(c, x, h); mix(y, d, h). Ceph code, Pacific hash.c.
    """
    (a, b, c, d), shape = _registers(a, b, c, d)
    h = SEED ^ a ^ b ^ c ^ d
    x, y, t = _const(a, _X0), _const(a, _Y0), np.empty_like(a)
    mix(a, b, h, t)
    mix(c, d, h, t)
    mix(a, x, h, t)
    mix(y, b, h, t)
    mix(c, x, h, t)
    mix(y, d, h, t)
    return _shaped(h, shape)


def hash32_5(a, b, c, d, e):
    """crush_hash32_rjenkins1_5(a, b, c, d, e), for completeness.

    hash = seed ^ a ^ b ^ c ^ d ^ e; mix(a, b, h); mix(c, d, h); mix(e, x, h); mix(y, a, h);
    mix(b, x, h); mix(y, c, h); mix(d, x, h); mix(y, e, h). Ceph code, Pacific hash.c.
    """
    (a, b, c, d, e), shape = _registers(a, b, c, d, e)
    h = SEED ^ a ^ b ^ c ^ d ^ e
    x, y, t = _const(a, _X0), _const(a, _Y0), np.empty_like(a)
    mix(a, b, h, t)
    mix(c, d, h, t)
    mix(e, x, h, t)
    mix(y, a, h, t)
    mix(b, x, h, t)
    mix(y, c, h, t)
    mix(d, x, h, t)
    mix(y, e, h, t)
    return _shaped(h, shape)
