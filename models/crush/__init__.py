"""CRUSH, the placement algorithm of Ceph, as readable numpy that matches Ceph bit for bit.

No lookup table says where an object lives: every client computes it (seed
000_ff3932318711fad8.txt, NAVER, OpenStack Days 2017; seed 002_696ca3a238e3edbe.txt,
J. Neudecker, HAW Hamburg 2021). The pieces:

    hash        the rjenkins1 hash family (crush_hash32_2/_3/...)
    ln          crush_ln, the fixed-point logarithm straw2 needs
    straw2      bucket selection: longest straw wins
    mapper      rule execution (take / choose / chooseleaf firstn|indep / emit, tunables)
    mapper_c    the same, compiled from C (mapper_c.c) when a C compiler is there: mapper's
                do_rule runs it, ~6x faster, same placements bit for bit
    crushmap    the map (devices, types, buckets, rules, tunables, device-class shadows)
    parse_text  `crushtool -d` text;  parse_json  `ceph osd crush dump` JSON
    objects     object name -> PG -> OSDs, as `ceph osd map POOL OBJECT` reports it
    analysis    PGs per OSD vs weight, spread, data movement when the map changes
    build       small maps in code: N hosts x k OSDs, rules by_host and by_osd

    from models.crush import parse_text, mapper
    cmap = parse_text.load("map.txt")
    mapper.mappings(cmap, rule=0, x=range(10), result_max=3)

Checked against crushtool and a live cluster in tests/crush/.
"""
from . import analysis, build, crushmap, hash, ln, mapper, objects, parse_json, parse_text, straw2  # noqa: F401
from .crushmap import ITEM_NONE, CrushMap  # noqa: F401
from .mapper import do_rule, mappings  # noqa: F401
