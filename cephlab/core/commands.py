"""Send `ceph ...` commands to one cluster: through librados when the binding imports
(milliseconds per call), else through the `ceph` CLI (0.3-1 s of CPU per call)."""
from __future__ import annotations

import json
import threading

from cephlab.core import run
from cephlab.core.errors import ClusterError

try:                                   # Debian's python3-rados; visible to the lab's .venv
    import ceph_argparse
    import rados
except ImportError:                    # pragma: no cover - depends on the machine
    rados = None
    ceph_argparse = None


def _decode(outbuf):
    if not outbuf:
        return None
    text = outbuf.decode(errors="replace") if isinstance(outbuf, bytes) else outbuf
    try:
        return json.loads(text)
    except ValueError:
        return text.strip()


class CephClient:
    """A client.admin connection to the cluster described by `conf` (a ceph.conf path)."""

    def __init__(self, conf, keyring, ceph_bin="ceph", connect_timeout=10):
        self.conf, self.keyring, self.ceph_bin = str(conf), str(keyring), ceph_bin
        self.connect_timeout = connect_timeout
        self._rados = None
        self._sigs = {}
        self._lock = threading.Lock()

    # -- connection ---------------------------------------------------------------------
    @property
    def handle(self):
        """The connected rados.Rados handle (None when the binding is not importable)."""
        if rados is None:
            return None
        with self._lock:
            if self._rados is None:
                r = rados.Rados(conffile=self.conf, conf={
                    "keyring": self.keyring, "client_mount_timeout": str(self.connect_timeout),
                    "rados_mon_op_timeout": "60", "rados_osd_op_timeout": "60"})
                try:
                    r.connect(timeout=self.connect_timeout)
                except rados.Error as e:
                    r.shutdown()
                    raise ClusterError(f"cannot reach the cluster of {self.conf}: {e}") from e
                self._rados = r
            return self._rados

    def close(self):
        with self._lock:
            if self._rados is not None:
                self._rados.shutdown()
                self._rados = None

    # -- raw commands (a prefix dict) -----------------------------------------------------
    def mon(self, prefix, inbuf=b"", timeout=30, **args):
        return self.send({"prefix": prefix, **args}, "mon", inbuf, timeout)

    def mgr(self, prefix, inbuf=b"", timeout=30, **args):
        return self.send({"prefix": prefix, **args}, "mgr", inbuf, timeout)

    def send(self, cmd, target="mon", inbuf=b"", timeout=30):
        """Send one command dict to 'mon', 'mgr', ('mgr', name) or ('osd', id); parsed JSON back.
        ('mgr', name) is `ceph tell mgr.<name>`: it also reaches the mgr's admin-socket commands."""
        cmd = {"format": "json", **cmd}
        r = self.handle
        if r is None:
            raise ClusterError("the rados Python binding is missing; install python3-rados")
        body = json.dumps(cmd)
        try:
            if target == "mon":
                ret, out, outs = r.mon_command(body, inbuf, timeout=timeout)
            elif target == "mgr":
                ret, out, outs = r.mgr_command(body, inbuf, timeout=timeout)
            elif target[0] == "mgr":
                ret, out, outs = r.mgr_command(body, inbuf, timeout=timeout, target=target[1])
            else:
                ret, out, outs = r.osd_command(int(target[1]), body, inbuf, timeout=timeout)
        except rados.Error as e:
            raise ClusterError(f"{cmd['prefix']}: {e}") from e
        if ret != 0:
            raise ClusterError(f"ceph {cmd['prefix']} failed: {outs.strip() or ret} (error {ret})")
        return _decode(out) if out else (outs.strip() or None)

    # -- CLI-style commands (a list of words, as typed after `ceph`) ------------------------
    def ceph(self, args, inbuf=b"", timeout=30):
        args = [str(a) for a in args]
        if self.handle is None or ceph_argparse is None:
            return self._cli(args, inbuf, timeout)
        if args and args[0] == "tell":
            return self._tell(args[1], args[2:], inbuf, timeout)
        cmd = self._validate("mon", args)
        target = "mgr" if cmd.pop("target", ("mon",))[0] == "mon-mgr" else "mon"
        return self.send(cmd, target, inbuf, timeout)

    def _descriptions(self, key):
        if key not in self._sigs:
            target = key if key in ("mon", "mgr") else ("osd", key.split(".", 1)[1])
            raw = self.send({"prefix": "get_command_descriptions"}, target)
            self._sigs[key] = ceph_argparse.parse_json_funcsigs(json.dumps(raw), "cli")
        return self._sigs[key]

    def _validate(self, key, args):
        cmd = ceph_argparse.validate_command(self._descriptions(key), args)
        if not cmd:
            raise ClusterError(f"invalid command: ceph {' '.join(args)} "
                               "(check the words and argument order against `ceph --help`)")
        return dict(cmd)

    def _tell(self, who, args, inbuf, timeout):
        if not who.startswith("osd."):
            return self._cli(["tell", who, *args], inbuf, timeout)
        cmd = self._validate(who, args)
        cmd.pop("target", None)
        return self.send(cmd, ("osd", who.split(".", 1)[1]), inbuf, timeout)

    def _cli(self, args, inbuf, timeout):
        cmd = [self.ceph_bin, "-c", self.conf, "-k", self.keyring, "--format", "json", *args]
        if inbuf:
            cmd[1:1] = ["-i", "-"]
        try:
            proc = run.run(cmd, input=inbuf or None, text=False, timeout=timeout + 5, check=False,
                           hint=run.install_hint("ceph"))      # ceph_bin may be a path of any name
        except run.CommandTimeout as e:
            raise ClusterError(f"ceph {' '.join(args)} timed out after {timeout} s") from e
        if proc.returncode != 0:
            raise ClusterError(f"ceph {' '.join(args)} failed: {proc.stderr.strip()}")
        return _decode(proc.stdout)
