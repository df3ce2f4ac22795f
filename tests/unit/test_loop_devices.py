"""mounts.detach_loops: after `mount -o loop` and umount, the kernel clears the loop device
asynchronously; detach_loops must leave none listed when it returns (a CI run once found
/dev/loop0 still attached right after the umount). Real loop devices, so root only."""
import os
import subprocess

import pytest

from cephlab.core import mounts


@pytest.fixture
def image(tmp_path):
    if os.geteuid() != 0 or not os.path.exists("/dev/loop-control"):
        pytest.skip("loop devices need root and /dev/loop-control")
    f = tmp_path / "fs.img"
    subprocess.run(["truncate", "-s", "16M", str(f)], check=True)
    subprocess.run(["mkfs.ext4", "-q", str(f)], check=True)
    yield f
    mounts.detach_loops(f)


@pytest.mark.parametrize("rounds", [5])
def test_no_loop_device_is_listed_after_umount_and_detach(image, tmp_path, rounds):
    point = tmp_path / "mnt"
    point.mkdir()
    for _ in range(rounds):          # the race is timing-dependent: several tries, each checked
        subprocess.run(["mount", "-o", "loop", str(image), str(point)], check=True)
        assert len(mounts.loop_devices(image)) == 1
        subprocess.run(["umount", str(point)], check=True)
        mounts.detach_loops(image)
        assert mounts.loop_devices(image) == []


def test_an_attached_device_is_detached(image):
    dev = subprocess.run(["losetup", "--find", "--show", str(image)], capture_output=True,
                         text=True, check=True).stdout.strip()
    assert mounts.detach_loops(image) == [dev]
    assert mounts.loop_devices(image) == []


def test_a_missing_losetup_is_reported_not_raised(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))        # no losetup on this PATH
    assert mounts.detach_loops(tmp_path / "none.img") == []
