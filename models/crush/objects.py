"""Object name -> placement group -> OSDs: what `ceph osd map POOL OBJECT` computes.

    ps      = ceph_str_hash_rjenkins(name)                 (32 bits; "raw_pgid" pool.ps hex)
    pg      = ceph_stable_mod(ps, pg_num, pg_num_mask)     ("pgid", e.g. 1.7)
    pps     = crush_hash32_2(ceph_stable_mod(pg, pgp_num, pgp_num_mask), pool_id)
              (pools with FLAG_HASHPSPOOL, every pool since Luminous; else stable_mod + pool)
    raw     = crush_do_rule(pool.crush_rule, pps, pool.size, osd weights)
    up      = raw without OSDs that do not exist or are down (replicated pools shift the
              rest left; erasure-coded pools keep positions and put ITEM_NONE in the hole)
    primary = first OSD of `up` (-1 if none)

ceph_stable_mod folds a hash onto pg_num buckets so that growing pg_num splits PGs in place:
b = pg_num, bmask = 2**ceil(log2(b)) - 1, result x & bmask if that is < b else
x & (bmask >> 1).

Also modelled: explicit pg_upmap / pg_upmap_items entries (the balancer's) and pg_temp /
primary_temp (acting set during backfill), read from `ceph osd dump`. Not modelled: primary
affinity other than 1.0 (raises), object namespaces and locator keys beyond passing a key.

Provenance: Ceph code, Pacific (16.2): src/common/ceph_hash.cc (ceph_str_hash_rjenkins,
Bob Jenkins' lookup2), src/include/rados.h (ceph_stable_mod), src/osd/osd_types.cc
(pg_pool_t::raw_pg_to_pps), src/osd/OSDMap.cc (_pg_to_raw_osds, _apply_upmap,
_raw_to_up_osds, _pick_primary, _get_temp_osds).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .analysis import add_osd
from .crushmap import ITEM_NONE, WEIGHT_ONE
from .hash import as_u32, hash32_2, mix
from .mapper import do_rule

FLAG_HASHPSPOOL = 1
POOL_TYPE_REPLICATED = 1
POOL_TYPE_ERASURE = 3
_GOLDEN = 0x9E3779B9      # lookup2's initial a and b ("the golden ratio")


def str_hash_rjenkins(names):
    """ceph_str_hash_rjenkins for each name (str or bytes; a list gives a uint32 array).

    Names of equal length follow the same path through lookup2, so they are hashed
    together: 12-byte blocks are added into (a, b, c) little-endian and mixed, then the
    length and the last 0-11 bytes are added and mixed once more; c is the hash.
    """
    single = isinstance(names, (str, bytes))
    data = [n.encode() if isinstance(n, str) else bytes(n) for n in ([names] if single else names)]
    out = np.zeros(len(data), dtype=np.uint32)
    by_length: dict[int, list[int]] = {}
    for i, d in enumerate(data):
        by_length.setdefault(len(d), []).append(i)
    for length, rows in by_length.items():
        raw = np.frombuffer(b"".join(data[i] for i in rows), dtype=np.uint8)
        out[rows] = _lookup2(raw.reshape(len(rows), length), length)
    return int(out[0]) if single else out


def _lookup2(k, length):
    n = k.shape[0]
    a = np.full(n, _GOLDEN, dtype=np.uint32)
    b = a.copy()
    c = np.zeros(n, dtype=np.uint32)
    t = np.empty(n, dtype=np.uint32)
    words = k.astype(np.uint32)
    pos = 0
    while length - pos >= 12:
        a += _word(words, pos, 4)
        b += _word(words, pos + 4, 4)
        c += _word(words, pos + 8, 4)
        mix(a, b, c, t)
        pos += 12
    rest = length - pos
    c += np.uint32(length)
    # the tail: bytes 0-3 into a, 4-7 into b, 8-10 into c shifted up one byte (the low byte
    # of c holds the length)
    a += _word(words, pos, min(rest, 4))
    b += _word(words, pos + 4, min(max(rest - 4, 0), 4))
    c += _word(words, pos + 8, max(rest - 8, 0)) << np.uint32(8)
    mix(a, b, c, t)
    return c


def _word(words, start, count):
    """Little-endian value of `count` (0-4) bytes starting at `start`, per row."""
    value = np.zeros(words.shape[0], dtype=np.uint32)
    for j in range(count):
        value += words[:, start + j] << np.uint32(8 * j)
    return value


def pg_mask(n):
    """ceph_stable_mod's mask for n PGs: 2**ceil(log2(n)) - 1 (pg_pool_t::calc_pg_masks)."""
    if int(n) < 1:
        raise ValueError(f"pg_num must be >= 1, got {n}")
    return (1 << (int(n) - 1).bit_length()) - 1


def stable_mod(x, b, bmask=None):
    """ceph_stable_mod(x, b, bmask): x & bmask if that is < b, else x & (bmask >> 1)."""
    bmask = pg_mask(b) if bmask is None else bmask
    x = np.asarray(x, dtype=np.int64)
    low = x & bmask
    return np.where(low < b, low, x & (bmask >> 1))


@dataclass
class Pool:
    """The fields of a pool that placement reads (from `ceph osd dump`)."""
    id: int
    name: str
    pg_num: int
    size: int
    crush_rule: int
    type: int = POOL_TYPE_REPLICATED
    pgp_num: int | None = None
    hashpspool: bool = True

    def __post_init__(self):
        if self.pgp_num is None:
            self.pgp_num = self.pg_num

    @property
    def can_shift_osds(self):
        return self.type == POOL_TYPE_REPLICATED

    def object_ps(self, names):
        """(raw hash, pg) of each object name: the pg is ps folded onto pg_num."""
        raw = np.atleast_1d(str_hash_rjenkins(list(np.atleast_1d(names))))
        return raw, stable_mod(raw, self.pg_num)

    def pps(self, pg):
        """The CRUSH input of each PG (pg_pool_t::raw_pg_to_pps)."""
        folded = stable_mod(pg, self.pgp_num)
        if self.hashpspool:
            return hash32_2(as_u32(folded), np.uint32(self.id & 0xFFFFFFFF))
        return as_u32(folded + self.id)


@dataclass
class OsdState:
    """Per-OSD state from `ceph osd dump`: weights (16.16 reweight, 0 = out), up, exists,
    and the explicit PG overrides."""
    weight: np.ndarray
    up: np.ndarray
    exists: np.ndarray
    pg_upmap: dict = field(default_factory=dict)          # "1.7" -> [osds]
    pg_upmap_items: dict = field(default_factory=dict)    # "1.7" -> [(from, to), ...]
    pg_temp: dict = field(default_factory=dict)           # "1.7" -> [osds]
    primary_temp: dict = field(default_factory=dict)      # "1.7" -> osd

    @classmethod
    def all_up(cls, n):
        """n OSDs, all existing, up and in (a fresh cluster)."""
        return cls(np.full(n, WEIGHT_ONE, np.uint32), np.ones(n, bool), np.ones(n, bool))


def from_osd_dump(dump):
    """(pools by name, OsdState) from the parsed JSON of `ceph osd dump`."""
    pools = {}
    for p in dump["pools"]:
        pools[p["pool_name"]] = Pool(
            id=p["pool"], name=p["pool_name"], pg_num=p["pg_num"],
            pgp_num=p.get("pg_placement_num", p["pg_num"]), size=p["size"],
            crush_rule=p["crush_rule"], type=p["type"],
            hashpspool=bool(p["flags"] & FLAG_HASHPSPOOL))
    n = dump["max_osd"]
    state = OsdState(np.zeros(n, np.uint32), np.zeros(n, bool), np.zeros(n, bool))
    for o in dump["osds"]:
        i = o["osd"]
        state.exists[i] = True
        state.up[i] = bool(o["up"])
        state.weight[i] = int(round(float(o["weight"]) * WEIGHT_ONE))
        if float(o.get("primary_affinity", 1.0)) != 1.0:
            raise ValueError(f"osd.{i} has primary affinity {o['primary_affinity']}: not "
                             "modelled (reset with `ceph osd primary-affinity osd.N 1`)")
    state.pg_upmap = {e["pgid"]: list(e["osds"]) for e in dump.get("pg_upmap", [])}
    state.pg_upmap_items = {e["pgid"]: [(m["from"], m["to"]) for m in e["mappings"]]
                            for e in dump.get("pg_upmap_items", [])}
    state.pg_temp = {e["pgid"]: list(e["osds"]) for e in dump.get("pg_temp", [])}
    state.primary_temp = {e["pgid"]: e["osd"] for e in dump.get("primary_temp", [])}
    return pools, state


def pgs_to_osds(cmap, pool: Pool, pgs, state: OsdState):
    """For each PG number: dict with raw, up, up_primary, acting, acting_primary (lists)."""
    pgs = np.atleast_1d(np.asarray(pgs, dtype=np.int64))
    result, length = do_rule(cmap, pool.crush_rule, pool.pps(pgs), pool.size, state.weight)
    out = []
    for pg, row, n in zip(pgs, result, length):
        pgid = f"{pool.id}.{int(pg):x}"
        raw = _remove_nonexistent(pool, row[:n].tolist(), state)
        raw = _apply_upmap(pgid, raw, state)
        up = _raw_to_up(pool, raw, state)
        up_primary = _first(up)
        acting, acting_primary = up, up_primary
        if state.pg_temp.get(pgid):
            acting = _raw_to_up(pool, state.pg_temp[pgid], state)
            acting_primary = _first(acting)
        acting_primary = state.primary_temp.get(pgid, acting_primary)
        out.append({"pgid": pgid, "raw": raw, "up": up, "up_primary": up_primary,
                    "acting": acting, "acting_primary": acting_primary})
    return out


def map_object(cmap, pool: Pool, name, state: OsdState):
    """What `ceph osd map POOL NAME` prints (as its JSON fields)."""
    raw, pg = pool.object_ps([name])
    m = pgs_to_osds(cmap, pool, pg, state)[0]
    return {"pool": pool.name, "pool_id": pool.id, "objname": name,
            "raw_pgid": f"{pool.id}.{int(raw[0]):x}", "pgid": m["pgid"],
            "up": m["up"], "up_primary": m["up_primary"],
            "acting": m["acting"], "acting_primary": m["acting_primary"]}


def _exists(state, osd):
    return 0 <= osd < len(state.exists) and state.exists[osd]


def _remove_nonexistent(pool, osds, state):
    if pool.can_shift_osds:
        return [o for o in osds if _exists(state, o)]
    return [o if _exists(state, o) else ITEM_NONE for o in osds]


def _apply_upmap(pgid, raw, state):
    """pg_upmap replaces the set (unless a target is out); pg_upmap_items swaps single
    OSDs when the replacement is not already in the set and is not out."""
    def marked_out(osd):
        return osd != ITEM_NONE and 0 <= osd < len(state.weight) and state.weight[osd] == 0

    if pgid in state.pg_upmap and not any(marked_out(o) for o in state.pg_upmap[pgid]):
        raw = list(state.pg_upmap[pgid])
    for src, dst in state.pg_upmap_items.get(pgid, []):
        if dst in raw:
            continue
        if src in raw and not marked_out(dst):
            raw[raw.index(src)] = dst
    return raw


def _raw_to_up(pool, raw, state):
    def alive(o):
        return _exists(state, o) and state.up[o]
    if pool.can_shift_osds:
        return [o for o in raw if alive(o)]
    return [o if alive(o) else ITEM_NONE for o in raw]


def _first(osds):
    return next((o for o in osds if o != ITEM_NONE), -1)


# -- a pool's PGs as sets, a map with one more OSD ---------------------------------------------
def pool_up_sets(cmap, pool: Pool, state: OsdState):
    """{pgid: up set} of every PG of `pool`, as `ceph pg dump pgs_brief` would list them."""
    return {m["pgid"]: m["up"] for m in pgs_to_osds(cmap, pool, range(pool.pg_num), state)}


def pgs_per_osd(up_sets, pool_id, osds):
    """How many PGs of pool `pool_id` list each OSD of `osds` in their up set
    ({pgid: up set}, pgids "POOL.PG"). Returns an int array in the order of `osds`."""
    prefix = f"{int(pool_id)}."
    used = [o for pg, up in up_sets.items() if pg.startswith(prefix) for o in up]
    return np.array([used.count(o) for o in osds], dtype=np.int64)


def up_set_changes(before, after):
    """(PGs whose up set changed, copies now on an OSD that did not hold them) from two
    {pgid: up set} dicts; PGs only in `after` are ignored."""
    changed = [pg for pg in before if after[pg] != before[pg]]
    new_copies = sum(len(set(after[pg]) - set(before[pg])) for pg in before)
    return changed, new_copies


def with_new_osd(cmap, state: OsdState, osd_id, device_class="hdd"):
    """(CRUSH map, OsdState) once osd_id joins the host bucket of the existing OSDs (the first
    bucket without a device class whose first item is a device), with the median weight of
    that bucket's items, up and in. pg_upmap entries are kept."""
    host = next(b for b in cmap.buckets.values() if not b.device_class and b.items and b.items[0] >= 0)
    weight = int(np.median(host.weights))
    new_map = add_osd(cmap, host.name, osd_id, weight, device_class=device_class)
    n = max(len(state.weight), osd_id + 1)

    def grow(a, fill):
        return np.concatenate([a, np.full(n - len(a), fill, a.dtype)])
    new_state = OsdState(grow(state.weight, 0), grow(state.up, False), grow(state.exists, False))
    new_state.weight[osd_id], new_state.up[osd_id], new_state.exists[osd_id] = WEIGHT_ONE, True, True
    new_state.pg_upmap, new_state.pg_upmap_items = state.pg_upmap, state.pg_upmap_items
    return new_map, new_state
