"""Pools and RBD images of a lab cluster, and resources() that cleans up after a lab."""
from __future__ import annotations

from typing import Any, Literal

from cephlab.cluster import full
from cephlab.cluster.base import ClusterCore
from cephlab.core import run
from cephlab.core.errors import ClusterError, ClusterFull
from cephlab.core.poll import poll_until

try:
    import rbd
except ImportError:                 # pragma: no cover - depends on the machine
    rbd = None

MIB = 1024 * 1024


class Pools(ClusterCore):
    """Mixed into Cluster: uses self.client, self.conf and self.pg_states() (ClusterCore)."""

    def pools(self) -> list[str]:
        return [p["pool_name"] for p in self.client.mon("osd pool ls", detail="detail")]

    def _after_create(self, name: str, application: str | None, wait: bool) -> None:
        if self.client.handle is not None:
            # This client's map may still hold a same-named pool deleted a moment ago (a re-run
            # of a lab): open_ioctx would resolve the name to the dead pool's id, and RBD's
            # pool_init then fails with ENOENT ("error initializing pool").
            self.wait_for_latest_osdmap()
        if application:
            self.client.mon("osd pool application enable", pool=name, app=application,
                            yes_i_really_mean_it=True)
        if wait:
            self.wait_pool_clean(name)

    def create_replicated_pool(self, name: str, size: int = 3, min_size: int | None = None,
                               pg_num: int = 32, application: str | None = "rados",
                               wait: bool = True) -> str:
        """A replicated pool with `size` copies and a fixed PG count (autoscale off)."""
        if size == 1:
            self.client.mon("config set", who="global", name="mon_allow_pool_size_one", value="true")
        self.client.mon("osd pool create", pool=name, pg_num=pg_num, pgp_num=pg_num,
                        pool_type="replicated", autoscale_mode="off")
        self.client.mon("osd pool set", pool=name, var="size", val=str(size),
                        yes_i_really_mean_it=True)
        if min_size is not None:
            self.client.mon("osd pool set", pool=name, var="min_size", val=str(min_size))
        self._after_create(name, application, wait)
        return name

    def create_ec_pool(self, name: str, k: int = 2, m: int = 1, failure_domain: str = "osd",
                       pg_num: int = 32, application: str | None = "rados", wait: bool = True,
                       overwrites: bool = False) -> str:
        """An erasure-coded pool with its own profile (named after the pool): k data + m coding chunks."""
        self.client.mon("osd erasure-code-profile set", name=name, force=True,
                        profile=[f"k={k}", f"m={m}", f"crush-failure-domain={failure_domain}"])
        self.client.mon("osd pool create", pool=name, pg_num=pg_num, pgp_num=pg_num,
                        pool_type="erasure", erasure_code_profile=name, autoscale_mode="off")
        if overwrites:      # needed for RBD or CephFS data on EC
            self.client.mon("osd pool set", pool=name, var="allow_ec_overwrites", val="true")
        self._after_create(name, application, wait)
        return name

    def delete_pool(self, name: str) -> bool:
        """Delete a pool, and the EC profile and CRUSH rule named after it, if any."""
        info = {p["pool_name"]: p for p in self.client.mon("osd pool ls", detail="detail")}
        if name not in info:
            return False
        if self.release().mclock_default:
            self._empty_pool(name)
        self.client.mon("osd pool delete", pool=name, pool2=name,
                        yes_i_really_really_mean_it=True)
        if info[name].get("erasure_code_profile") == name:
            self.client.mon("osd erasure-code-profile rm", name=name)
        rules = self.client.mon("osd crush rule ls")
        if name in rules:
            self.client.mon("osd crush rule rm", name=name)
        return True

    def _empty_pool(self, name: str) -> None:
        """Delete the pool's objects with client deletes before the pool goes. Under mClock the
        OSDs remove a deleted pool's PGs as a best-effort background class: 15,835 small objects
        took 104 s on Reef 18.2.7, against under 6 s under wpq, and the next lab waits for that
        (LabSession). Client deletes are client I/O: 10,141 objects in 6 s (`rados purge`). Not
        when writes stop (a full flag): there the pool delete alone frees the space."""
        try:
            full.check_writable(self, name, "emptying the pool before deleting it")
        except ClusterFull:
            return
        run.run(["rados", "-c", self.conf, "purge", name, "--yes-i-really-really-mean-it"],
                what=f"rados purge {name}", timeout=600)

    def pg_stats(self, pool: str | None = None, osd: int | None = None) -> list[dict[str, Any]]:
        """The mgr's stats of every PG (one dict each: pgid, state, up, acting, stat_sum, ...),
        of one pool (`ceph pg ls-by-pool`), on one OSD (`pg ls-by-osd`), or both.

        Ceph answers these with a list or with {"pg_stats": [...]} depending on the release and
        the command; callers always get the list.
        """
        if pool is not None:
            out = self.client.mgr("pg ls-by-pool", poolstr=pool)
        elif osd is not None:
            out = self.client.mgr("pg ls-by-osd", osd=int(osd))
        else:
            out = self.client.mgr("pg ls")
        pgs = pg_list(out)
        if pool is not None and osd is not None:
            pgs = [p for p in pgs if int(osd) in p.get("up", []) + p.get("acting", [])]
        return pgs

    def wait_pool_clean(self, pool: str, timeout: float = 120) -> None:
        """Wait until every PG of `pool` is active+clean."""
        pg_num = self.client.mon("osd pool get", pool=pool, var="pg_num")["pg_num"]

        def clean() -> bool:
            pgs = self.pg_stats(pool=pool)
            return len(pgs) == pg_num and all(p["state"] == "active+clean" for p in pgs)
        poll_until(clean, timeout, f"the {pg_num} PGs of pool {pool} active+clean",
                   describe=lambda: str(self.pg_states()))

    # -- RBD ----------------------------------------------------------------------------------
    def create_rbd_image(self, pool: str, image: str, size_mib: int) -> str:
        """An RBD image of size_mib MiB in `pool` (initialised for RBD: application rbd)."""
        if rbd is None:
            for args in (["pool", "init", pool], ["create", f"{pool}/{image}", "--size", str(size_mib)]):
                run.run(["rbd", "-c", self.conf, *args], what=f"rbd {' '.join(args)}")
            return image
        with self.client.handle.open_ioctx(pool) as ioctx:
            rbd.RBD().pool_init(ioctx, True)
            rbd.RBD().create(ioctx, image, size_mib * MIB)
        return image

    def delete_rbd_image(self, pool: str, image: str) -> None:
        if rbd is None:
            run.run(["rbd", "-c", self.conf, "rm", f"{pool}/{image}"], what=f"rbd rm {pool}/{image}")
            return
        with self.client.handle.open_ioctx(pool) as ioctx:
            rbd.RBD().remove(ioctx, image)

    # -- clean-up ------------------------------------------------------------------------------
    def resources(self) -> Resources:
        """Context manager: pools and images created through it are deleted on exit, even on error."""
        return Resources(self)


def pg_list(out: Any) -> list[dict[str, Any]]:
    """The PG rows of a `pg ls*` or `pg dump pgs_brief` answer: a list, or {"pg_stats": [...]}
    (the shape depends on the release and the command)."""
    return out.get("pg_stats", []) if isinstance(out, dict) else out


class Resources:
    """Records what a lab creates and deletes it, newest first, when the block ends."""

    def __init__(self, cluster: Pools):
        self.cluster = cluster
        self.created: list[tuple[str, ...]] = []    # ("pool", name) or ("image", pool, name)

    def __enter__(self) -> Resources:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        errors = []
        for item in reversed(self.created):
            try:
                if item[0] == "image":
                    self.cluster.delete_rbd_image(item[1], item[2])
                else:
                    self.cluster.delete_pool(item[1])
            except Exception as e:      # keep cleaning the rest, report at the end
                errors.append(f"{item}: {e}")
        self.created.clear()
        if errors and exc[0] is None:
            raise ClusterError("clean-up failed for " + "; ".join(errors))
        return False

    def replicated_pool(self, name: str, **kw: Any) -> str:
        self.cluster.create_replicated_pool(name, **kw)
        self.created.append(("pool", name))
        return name

    def ec_pool(self, name: str, **kw: Any) -> str:
        self.cluster.create_ec_pool(name, **kw)
        self.created.append(("pool", name))
        return name

    def rbd_image(self, pool: str, image: str, size_mib: int) -> str:
        self.cluster.create_rbd_image(pool, image, size_mib)
        self.created.append(("image", pool, image))
        return image
