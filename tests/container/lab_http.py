"""Whether a container's JupyterLab answers: one probe for tests/container and bench/bench_image.py
(the image's start is measured up to the same answer the tests wait for)."""
from __future__ import annotations

import urllib.request


def status_url(port: str | int, token: str) -> str:
    """JupyterLab's /api/status on the host's loopback port the container's 8888 is published to."""
    return f"http://127.0.0.1:{port}/api/status?token={token}"


def answers(url: str, timeout: float = 2) -> bool:
    """True when `url` answers 200; False while the server is not up yet (refused, reset, 5xx)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return bool(r.status == 200)
    except OSError:
        return False
