"""A class on one server (issue 26, item 3): the real JupyterHub 5 (container/jupyterhub_config.py,
started by container/class-hub.sh) spawns one container of the lab's image per learner through
podman's Docker API. Four learners are created and log in through the hub's REST API, their
servers start at the same time, each runs lab 01 (the student version in the image) top to bottom
in its own container at the same time; memory and CPU per learner go to
test-artifacts/container/hub.json (the sizing table of book/instructor-guide.md comes from them).
Learner B can reach neither learner A's daemons nor A's keyring, and a machine next to the server
cannot reach the learners' containers. Everything (hub, proxy, containers, volumes, the podman
service, the network and its firewall rules) goes at the end, also after a failure.

    .venv/bin/python -m pytest -o addopts="-ra" -p no:cacheprovider tests/container/test_hub.py
    (CEPHLAB_TEST_IMAGE=<tag> uses an image already built instead of building it)
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import socket
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jupyterhub
import pytest

from cephlab.core import run
from cephlab.core.poll import poll_until

from .conftest import ARTIFACTS, ROOT, TAG
from .conftest import podman as shared_podman

PREFIX = f"hubtest-{os.getpid()}"
LEARNERS = ("ada", "bob", "cyd", "dee")
LAB = "01-redundancy"
HUB_SH = ROOT / "container" / "class-hub.sh"
PROXY = ROOT / ".venv" / "hub-proxy" / "node_modules" / ".bin" / "configurable-http-proxy"
KEYRING = "/home/learner/.local/state/cephlab/lab/keyring"
CEPH_CONF = "/home/learner/.local/state/cephlab/lab/ceph.conf"
JUPYTER_PORT = 8888          # jupyterhub-singleuser's port in each container (DockerSpawner's)


def _skip_reason() -> str:
    if os.geteuid() != 0:
        return "the class hub runs rootful podman and sets firewall rules: run it as root"
    for program, package in (("podman", "podman"), ("iptables", "iptables"), ("ip", "iproute2")):
        if shutil.which(program) is None:
            return f"{program} is missing: apt-get install {package} (make test installs it)"
    if not PROXY.exists():
        return "configurable-http-proxy is missing: bash cephlab/bootstrap.sh setup --test"
    return ""


pytestmark = pytest.mark.skipif(bool(_skip_reason()), reason=_skip_reason() or "-")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _subnet() -> str:
    used = run.run(["podman", "network", "ls", "--format", "{{.Subnets}}"], check=False).stdout
    for third in range(150 + os.getpid() % 50, 250):
        if f"10.89.{third}." not in used:
            return f"10.89.{third}.0/24"
    raise AssertionError(f"no free 10.89.x.0/24 subnet: {used}")


def podman(*args: str, timeout: float = 120, check: bool = False) -> run.CommandResult:
    """conftest's podman, not raising unless asked: the hub's checks read failures themselves."""
    return shared_podman(*args, timeout=timeout, check=check)


class Hub:
    def __init__(self, state: Path, port: int, admin_token: str, password: str):
        self.state, self.port, self.admin_token, self.password = state, port, admin_token, password
        self.tokens: dict[str, str] = {}
        self.figures: dict = {}

    def api(self, method: str, path: str, token: str | None = None, body: object = None):
        """(status, JSON answer) of the hub's REST API at /hub/api/<path>."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/hub/api/{path}", method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        if token:
            request.add_header("Authorization", f"token {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                text = answer.read().decode()
                return answer.status, json.loads(text) if text else None
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()[:500]
        except OSError as e:         # not answering (yet)
            return 0, str(e)

    def get(self, url_path: str, token: str) -> int:
        """The status of GET http://127.0.0.1:<port><url_path> through the hub's proxy."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{url_path}",
                                         headers={"Authorization": f"token {token}"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status
        except urllib.error.HTTPError as e:
            return e.code
        except OSError:
            return 0

    def log(self) -> str:
        return (self.state / "jupyterhub.log").read_text(errors="replace")[-3000:]


def container(user: str) -> str:
    return f"{PREFIX}-{user}"


def in_container(user: str, *cmd: str, timeout: float = 120, as_user: str = "learner") -> run.CommandResult:
    return podman("exec", "-u", as_user, container(user), *cmd, timeout=timeout)


def _cgroup_file(pid: str, controller: str, v1: str, v2: str) -> Path:
    """The container's own cgroup file: v1 <controller>/<path>/<v1>, v2 <path>/<v2>."""
    lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return Path("/sys/fs/cgroup", controller, path.lstrip("/"), v1)
    return Path("/sys/fs/cgroup", lines[0].split(":", 2)[2].lstrip("/"), v2)


def usage(user: str) -> dict:
    """Memory peak (MB, page cache included: the cgroup's high-water mark), resident memory now (MB)
    and CPU seconds since the container started, from the container's cgroup."""
    pid = podman("inspect", "--format", "{{.State.Pid}}", container(user), check=True).stdout.strip()
    peak = _cgroup_file(pid, "memory", "memory.max_usage_in_bytes", "memory.peak")
    stat = dict(line.split() for line in _cgroup_file(pid, "memory", "memory.stat", "memory.stat")
                .read_text().splitlines())
    rss = int(stat.get("total_rss", stat.get("anon", 0)))
    cpu_file = _cgroup_file(pid, "cpuacct", "cpuacct.usage", "cpu.stat")
    cpu_text = cpu_file.read_text()
    cpu_s = (int(cpu_text) / 1e9 if cpu_file.name == "cpuacct.usage"
             else int(dict(line.split() for line in cpu_text.splitlines())["usage_usec"]) / 1e6)
    return {"memory peak MB": round(int(peak.read_text()) / 1e6), "memory rss MB": round(rss / 1e6),
            "CPU s": round(cpu_s, 1)}


def _alive(pid: int) -> bool:
    """The process runs (a zombie waiting for a PID 1 that does not reap it counts as ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.fixture(scope="module")
def hub(image, tmp_path_factory):
    """The class hub up (class-hub.sh up) and answering; down again afterwards, whatever happened."""
    state = tmp_path_factory.mktemp("hub")
    course, collect = state / "course", state / "collect"
    course.mkdir()
    (course / "README.md").write_text("The course's shared files: read-only for learners.\n")
    h = Hub(state, _free_port(), secrets.token_hex(16), secrets.token_hex(8))
    environment = {
        **os.environ, "CEPHLAB_HUB_STATE": str(state), "CEPHLAB_HUB_PREFIX": PREFIX,
        "CEPHLAB_HUB_SUBNET": _subnet(), "CEPHLAB_HUB_IMAGE": TAG, "CEPHLAB_HUB_PORT": str(h.port),
        "CEPHLAB_HUB_HUB_API_PORT": str(_free_port()), "CEPHLAB_HUB_PROXY_API_PORT": str(_free_port()),
        "CEPHLAB_HUB_COURSE": str(course), "CEPHLAB_HUB_COLLECT": str(collect),
        "CEPHLAB_HUB_ADMIN_TOKEN": h.admin_token, "CEPHLAB_HUB_PASSWORD": h.password,
    }
    h.figures = {"learners": len(LEARNERS), "cores": os.cpu_count(), "image": TAG}
    t0 = time.monotonic()
    pids: dict[str, int] = {}
    try:
        run.run(["bash", str(HUB_SH), "up"], env=environment, timeout=180, what="class-hub.sh up")
        poll_until(lambda: h.api("GET", "")[0] == 200, 120, "the hub answering on 127.0.0.1",
                   interval=0.5, describe=h.log)
        h.figures["hub start s"] = round(time.monotonic() - t0, 1)
        pids = {f: int((state / f).read_text()) for f in ("hub.pid", "proxy.pid", "podman-service.pid")}
        yield h
    finally:
        t0 = time.monotonic()
        down = run.run(["bash", str(HUB_SH), "down", "--volumes"], env=environment, timeout=300,
                       check=False)
        h.figures["hub down s"] = round(time.monotonic() - t0, 1)
        left = {
            "containers": podman("ps", "-a", "--filter", f"name={PREFIX}", "--format", "{{.Names}}").stdout,
            "volumes": podman("volume", "ls", "--filter", f"name={PREFIX}", "--format", "{{.Name}}").stdout,
            "networks": podman("network", "ls", "--filter", f"name={PREFIX}", "--format", "{{.Name}}").stdout,
            "firewall": "".join(line for line in run.run(["iptables", "-S"]).stdout.splitlines(True)
                                if f"cephlab-hub:{PREFIX}" in line),
            "processes": " ".join(f"{f}: {pid}" for f, pid in pids.items() if _alive(pid)),
        }
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "hub.json").write_text(json.dumps(h.figures, indent=1))
        print("\n" + json.dumps(h.figures, indent=1))
        assert down.returncode == 0, down.stdout + down.stderr
        assert not any(v.strip() for v in left.values()), left


@pytest.fixture(scope="module")
def servers(hub):
    """The four learners, created by the admin's token, logged in with their password (a token of
    their own), their servers started at once; {learner: token}."""
    status, answer = hub.api("POST", "users", hub.admin_token, {"usernames": list(LEARNERS)})
    assert status == 201, answer
    for user in LEARNERS:
        status, answer = hub.api("POST", f"users/{user}/tokens", None,
                                 {"auth": {"username": user, "password": hub.password}, "expires_in": 3600})
        assert status == 201, answer
        hub.tokens[user] = answer["token"]
    assert hub.api("POST", f"users/{LEARNERS[0]}/tokens", None,
                   {"auth": {"username": LEARNERS[0], "password": "wrong"}})[0] == 403
    t0 = time.monotonic()
    # all at once (the hub answers a start after up to 10 s: its slow_spawn_timeout)
    with ThreadPoolExecutor(len(LEARNERS)) as pool:
        started = list(pool.map(lambda u: hub.api("POST", f"users/{u}/server", hub.tokens[u]), LEARNERS))
    assert all(status in (201, 202) for status, _ in started), started

    def ready():
        states = {u: hub.api("GET", f"users/{u}", hub.admin_token)[1] for u in LEARNERS}
        for u, s in states.items():
            if "" not in s["servers"] and s.get("pending") is None:     # the spawn failed: say why
                raise AssertionError(f"{u}'s server did not start: {hub.log()}")
        return all(s["servers"][""].get("ready") for s in states.values())
    poll_until(ready, 300, "4 learners' servers ready", interval=2, describe=hub.log)
    hub.figures["4 servers start s"] = round(time.monotonic() - t0, 1)
    return hub.tokens


def test_each_learner_has_a_container_a_cluster_and_the_hub_user_as_learner_id(hub, servers):
    # the hub and the image's jupyterhub-singleuser: the same major version (pyproject, Containerfile)
    singleuser = in_container(LEARNERS[0], "jupyterhub-singleuser", "--version").stdout.strip()
    assert singleuser.split(".")[0] == jupyterhub.__version__.split(".")[0], (singleuser, jupyterhub.__version__)
    for user in LEARNERS:
        status = in_container(user, "cephlab", "status")
        assert status.returncode == 0 and "HEALTH_OK" in status.stdout, (user, status.stdout + status.stderr)
        learner = in_container(user, "python", "-c",
                               "from cephlab.course.params import learner_id; print(learner_id())")
        assert learner.stdout.strip() == user, (user, learner.stdout + learner.stderr)
        course = in_container(user, "bash", "-c", "cat /home/learner/course/README.md && "
                              "! touch /home/learner/course/x 2>/dev/null && echo read-only")
        assert course.stdout.strip().endswith("read-only"), (user, course.stdout + course.stderr)
        # the learner reaches their server through the hub's proxy; another learner does not
        other = LEARNERS[(LEARNERS.index(user) + 1) % len(LEARNERS)]
        assert hub.get(f"/user/{user}/api/status", servers[user]) == 200
        assert hub.get(f"/user/{user}/api/status", servers[other]) in (302, 403)


def test_four_learners_run_lab_01_at_once(hub, servers):
    """Each learner's container runs the student lab 01 top to bottom (nbclient, as the labs' own
    notebook tests), all four at the same time; then hands it in to the instructor's folder."""
    for user in LEARNERS:
        podman("cp", str(ROOT / "tests/setup/run_notebook.py"), f"{container(user)}:/tmp/run_notebook.py",
               check=True)
    before = {user: usage(user) for user in LEARNERS}
    notebook = f"/home/learner/work/labs/{LAB}/{LAB}.ipynb"

    def lab(user):
        t0 = time.monotonic()
        out = in_container(user, "python", "/tmp/run_notebook.py", notebook, f"/tmp/{LAB}.executed.ipynb",
                           timeout=600)
        return out, round(time.monotonic() - t0, 1)
    t0 = time.monotonic()
    with ThreadPoolExecutor(len(LEARNERS)) as pool:
        results = dict(zip(LEARNERS, pool.map(lab, LEARNERS)))
    hub.figures["lab 01, 4 at once, wall s"] = round(time.monotonic() - t0, 1)
    per_learner = {}
    for user, (_, seconds) in results.items():
        after = usage(user)
        per_learner[user] = {"lab 01 wall s": seconds, **after,
                             "CPU s during lab 01": round(after["CPU s"] - before[user]["CPU s"], 1),
                             "CPU s before lab 01 (cluster + server start)": before[user]["CPU s"]}
    hub.figures["per learner"] = per_learner
    hub.figures["max memory peak MB"] = max(p["memory peak MB"] for p in per_learner.values())
    hub.figures["max CPU s"] = max(p["CPU s"] for p in per_learner.values())
    for user, (out, _) in results.items():
        assert out.returncode == 0, (user, out.stdout[:6000] + out.stderr[-2000:])
    # handed in: the instructor's collection folder, laid out for cephlab grade --learner-from-folder
    for user in LEARNERS:
        copy = in_container(user, "cp", f"/tmp/{LAB}.executed.ipynb", f"/home/learner/submit/{LAB}.ipynb")
        assert copy.returncode == 0, copy.stderr
    submissions = hub.state / "collect" / "submissions"
    assert sorted(p.parent.name for p in submissions.glob(f"*/{LAB}.ipynb")) == sorted(LEARNERS)
    assert {oct(p.stat().st_mode & 0o777) for p in submissions.iterdir()} == {"0o700"}


def test_the_instructor_grades_the_collection_folder(hub, servers):
    """What the learners handed in (test above) is graded by learner, named by the hub's user."""
    submissions = hub.state / "collect" / "submissions"
    if sorted(p.parent.name for p in submissions.glob(f"*/{LAB}.ipynb")) != sorted(LEARNERS):
        pytest.skip("lab 01 was not handed in by every learner (see the test above)")
    t0 = time.monotonic()
    grades = hub.state / "grades"
    graded = run.run([ROOT / ".venv/bin/cephlab", "grade", submissions, "--learner-from-folder", "-j", "2",
                      "--out", grades], timeout=600, check=False)
    hub.figures["grading 4 submissions s"] = round(time.monotonic() - t0, 1)
    assert graded.returncode == 0, graded.stdout[-3000:] + graded.stderr[-3000:]
    rows = (grades / "gradebook.csv").read_text().splitlines()
    assert sorted(row.split(",")[0] for row in rows[1:]) == sorted(LEARNERS), rows


def _listening(user: str) -> list[int]:
    """The TCP ports a learner's container listens on (the image has no ss: /proc/net/tcp)."""
    listen = in_container(user, "awk", '$4 == "0A" {print $2}', "/proc/net/tcp", "/proc/net/tcp6")
    return sorted({int(a.rsplit(":", 1)[1], 16) for a in listen.stdout.split()})


def _ip(user: str) -> str:
    return podman("inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}",
                  container(user), check=True).stdout.strip()


CONNECT = """import socket, sys
host = sys.argv[1]
for port in map(int, sys.argv[2:]):
    try:
        socket.create_connection((host, port), timeout=3).close()
        print(port, "open")
    except OSError as e:
        print(port, type(e).__name__)
"""


def test_learner_b_cannot_reach_a_s_cluster_nor_read_a_s_keyring(hub, servers):
    a, b = LEARNERS[0], LEARNERS[1]
    ports = _listening(a)
    mon = in_container(a, "grep", "-E", r"^\s*mon[ _]host", CEPH_CONF)
    mon_ports = {int(p) for p in re.findall(r"\d+\.\d+\.\d+\.\d+:(\d+)", mon.stdout)}
    assert mon_ports and mon_ports <= set(ports), (mon.stdout, ports)
    # in A, A's daemons answer on A's loopback (the control) ...
    own = in_container(a, "python", "-c", CONNECT, "127.0.0.1", *map(str, sorted(mon_ports)))
    assert all(line.endswith("open") for line in own.stdout.splitlines()), own.stdout + own.stderr
    # ... from B, at A's address, only A's Jupyter server answers (behind the hub's login): every
    # daemon of A's cluster, the mon first, refuses B
    tried = in_container(b, "python", "-c", CONNECT, _ip(a), *map(str, ports))
    answers = dict(line.split() for line in tried.stdout.splitlines())
    assert answers.pop(str(JUPYTER_PORT)) == "open", tried.stdout + tried.stderr
    assert answers and set(answers.values()) == {"ConnectionRefusedError"}, tried.stdout + tried.stderr
    hub.figures["B to A: ports refused"] = len(answers)
    # A's key exists nowhere B can read: not in B's keyring, files, mounts or the course files
    a_key = in_container(a, "awk", "$1 == \"key\" {print $3}", KEYRING).stdout.split()
    b_key = in_container(b, "awk", "$1 == \"key\" {print $3}", KEYRING).stdout.split()
    assert a_key and b_key and not set(a_key) & set(b_key), (a_key, b_key)
    search = in_container(b, "bash", "-c", f"grep -rlsF -- '{a_key[0]}' /home /tmp /opt/ceph-storage-lab/labs "
                          "/etc /var /run; echo searched", timeout=180)
    assert search.stdout.strip() == "searched", search.stdout
    for as_user in ("learner", "root"):      # and not as root in B's container either
        search = in_container(b, "bash", "-c", f"grep -rlsF -- '{a_key[0]}' /home /tmp /srv /mnt; echo searched",
                              as_user=as_user)
        assert search.stdout.strip() == "searched", search.stdout


def test_a_machine_next_to_the_server_cannot_reach_the_learners(hub, servers):
    """A network namespace routed through this host stands for a neighbour on the server's LAN:
    the firewall rule of class-hub.sh drops its connections to the containers; the host's own
    proxy still reaches them (the control)."""
    ns, veth = f"{PREFIX}-lan"[:15], f"ht{os.getpid() % 100000}"
    target = _ip(LEARNERS[0])
    subnet = target.rsplit(".", 1)[0] + ".0/24"
    ip = ["ip"]
    try:
        for cmd in (["netns", "add", ns],
                    ["link", "add", veth, "type", "veth", "peer", "name", f"{veth}p"],
                    ["link", "set", f"{veth}p", "netns", ns],
                    ["addr", "add", "192.168.251.1/30", "dev", veth], ["link", "set", veth, "up"],
                    ["-n", ns, "addr", "add", "192.168.251.2/30", "dev", f"{veth}p"],
                    ["-n", ns, "link", "set", f"{veth}p", "up"], ["-n", ns, "link", "set", "lo", "up"],
                    ["-n", ns, "route", "add", subnet, "via", "192.168.251.1"]):
            run.run([*ip, *cmd], what=f"ip {' '.join(cmd)}")
        def neighbour() -> str:
            return run.run([*ip, "netns", "exec", ns, ROOT / ".venv/bin/python", "-c", CONNECT,
                            target, str(JUPYTER_PORT)], timeout=60).stdout.split()[1]
        assert neighbour() in ("TimeoutError", "timeout")
        from_host = run.run([ROOT / ".venv/bin/python", "-c", CONNECT, target, str(JUPYTER_PORT)])
        assert from_host.stdout.split()[1] == "open", from_host.stdout
        # the control: without class-hub.sh's FORWARD rule the neighbour gets in (the rule is
        # what keeps it out, not the route); the rule is put back at once
        rule = next(line for line in run.run(["iptables", "-S", "FORWARD"]).stdout.splitlines()
                    if f'"cephlab-hub:{PREFIX}"' in line)
        spec = shlex.split(rule)[1:]
        run.run(["iptables", "-D", *spec])
        try:
            assert neighbour() == "open"
        finally:
            run.run(["iptables", "-I", *spec])
    finally:
        run.run([*ip, "link", "del", veth], check=False)
        run.run([*ip, "netns", "del", ns], check=False)
