"""Cluster names: the default one, and what every backend and the CLI accept (a name becomes
a folder name)."""
from __future__ import annotations

import os
import re

from cephlab.core.errors import SetupError

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
DEFAULT_NAME = "lab"            # the cluster `cephlab up` makes and the labs use


def default_cluster_name() -> str:
    """The cluster labs, `Cluster.connect()` and the CLI use when given no name: $CEPHLAB_NAME
    (the test suite sets it, so its notebooks' kernels find its cluster), else "lab"."""
    return os.environ.get("CEPHLAB_NAME", DEFAULT_NAME)


def check_name(name: object) -> str:
    """`name` when it is a good cluster name; SetupError says what a good one looks like."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise SetupError(
            f"bad cluster name {name!r}: use 1-32 letters, digits, '-' or '_' "
            "(no '/', no spaces), e.g. --name lab2")
    return name
