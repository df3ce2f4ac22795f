"""cephlab.helpers.waf.metadata_room: how far under the WAF model a short run may fall when
batching shrinks RocksDB's metadata, for lab 07's device-WAF rows (figures worked by hand from
models.waf's short-window parts with the default prefer_deferred of 64 KiB)."""
import pytest

from cephlab.helpers.compare import Comparison
from cephlab.helpers.waf import metadata_room
from models import waf


def short(w, **kw):
    return waf.bluestore_waf(w, sst_bytes=0, bluefs_log_bytes=0, **kw)


def test_deferred_4k_floor_is_data_plus_the_wal_copy():
    # 8.25 = 3 deferred data + 5.25 WAL (3 of it the deferred copy): floor 6.0, room 1 - 6/8.25
    assert metadata_room(short(4096)) == pytest.approx(1 - 6.0 / 8.25)


def test_direct_4k_floor_uses_the_measured_deferred_share():
    model = short(4096, prefer_deferred_size=0)             # 5.25 = 3 data + 2.25 metadata
    assert float(model) == pytest.approx(5.25)
    assert metadata_room(model, 0.0) == pytest.approx(1 - 3.0 / 5.25)
    assert metadata_room(model, 0.3) == pytest.approx(1 - 3.3 / 5.25)


def test_large_writes_leave_almost_no_room():
    assert metadata_room(short(1 << 20)) < 0.01


def test_direct_and_deferred_windows_do_not_overlap():
    # lab 07's negative control: no device WAF can pass both the direct model and "deferred anyway"
    direct, anyway = short(4096, prefer_deferred_size=0), short(4096)
    for measured in [2.8, 3.0, 3.7, 4.5, 5.25, 5.5, 5.6, 6.0, 7.0, 8.25, 8.6]:
        row = Comparison().add("direct", model=direct, measured=measured, rel_tol=0.05,
                               below=metadata_room(direct, 0.0),
                               control=("anyway", anyway, metadata_room(anyway))).rows[0]
        assert not (row.agrees and row.control_fails is False), measured
    assert Comparison().add("d", model=direct, measured=3.75, rel_tol=0.05,
                            below=metadata_room(direct, 0.0),
                            control=("anyway", anyway, metadata_room(anyway))).rows[0].control_fails
