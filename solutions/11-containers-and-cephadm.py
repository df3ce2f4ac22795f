# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lab 11 — Ceph in containers: cephadm, hosts and a node that goes away
#
# **Objectives.** After this lab you can
# - say how a containerised Ceph daemon keeps its state although its container is ephemeral:
#   the thesis's one `docker run` per daemon next to cephadm's `podman run --rm` under systemd,
#   and the host folder that survives both;
# - predict, for a pool of `size` copies, how many PGs lose one shard, two or more, or all of
#   them when a whole host stops, with failure domain *host* and with failure domain *osd*;
# - make that prediction from the hypergeometric model, and exactly from the CRUSH map;
# - tell from `min_size` which of those PGs keep serving I/O, and whether Ceph can heal while
#   the host stays away;
# - on the multi-node cluster: list the daemons with `ceph orch ps`, redeploy one, benchmark
#   across real hosts, halt a node and check the PG states and every checksum against the model.
#
# **Prerequisites:** lab 00 (stateless and stateful containers, the daemons), lab 01 (`size` and
# `min_size`) and lab 02 (CRUSH rules, failure domains and the balancer). New words are in the
# [glossary](../glossary.md).
#
# **You need:** nothing for the model part (it runs anywhere, in seconds). The cluster part runs
# only on a cephadm cluster of 3 hosts x 2 OSDs (`vagrant/settings.yml`). Start it as container
# hosts with `sudo .venv/bin/cephlab up --backend cephadm` (root and podman, no virtualization),
# or as VMs with `.venv/bin/cephlab up --backend vagrant` (KVM or VirtualBox). Then start JupyterLab
# with `CEPHLAB_BACKEND=cephadm` (or `vagrant`) in its environment, for example
# `sudo CEPHLAB_BACKEND=cephadm .venv/bin/jupyter lab labs/`. The cluster part takes a few minutes
# there (a host stops and comes back). Without such a cluster, every cluster cell says it is skipped.

# %% [raw]
# # ASSIGNMENT CONFIG
# init_cell: true
# check_all_cell: false
# export_cell: false
# run_tests: false
# generate: true
# tests:
#   files: true

# %% tags=["nbval-ignore-output"]
# Your learner id, once: leave "" on the course hub (it knows you), else type the id your instructor gave you.
from cephlab.course import params
LEARNER = params.learner_id("")
print(f"learner {LEARNER}: the exercises use this learner's numbers")

# %%
import numpy as np
import pandas as pd
import ipywidgets as W

from models import containers as ct
from models import failure_domain as fd
from models.redundancy import replicated, serves_io
from cephlab.display.widgets import LivePlot
from cephlab.helpers.compare import Comparison
from cephlab.display import plots

pd.set_option("display.precision", 3)

# %% [markdown]
# ## Background
#
# **Daemons in containers.** J. Neudecker's thesis (seed 002, *Running a CEPH-Cluster from a
# containerized infrastructure*, HAW Hamburg 2021) asks whether a Ceph cluster can run with every
# daemon in a container. His answer was built by hand: one `docker run -d` of the `ceph/daemon`
# image per monitor, manager, OSD and MDS, all on one x86 Docker host, every container mounting
# the same two host folders (`/docker/ceph/data/etc` and `/docker/ceph/data/lib`). The disks sat
# in three other machines and reached the Docker host over iSCSI. He found set-up easy once it
# worked, performance poor on his hardware, and recovery from failed OSDs unaffected by the
# containers.
#
# **Ephemeral vs persistent.** A container is disposable: remove it and what it wrote inside is
# gone. That suits a stateless web front end. A database, or a Ceph daemon, needs its state
# somewhere that outlives the container (seed 000, NAVER, *Persistent storage for Docker
# containers with Ceph*, OpenStack Days 2017: "stateless vs stateful", "ephemeral vs persistent
# storage"). Both designs therefore mount host folders into the container. cephadm, Ceph's
# orchestrator since Octopus (the tool that deploys and manages its daemons), goes one step
# further. Each daemon is a systemd unit `ceph-<fsid>@<type>.<id>` (the fsid is the cluster's id)
# whose start command is `podman run --rm`. So the container is *deleted on every stop* and made
# afresh on every start, while the daemon's folder `/var/lib/ceph/<fsid>/<type>.<id>` stays on the
# host (Ceph v16.2.15 `src/cephadm/cephadm`;
# docs: *cephadm — Deploying a new Ceph cluster*, Pacific). `ceph orch ps` lists the containers,
# `ceph orch daemon redeploy` replaces one.
#
# **Hosts and failure domains.** A host holds several OSDs; when it stops (power, kernel, a
# reboot) they all go at once. A CRUSH rule `chooseleaf firstn 0 type host` puts the copies of a
# PG on different hosts, so a stopped host takes at most one copy of each PG. `choose firstn 0
# type osd` only keeps them on different OSDs. So some PGs lose two copies and fall below
# `min_size` (2 for size 3): they stop serving I/O until the host is back (seed 002 shows such a
# line: `5 undersized+degraded+peered`). The thesis's single Docker host was, whatever the disks,
# a failure domain of one.

# %% [markdown]
# ## The model
#
# ### Where a daemon's state lives
# `models.containers` spells out the names cephadm (Pacific) gives one daemon, next to the
# thesis's hand-made container. The fsid is an example.

# %%
FSID = "5f0c1a2e-7b3d-11ee-8c4a-525400c0ffee"
pd.DataFrame({"thesis (docker run)": ct.thesis_layout("osd.3"),
              "cephadm (podman under systemd)": ct.cephadm_layout(FSID, "osd.3")})

# %% [markdown]
# ### One host stops
# Take a cluster of 4 hosts with 2 OSDs each (one host more than the lab's cephadm cluster; Q2
# gives you another shape). A size-3 pool with `min_size` 2: the table gives the share
# of PGs that lose 0, 1, 2 or 3 shards when one host stops. It gives them from the hypergeometric
# model (each PG's shards drawn at random, without repeats, among OSDs of equal weight) and from
# CRUSH itself on the same map (1024 PGs of pool 1, host `ceph4`). Then it gives the share that
# stops serving I/O, and whether Ceph can rebuild the missing shards while the host stays down. `host_failure_table(hosts, per_host)` draws it for any shape.

# %%
HOSTS, PER_HOST, SIZE, MIN_SIZE, PG_NUM = 4, 2, 3, 2, 1024


def host_failure_table(hosts=HOSTS, per_host=PER_HOST, size=SIZE, min_size=MIN_SIZE, pg_num=PG_NUM):
    cmap = fd.hosts_map(hosts, per_host)
    failed = fd.host_osds(cmap, f"ceph{hosts}")
    rows = []
    for domain, rule in (("host", "by_host"), ("osd", "by_osd")):
        p = fd.shard_loss_distribution(hosts, per_host, size, domain)
        crush = fd.loss_counts(fd.crush_shards_on(cmap, rule, failed, size, pg_num), size) / pg_num
        for source, dist in (("model", p), ("CRUSH", crush)):
            left = size - np.arange(size + 1)
            rows.append({"domain": domain, "source": source,
                         **{f"lose {j}": dist[j] for j in range(size + 1)},
                         "blocked (< min_size)": dist[left < min_size].sum(),
                         "heals without the host": bool(fd.recovers_without_host(hosts, per_host, size, domain))})
    return pd.DataFrame(rows).set_index(["domain", "source"])


host_failure_table()

# %% [markdown]
# With domain *host* a PG holds at most one shard on any host, so no PG loses more than one. The
# ones with a shard there turn `active+undersized+degraded` and keep serving I/O. They heal only
# if enough hosts are left to take the missing copy. With domain *osd* CRUSH may put two shards of
# a PG on the same host: those PGs lose two and block until the host returns. The rest could be
# rebuilt on the other hosts' OSDs once the stopped OSDs are marked out. That happens after
# `mon_osd_down_out_interval`, 600 s; a whole host is still marked out, since
# `mon_osd_down_out_subtree_limit` spares only a whole rack or larger.

# %% [markdown]
# ### More hosts, more OSDs per host
# Move the sliders: the share of PGs that block when one host stops, for both domains, as the
# cluster grows. More hosts dilute the risk of domain *osd*; only domain *host* removes it. The
# readout gives a 4-host and a 10-host cluster.

# %% tags=["nbval-ignore-output"]
HOST_COUNTS = np.arange(2, 25)


def blocked_curve(x, per_host, size, min_size, domain):
    """blocked_fraction where CRUSH can place the pool at all (NaN elsewhere)."""
    units = x if domain == "host" else x * per_host
    y = np.full(len(x), np.nan)
    ok = units >= size
    if ok.any():
        y[ok] = fd.blocked_fraction(x[ok], per_host, size, min(min_size, size), domain)
    return y


def unavailable_curve(x, per_host, size, min_size):
    y = np.full(len(x), np.nan)
    ok = x * per_host >= size
    if ok.any():
        y[ok] = fd.unavailable_fraction(x[ok], per_host, size, "osd")
    return y


def blocked_readout(per_host, size, min_size):
    def pct(hosts, domain):
        v = blocked_curve(np.array([hosts]), per_host, size, min_size, domain)[0]
        return "n/a" if np.isnan(v) else f"{v:.1%}"
    return (f"size {size}, min_size {min(min_size, size)}, {per_host} OSDs per host — blocked PGs: "
            f"4 hosts: osd {pct(4, 'osd')}, host {pct(4, 'host')}; "
            f"10 hosts: osd {pct(10, 'osd')}, host {pct(10, 'host')}")


blocked_plot = LivePlot(
    x=HOST_COUNTS, xlabel="hosts", ylabel="share of PGs", ylim=(0, 1),
    curves={"blocked, domain osd": lambda x, per_host, size, min_size: blocked_curve(x, per_host, size, min_size, "osd"),
            "blocked, domain host": lambda x, per_host, size, min_size: blocked_curve(x, per_host, size, min_size, "host"),
            "every shard lost, domain osd": unavailable_curve},
    controls={"per_host": W.IntSlider(value=2, min=1, max=12, description="OSDs/host"),
              "size": W.IntSlider(value=3, min=2, max=6, description="size"),
              "min_size": W.IntSlider(value=2, min=1, max=6, description="min_size")},
    readout=blocked_readout)
blocked_plot

# %% [markdown]
# **W1. How does a containerised Ceph daemon keep its state though its container is ephemeral?**
# Answer in two or three sentences, naming where the state lives (graded by hand).
#
# *Your answer:*

# %% [markdown]
# ## Exercises
# Answer with `ct.cephadm_layout`, `fd.shard_loss_distribution`, `fd.blocked_fraction`,
# `fd.unavailable_fraction` and `fd.recovers_without_host`, then run the check cell. The numbers
# in Q1-Q4 are your own (drawn for your learner id, in `P`): a neighbour's answers are wrong for
# your notebook.

# %% tags=["nbval-ignore-output"]
P = params.lab_params("11-containers-and-cephadm")

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
Q1_FSID = f"5f0c1a2e-7b3d-11ee-8c4a-525400{P['q1_node']:06x}"     # your cluster's fsid
params.show("""**Q1.** cephadm redeploys `osd.{q1_osd}` of a cluster whose fsid is `{q1_fsid}` (in `Q1_FSID`): its
old container is deleted and a new one started. Which folder *on the host* holds what the new container
needs to be the same OSD again? Store the path (a string) in `q1_data_dir`, and the name of the new
container in `q1_container`.""", {**P, "q1_fsid": Q1_FSID})

# %% [raw]
# # BEGIN SOLUTION

# %%
q1_data_dir = ct.cephadm_layout(Q1_FSID, f"osd.{P['q1_osd']}")["host data dir"]  # SOLUTION
q1_container = ct.cephadm_layout(Q1_FSID, f"osd.{P['q1_osd']}")["container"]  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(q1_data_dir, str) and isinstance(q1_container, str), "q1_data_dir and q1_container should be strings"
assert q1_data_dir.startswith("/var/lib/ceph/"), "cephadm keeps daemon state under /var/lib/ceph on the host, not inside the container"
assert not q1_data_dir.startswith("/var/lib/ceph/osd/"), \
    "/var/lib/ceph/osd/ceph-<id> is where the OSD's folder appears inside the container: on the host, cephadm keeps it in a folder named after the cluster's fsid"
assert q1_container.startswith("ceph-") and "." not in q1_container and "@" not in q1_container, \
    "That is not the container's name (the systemd unit's has an @ and a dot): take it from ct.cephadm_layout"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("11-containers-and-cephadm")
_fsid = f"5f0c1a2e-7b3d-11ee-8c4a-525400{_p['q1_node']:06x}"
assert q1_data_dir == f"/var/lib/ceph/{_fsid}/osd.{_p['q1_osd']}", \
    "The host folder is /var/lib/ceph/<fsid>/<type>.<id>, with your fsid and OSD; /var/lib/ceph/osd/ceph-<id> is where it appears inside the container"
assert q1_container == f"ceph-{_fsid}-osd-{_p['q1_osd']}", "The container is ceph-<fsid>-<type>-<id>: the daemon's name with its dot made a dash"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q2.** On a cluster of {q2_hosts} hosts x {q2_per_host} OSDs, a size-{q2_size} pool with `min_size` 2
(Ceph's default) uses a rule with failure domain *osd*. One host stops. What share of its PGs stops
serving I/O? Store it in `q2_blocked` as a fraction between 0 and 1 (a float).""", P)

# %% [raw]
# # BEGIN SOLUTION

# %%
q2_blocked = fd.blocked_fraction(P["q2_hosts"], P["q2_per_host"], P["q2_size"], 2, "osd")  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(q2_blocked, float), "q2_blocked should be a fraction such as 0.5"
assert 0 < q2_blocked < 1, "A fraction of the PGs (not a percentage): a PG blocks when the stopped host held enough of its shards that size - lost < min_size"
assert q2_blocked < 0.9 / P["q2_hosts"], \
    "Not the stopped host's share of the PGs: a PG with one shard there keeps the others, enough for min_size, and goes on serving; only PGs left with fewer than min_size stop"
assert P["q2_size"] == 3 or abs(q2_blocked - fd.blocked_fraction(P["q2_hosts"], P["q2_per_host"], 3, 2, "osd")) > 1e-9, \
    "That is a size-3 pool's share: your pool keeps more copies, so a PG stops only when more of them sat on the stopped host"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("11-containers-and-cephadm")
_q2_dist = fd.shard_loss_distribution(_p["q2_hosts"], _p["q2_per_host"], _p["q2_size"], "osd")
assert abs(q2_blocked - _q2_dist[_p["q2_size"] - 1:].sum()) < 1e-12 and q2_blocked < 1, \
    "Count the PGs left with fewer than 2 shards (size - 1 or more on the stopped host), as a fraction of all PGs, for your cluster"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 2
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q3.** A size-{q3_size} pool with failure domain *host*: one host stays down for a day. What is the
smallest number of hosts with which Ceph can rebuild every missing copy on the remaining hosts
meanwhile? Store it in `q3_hosts` (an int). The same pool with failure domain *osd*, on hosts of
{q3_per_host} OSDs each: what is the smallest number of hosts then (`q3_osd_hosts`, an int)? And on a cluster
of {q3_cluster_hosts} hosts with failure domain *host*, how many hosts may fail one after another, Ceph
rebuilding every missing copy on the others after each failure (`q3_hosts_lost`, an int)? Count hosts only:
assume the disks have space for every rebuilt copy.""",
            {**P, "q3_cluster_hosts": P["q3_size"] + P["q3_extra_hosts"]})

# %% [raw]
# # BEGIN SOLUTION

# %%
q3_hosts = next(h for h in range(1, 20) if fd.recovers_without_host(h, 1, P["q3_size"], "host"))  # SOLUTION
q3_osd_hosts = next(h for h in range(1, 20) if fd.recovers_without_host(h, P["q3_per_host"], P["q3_size"], "osd"))  # SOLUTION
q3_hosts_lost = sum(bool(fd.recovers_without_host(P["q3_size"] + P["q3_extra_hosts"] - i, 1, P["q3_size"], "host")) for i in range(P["q3_size"] + P["q3_extra_hosts"]))  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert int(q3_hosts) == q3_hosts >= P["q3_size"], \
    "A whole number of hosts, at least the pool's size (one host per copy): how many must the cluster have when one is down?"
assert q3_hosts > P["q3_size"], \
    "With exactly one host per copy, the host that is down leaves its copy nowhere to be rebuilt: count the hosts while one of them is down"
assert int(q3_osd_hosts) == q3_osd_hosts and 2 <= q3_osd_hosts <= q3_hosts, \
    "With failure domain osd two copies may share a host, so no more hosts are needed than for domain host; and one host is never enough when it is the one down"
assert int(q3_hosts_lost) == q3_hosts_lost and 0 <= q3_hosts_lost < P["q3_size"] + P["q3_extra_hosts"], \
    "A whole number of hosts, fewer than the cluster has (0 if no host may fail with every copy rebuilt)"
assert P["q3_size"] + P["q3_extra_hosts"] - q3_hosts_lost + 1 >= q3_hosts, \
    "Not every one of those failures can be healed: before the last of them the cluster must still have q3_hosts hosts"

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("11-containers-and-cephadm")
assert all(isinstance(x, (int, np.integer)) for x in (q3_hosts, q3_osd_hosts, q3_hosts_lost)), "Store whole numbers of hosts"
assert q3_hosts == _p["q3_size"] + 1, "With one host down, the others must still give every copy a host of its own"
assert not fd.recovers_without_host(q3_osd_hosts - 1, _p["q3_per_host"], _p["q3_size"], "osd") \
    and fd.recovers_without_host(q3_osd_hosts, _p["q3_per_host"], _p["q3_size"], "osd"), \
    "q3_osd_hosts must be the smallest count whose other hosts hold enough OSDs for every copy"
assert q3_hosts_lost == _p["q3_extra_hosts"], "After each failure the hosts left must still give every copy a host of its own: count the failures until they cannot"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q4
# points: 1
# all_or_nothing: true

# %% tags=["nbval-ignore-output"]
params.show("""**Q4.** In the thesis every daemon ran in a container on *one* Docker host, with 12 OSDs whose
disks came from three machines over iSCSI. Seen from CRUSH's point of view that is one host: if it
stops, every PG is gone. Suppose the thesis had instead run {q4_osds} OSDs on {q4_hosts} Docker hosts
({q4_per_host} each) but kept a size-{q4_size} pool with failure domain *osd*. If one Docker host stops, what
share of the PGs has *no* shard left running? Store it in `q4_unavailable` as a fraction between 0 and 1 (a
float).""", {**P, "q4_osds": P["q4_hosts"] * P["q4_per_host"]})

# %% [raw]
# # BEGIN SOLUTION

# %%
q4_unavailable = fd.unavailable_fraction(P["q4_hosts"], P["q4_per_host"], P["q4_size"], "osd")  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(q4_unavailable, float) and 0 < q4_unavailable < 1, \
    "A fraction of the PGs (not a percentage, not a count), above 0 and below the one-host case: a PG is gone only if all its shards were on the stopped host"
_share = q4_unavailable >= 0.75 / P["q4_hosts"]
_blocked = P["q4_size"] >= 3 and abs(q4_unavailable - fd.blocked_fraction(P["q4_hosts"], P["q4_per_host"], P["q4_size"], 2, "osd")) <= 1e-9
assert not _share and not _blocked, " ".join(hint for hint, wrong in (
    ("Not the stopped host's share of the PGs: a PG is gone only if every one of its shards sat on that host, which few PGs do.", _share),
    ("That is the share that stops serving I/O (fewer than min_size shards left): the question asks for the PGs with no shard left at all.", _blocked)) if wrong)

# %%
# HIDDEN
from cephlab.course import params as _params
_p = _params.lab_params("11-containers-and-cephadm")
assert abs(q4_unavailable - fd.shard_loss_distribution(_p["q4_hosts"], _p["q4_per_host"], _p["q4_size"], "osd")[-1]) < 1e-12 \
    and isinstance(q4_unavailable, float), "Count the PGs whose shards all sit on the stopped host's OSDs, as a fraction of all PGs, for your hosts and pool"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q5
# points: 2
# all_or_nothing: true

# %% [markdown]
# **Q5. Your experiment: how many PGs stop?** The cephadm cluster has 3 hosts with 2 OSDs each.
# Below, one of its hosts stops while two size-3 pools (`min_size` 2) hold data: one with failure
# domain host, one with failure domain *osd*. You choose the osd-domain pool's number of PGs: store a power of two from 16 to 128 (an
# int) in `my_pg_num`. Before the run, predict with the statistical model how many of those PGs will
# stop serving I/O: store it in `q5_blocked_pgs`, a number that need not be whole.

# %% [raw]
# # BEGIN SOLUTION

# %%
my_pg_num = 64  # SOLUTION
q5_blocked_pgs = my_pg_num * fd.blocked_fraction(3, 2, 3, 2, "osd")  # SOLUTION

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
assert isinstance(my_pg_num, (int, np.integer)) and not isinstance(my_pg_num, bool) and my_pg_num in (16, 32, 64, 128), "Choose a power of two from 16 to 128 for my_pg_num"

# %%
assert 0 < q5_blocked_pgs < my_pg_num, "A number of PGs, more than none and fewer than all of your pool's PGs: only PGs with two shards on the stopped host block"
assert q5_blocked_pgs > 1, "A count of PGs, not a fraction: how many of your pool's PGs is that share?"

# %%
# HIDDEN
assert abs(q5_blocked_pgs - my_pg_num * fd.shard_loss_distribution(3, 2, 3, "osd")[2:].sum()) < 1e-9, "Your PG count times the share of PGs with at least two shards on the stopped host"

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# ## Measure on the cephadm cluster
#
# From here on the notebook talks to the cephadm cluster (container hosts or Vagrant VMs).
# Everything it creates is named `lab11-…` and removed in the last cell. As in lab 02 we switch
# the manager's balancer off (the last cell restores it). Its `pg_upmap` entries would move PGs of
# our fresh pools between reading their up sets and halting a node. The counts below come from
# those up sets. Without that cluster each cell prints why it skips, and the comparisons
# are empty.

# %% tags=["nbval-ignore-output"]
import time
from cephlab.helpers import containers, experiment
from cephlab.helpers import recovery as rh

SKIP = ("skipped: needs the cephadm cluster of 3 hosts x 2 OSDs. Start it with "
        "`sudo .venv/bin/cephlab up --backend cephadm` (root and podman) or with "
        "`.venv/bin/cephlab up --backend vagrant` (KVM or VirtualBox), then start JupyterLab "
        "with CEPHLAB_BACKEND=cephadm (or vagrant)")

READY, WHY = containers.cephadm_ready()
if READY:
    from cephlab.helpers.lab import LabSession, io_probe
    lab = LabSession("11", min_osds=6)
    c = lab.cluster
    lab.config_set("mgr", "mgr/balancer/active", "false")
    HOST_OSDS = containers.hosts(c)
    print(f"cephadm cluster {c.state.get('fsid')} ({c.backend.title}): {c.health()}, hosts {HOST_OSDS}")
else:
    print(f"{SKIP} ({WHY})")

# %% [markdown]
# ### The daemons are containers
# `ceph orch ps` lists one container per daemon. The model for the counts is the cluster's spec
# (`vagrant/provision/services.yml` and `settings.yml`): 3 monitors, 2 managers, one OSD per
# extra disk, and cephadm's crash collector on every host.

# %% tags=["nbval-ignore-output"]
daemons = Comparison()
if READY:
    settings = c.settings()
    ps = containers.orch_ps(c, refresh=True)
    counts = containers.daemon_counts(ps)
    spec = {"mon": 3, "mgr": 2, "osd": settings["nodes"] * settings["osd_disks"], "crash": settings["nodes"]}
    wrong = {"mon": ("only the bootstrap mon", 1), "mgr": ("a mgr on every host", settings["nodes"]),
             "osd": ("one OSD per host", settings["nodes"]), "crash": ("only on the bootstrap host", 1)}
    for kind, n in spec.items():
        daemons.add(f"{kind} containers running", model=n, measured=counts.get(kind, 0), rel_tol=0,
                    why="cephadm converges to the spec; a missing one shows in `ceph orch ps` as stopped or error",
                    control=wrong[kind])
    display(pd.DataFrame(ps).set_index(["host", "daemon"]))
else:
    print(SKIP)

# %% [markdown]
# ### Redeploy one OSD: a new container, the same OSD
# We write checksummed objects, then ask cephadm to redeploy one OSD. Its container id must
# change (the old container is gone), while its uuid in the osdmap and every object stay — its
# state was in the host folder the model names, not in the container.

# %% tags=["nbval-ignore-output"]
redeploy = {}
if READY:
    pool_host = lab.replicated_pool("byhost", size=3, pg_num=32)
    manifest = rh.write_objects(c, pool_host, 64, 65536, prefix="before")
    osd = max(HOST_OSDS[sorted(HOST_OSDS)[-1]])
    layout = ct.cephadm_layout(c.state["fsid"], f"osd.{osd}")
    host = containers.osd_host(c, osd)
    listing = c.host_command(host, f"ls {layout['host data dir']}").split()
    uuid_before = containers.osd_uuid(c, osd)
    before, after, seconds = containers.redeploy(c, f"osd.{osd}")
    c.wait_for_clean(timeout=300, progress=False)
    redeploy = {"daemon": f"osd.{osd}", "host": host, "container before": before["container"],
                "container after": after["container"], "seconds": round(seconds, 1),
                "uuid kept": containers.osd_uuid(c, osd) == uuid_before,
                "host data dir": layout["host data dir"], "holds": " ".join(sorted(listing)),
                "objects damaged": len(rh.verify_objects(c, pool_host, manifest))}
    display(pd.Series(redeploy))
else:
    print(SKIP)

# %% tags=["nbval-ignore-output"]
if READY:
    assert redeploy["container before"] != redeploy["container after"], "the redeploy kept the old container"
    assert redeploy["uuid kept"] and redeploy["objects damaged"] == 0, redeploy
    assert "fsid" in redeploy["holds"].split(), f"the host data dir holds no OSD state: {redeploy['holds']}"
    print("a new container, the same OSD: its state lives in the host folder, not the container")
else:
    print(SKIP)

# %% [markdown]
# ### rados bench across hosts
# The thesis measured with `rados bench` (16 threads for 10 s). We run the same on the cephadm
# cluster and, if the native lab cluster is running too, on it. Every write crosses the virtual
# network twice (client to primary, primary to the replicas), so the cephadm cluster's latency should
# exceed the local one by at least two round trips. Little's law checks each run: IOPS =
# threads / mean latency.

# %% tags=["nbval-ignore-output"]
bench = Comparison()
if READY:
    from cephlab import Cluster
    from cephlab.helpers.lab import cluster_name
    THREADS = 16
    results = {"cephadm (3 hosts)": c.rados_bench(pool_host, 10, block_size=4096, threads=THREADS)}
    try:
        local = Cluster.connect(name=cluster_name(), backend="native")
        with local.resources() as r:
            results["native (one machine)"] = local.rados_bench(r.replicated_pool("lab11-local", size=3, pg_num=32),
                                                                10, block_size=4096, threads=THREADS)
    except Exception as e:          # no native cluster on this machine: compare the cephadm run alone
        print(f"no native lab cluster to compare with ({e})")
    mon_ip = containers.monitor_address(c)     # node 1, the first monitor
    rtt = containers.ping_ms(mon_ip)
    for label, b in results.items():
        bench.add(f"IOPS, {label}", model=THREADS / (b.lat_mean_ms / 1000), measured=b.iops, unit="IOPS",
                  rel_tol=0.15, why="Little's law with 16 ops always in flight; ramp-up and the last second blur it",
                  control=("one op in flight", 1 / (b.lat_mean_ms / 1000)))
    display(pd.DataFrame({k: {"IOPS": b.iops, "MB/s": b.mb_s, "mean latency ms": b.lat_mean_ms}
                          for k, b in results.items()}).T)
    # a measurement, not a check: two round trips are a floor far below the latency, so a
    # bound "2 RTT <= extra latency" would pass for any plausible network
    print(f"ping to {mon_ip}: {rtt} ms mean round trip; two per write = {2 * rtt:.2f} ms" if rtt else
          f"no ping to {mon_ip}")
else:
    print(SKIP)

# %% [markdown]
# ### A whole node stops
# Two pools, size 3, `min_size` 2: `lab11-byhost` (32 PGs) with the cluster's default rule
# (failure domain host) and `lab11-byosd` (your `my_pg_num` PGs) with a rule of failure domain osd. Before anything
# stops we check that models.crush reproduces every PG's up set from the cluster's own maps, and
# count, per PG, the shards on the node we will halt (not the one with the active manager). Then
# stop it (`vagrant halt`, or all of a container host's Ceph units), wait until its OSDs are
# down, read the PG states, write more objects while
# it is away, start it again and time the return to `active+clean`.

# %% tags=["nbval-ignore-output"]
outage, halted = {}, None
if READY:
    c.ceph("osd", "crush", "rule", "create-replicated", lab.name("byosd"), "default", "osd")
    osd_pgs = experiment.choice(my_pg_num, 64, "my_pg_num (Q5)", lab="11")
    pool_osd = lab.replicated_pool("byosd", size=3, pg_num=osd_pgs)
    c.ceph("osd", "pool", "set", pool_osd, "crush_rule", lab.name("byosd"))
    c.wait_for_clean(timeout=300, progress=False)
    manifest_osd = rh.write_objects(c, pool_osd, 64, 65536, prefix="before")
    mgr_host = c.ceph("mgr", "stat")["active_name"].split(".")[0]
    victim = [h for h in sorted(HOST_OSDS) if h != mgr_host][-1]
    placement = {p: containers.pool_placement(c, p) for p in (pool_host, pool_osd)}
    min_sizes = {p: c.ceph("osd", "pool", "get", p, "min_size")["min_size"] for p in placement}
    parity = {p: np.mean([live == model for live, model in pl.values()]) for p, pl in placement.items()}
    lost = {p: dict(zip(pl, fd.shards_on([live for live, _ in pl.values()], HOST_OSDS[victim])))
            for p, pl in placement.items()}
    recovered_before = containers.pool_stat(c, pool_host, "num_objects_recovered")
    halted = victim                        # the clean-up cell starts it again if a cell fails
    t_halt = containers.host_down(c, victim)
    states = {p: containers.wait_settled(c, p, HOST_OSDS[victim], timeout=120)[0] for p in (pool_host, pool_osd)}
    probe_ok = io_probe(c, pool_host, "probe-during-outage")
    during = rh.write_objects(c, pool_host, 32, 65536, prefix="during")
    t_up = containers.host_up(c, victim)
    halted = None
    _, t_clean = containers.wait_states(c, pool_host, lambda s: set(s.values()) == {"active+clean"}, timeout=600)
    c.wait_for_clean(timeout=600, progress=False)
    recovered = containers.pool_stat(c, pool_host, "num_objects_recovered") - recovered_before
    damaged = (rh.verify_objects(c, pool_host, {**manifest, **during}) + rh.verify_objects(c, pool_osd, manifest_osd))
    outage = {"node halted": victim, "its OSDs": HOST_OSDS[victim], "halt -> OSDs down s": round(t_halt, 1),
              "host start -> OSDs up s": round(t_up, 1), "then -> active+clean s": round(t_clean, 1),
              "write during outage": probe_ok, "objects recovered": recovered, "objects damaged": len(damaged)}
    display(pd.Series(outage))
    display(pd.DataFrame({p: pd.Series(s).value_counts() for p, s in states.items()}).fillna(0).astype(int))
else:
    print(SKIP)

# %% [markdown]
# ### Model vs measurement

# %% tags=["nbval-ignore-output"]
node = Comparison()
if READY:
    for p in (pool_host, pool_osd):
        n_lost = np.array(list(lost[p].values()))
        blocked = sum(1 for pg, s in states[p].items() if "active" not in s.split("+"))
        degraded = sum(1 for pg, s in states[p].items() if "degraded" in s.split("+") or "undersized" in s.split("+"))
        node.add(f"{p}: up sets models.crush reproduces", model=1.0, measured=parity[p], rel_tol=0,
                 why="models.crush is bit-exact with Ceph's mapper",
                 control=("the right OSDs in id order (no primary first)",
                          np.mean([live == sorted(model) for live, model in placement[p].values()])))
        node.add(f"{p}: PGs blocked (3 - lost < min_size)", model=int((3 - n_lost < min_sizes[p]).sum()), measured=blocked,
                 unit="PGs", rel_tol=0, why="a PG serves I/O exactly while size - lost >= min_size",
                 control=("min_size 3: any lost shard blocks", int((n_lost >= 1).sum())))
        node.add(f"{p}: PGs degraded (lost >= 1 shard)", model=int((n_lost >= 1).sum()), measured=degraded,
                 unit="PGs", rel_tol=0, why="every PG with a shard on the halted node misses it",
                 control=("only PGs whose primary was there",
                          sum(1 for live, _ in placement[p].values() if live[0] in HOST_OSDS[victim])))
    written_away = len(during) + (outage["write during outage"] == "ok")     # + the probe object
    node.add("objects recovered after the node returned", model=written_away, measured=recovered, unit="objects",
             rel_tol=0.1, why="only objects written during the outage lack their third copy; "
                              "the primary pushes each once (a retried push may count twice)",
             control=("every object of the pool copied again", written_away + len(manifest)))
    node.add("objects damaged", model=0, measured=outage["objects damaged"], rel_tol=0, why="no copy may be lost",
             control=("the returning node's stale copies win: the outage's writes lost", len(during)))
    display(node.table()[["model", "measured", "measured/model", "tolerance", "agrees", "control", "control fails"]])
    fig, ax = plots.figure()
    rows = [r for r in node.rows if "PGs" in r.unit]
    plots.bars_model_vs_measured(ax, [r.quantity.replace(": PGs", "\n") for r in rows], [r.model for r in rows],
                                 [r.measured for r in rows], ylabel="PGs (32 in byhost, your count in byosd)")
    plots.show(fig)
else:
    print(SKIP)

# %% [markdown]
# ### Your prediction (Q5)
# Your prediction came from the statistical model: each PG's three shards drawn at random among
# the six OSDs. CRUSH places PGs pseudo-randomly, so for n PGs the count of blocked ones spreads
# like a binomial: about ±2 sqrt(n p (1 - p)) around n p, where p is the share of PGs the model
# expects to block. The exact count for *this* map is the model row above, from the cluster's own
# CRUSH map.

# %% tags=["nbval-ignore-output"]
run = experiment.RunFigures()
if READY:
    p_block = fd.blocked_fraction(3, 2, 3, 2, "osd")
    spread = 2 * np.sqrt(osd_pgs * p_block * (1 - p_block))
    blocked_osd = sum(1 for s in states[pool_osd].values() if "active" not in s.split("+"))
    run.record(excess=blocked_osd - osd_pgs * p_block)
    display(pd.DataFrame([{"PGs in byosd": osd_pgs, "your prediction": globals().get("q5_blocked_pgs"),
                           "statistical model": osd_pgs * p_block, "±2σ (binomial)": spread,
                           "exact CRUSH count": int((3 - np.array(list(lost[pool_osd].values())) < 2).sum()),
                           "measured": blocked_osd}]))
else:
    print(SKIP)

# %% [markdown]
# **Your gap.** How many more PGs stopped than the statistical model predicted for your pool
# (negative if fewer)? Store `my_excess_pgs` and run the check; then say whether it is inside the
# binomial spread. Without the cephadm cluster there is no run: leave `my_excess_pgs` as it is (the
# cell says it skipped).

# %% tags=["nbval-ignore-output"]
my_excess_pgs = blocked_osd - osd_pgs * p_block if READY else ...  # SOLUTION
if READY:
    run.check("my_excess_pgs", my_excess_pgs, "excess",
              hint="the measured count of blocked PGs in byosd minus the statistical model's expectation")
else:
    print(SKIP)

# %% tags=["nbval-ignore-output"]
if READY:
    for cmp in (daemons, bench, node):
        cmp.assert_agree()
else:
    print(f"no comparisons: {SKIP}")

# %% [markdown]
# ## What the model said, what the cluster did
#
# - **Containers**: cephadm's names are rules, not guesses — the model gave the unit, the
#   container and the host folder of every daemon, and `ceph orch ps` listed the containers the
#   spec asks for. A redeploy threw the OSD's container away and made a new one; the OSD kept its
#   uuid and every object, because its state sits in `/var/lib/ceph/<fsid>/osd.N` on the host.
#   The thesis's containers worked the same way with one folder shared by every daemon.
# - **A node stops**: with failure domain *host*, every PG lost exactly one shard and kept serving
#   I/O. With failure domain *osd*, the PGs that CRUSH had put twice on the halted node stopped
#   (`undersized+degraded+peered`). They were counted exactly from the cluster's own map before
#   the halt.
#   Three hosts cannot heal a size-3 host-domain pool: it stayed degraded until the node came back,
#   then only the objects written in between were copied, and every checksum held. The returning
#   node's copies were stale; peering compares the PG logs and takes the newest as authoritative,
#   so the writes made while it was away survived (the wrong model in the "objects damaged" row
#   lets the stale copies win).
# - **Across hosts**: the network adds at least two round trips per write. On a laptop's virtual
#   network that is small next to the OSDs' own latency; the thesis's 1 Gbit/s network, iSCSI disks
#   and single Docker host made it dominate.
# - **Without a cephadm cluster** only the model part ran: the layout table, the
#   host-failure table (hypergeometric model and exact CRUSH agree within a few PGs in a hundred)
#   and the exercises.

# %% [markdown]
# **W2. A host stops: which PGs stop serving, and does Ceph heal?** Use your two pools' PG states
# and your run's recovery (graded by hand). Without the cephadm cluster, answer from the model: the
# host-failure table above, your Q5 prediction and `fd.recovers_without_host`, and say that you had
# no run.
#
# *Your answer:*

# %% [markdown]
# ## Clean up
# Starts the node again if a failed cell left it halted, restarts anything stopped, deletes the
# lab's pools and its CRUSH rule (named after its pool).

# %% tags=["nbval-ignore-output"]
if READY:
    if halted:
        containers.host_up(c, halted)
    lab.cleanup()
else:
    print(SKIP)
