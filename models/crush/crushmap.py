"""The CRUSH map as data: devices, types, buckets, rules and tunables.

A map is what `crushtool -d` prints and what `ceph osd crush dump` returns: a tree of buckets
(hosts, racks, a root...) whose leaves are devices (OSDs), plus rules that say how to walk it.
Weights are 16.16 fixed point as in Ceph (1.0 = 0x10000). Bucket ids are negative, device
ids are >= 0. Device classes (hdd/ssd) are served by "shadow" buckets: a copy of each bucket
holding only the devices of one class, named e.g. "default~hdd" and reached by
`step take default class hdd`.

Only straw2 buckets are modelled (what every map since Luminous creates); the older
algorithms raise ValueError.

Provenance: Ceph code, Pacific (16.2): src/crush/crush.h, builder.c, CrushWrapper.cc.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

WEIGHT_ONE = 0x10000           # 1.0 in 16.16 fixed point
ITEM_NONE = 0x7FFFFFFF         # CRUSH_ITEM_NONE: "no item here" (indep rules keep positions)

# Rule step opcodes (crush.h enum crush_opcodes); CrushTester reasons about the numbers.
OPS = {
    "noop": 0, "take": 1, "choose_firstn": 2, "choose_indep": 3, "emit": 4,
    "chooseleaf_firstn": 6, "chooseleaf_indep": 7, "set_choose_tries": 8,
    "set_chooseleaf_tries": 9, "set_choose_local_tries": 10,
    "set_choose_local_fallback_tries": 11, "set_chooseleaf_vary_r": 12,
    "set_chooseleaf_stable": 13,
}

# Tunables of a modern (jewel and later, "optimal") map.
MODERN_TUNABLES = {
    "choose_local_tries": 0, "choose_local_fallback_tries": 0, "choose_total_tries": 50,
    "chooseleaf_descend_once": 1, "chooseleaf_vary_r": 1, "chooseleaf_stable": 1,
    "straw_calc_version": 1, "allowed_bucket_algs": 54,
}

RULE_TYPES = {1: "replicated", 3: "erasure"}


def weight_to_fixed(weight):
    """A weight as a float (1.0 = one TiB by convention) -> 16.16 fixed point, as crushtool
    compiles it: (int)(weight * 0x10000) (CrushCompiler.cc, float_node)."""
    return int(float(weight) * WEIGHT_ONE)


@dataclass
class Bucket:
    """One bucket: `items` (ids, in map order) and their 16.16 `weights`."""
    id: int
    name: str
    type_id: int
    items: list
    weights: list
    alg: str = "straw2"
    hash: int = 0
    device_class: str | None = None     # set on shadow buckets ("default~hdd")
    class_ids: dict = field(default_factory=dict)   # class -> id of this bucket's shadow

    @property
    def weight(self):
        return int(sum(self.weights))


@dataclass
class Step:
    op: str
    arg1: int = 0
    arg2: int = 0

    @property
    def opcode(self):
        return OPS[self.op]


@dataclass
class Rule:
    id: int
    name: str
    steps: list
    type: int = 1                 # 1 replicated, 3 erasure
    min_size: int = 1
    max_size: int = 10


@dataclass
class CrushMap:
    """Devices, types, buckets (shadow buckets included), rules and tunables."""
    devices: dict = field(default_factory=dict)          # id -> name
    device_classes: dict = field(default_factory=dict)   # id -> class name
    types: dict = field(default_factory=dict)            # type id -> name
    buckets: dict = field(default_factory=dict)          # id (< 0) -> Bucket
    rules: dict = field(default_factory=dict)            # id -> Rule
    tunables: dict = field(default_factory=lambda: dict(MODERN_TUNABLES))
    choose_args: dict = field(default_factory=dict)

    # ---- look-ups -------------------------------------------------------------------
    @property
    def max_devices(self):
        """One past the highest device id named or placed in a bucket (crush_finalize)."""
        ids = list(self.devices)
        for b in self.buckets.values():
            ids.extend(i for i in b.items if i >= 0)
        return max(ids) + 1 if ids else 0

    @property
    def max_buckets(self):
        """Size of Ceph's bucket array: starts at 8 and doubles until every id fits
        (crush_add_bucket in builder.c). CrushTester uses it as an upper bound."""
        if not self.buckets:
            return 0
        need, size = max(-1 - i for i in self.buckets), 8
        while need >= size:
            size *= 2
        return size

    def item_name(self, item):
        if item >= 0:
            return self.devices.get(item, f"osd.{item}")
        return self.buckets[item].name

    def item_id(self, name):
        for i, n in self.devices.items():
            if n == name:
                return i
        for b in self.buckets.values():
            if b.name == name:
                return b.id
        raise ValueError(f"no device or bucket named {name!r} in the CRUSH map")

    def type_id(self, name):
        for i, n in self.types.items():
            if n == name:
                return i
        raise ValueError(f"no bucket type named {name!r}; the map has: "
                         + ", ".join(self.types.values()))

    def rule_id(self, name_or_id):
        """A rule by id (int or digits) or by name."""
        if isinstance(name_or_id, int) or str(name_or_id).isdigit():
            rid = int(name_or_id)
            if rid in self.rules:
                return rid
        else:
            for r in self.rules.values():
                if r.name == name_or_id:
                    return r.id
        known = ", ".join(f"{r.id} ({r.name})" for r in self.rules.values())
        raise ValueError(f"no CRUSH rule {name_or_id!r}; rules in the map: {known}")

    def item_present(self, device):
        """True if some bucket holds the device (CrushWrapper::check_item_present)."""
        return any(device in b.items for b in self.buckets.values())

    def device_weights(self, overrides=None):
        """The weight vector crushtool --test starts from: 0x10000 for each device placed in
        a bucket, 0 otherwise, then `overrides` {device: 16.16 weight}."""
        present = {i for b in self.buckets.values() for i in b.items if i >= 0}
        w = np.array([WEIGHT_ONE if d in present else 0 for d in range(self.max_devices)],
                     dtype=np.uint32)
        for dev, val in (overrides or {}).items():
            if 0 <= dev < len(w):
                w[dev] = val
        return w

    def check_supported(self):
        """Raise ValueError for what the model does not cover (with what to do instead)."""
        for b in self.buckets.values():
            if b.alg != "straw2":
                raise ValueError(
                    f"bucket {b.name!r} uses alg {b.alg}: not supported, only straw2 "
                    "(convert with `ceph osd crush set-all-straw-buckets-to-straw2`)")
            if b.hash != 0:
                raise ValueError(f"bucket {b.name!r} uses hash {b.hash}: only 0 (rjenkins1)")
        if self.tunables.get("choose_local_fallback_tries", 0) > 0:
            raise ValueError("choose_local_fallback_tries > 0 (legacy tunables) is not "
                             "supported; set optimal tunables (`ceph osd crush tunables optimal`)")
        if any(self.choose_args.values()):
            raise ValueError("choose_args (balancer weight-sets) are not supported; remove "
                             "them with `ceph osd crush weight-set rm-compat`")

    # ---- shadow trees for device classes ---------------------------------------------
    def build_shadow_trees(self):
        """Create the per-class shadow buckets (CrushWrapper::populate_classes).

        For every root and every class in use, each bucket gets a copy holding its devices
        of that class and the copies of its child buckets (weight = the copy's total, possibly
        0). Ids come from the map's `id -N class C` lines; missing ones get the first free id
        (bno = -1, -2, ... not used by any bucket), as Ceph does.
        """
        classes = sorted(set(self.device_classes.values()))
        roots = [b.id for b in self.buckets.values()
                 if b.device_class is None and not self._has_parent(b.id)]
        reserved = {i for b in self.buckets.values() for i in b.class_ids.values()}
        for root in sorted(roots):   # std::set<int> order, as Ceph iterates
            for cls in classes:
                self._clone(root, cls, reserved)

    def _has_parent(self, bid):
        return any(bid in b.items for b in self.buckets.values() if b.device_class is None)

    def _clone(self, bid, cls, reserved):
        orig = self.buckets[bid]
        name = f"{orig.name}~{cls}"
        for b in self.buckets.values():
            if b.name == name:
                return b.id
        items, weights = [], []
        for item, w in zip(orig.items, orig.weights):
            if item >= 0:
                if self.device_classes.get(item) != cls:
                    continue
                items.append(item)
                weights.append(w)
            else:
                child = self._clone(item, cls, reserved)
                items.append(child)
                weights.append(self.buckets[child].weight)
        new_id = orig.class_ids.get(cls)
        if new_id is None:
            new_id = -1
            while new_id in self.buckets or new_id in reserved:
                new_id -= 1
            orig.class_ids[cls] = new_id
        self.buckets[new_id] = Bucket(new_id, name, orig.type_id, items, weights,
                                      orig.alg, orig.hash, device_class=cls)
        return new_id

    # ---- arrays for the vectorised mapper --------------------------------------------
    def compiled(self):
        """Dense numpy views of the buckets for the mapper (cached; rebuild after edits)."""
        key = self._fingerprint()
        if getattr(self, "_compiled_key", None) != key:
            self._compiled = CompiledMap(self)
            self._compiled_key = key
        return self._compiled

    def _fingerprint(self):
        return tuple((b.id, b.type_id, tuple(b.items), tuple(b.weights))
                     for b in self.buckets.values()) + (len(self.devices),)


class CompiledMap:
    """Buckets as padded arrays indexed by position -1 - id, so a vector of lanes sitting in
    different buckets can draw in one numpy pass."""

    def __init__(self, cmap: CrushMap):
        cmap.check_supported()
        n = max((-1 - i for i in cmap.buckets), default=-1) + 1
        width = max((len(b.items) for b in cmap.buckets.values()), default=0)
        self.max_devices = cmap.max_devices
        self.exists = np.zeros(n, dtype=bool)
        self.type = np.full(n, -1, dtype=np.int64)
        self.size = np.zeros(n, dtype=np.int64)
        self.items = np.zeros((n, max(width, 1)), dtype=np.int64)
        self.weights = np.zeros((n, max(width, 1)), dtype=np.float64)
        for b in cmap.buckets.values():
            pos = -1 - b.id
            self.exists[pos] = True
            self.type[pos] = b.type_id
            self.size[pos] = len(b.items)
            self.items[pos, :len(b.items)] = b.items
            self.weights[pos, :len(b.items)] = b.weights
        self.items_u32 = (self.items & 0xFFFFFFFF).astype(np.uint32)
        # the common weight of buckets whose items all weigh the same (else 0): fast path
        self.uniform_weight = np.zeros(n, dtype=np.int64)
        for b in cmap.buckets.values():
            if b.weights and min(b.weights) == max(b.weights):
                self.uniform_weight[-1 - b.id] = b.weights[0]
        self.tunables = dict(cmap.tunables)

    def item_type(self, item):
        """Type id of each item: 0 for devices, the bucket's type otherwise, -1 if unknown."""
        item = np.asarray(item)
        pos = -1 - item
        ok = (item < 0) & (pos < len(self.exists))
        out = np.zeros(item.shape, dtype=np.int64)
        out[ok] = self.type[pos[ok]]
        out[(item < 0) & ~ok] = -1
        return out

    def is_bucket(self, item):
        item = np.asarray(item)
        pos = -1 - item
        ok = (item < 0) & (pos < len(self.exists))
        ok[ok] = self.exists[pos[ok]]
        return ok
