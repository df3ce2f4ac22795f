"""container/build.sh picks the base image and the tag for the platform it builds: the host's own
(localhost/debian:trixie, Debian 13 by default, :latest, no --platform, as CI builds it; Debian 12
with CEPHLAB_IMAGE_SUITE=bookworm) or a foreign one under
emulation (CEPHLAB_PLATFORM=linux/arm64: an arm64 base and an :arm64 tag, so the amd64 image is
not replaced). Nothing is built: a stand-in podman records what it is asked."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_PODMAN = """#!/bin/sh
echo "$*" >> "$CALLS"
case "$*" in
  "image inspect --format"*) echo 1000000 ;;
  "image inspect "*) for have in $IMAGES; do [ "$3" = "$have" ] && exit 0; done; exit 1 ;;
esac
exit 0
"""
# an amd64 Linux host, whatever runs the test
FAKE_UNAME = """#!/bin/sh
case "$1" in -s) echo Linux ;; -m) echo x86_64 ;; *) echo Linux ;; esac
"""


@pytest.fixture
def release(tmp_path):
    """A release folder holding build.sh and what it sources, a stand-in podman and uname, and
    a binfmt folder where qemu-aarch64 is registered with the F flag."""
    folder = tmp_path / "release"
    (folder / "container").mkdir(parents=True)
    for name in ("build.sh", "emulation.sh"):
        shutil.copy(ROOT / "container" / name, folder / "container" / name)
    (folder / ".cephlab-release").write_text("test\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("podman", FAKE_PODMAN), ("uname", FAKE_UNAME)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    binfmt = tmp_path / "binfmt"
    binfmt.mkdir()
    (binfmt / "qemu-aarch64").write_text("enabled\ninterpreter /usr/libexec/qemu-binfmt/aarch64-binfmt-P\n"
                                         "flags: PF\n")
    return folder, bin_dir, binfmt, tmp_path / "calls"


def build_args(release, images, platform=None, suite=None, ok=True):
    folder, bin_dir, binfmt, calls = release
    env = {k: v for k, v in os.environ.items() if not k.startswith("CEPHLAB_")}
    env.update(PATH=f"{bin_dir}:{env['PATH']}", CALLS=str(calls), IMAGES=" ".join(images),
               CEPHLAB_BINFMT_DIR=str(binfmt))
    if platform:
        env["CEPHLAB_PLATFORM"] = platform
    if suite:
        env["CEPHLAB_IMAGE_SUITE"] = suite
    out = subprocess.run(["bash", str(folder / "container" / "build.sh")], env=env,
                         capture_output=True, text=True, timeout=60)
    if not ok:
        return out
    assert out.returncode == 0, out.stdout + out.stderr
    builds = [line.split() for line in calls.read_text().splitlines() if line.startswith("build ")]
    assert len(builds) == 1, calls.read_text()
    return builds[0]


def value(args, flag):
    return args[args.index(flag) + 1]


LOCAL = ["localhost/debian:bookworm", "localhost/debian:trixie", "localhost/debian:trixie-arm64"]


def test_host_platform_is_debian_13_by_default(release):
    args = build_args(release, LOCAL)
    assert value(args, "-t") == "localhost/ceph-storage-lab:latest"
    assert value(args, "--build-arg") == "BASE=localhost/debian:trixie"
    assert "--platform" not in args


def test_pacific_is_one_setting_away(release):
    assert value(build_args(release, LOCAL, suite="bookworm"), "--build-arg") == "BASE=localhost/debian:bookworm"


def test_pacific_without_a_local_base_takes_the_registrys_bookworm(release):
    assert value(build_args(release, [], suite="bookworm"), "--build-arg") == \
        "BASE=docker.io/library/debian:bookworm-slim"


def test_an_unknown_suite_is_refused_by_name(release):
    out = build_args(release, LOCAL, suite="jessie", ok=False)
    assert out.returncode == 2 and "CEPHLAB_IMAGE_SUITE must be bookworm, trixie or sid, not jessie" in out.stderr


def test_arm64_gets_an_arm64_base_and_its_own_tag(release):
    args = build_args(release, LOCAL, platform="linux/arm64")
    assert value(args, "--platform") == "linux/arm64"
    assert value(args, "-t") == "localhost/ceph-storage-lab:arm64"
    assert value(args, "--build-arg") == "BASE=localhost/debian:trixie-arm64"


def test_arm64_without_local_bases_takes_the_registrys_multiarch_image(release):
    args = build_args(release, [], platform="linux/arm64")
    assert value(args, "--build-arg") == "BASE=docker.io/library/debian:trixie-slim"
    assert value(args, "-t") == "localhost/ceph-storage-lab:arm64"


def test_arm64_base_is_made_by_debootstrap_where_the_machine_makes_its_own(release):
    """A machine with the local amd64 base (no registry) gets the arm64 one from build-image.sh."""
    folder, _, _, calls = release
    script = folder / "vagrant" / "provision" / "build-image.sh"
    script.parent.mkdir(parents=True)
    script.write_text('echo "build-image.sh $*" >> "$CALLS"\n')
    build_args(release, ["localhost/debian:trixie"], platform="linux/arm64")
    assert "build-image.sh --base-only --arch arm64" in calls.read_text()


def fake(bin_dir, name, text):
    (bin_dir / name).write_text("#!/bin/sh\n" + text)
    (bin_dir / name).chmod(0o755)


def run_without_f_flag(release, uid):
    """qemu-aarch64 registered without F (no qemu binary inside the build's container then);
    `id -u` says uid; mount, dpkg-query, apt-get and update-binfmts are stand-ins that log."""
    folder, bin_dir, binfmt, calls = release
    (binfmt / "qemu-aarch64").write_text("enabled\nflags: P\n")
    (binfmt / "register").write_text("")
    fake(bin_dir, "id", f'echo {uid}\n')
    for name in ("mount", "apt-get"):
        fake(bin_dir, name, f'echo "{name} $*" >> "$CALLS"\n')
    fake(bin_dir, "dpkg-query", "echo 'install ok installed'\n")
    fake(bin_dir, "update-binfmts", f'echo "update-binfmts $*" >> "$CALLS"\n'
                                    f'printf "enabled\\nflags: PF\\n" > "{binfmt}/qemu-aarch64"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("CEPHLAB_")}
    env.update(PATH=f"{bin_dir}:{env['PATH']}", CALLS=str(calls), IMAGES="",
               CEPHLAB_BINFMT_DIR=str(binfmt), CEPHLAB_PLATFORM="linux/arm64")
    out = subprocess.run(["bash", str(folder / "container" / "build.sh")], env=env,
                         capture_output=True, text=True, timeout=60)
    return out, calls.read_text() if calls.exists() else ""


def test_arm64_without_the_f_flag_is_registered_again_as_root(release):
    out, calls = run_without_f_flag(release, 0)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "update-binfmts --enable qemu-aarch64" in calls
    assert calls.index("update-binfmts") < calls.index("build ")


def test_arm64_without_the_f_flag_stops_without_root_and_names_the_command(release):
    out, calls = run_without_f_flag(release, 1000)
    assert out.returncode != 0
    assert "sudo bash container/emulation.sh linux/arm64" in out.stderr
    assert "build " not in calls and "update-binfmts" not in calls
