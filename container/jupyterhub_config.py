# A class on one server: JupyterHub 5 spawns one container of the lab's image per learner
# (DockerSpawner talking to podman's Docker-compatible API). Each learner gets:
#   - their own container, with their own mini cluster on the container's own 127.0.0.1 (the
#     image's start.sh runs `cephlab up` before jupyterhub-singleuser starts);
#   - their learner id from the hub user: the hub passes $JUPYTERHUB_USER, which
#     cephlab.course.params.learner_id reads (the numbers of the labs and the grading use it);
#   - their work on a volume of their own (<prefix>-work-<user>, kept across restarts);
#   - the shared course files read-only at /home/learner/course;
#   - their own folder of the instructor's collection at /home/learner/submit, which is
#     <collect>/submissions/<user> on the server: `cephlab grade <collect>/submissions
#     --learner-from-folder` grades what they put there.
# Nothing here is fixed to a machine: container/class-hub.sh (`up`/`down`) sets the CEPHLAB_HUB_*
# variables read below, starts the podman API service, the class's network and the hub.
# container/README.md and book/instructor-guide.md ("A class on one server") say how to run it.
import importlib.util
import os
from pathlib import Path

# container/seccomp.py, beside this file (the hub loads this file by path, not as a package)
_spec = importlib.util.spec_from_file_location("cephlab_seccomp", Path(__file__).with_name("seccomp.py"))
assert _spec is not None and _spec.loader is not None
_seccomp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_seccomp)

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (JupyterHub's config loader defines it)


def env(name: str, default: str = "") -> str:
    return os.environ.get(f"CEPHLAB_HUB_{name}", default)


STATE = Path(env("STATE", "/var/lib/cephlab-hub"))
PREFIX = env("PREFIX", "cephlab-hub")                  # container and volume names start with it
IMAGE = env("IMAGE", "localhost/ceph-storage-lab:latest")
COURSE = Path(env("COURSE", str(STATE / "course")))   # shared, read-only to learners
COLLECT = Path(env("COLLECT", str(STATE / "collect")))  # the instructor's: submissions/<learner>/
LEARNER_UID = 1000                                      # the image's user "learner"

# --- the hub: users reach it on the server's loopback only (put a TLS reverse proxy, e.g. nginx
# or caddy, in front of it for a real class); its API listens on the class network's gateway, the
# only address the learners' containers can reach it at.
c.JupyterHub.bind_url = f"http://127.0.0.1:{env('PORT', '8000')}"
c.JupyterHub.hub_ip = env("HUB_IP", "127.0.0.1")
c.JupyterHub.hub_port = int(env("HUB_API_PORT", "8081"))
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.command = [env("PROXY", "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{env('PROXY_API_PORT', '8001')}"
c.JupyterHub.cleanup_servers = True        # a stopped hub stops the learners' containers

# --- who logs in. The test uses DummyAuthenticator with one password (CEPHLAB_HUB_PASSWORD): it
# lets anyone with that password in under any name, so it is for a test on loopback only. A real
# class uses the school's login: OAuthenticator (GitHub, GitLab, Google, generic OIDC/Keycloak),
# LTIAuthenticator (from the LMS: Moodle, Canvas), or NativeAuthenticator (sign-up approved by the
# instructor), with c.Authenticator.allowed_users (or allow_all) and admin_users set.
if not env("PASSWORD"):
    # DummyAuthenticator without a password lets anyone in: never start it that way
    raise SystemExit("jupyterhub_config.py: no login configured: set CEPHLAB_HUB_PASSWORD for a try-out "
                     "on this machine, or put the school's authenticator here (see the comment above)")
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = env("PASSWORD")
c.Authenticator.allow_all = True
c.Authenticator.admin_users = set(filter(None, env("ADMINS").split(",")))
if env("ADMIN_TOKEN"):
    # a service with the admin role, for scripts (the test: create learners, start servers)
    c.JupyterHub.services = [{"name": "class-admin", "api_token": env("ADMIN_TOKEN")}]
    c.JupyterHub.load_roles = [{"name": "admin", "services": ["class-admin"]}]

# --- one container per learner, from the lab's image, through podman's Docker API
c.JupyterHub.spawner_class = "docker"
c.DockerSpawner.client_kwargs = {"base_url": env("DOCKER_HOST", "unix:///run/podman/podman.sock")}
c.DockerSpawner.image = IMAGE
c.DockerSpawner.pull_policy = "never"          # the instructor builds or pulls the image beforehand
c.DockerSpawner.name_template = f"{PREFIX}-{{username}}"
c.DockerSpawner.remove = True                  # a stopped server's container goes; its volume stays
# the image's entry point (tini, start.sh) starts the learner's cluster, then runs this as learner
c.DockerSpawner.cmd = ["jupyterhub-singleuser"]
c.DockerSpawner.notebook_dir = "/home/learner/work/labs"
c.DockerSpawner.default_url = "/lab"
c.DockerSpawner.environment = {"CEPHLAB_OSDS": env("OSDS", "4")}
# the class's own network (class-hub.sh: a podman bridge that a firewall rule closes to every
# other address); the hub and its proxy reach each container at its address on it
c.DockerSpawner.network_name = env("NETWORK", "cephlab-hub")
c.DockerSpawner.use_internal_ip = True
c.DockerSpawner.volumes = {
    f"{PREFIX}-work-{{username}}": "/home/learner/work",
    str(COLLECT / "submissions" / "{username}"): "/home/learner/submit",
}
c.DockerSpawner.read_only_volumes = {str(COURSE): "/home/learner/course"}
# limits, from what tests/container/test_hub.py measured per learner (book/instructor-guide.md,
# "A class on one server"): the cluster, the server and lab 01's kernel peaked at 0.74-0.87 GB
# (page cache included) and used ~0.3 of a core over the lab; 3 GiB leaves room for a second kernel
# and the later labs' larger data, 2 CPUs for a measurement's bursts. The sizing table budgets
# 2 GiB and half a core per learner: the limits are ceilings, not reservations.
c.DockerSpawner.mem_limit = env("MEM_LIMIT", "3G")
c.DockerSpawner.cpu_limit = float(env("CPU_LIMIT", "2"))
c.DockerSpawner.extra_host_config = {
    # podman's defaults (1048576 open files) are above many hosts' hard limits: the container
    # would not start (the same values as `podman run --ulimit nofile=20000:20000 ...`)
    "ulimits": [{"Name": "nofile", "Soft": 20000, "Hard": 20000},
                {"Name": "nproc", "Soft": 32768, "Hard": 32768}],
    # lab 09's ceph-fuse: the FUSE device and the capability to mount inside the container
    "devices": ["/dev/fuse:/dev/fuse:rwm"],
    "cap_add": ["SYS_ADMIN"],
    "pids_limit": 4096,
    # podman's seccomp profile with io_pgetevents allowed, which Debian 13's libaio needs for
    # BlueStore (container/seccomp.py); podman's Docker API takes a path on its host (its
    # `containers/create` opens the file), which is this machine
    "security_opt": [f"seccomp={_seccomp.write(STATE / 'seccomp.json')}"],
}
# cephlab up and JupyterLab together take 10-60 s (many learners starting at once: longer)
c.Spawner.start_timeout = 600
c.Spawner.http_timeout = 300
# idle servers are not culled here (a class's session is short); add jupyterhub-idle-culler as a
# service for a server that stays up between sessions


def make_learner_folder(spawner) -> None:
    """The learner's collection folder exists before the container starts, owned by the image's
    learner (uid 1000) and closed to other users of the server."""
    folder = COLLECT / "submissions" / spawner.user.name
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(folder, LEARNER_UID, LEARNER_UID)
    folder.chmod(0o700)
    (COLLECT / "submissions").chmod(0o755)


c.Spawner.pre_spawn_hook = make_learner_folder
