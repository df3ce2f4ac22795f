"""CRUSH's fixed-point logarithm, crush_ln(), and the tables it reads.

straw2 needs ln(u) for a 16-bit hash value u. Floating point would make placements depend on
the CPU, so Ceph computes 2**44 * log2(u + 1) in integers (src/crush/mapper.c, crush_ln):

    x = u + 1, shifted left until bit 15 or 16 is set; e = 15 - (number of shifts)
    k = (x >> 8) - 128                  (which of 129 coarse intervals x falls in)
    RH[k] ~ 2**55 / (128 + k)           (so x * RH[k] >> 48 ~ 2**15 * x / (256 * (128 + k)))
    LH[k] ~ 2**48 * log2(1 + k/128)     (log of the coarse part)
    j = ((x * RH[k]) >> 48) & 0xff      (the fine remainder, 8 bits)
    LL[j] ~ 2**48 * log2(1 + j/2**15)   (log of the fine part)
    crush_ln(u) = (e << 44) + ((LH[k] + LL[j]) >> 4)

The tables are derived here from those definitions, with exact decimal arithmetic, and then
corrected to the values Ceph actually ships (src/crush/crush_ln_table.h, unchanged since
2015). Measured against Ceph 16.2.15's libceph-common and the published header:
  * RH[k] is exactly ceil(2**55 / (128 + k)) for all 129 entries;
  * LH[k] is exactly floor(2**48 * log2(1 + k/128)) for k < 128; the last entry is
    0xffff00000000 instead of 2**48;
  * LL[j] is floor(2**48 * log2(1 + j/2**15)) for 21 entries, that plus 0x147700000
    (about 0.44 of one table step) for 212 entries, and 23 entries carry other offsets.
    The table's own comment gives the clean formula; placements must use the shipped
    numbers, so the offsets are listed below (the data of the lab's test
    test_ln_tables_match_libceph, which compares every entry with the installed Ceph).
The shipped quirks shift crush_ln by at most 4.4e-5 * 2**44 from 2**44 * log2(u + 1) and make
it decrease at 10,008 of the 65,535 steps (e.g. u = 0xfffe gives a longer straw than 0xffff);
straw2 is still very nearly an exact exponential race, but bit-exact parity with Ceph needs
the shipped numbers.

Provenance: Ceph code, Pacific (16.2) mapper.c and crush_ln_table.h; measured (table offsets).
"""
from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal

import numpy as np

_LL_BULK_OFFSET = 0x147700000
_LL_EXACT = (0, 1, 203, 216, 222, 233, 237, 238, 239, 243, 244, 245, 246, 248, 249, 250, 251,
             252, 253, 254, 255)
# entry -> (shipped value - floor(definition)), for the entries that follow neither rule
_LL_IRREGULAR = {
    56: 5349423536, 127: 978272901, 134: 3588789669, 181: 4007963589, 184: 5423282367,
    188: 2201924427, 193: 3829329171, 198: 2511158322, 199: 2670353280, 200: 3807665765,
    207: 5045407031, 210: 4635559696, 212: 3670382108, 225: 3209098745, 227: 1514328394,
    228: 2662093655, 229: 561838844, 231: 3537203772, 235: 4861921003, 236: 5281046906,
    240: 2650193885, 241: 4203558265, 247: 362109528,
}
_LH_LAST = 0xFFFF00000000


def _build_tables():
    # 30 digits: the values reach 2**48 (15 digits), so the floors are exact with 15 to spare;
    # more digits only slow down every import (Decimal's ln is costly)
    ctx = Context(prec=30)
    two48, two55 = Decimal(2) ** 48, Decimal(2) ** 55
    scale = ctx.divide(two48, ctx.ln(Decimal(2)))       # 2**48 * log2(v) = scale * ln(v)
    rh = [int(ctx.divide(two55, 128 + k).to_integral_value(ROUND_CEILING)) for k in range(129)]
    lh = [int(ctx.multiply(scale, ctx.ln(ctx.divide(128 + k, 128))).to_integral_value(ROUND_FLOOR))
          for k in range(128)] + [_LH_LAST]
    ll = [int(ctx.multiply(scale, ctx.ln(ctx.add(1, ctx.divide(j, 2 ** 15)))).to_integral_value(
        ROUND_FLOOR)) for j in range(256)]
    for j in range(256):
        if j in _LL_IRREGULAR:
            ll[j] += _LL_IRREGULAR[j]
        elif j not in _LL_EXACT:
            ll[j] += _LL_BULK_OFFSET
    return (np.array(rh, dtype=np.uint64), np.array(lh, dtype=np.int64),
            np.array(ll, dtype=np.int64))


RH, LH, LL = _build_tables()


def rh_lh_table():
    """Ceph's interleaved __RH_LH_tbl (258 entries: RH[0], LH[0], RH[1], LH[1], ...)."""
    out = np.empty(258, dtype=np.int64)
    out[0::2] = RH.astype(np.int64)
    out[1::2] = LH
    return out


def crush_ln(u):
    """2**44 * log2(u + 1) in CRUSH's fixed point, for integer u in [0, 0xffff] (array ok).

    Returns int64. Exact integer re-implementation of crush_ln() in Ceph's mapper.c
    (Ceph code, Pacific); see the module docstring for the formula and the tables.
    """
    u = np.asarray(u, dtype=np.int64)
    if ((u < 0) | (u > 0xFFFF)).any():
        raise ValueError("crush_ln input must be in [0, 65535] (a 16-bit hash)")
    x = u + 1
    # normalise: shift left until bit 15 or 16 is set (15 shifts for x = 1). frexp writes x as
    # m * 2**e with 0.5 <= m < 1, so bit e - 1 is the top one and 16 - e shifts are needed
    shifts = np.maximum(16 - np.frexp(x)[1].astype(np.int64), 0)
    x = x << shifts
    expon = 15 - shifts
    k = (x >> 8) - 128
    x1 = (x.astype(np.uint64) * RH[k]) >> np.uint64(48)
    j = (x1 & np.uint64(0xFF)).astype(np.int64)
    return (expon << 44) + ((LH[k] + LL[j]) >> 4)


# straw2 only ever needs ln(u) - 2**48 for the 65536 possible u: one lookup per draw.
LN_MINUS_ONE = crush_ln(np.arange(0x10000)) - (1 << 48)
LN_MINUS_ONE_F = LN_MINUS_ONE.astype(np.float64)   # exact: |values| <= 2**48 < 2**53
