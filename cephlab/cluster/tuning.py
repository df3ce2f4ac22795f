"""Reading and changing options in the mon config database, and tuning() that undoes changes."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from cephlab.cluster.base import ClusterCore
from cephlab.core.commands import CephClient
from cephlab.core.errors import ClusterError
from cephlab.core.poll import poll_until

#: ((who, option), value in the database before, None when absent): what restore_config puts back
Change = tuple[tuple[str, str], Any]


class Tuning(ClusterCore):
    """Mixed into Cluster: uses self.client (ClusterCore) and self._tunings."""

    _tunings: list[TuningBlock]         # the active tuning() blocks, innermost last

    def config_set(self, who: str, option: str, value: object) -> None:
        """`ceph config set who option value`; recorded by the innermost active tuning()."""
        if self._tunings:
            self._tunings[-1].remember(who, option)
        self.client.mon("config set", who=who, name=option, value=str(value))

    def config_get(self, who: str, option: str) -> str | None:
        """The value `who` gets for option (the database entry, else the default) as a string."""
        out = self.client.mon("config get", who=who, key=option)
        return str(out).strip() if out is not None else None

    def config_rm(self, who: str, option: str) -> None:
        if self._tunings:
            self._tunings[-1].remember(who, option)
        self.client.mon("config rm", who=who, name=option)

    def config_db(self, who: str, option: str) -> Any:
        """The value stored in the database for exactly (who, option), or None."""
        for entry in self.client.mon("config dump"):
            if entry["section"] == who and entry["name"] == option and not entry.get("mask"):
                return entry["value"]
        return None

    def config_show(self, daemon: str) -> dict[str, Any]:
        """{option: value} the running daemon (e.g. "osd.0") uses now, defaults included
        (`ceph config show-with-defaults`); values are strings, as Ceph prints them."""
        def shown() -> dict[str, Any] | None:
            out = self.client.mgr("config show-with-defaults", who=daemon)
            if isinstance(out, list):
                return {e["name"]: e["value"] for e in out}
            if isinstance(out, dict):
                return {k: (v["value"] if isinstance(v, dict) else v) for k, v in out.items()}
            # a daemon that just started has not yet sent the mgr its config: the answer is empty
            if out is not None:
                raise ClusterError(f"`ceph config show-with-defaults {daemon}` gave {out!r}")
            return None
        return poll_until(shown, 15, f"`ceph config show-with-defaults {daemon}` answering",
                          interval=0.5, hint=f"is {daemon} running and reporting to the mgr (`ceph -s`)?")

    def restore_config(self, before: Iterable[Change]) -> None:
        """Put each ((who, option), old) back, last change first (old None: remove the entry)."""
        restore_config(self.client, before)

    def tuning(self) -> TuningBlock:
        """Context manager: every option changed in it goes back to its earlier state on exit.

        with c.tuning() as t:
            t.set("osd", "osd_max_backfills", 4)     # or c.config_set(...)
        """
        return TuningBlock(self)


class TuningBlock:
    def __init__(self, cluster: Tuning):
        self.cluster = cluster
        self.before: dict[tuple[str, str], Any] = {}    # (who, option) -> value in the db before, or None

    def remember(self, who: str, option: str) -> None:
        if (who, option) not in self.before:
            self.before[(who, option)] = self.cluster.config_db(who, option)

    def set(self, who: str, option: str, value: object) -> None:
        self.remember(who, option)
        self.cluster.client.mon("config set", who=who, name=option, value=str(value))

    def rm(self, who: str, option: str) -> None:
        self.remember(who, option)
        self.cluster.client.mon("config rm", who=who, name=option)

    def __enter__(self) -> TuningBlock:
        self.cluster._tunings.append(self)
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.cluster._tunings.remove(self)
        restore_config(self.cluster.client, self.before.items())
        return False


def restore_config(client: CephClient, before: Iterable[Change]) -> None:
    """Put each ((who, option), old) back, last change first: `old` is the database value
    before, None when the option was not in the database."""
    for (who, option), old in reversed(list(before)):
        if old is None:
            if option.startswith("mgr/"):
                # a mgr module is not told when its option leaves the database (Pacific): it kept
                # the lab's value (lab 02 left the balancer off). Hand it the default first.
                default = client.mon("config help", key=option)["default"]
                value = str(default).lower() if isinstance(default, bool) else str(default)
                client.mon("config set", who=who, name=option, value=value)
            client.mon("config rm", who=who, name=option)
        else:
            client.mon("config set", who=who, name=option, value=str(old))
