"""The image under Debian's Docker Engine (docker.io), started with the README's own `docker run`
line: lab 09's CephFS mount (FUSE) top to bottom as the learner, and the learner's work surviving
what a laptop does to a container: `docker kill` in the middle of a lab, `docker start` again,
`docker rm`, and a newer image on the same volume.

The engine is the test's own (docker_engine.py: its socket, its bridge, no firewall rule); the image
is the one tests/container built with podman, loaded with `podman save | docker load`.

    sudo .venv/bin/pytest tests/container/test_docker.py -o addopts="-ra" -s
"""
from __future__ import annotations

import json
import os
import re
import shlex
import time

import pytest

from cephlab.core.poll import poll_until
from tests.notebook_plugin import STUDENT_RAN_ELSEWHERE

from . import docker_engine
from .conftest import ARTIFACTS, ROOT, TAG
from .lab_http import answers, status_url

pytestmark = pytest.mark.skipif(bool(docker_engine.missing()), reason=docker_engine.missing() or "-")

LAB = "09-cephfs-metadata"
NAME = f"cephlab-docker-test-{os.getpid()}"
VOLUME = f"{NAME}-work"
NEWER = f"{TAG}-newer"
MARK = "# my own note, kept across containers"


def readme_docker_line() -> list[str]:
    """The README's `docker run` command, as argv (its continuation lines joined)."""
    text = (ROOT / "README.md").read_text().replace("\\\n", " ")
    line = next(ln for ln in text.splitlines() if ln.lstrip().startswith("docker run "))
    return shlex.split(line.split("#")[0])


def as_run_here(argv: list[str], image: str) -> list[str]:
    """The README's line with what a test must change: detached and named, the test's own volume,
    a free host port on loopback, and the image tag under test. Every other flag stays."""
    out, it = [], iter(argv[2:])
    for a in it:
        if a == "-p":
            host = next(it)
            assert host.startswith("127.0.0.1:") and host.endswith(":8888"), host
            out += ["-p", "127.0.0.1::8888"]
        elif a == "-v":
            vol = next(it)
            assert vol.endswith(":/home/learner/work"), vol
            out += ["-v", f"{VOLUME}:/home/learner/work"]
        elif a == "--rm":
            continue        # the test keeps the container to kill and start it again
        elif not a.startswith("-") and "ceph-storage-lab" in a:
            out.append(image)
        else:
            out.append(a)
    return ["run", "-d", "--name", NAME, "-e", "JUPYTER_TOKEN=cephlab-ci", *out]


@pytest.fixture(scope="module")
def engine(image):
    eng = docker_engine.Engine()
    try:
        eng.start()
        image["docker load s"] = eng.load_from_podman(TAG)
        yield eng
    finally:
        eng.stop()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "docker.json").write_text(json.dumps(image, indent=1))
        print("\n" + json.dumps(image, indent=1))
    assert not (docker_engine.Path("/sys/class/net") / docker_engine.BRIDGE).exists()


def _port(eng) -> str:
    return eng.docker("port", NAME, "8888").stdout.split()[0].rsplit(":", 1)[-1]


def _ready(eng, what: str) -> float:
    """Seconds until JupyterLab answers and the cluster is HEALTH_OK."""
    t0 = time.monotonic()
    url = status_url(_port(eng), "cephlab-ci")

    def up():
        return answers(url) and "HEALTH_OK" in eng.docker("exec", "-u", "learner", NAME, "cephlab", "status",
                                                          check=False, timeout=60).stdout
    poll_until(up, 300, f"JupyterLab and a healthy cluster ({what})", interval=0.5,
               hint=f"see: docker logs {NAME}")
    return round(time.monotonic() - t0, 1)


def _logs(eng) -> str:
    out = eng.docker("logs", NAME)
    return out.stdout + out.stderr


def _pools(eng) -> str:
    return eng.docker("exec", "-u", "learner", NAME, "bash", "-c", 'eval "$(cephlab env)"; ceph osd pool ls',
                      check=False, timeout=60).stdout


def test_the_readme_line_is_what_runs():
    argv = readme_docker_line()
    assert argv[:2] == ["docker", "run"]
    assert {"--device", "/dev/fuse", "--cap-add", "SYS_ADMIN"} <= set(argv)   # lab 09's FUSE mount


@pytest.fixture(scope="module")
def started(engine, image):
    """A container started with the README's line (as as_run_here changes it), ready."""
    engine.docker(*as_run_here(readme_docker_line(), TAG))
    image["docker: start to ready s"] = _ready(engine, "first start")
    return engine


def test_lab09_runs_in_docker_with_the_readme_line(started, image):
    engine = started
    engine.docker("cp", str(ROOT / "tests/setup/run_notebook.py"), f"{NAME}:/tmp/run_notebook.py")
    t0 = time.monotonic()
    out = engine.docker("exec", "-u", "learner", NAME, "python", "/tmp/run_notebook.py",
                        f"/home/learner/work/labs/{LAB}/{LAB}.ipynb", f"/tmp/{LAB}.executed.ipynb",
                        check=False, timeout=900)
    image["docker: lab 09 s"] = round(time.monotonic() - t0, 1)
    assert out.returncode == 0, out.stdout[:6000] + out.stderr[-2000:]
    STUDENT_RAN_ELSEWHERE[LAB] = "in the image under Docker (tests/container/test_docker.py)"


def test_work_survives_a_kill_mid_lab_a_restart_rm_and_a_newer_image(started, image):
    engine = started
    nb = f"/home/learner/work/labs/{LAB}/{LAB}.ipynb"
    engine.docker("exec", "-u", "learner", NAME, "bash", "-c", f"echo '{MARK}' >> {nb}")
    # a lab in the middle of its work (a pool being written), then the container killed
    engine.docker("exec", "-d", "-u", "learner", NAME, "bash", "-c", 'eval "$(cephlab env)"; '
                  "ceph osd pool create killed-mid-lab 8 && rados -p killed-mid-lab bench 60 write")
    poll_until(lambda: "killed-mid-lab" in _pools(engine), 120, "the mid-lab pool", interval=1)
    engine.docker("kill", NAME)
    engine.docker("start", NAME)
    image["docker: start after kill to ready s"] = _ready(engine, "after docker kill")
    logs = _logs(engine)
    assert "left by the last run of this container" in logs, logs[-3000:]
    assert "killed-mid-lab" not in _pools(engine)      # a new cluster, not the killed one's half-done lab
    # a newer image (a layer on top, as a course's next build would be), the same volume
    engine.docker("rm", "-f", NAME)
    engine.docker("build", "-t", NEWER, "-", input=f"FROM {TAG}\nLABEL cephlab.test=newer\n", timeout=300)
    assert engine.docker("image", "inspect", "-f", "{{.Id}}", NEWER).stdout != \
        engine.docker("image", "inspect", "-f", "{{.Id}}", TAG).stdout
    argv = as_run_here(readme_docker_line(), NEWER)
    engine.docker(*argv)
    _ready(engine, "a new container of the newer image")
    kept = engine.docker("exec", "-u", "learner", NAME, "tail", "-n", "1", nb).stdout
    assert kept.strip() == MARK
    engine.docker("stop", "-t", "60", NAME)
    logs = _logs(engine)
    assert "cluster lab: stopped" in logs, logs[-2000:]
    engine.docker("rm", NAME)
    engine.docker("volume", "rm", VOLUME)
    assert not re.search(NAME, engine.docker("ps", "-a").stdout)
