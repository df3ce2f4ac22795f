"""Cluster backends, one folder each; `get(name)` is the only way in from the layers above.

    from cephlab import backends
    b = backends.get("native")      # or None: $CEPHLAB_BACKEND, else "native"
    folder, state = b.connect("lab", None)

Adding a backend: a folder with a backend.py that defines BACKEND (an instance of a
cephlab.backends.base.Backend subclass), and one line in REGISTRY.
"""
from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING

from cephlab.core.errors import SetupError

if TYPE_CHECKING:
    from cephlab.backends.base import Backend

REGISTRY = {
    "native": "cephlab.backends.native.backend",      # daemons as processes on 127.0.0.1
    "vagrant": "cephlab.backends.vagrant.backend",    # cephadm in Vagrant VMs
    "cephadm": "cephlab.backends.cephadm.backend",    # cephadm on systemd-container hosts
}
DEFAULT = "native"


def names() -> list[str]:
    return list(REGISTRY)


def default_name() -> str:
    return os.environ.get("CEPHLAB_BACKEND") or DEFAULT


def get(name: str | None = None) -> Backend:
    """The backend called `name` (None: $CEPHLAB_BACKEND, else native)."""
    name = name or default_name()
    if name not in REGISTRY:
        raise SetupError(f"unknown cluster backend {name!r}: choose one of {', '.join(REGISTRY)} "
                         "(--backend, or $CEPHLAB_BACKEND)")
    return importlib.import_module(REGISTRY[name]).BACKEND
