"""The compiled twin of mapper.py: mapper_c.c, Ceph's crush_do_rule ported to C for straw2 maps.

mapper.py is the model to read: numpy, vectorised over the inputs. Its cost is the hash: straw2
hashes every item of every bucket on the way down (30 hashes per replica on a 10 x 10 x 10 map),
and numpy needs ~180 array passes per hash, about 40 ns a hash at best, which alone keeps it
slower than crushtool. mapper_c.c runs the same rule one input at a time, as Ceph does, ~12 ns
per item drawn (hash, crush_ln and comparison; 200,000 placements of 3 on that map: ~0.22 s
against ~1.4 s for mapper.py). do_rule uses it when it can be built and the numpy code otherwise;
the two give the same placements bit for bit (tests/crush/test_crush_mapper_c.py compares them on
the parity maps and on generated ones, and the crushtool parity tests run whichever is in use).

Building: on first use, with the system C compiler (`cc`, else `gcc`), into
$XDG_CACHE_HOME/cephlab (default ~/.cache/cephlab), named by a hash of the source and the
flags, so an edited source is rebuilt and a built one loads in a millisecond. No compiler, a
read-only cache or a failed build leave the numpy code in use; status() says which and why.
CEPHLAB_CRUSH_MAPPER=numpy forces the numpy code (=c makes a failure to build an error).

Provenance: Ceph code, Pacific (16.2) src/crush/mapper.c, hash.c.
"""
from __future__ import annotations

import ctypes
import os
import shutil
import threading
import zlib
from pathlib import Path

import numpy as np

from .cache import folder, whole_file
from .crushmap import OPS
from .ln import LN_MINUS_ONE

SOURCE = Path(__file__).with_name("mapper_c.c")
# -nostdlib: the source uses no libc, so a bare gcc (no libc6-dev) links it too
FLAGS = ("-O3", "-shared", "-fPIC", "-nostdlib")
ENV = "CEPHLAB_CRUSH_MAPPER"

_i32 = ctypes.POINTER(ctypes.c_int32)
_u32 = ctypes.POINTER(ctypes.c_uint32)
_i64 = ctypes.POINTER(ctypes.c_int64)


class _CMap(ctypes.Structure):
    """struct cmap in mapper_c.c (same fields, same order)."""
    _fields_ = [("items", _i32), ("weights", _i64), ("off", _i32), ("size", _i32), ("type", _i32),
                ("uniform", _i32), ("max_buckets", ctypes.c_int32), ("max_devices", ctypes.c_int32),
                ("ln", _i64), ("weight", _u32), ("weight_max", ctypes.c_int32),
                ("choose_total_tries", ctypes.c_int32), ("choose_local_tries", ctypes.c_int32),
                ("chooseleaf_descend_once", ctypes.c_int32), ("chooseleaf_vary_r", ctypes.c_int32),
                ("chooseleaf_stable", ctypes.c_int32)]


_lock = threading.Lock()
_state: dict = {}      # "lib": the loaded library or None, "why": how it was (not) loaded


def status():
    """Which mapper do_rule runs, and why: e.g. 'c (/root/.cache/cephlab/crush-mapper-....so)' or
    'numpy (no C compiler: install gcc for the compiled mapper)'."""
    lib = _library()
    return f"c ({_state['path']})" if lib is not None else f"numpy ({_state['why']})"


def available():
    """True when do_rule will run the compiled mapper."""
    return _library() is not None


def _library(required=False):
    with _lock:
        if "lib" not in _state:
            _state["lib"], _state["why"], _state["path"] = _load()
    if _state["lib"] is None and (required or os.environ.get(ENV) == "c"):
        raise RuntimeError(f"the compiled CRUSH mapper is unavailable: {_state['why']} "
                           f"(engine=None or {ENV}=numpy runs the numpy mapper)")
    return _state["lib"]


def _load():
    """(library, reason, path); library None when the numpy mapper has to do."""
    if os.environ.get(ENV) == "numpy":
        return None, f"{ENV}=numpy", None
    try:
        source = SOURCE.read_bytes()
    except OSError as err:
        return None, f"cannot read {SOURCE}: {err}", None
    compiler = shutil.which("cc") or shutil.which("gcc")
    flags = FLAGS + _cpu_flags()
    # crc32, not hashlib: this runs in every `cephlab crush` and loading OpenSSL costs ~5 ms.
    # The flags are in the key, so a home shared by machines of other CPUs builds their own.
    key = zlib.crc32(source + repr((flags, os.uname().machine, compiler)).encode())
    cache = folder()
    path = cache / f"crush-mapper-{key:08x}.so"
    if not path.exists():
        if compiler is None:
            return None, "no C compiler: install gcc for the compiled mapper", None
        why = _build(compiler, flags, cache, path)
        if why:
            return None, why, None
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as err:
        return None, f"cannot load {path}: {err}", None
    lib.crush_do_rule_many.restype = None
    lib.crush_do_rule_many.argtypes = [ctypes.POINTER(_CMap), _i32, ctypes.c_int, _u32,
                                       ctypes.c_int64, ctypes.c_int, _i32, _i64, _i64]
    return lib, "built", str(path)


def _cpu_flags():
    """("-mavx2",) where the CPU has AVX2 (x86-64 Linux): the straws of 8 items in one
    instruction, the placements ~10 % faster; () elsewhere (plain x86-64 has 4-item SSE2)."""
    if os.uname().machine != "x86_64":
        return ()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return ("-mavx2",) if "avx2" in line.split() else ()
    except OSError:
        pass
    return ()


class _BuildFailed(Exception):
    """Why the compiler did not leave a library (not an OSError: that one means no cache)."""


def _build(compiler, flags, cache, path):
    """Compile SOURCE to path (atomically: other processes may build it at the same time).
    Returns None, or why it failed."""
    # imported here, not at the top: only the first use builds
    import subprocess

    try:
        with whole_file(path) as tmp:
            try:
                done = subprocess.run([compiler, *flags, "-o", tmp, str(SOURCE)],
                                      capture_output=True, text=True)
            except OSError as err:
                raise _BuildFailed(f"building {SOURCE.name} with {compiler} failed: {err}") from err
            if done.returncode != 0:
                raise _BuildFailed(f"{compiler} could not build {SOURCE.name}: {done.stderr.strip()[-500:]}")
    except _BuildFailed as err:
        return str(err)
    except OSError as err:
        return f"no writable cache for the compiled mapper ({cache}): {err}"
    return None


class Prepared:
    """A CompiledMap, the device weights and a rule, as the arrays mapper_c.c reads (built once
    per do_rule call; the arrays must outlive every call that uses the struct)."""

    def __init__(self, cm, rule, weight):
        pos = np.flatnonzero(cm.size > 0)
        self.off = np.zeros(len(cm.size), dtype=np.int32)
        self.off[pos] = np.cumsum(cm.size)[pos] - cm.size[pos]
        keep = np.arange(cm.items.shape[1])[None, :] < cm.size[:, None]
        # 8 spare entries: straws() hashes whole vectors, past the end of the last bucket too
        self.items = np.concatenate([cm.items[keep], np.zeros(8, np.int64)]).astype(np.int32)
        self.weights = cm.weights[keep].astype(np.int64)
        self.size = cm.size.astype(np.int32)
        self.type = np.where(cm.exists, cm.type, -1).astype(np.int32)
        first = cm.weights[:, :1]
        same = ((cm.weights == first) | ~keep).all(axis=1)
        self.uniform = (same & (first[:, 0] > 0)).astype(np.int32)
        self.weight = np.ascontiguousarray(weight, dtype=np.uint32)
        self.ln = LN_MINUS_ONE
        self.steps = np.array([(OPS[s.op], s.arg1, s.arg2) for s in rule.steps],
                              dtype=np.int32).reshape(-1, 3)
        t = cm.tunables
        self.struct = _CMap(
            _ptr(self.items, _i32), _ptr(self.weights, _i64), _ptr(self.off, _i32),
            _ptr(self.size, _i32), _ptr(self.type, _i32), _ptr(self.uniform, _i32),
            len(self.size), cm.max_devices,
            _ptr(self.ln, _i64),
            _ptr(self.weight, _u32), len(self.weight),
            t["choose_total_tries"], t["choose_local_tries"], t["chooseleaf_descend_once"],
            t["chooseleaf_vary_r"], t["chooseleaf_stable"])

    def do_rule(self, x, result_max, result, length):
        """Fill result (rows of result_max int64, PAD beyond each length) and length for the
        uint32 inputs x. The library releases the GIL, so threads run chunks in parallel."""
        lib = _library(required=True)
        x = np.ascontiguousarray(x, dtype=np.uint32)
        scratch = np.empty(4 * result_max, dtype=np.int32)
        if not (result.flags.c_contiguous and length.flags.c_contiguous
                and result.dtype == length.dtype == np.int64 and result.shape[1] == result_max):
            raise ValueError("result and length must be C-contiguous int64 arrays, result "
                             f"{len(x)} x {result_max}: pass rows of do_rule's own arrays")
        lib.crush_do_rule_many(ctypes.byref(self.struct), _ptr(self.steps, _i32),
                               len(self.steps), _ptr(x, _u32), len(x), result_max,
                               _ptr(scratch, _i32), _ptr(result, _i64), _ptr(length, _i64))


def _ptr(array, kind):
    return array.ctypes.data_as(kind)
