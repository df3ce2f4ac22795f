"""What the Cluster mixins (pools, tuning, measure, faults) need from the Cluster they are part of.

Each mixin subclasses ClusterCore, so mypy checks its uses of self.client, self.conf,
self.pg_states(), ... against the declarations below, and refuses to instantiate a Cluster
that does not provide one of them (cephlab/cluster/api.py explains why mixins).
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from cephlab.backends.base import Backend, ClusterView
from cephlab.core import releases


class ClusterCore(ClusterView, Protocol):
    """The Cluster as its mixins see it: ClusterView (dir, state, client, ceph()) and these.

    The methods here are implemented in cephlab/cluster/api.py (Cluster), the mixins' own in
    their modules; a mixin that needs another Cluster method declares it here.
    """

    name: str
    backend: Backend

    @property
    def conf(self) -> str:
        """The path of the cluster's ceph.conf."""
        ...

    def env(self) -> dict[str, str]: ...

    def pids(self) -> dict[str, int]: ...

    def pg_states(self) -> dict[str, int]: ...

    def release(self) -> releases.Release: ...

    def stop_daemon(self, daemon: str, kill: bool = False) -> None: ...

    def start_daemon(self, daemon: str) -> None: ...

    def daemon_log(self, daemon: str) -> str: ...

    def ioctx(self, pool: str) -> AbstractContextManager[Any]: ...

    def wait_for_latest_osdmap(self) -> None: ...

    def up_osds(self) -> list[int]: ...
