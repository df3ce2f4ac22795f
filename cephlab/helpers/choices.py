"""What each lab's experiment accepts as the learner's choice (`my_...`), and why.

Every value left out would make the learner's run trivial (every ratio 1, nothing padded) or
its check unable to tell the model from its wrong model. The question's public test states the
same rule to the learner (tests/unit/test_choices.py proves the two agree on every value of a
wide range); experiment.choice applies it in the measuring cell, so a learner who went on past a
failing public test does not run a measurement that decides nothing.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral


@dataclass(frozen=True)
class Rule:
    accepts: Callable[[object], bool]
    says: str                               # the valid values, and why others are left out
    trivial: tuple = ()                     # values left out because they decide nothing


def _whole(v: object) -> bool:
    return isinstance(v, Integral) and not isinstance(v, bool)


def _whole_number(v: object) -> bool:
    """A whole number, possibly typed as a float (`int(v) == v`), as lab 04's and 07's tests take it."""
    return (_whole(v) or isinstance(v, float) and v.is_integer()) and not isinstance(v, bool)


def _between(lo: int, hi: int, whole=_whole) -> Callable[[object], bool]:
    return lambda v: whole(v) and lo <= v <= hi       # type: ignore[operator]


RULES: dict[tuple[str, str], Rule] = {
    ("00", "my_pool_size"): Rule(_between(1, 3), "a pool size of 1, 2 or 3"),
    ("01", "my_object_bytes"): Rule(
        lambda v: _between(512, 65536)(v) and v % 4096 != 0,      # type: ignore[operator]
        "a whole number of bytes from 512 to 65536, not a multiple of 4096: such a size needs no "
        "padding, so the check could not tell the padding model from the no-padding one",
        trivial=(4096, 8192, 65536)),
    ("02", "my_pg_num"): Rule(lambda v: _between(8, 128)(v) and v & (v - 1) == 0,   # type: ignore[operator]
                              "a power of two from 8 to 128"),
    ("03", "my_threads"): Rule(
        lambda v: _between(2, 32)(v) and v != 16,
        "a whole number of writes in flight from 2 to 32 other than 16, the run yours is compared "
        "with (16 would give ratios of exactly 1)", trivial=(16,)),
    ("04", "my_delay_multiple"): Rule(_between(2, 20, _whole_number), "a whole number from 2 to 20"),
    ("05", "my_clients"): Rule(_between(2, 16), "a whole number of clients from 2 to 16"),
    ("06", "my_objects"): Rule(_between(48, 160), "a whole number of objects from 48 to 160"),
    ("07", "my_write_kib"): Rule(lambda v: _between(4, 1024, _whole_number)(v) and v % 4 == 0,  # type: ignore[operator]
                                 "a multiple of 4 KiB (BlueStore's block) from 4 to 1024"),
    ("08", "my_objects"): Rule(_between(128, 256), "a whole number of objects from 128 to 256"),
    ("09", "my_clients"): Rule(_between(2, 6), "a whole number of clients from 2 to 6"),
    ("10", "my_clients"): Rule(_between(2, 16), "a whole number of clients from 2 to 16"),
    ("11", "my_pg_num"): Rule(lambda v: _whole(v) and v in (16, 32, 64, 128), "16, 32, 64 or 128"),
}


def rule(lab: str, name: str) -> Rule:
    """The rule of lab `lab` ("01") for its choice `name` ("my_object_bytes"); KeyError names both."""
    try:
        return RULES[lab, name]
    except KeyError:
        raise KeyError(f"lab {lab} has no rule for {name!r} in cephlab.helpers.choices.RULES") from None
