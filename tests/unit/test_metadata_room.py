"""cephlab.helpers.waf.metadata_room and page_room: how far under the WAF model a short run may
fall when batching shrinks RocksDB's metadata, and how far over it when every write syncs the WAL
alone, for lab 07's device-WAF rows (figures worked by hand from
models.waf's short-window parts with the default prefer_deferred of 64 KiB)."""
import pytest

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


def test_page_room_by_hand():
    from cephlab.helpers.waf import page_room
    # 3 replicas x 2 pages x 4096 / 65536 = 0.375 WAF over a 64 KiB model of 3.141: 11.9 %
    model = short(64 * 1024)
    assert page_room(model, 64 * 1024) == pytest.approx(0.375 / float(model))
    assert page_room(short(1 << 20), 1 << 20) < 0.01
    with pytest.raises(ValueError, match="bs"):
        page_room(model, 0)
