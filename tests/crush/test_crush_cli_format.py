"""`cephlab crush test --show-mappings` lines: the byte-matrix formatter against plain formatting."""
import numpy as np
import pytest

from cephlab.cli import crush
from models.crush.crushmap import ITEM_NONE


@pytest.mark.parametrize("values,lengths,xs", [
    ([[1, 5, ITEM_NONE], [3, 4, 5], [7, 0, 0], [12, 0, 0]], [3, 0, 1, 2], [5, 10, 123, 0]),
    ([[0, 0], [999, 1000]], [2, 2], [2**32 + 7, 9]),             # x past 32 bits
    ([[-3, 4], [5, 6]], [2, 1], [1, 2]),                         # bucket ids: the plain path
])
def test_lines_match_plain_formatting(values, lengths, xs):
    result, length, x = np.array(values), np.array(lengths), np.array(xs)
    got = crush._mapping_lines(4, x, result, length, None)
    assert got == crush._plain_lines(4, x, result, length)
    assert got.splitlines()[0] == f"CRUSH rule 4 x {xs[0]} [" + ",".join(
        str(v) for v in values[0][:lengths[0]]) + "]"


def test_many_lines_of_varying_length():
    rng = np.random.default_rng(7)
    result = rng.integers(0, 5000, (3000, 4))
    length = rng.integers(0, 5, 3000)
    x = rng.integers(0, 10**7, 3000)
    got = crush._mapping_lines(0, x, result, length, None)
    assert got == crush._plain_lines(0, x, result, length)
    assert got.count("\n") == 3000 and crush._mapping_lines(0, x[:0], result[:0], length[:0], None) == ""
