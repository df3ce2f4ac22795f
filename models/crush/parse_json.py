"""Read the JSON of `ceph osd crush dump` (or `crushtool -i MAP --dump`) into a CrushMap.

The dump already lists the shadow buckets of device classes ("default~hdd") and rules refer
to them by id, so nothing has to be rebuilt. Weights are 16.16 integers, as in the map.

Provenance: Ceph code, Pacific (16.2) CrushWrapper::dump (the JSON layout).
"""
from __future__ import annotations

import json

from .crushmap import OPS, Bucket, CrushMap, Rule, Step

_HASHES = {"rjenkins1": 0, "0": 0}


def parse(dump) -> CrushMap:
    """A CrushMap from the parsed dump (dict) or its JSON text."""
    if isinstance(dump, (str, bytes)):
        dump = json.loads(dump)
    for key in ("devices", "types", "buckets", "rules"):
        if key not in dump:
            raise ValueError(f"not a CRUSH dump: no {key!r} key (use `ceph osd crush dump`)")
    cmap = CrushMap(tunables={})
    for d in dump["devices"]:
        cmap.devices[d["id"]] = d["name"]
        if d.get("class"):
            cmap.device_classes[d["id"]] = d["class"]
    for t in dump["types"]:
        cmap.types[t["type_id"]] = t["name"]
    for b in dump["buckets"]:
        cmap.buckets[b["id"]] = Bucket(
            b["id"], b["name"], b["type_id"],
            [i["id"] for i in b["items"]], [i["weight"] for i in b["items"]],
            alg=b["alg"], hash=_HASHES.get(str(b["hash"]), -1),
            device_class=b["name"].split("~", 1)[1] if "~" in b["name"] else None)
    by_name = {b.name: b for b in cmap.buckets.values()}
    for b in cmap.buckets.values():          # remember which shadow belongs to which bucket
        if b.device_class and b.name.split("~", 1)[0] in by_name:
            by_name[b.name.split("~", 1)[0]].class_ids[b.device_class] = b.id
    for r in dump["rules"]:
        steps = [_step(cmap, s) for s in r["steps"]]
        cmap.rules[r["rule_id"]] = Rule(r["rule_id"], r["rule_name"], steps, r.get("type", 1),
                                        r.get("min_size", 1), r.get("max_size", 10))
    tunables = dump.get("tunables", {})
    for name in CrushMap().tunables:
        if name in tunables:
            cmap.tunables[name] = int(tunables[name])
    cmap.choose_args = {k: bool(v) for k, v in dump.get("choose_args", {}).items()}
    return cmap


def load(path) -> CrushMap:
    with open(path, encoding="utf-8") as f:
        return parse(f.read())


def _step(cmap, s):
    op = s["op"]
    if op not in OPS:
        raise ValueError(f"unknown rule step op {op!r} in the CRUSH dump")
    if op == "take":
        return Step("take", s["item"])
    if op.startswith("choose"):
        return Step(op, s["num"], cmap.type_id(s["type"]))
    if op.startswith("set_"):
        return Step(op, s["num"])
    return Step(op)
