"""Fixtures for the CRUSH tests: maps compiled and decompiled by crushtool (session scope)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import crush_maps as maps  # noqa: E402


@pytest.fixture(scope="session")
def crushtool():
    if maps.CRUSHTOOL is None:
        pytest.skip("crushtool is not installed (apt-get install ceph-base)")
    return maps.CRUSHTOOL


@pytest.fixture(scope="session")
def layered(crushtool, tmp_path_factory):
    """root > 3 racks > 7 hosts > 19 OSDs, uneven weights, hdd/ssd classes, 7 rules.
    Returns (binary map, crushtool -d text, the source text without shadow ids)."""
    work = tmp_path_factory.mktemp("layered")
    binary, text = maps.compile_text(maps.layered_text(), work, "layered")
    return binary, text, work / "layered.src.txt"


@pytest.fixture(scope="session")
def built(crushtool, tmp_path_factory):
    """crushtool --build --num_osds 40 host straw2 4 root straw2 0 (10 hosts of 4 OSDs)."""
    work = tmp_path_factory.mktemp("built")
    return maps.build(work, 40, ["host", "straw2", 4, "root", "straw2", 0])


@pytest.fixture(scope="session")
def built_racks(crushtool, tmp_path_factory):
    """crushtool --build --num_osds 120 host straw2 6 rack straw2 5 root straw2 0."""
    work = tmp_path_factory.mktemp("built_racks")
    return maps.build(work, 120, ["host", "straw2", 6, "rack", "straw2", 5, "root", "straw2", 0])
