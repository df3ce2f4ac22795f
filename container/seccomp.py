"""Podman's default seccomp profile, less its denial of io_pgetevents: what the image's Ceph needs.

Why: Debian 13's libaio (0.3.113, Debian's patch 0021 for 64-bit time) implements io_getevents()
by calling io_pgetevents first and falling back to io_getevents only when that returns ENOSYS.
containers-common's default profile (Debian 12's podman 4.3: containers-common 0.50) denies
io_pgetevents with EPERM, so the fallback never runs and every BlueStore OSD aborts at its mkfs:
"_aio_thread got (1) Operation not permitted" (measured here, 2026-12-02; ceph-build PR 2720 found
the same in Ceph's own CI). Docker's default profile allows io_pgetevents (moby PR 38895, 2019),
so `docker run` needs nothing. Removing the one denial grants nothing new: the call then falls to
the same rules as io_getevents, which every profile allows.

    python3 container/seccomp.py [OUT]      # writes the profile (default ~/.config/cephlab/seccomp.json)
                                            # and prints the podman flag that uses it

The host's own profile is the start (/etc/containers/seccomp.json, else /usr/share/...), so the
result changes nothing else of what the engine allows.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

PROFILES = (Path("/etc/containers/seccomp.json"), Path("/usr/share/containers/seccomp.json"))
NEEDED = ("io_pgetevents", "io_pgetevents_time64")
DEFAULT_OUT = Path.home() / ".config" / "cephlab" / "seccomp.json"


def host_profile() -> dict:
    for path in PROFILES:
        if path.is_file():
            return json.loads(path.read_text())
    raise SystemExit("no podman seccomp profile at " + " or ".join(map(str, PROFILES)) + ": on Podman "
                     "Desktop (macOS, Windows) the profile is inside its machine; see container/README.md")


def allow_aio(profile: dict) -> dict:
    """The profile with NEEDED out of every rule that does not allow, and allowed by one rule."""
    rules = []
    for rule in profile.get("syscalls", []):
        if rule.get("action") != "SCMP_ACT_ALLOW":
            names = [n for n in rule.get("names", []) if n not in NEEDED]
            if not names:
                continue
            rule = {**rule, "names": names}
        rules.append(rule)
    rules.append({"names": list(NEEDED), "action": "SCMP_ACT_ALLOW", "args": [], "comment":
                  "libaio's io_getevents calls io_pgetevents first (container/seccomp.py)"})
    return {**profile, "syscalls": rules}


def write(out: Path = DEFAULT_OUT) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(allow_aio(host_profile()), indent=1) + "\n")
    return out


if __name__ == "__main__":
    path = write(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT)
    print(f"--security-opt seccomp={path}")
