"""Read a CRUSH map in the text form `crushtool -d` prints (and `crushtool -c` compiles).

Covers what Pacific clusters and `crushtool --build` produce: tunables, devices with classes,
types, buckets of any type and depth (`id -N`, `id -M class hdd`, `alg straw2`, `hash 0`,
`item NAME weight W`), rules (`id`/`ruleset`, `type`, `min_size`, `max_size`, `step take NAME
[class C]`, `step choose|chooseleaf firstn|indep N type T`, `step emit`, `step set_* N`) and
comments. Weights become 16.16 fixed point as crushtool compiles them: the text is read as a
C float (32 bit) and multiplied by 0x10000, then truncated.

Provenance: Ceph code, Pacific (16.2) src/crush/grammar.h and CrushCompiler.cc (the format);
the parser itself is written for the lab.
"""
from __future__ import annotations

import re

import numpy as np

from .crushmap import OPS, WEIGHT_ONE, Bucket, CrushMap, Rule, Step

_TOKEN = re.compile(r"[{}\[\]]|[^\s{}\[\]]+")
_RULE_TYPES = {"replicated": 1, "erasure": 3}


def parse(text) -> CrushMap:
    """A CrushMap from crushtool's text form (a string). Raises ValueError with the line."""
    return _Parser(text).run()


def load(path) -> CrushMap:
    with open(path, encoding="utf-8") as f:
        return parse(f.read())


def fixed_weight(text):
    """'1.000' -> 0x10000: float32(text) * 0x10000, truncated toward zero (CrushCompiler)."""
    return int(np.float32(text) * np.float32(WEIGHT_ONE))


class _Parser:
    def __init__(self, text):
        self.tokens: list[tuple[str, int]] = []          # (token, line number)
        for number, line in enumerate(text.splitlines(), 1):
            line = line.split("#", 1)[0]
            self.tokens.extend((t, number) for t in _TOKEN.findall(line))
        self.pos = 0
        self.map = CrushMap(tunables={})
        self.takes = []           # (step, bucket name, class) resolved after shadow trees
        # name -> id, devices first as CrushMap.item_id, whose scan of every device would make
        # parsing quadratic (a 1,000-OSD map names ~1,100 items)
        self.device_ids: dict[str, int] = {}
        self.bucket_ids: dict[str, int] = {}

    # -- token helpers ----------------------------------------------------------------
    def peek(self):
        return self.tokens[self.pos][0] if self.pos < len(self.tokens) else None

    def next(self, what="a value"):
        if self.pos >= len(self.tokens):
            raise ValueError(f"CRUSH map text ends early: expected {what}")
        token = self.tokens[self.pos][0]
        self.pos += 1
        return token

    def expect(self, token):
        got = self.next(repr(token))
        if got != token:
            self.fail(f"expected {token!r}, got {got!r}", back=1)

    def integer(self, what):
        token = self.next(what)
        try:
            return int(token)
        except ValueError:
            self.fail(f"expected a whole number for {what}, got {token!r}", back=1)

    def fail(self, message, back=0):
        line = self.tokens[max(self.pos - back, 0)][1] if self.tokens else 0
        raise ValueError(f"CRUSH map text, line {line}: {message}")

    # -- grammar ----------------------------------------------------------------------
    def run(self):
        cmap = self.map
        while self.peek() is not None:
            word = self.next()
            if word == "tunable":
                name = self.next("a tunable name")
                cmap.tunables[name] = self.integer(name)
            elif word == "device":
                self.device()
            elif word == "type":
                tid = self.integer("type id")
                cmap.types[tid] = self.next("type name")
            elif word == "rule":
                self.rule()
            elif word == "choose_args":
                self.choose_args()
            elif word in cmap.types.values():
                self.bucket(word)
            else:
                self.fail(f"unexpected {word!r} (not a keyword or a declared bucket type)", 1)
        self.finish()
        return cmap

    def device(self):
        did = self.integer("device id")
        name = self.next("device name")
        self.map.devices[did] = name
        self.device_ids.setdefault(name, did)
        if self.peek() == "class":
            self.next()
            self.map.device_classes[did] = self.next("device class")

    def bucket(self, type_name):
        cmap = self.map
        name = self.next("bucket name")
        self.expect("{")
        bid, class_ids, alg, hash_, items, weights = None, {}, "straw2", 0, [], []
        while self.peek() != "}":
            key = self.next("a bucket field")
            if key == "id":
                value = self.integer("bucket id")
                if self.peek() == "class":
                    self.next()
                    class_ids[self.next("class name")] = value
                else:
                    bid = value
            elif key == "alg":
                alg = self.next("bucket algorithm")
            elif key == "hash":
                h = self.next("hash")
                hash_ = 0 if h == "rjenkins1" else int(h)
            elif key == "weight":
                self.next()       # bucket weight is recomputed from the items, as Ceph does
            elif key == "item":
                item_name = self.next("item name")
                item = self.lookup(item_name)
                weight = WEIGHT_ONE if item >= 0 else cmap.buckets[item].weight
                while self.peek() in ("weight", "pos"):
                    field = self.next()
                    value = self.next(field)
                    if field == "weight":
                        weight = fixed_weight(value)
                items.append(item)
                weights.append(weight)
            else:
                self.fail(f"unknown bucket field {key!r}", 1)
        self.next()
        if bid is None:
            bid = -1
            while bid in cmap.buckets:
                bid -= 1
        if bid in cmap.buckets:
            self.fail(f"bucket id {bid} used twice")
        cmap.buckets[bid] = Bucket(bid, name, cmap.type_id(type_name), items, weights,
                                   alg=alg, hash=hash_, class_ids=class_ids)
        self.bucket_ids.setdefault(name, bid)

    def lookup(self, name):
        found = self.device_ids.get(name, self.bucket_ids.get(name))
        if found is None:
            self.fail(f"item {name!r} is not a device or an earlier bucket", 1)
        return found

    def rule(self):
        name = self.next("rule name")
        self.expect("{")
        rule = Rule(id=-1, name=name, steps=[])
        while self.peek() != "}":
            key = self.next("a rule field")
            if key in ("id", "ruleset"):
                rule.id = self.integer(key)
            elif key == "type":
                t = self.next("rule type")
                rule.type = _RULE_TYPES[t] if t in _RULE_TYPES else int(t)
            elif key in ("min_size", "max_size"):
                setattr(rule, key, self.integer(key))
            elif key == "step":
                rule.steps.append(self.step())
            else:
                self.fail(f"unknown rule field {key!r}", 1)
        self.next()
        if rule.id < 0:
            rule.id = max(self.map.rules, default=-1) + 1
        self.map.rules[rule.id] = rule

    def step(self):
        op = self.next("a step")
        if op == "take":
            step = Step("take")
            bucket = self.next("bucket name")
            cls = None
            if self.peek() == "class":
                self.next()
                cls = self.next("class name")
            self.takes.append((step, bucket, cls))
            return step
        if op in ("choose", "chooseleaf"):
            mode = self.next("firstn or indep")
            if mode not in ("firstn", "indep"):
                self.fail(f"expected firstn or indep, got {mode!r}", 1)
            n = self.integer("number of items")
            self.expect("type")
            return Step(f"{op}_{mode}", n, self.map.type_id(self.next("type name")))
        if op == "emit":
            return Step("emit")
        if op in OPS and op.startswith("set_"):
            return Step(op, self.integer(op))
        self.fail(f"unknown step {op!r}", 1)

    def choose_args(self):
        """Weight-sets are parsed only to be refused clearly (CrushMap.check_supported)."""
        key = self.next("choose_args id")
        depth, body = 0, []
        while True:
            token = self.next("'}'")
            depth += token == "{"
            depth -= token == "}"
            body.append(token)
            if depth == 0:
                break
        self.map.choose_args[key] = len(body) > 2

    def finish(self):
        cmap = self.map
        if not cmap.tunables:
            cmap.tunables = {}
        for name, value in CrushMap().tunables.items():
            cmap.tunables.setdefault(name, _LEGACY.get(name, value))
        if cmap.device_classes or any(b.class_ids for b in cmap.buckets.values()):
            cmap.build_shadow_trees()
        for step, bucket, cls in self.takes:
            bid = cmap.item_id(bucket)
            if cls is not None:
                shadow = cmap.buckets[bid].class_ids.get(cls)
                if shadow is None:
                    raise ValueError(f"step take {bucket} class {cls}: no device of class "
                                     f"{cls!r} below {bucket!r}")
                bid = shadow
            step.arg1 = bid


# A map whose text has no `tunable` line uses Ceph's legacy (argonaut) values.
_LEGACY = {
    "choose_local_tries": 2, "choose_local_fallback_tries": 5, "choose_total_tries": 19,
    "chooseleaf_descend_once": 0, "chooseleaf_vary_r": 0, "chooseleaf_stable": 0,
    "straw_calc_version": 0, "allowed_bucket_algs": 22,
}
