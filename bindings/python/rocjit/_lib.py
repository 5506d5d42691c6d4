"""Finding librocjit and declaring what the bindings call in it.

Owns: the search for the shared library, the ctypes mirrors of the structs of
include/rocjit.h, and the argtypes/restype of every function the package calls.  It knows
nothing of contexts or kernels (rocjit._core builds those on top of it).

The structs mirror include/rocjit.h field for field (tests/test_layout.py compiles a C
program against the header and compares sizes and offsets).  Versioned structs mirror the
newest version the bindings know; the version actually sent is negotiated with the
library's rocjit_<struct>_init where it has one (see negotiate_version).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_int64,
    c_size_t,
    c_uint,
    c_uint64,
    c_void_p,
)
from pathlib import Path

# librocjit ABIs these bindings were written for: each 0.y is its own ABI (0.x soname
# policy), so a library of another 0.y is refused rather than misread.
SUPPORTED_ABIS = ((0, 1),)
SONAMES = ("librocjit.so.0.1", "librocjit.so.0")

# ---- Structs (include/rocjit.h) ------------------------------------------------------------


class Options(Structure):
    """rocjit_options, version 4."""

    VERSION = 4
    _fields_ = [
        ("version", c_uint),
        ("cache_dir", c_char_p),
        ("target", c_char_p),
        ("platform", c_int),
        ("device", c_int),
        ("flags", c_uint),
        # version 2
        ("bundles", c_char_p),
        # version 3
        ("remote", c_char_p),
        # version 4
        ("signing_key", c_char_p),
        ("trusted_keys", c_char_p),
        ("require_signed", c_int),
    ]


class Header(Structure):
    """rocjit_header."""

    _fields_ = [("name", c_char_p), ("source", c_char_p), ("length", c_size_t)]


class Program(Structure):
    """rocjit_program, version 3 (issue 17 adds header_size; a version 2 library reads
    the fields before it only)."""

    VERSION = 3
    BASE_VERSION = 2  # what a library without rocjit_program_init takes
    _fields_ = [
        ("version", c_uint),
        ("source", c_char_p),
        ("length", c_size_t),
        ("name", c_char_p),
        ("options", POINTER(c_char_p)),
        ("num_options", c_size_t),
        ("headers", POINTER(Header)),
        ("num_headers", c_size_t),
        ("log", c_void_p),  # char *: deprecated by issue 17 (rocjit_last_log)
        ("log_size", c_size_t),
        # version 2
        ("language", c_int),
        ("name_expressions", POINTER(c_char_p)),
        ("num_name_expressions", c_size_t),
        # version 3
        ("header_size", c_size_t),
    ]


class RegisteredOptions(Structure):
    """rocjit_registered_options, version 1."""

    VERSION = 1
    _fields_ = [
        ("version", c_uint),
        ("options", POINTER(c_char_p)),
        ("num_options", c_size_t),
        ("name_expressions", POINTER(c_char_p)),
        ("num_name_expressions", c_size_t),
    ]


class Dim3(Structure):
    """rocjit_dim3."""

    _fields_ = [("x", c_uint), ("y", c_uint), ("z", c_uint)]


class Code(Structure):
    """rocjit_code (owned by the context)."""

    _fields_ = [
        ("data", c_void_p),
        ("size", c_size_t),
        ("target", c_char_p),
        ("key", c_char * 33),
        ("from_cache", c_int),
        ("compile_ms", c_double),
    ]


class Stats(Structure):
    """rocjit_stats, version 8."""

    VERSION = 8
    _fields_ = [
        ("version", c_uint),
        ("memory_hits", c_uint64),
        ("disk_hits", c_uint64),
        ("misses", c_uint64),
        ("compiles", c_uint64),
        ("compile_errors", c_uint64),
        ("cache_errors", c_uint64),
        ("compile_ms", c_double),
        ("entries", c_uint64),
        ("bytes", c_uint64),
        ("cache_open", c_int),
        ("cache_path", c_char * 4096),
        # version 2
        ("max_bytes", c_uint64),
        # version 3
        ("stores", c_uint64),
        ("store_failures", c_uint64),
        ("cache_readonly", c_int),
        ("store_error", c_char * 1024),
        # version 4
        ("empty_objects", c_uint64),
        # version 5
        ("worker_compiles", c_uint64),
        ("worker_overhead_ms", c_double),
        ("workers_started", c_uint64),
        ("workers_lost", c_uint64),
        ("workers_running", c_int),
        ("workers_max", c_int),
        # version 6
        ("index_hits", c_uint64),
        # version 7
        ("remote_state", c_int),
        ("remote_url", c_char * 512),
        ("remote_off_reason", c_char * 512),
        ("remote_hits", c_uint64),
        ("remote_misses", c_uint64),
        ("remote_errors", c_uint64),
        ("remote_rejected", c_uint64),
        ("remote_puts", c_uint64),
        ("remote_put_errors", c_uint64),
        ("remote_waits", c_uint64),
        ("remote_bytes_read", c_uint64),
        ("remote_bytes_written", c_uint64),
        ("remote_saved_ms", c_double),
        ("remote_ms", c_double),
        # version 8
        ("require_signed", c_int),
        ("trusted_keys", c_int),
        ("signing_key", c_char * 65),
        ("signatures_checked", c_uint64),
        ("signature_rejects", c_uint64),
        ("signed_stores", c_uint64),
    ]


class Entry(Structure):
    """rocjit_entry (strings valid during the callback only)."""

    _fields_ = [
        ("key", c_char * 33),
        ("platform", c_char_p),
        ("target", c_char_p),
        ("compiler", c_char_p),
        ("options", c_char_p),
        ("source_name", c_char_p),
        ("headers", c_char_p),
        ("kernels", c_char_p),
        ("size", c_uint64),
        ("created", c_int64),
        ("last_used", c_int64),
        ("hits", c_uint64),
        ("compile_ms", c_double),
        ("name_expressions", c_char_p),
        ("pkey", c_char * 33),
        ("signer", c_char * 65),
        ("signature", c_int),
    ]


_COUNTER_FIELDS = [
    ("disk_hits", c_uint64),
    ("misses", c_uint64),
    ("compiles", c_uint64),
    ("compile_ms", c_double),
    ("saved_ms", c_double),
    ("since", c_int64),
]


class CountersV0(Structure):
    """rocjit_counters before issue 17 (no version field): rocjit_cache_counters."""

    _fields_ = list(_COUNTER_FIELDS)


class Counters(Structure):
    """rocjit_counters, version 2 (issue 31: the failures): rocjit_counters_get.

    A library of version 1 fills the fields before compile_errors; the others stay 0.
    """

    VERSION = 2
    _fields_ = [("version", c_uint)] + list(_COUNTER_FIELDS) + [
        ("compile_errors", c_uint64),
        ("evictions", c_uint64),
        ("signature_rejects", c_uint64),
        ("remote_errors", c_uint64),
    ]


class RemoteCounters(Structure):
    """rocjit_remote_counters, version 1."""

    VERSION = 1
    _fields_ = [
        ("version", c_uint),
        ("hits", c_uint64),
        ("misses", c_uint64),
        ("errors", c_uint64),
        ("rejected", c_uint64),
        ("puts", c_uint64),
        ("put_errors", c_uint64),
        ("waits", c_uint64),
        ("bytes_read", c_uint64),
        ("bytes_written", c_uint64),
        ("saved_ms", c_double),
        ("remote_ms", c_double),
    ]


class CodeobjInfo(Structure):
    """rocjit_codeobj_info."""

    _fields_ = [
        ("platform", c_int),
        ("target", c_char * 64),
        ("flags_target", c_char * 64),
        ("num_kernels", c_size_t),
        ("kernels", POINTER(c_char_p)),
    ]


class SourceFile(Structure):
    """rocjit_source_file."""

    _fields_ = [("name", c_char_p), ("text", c_char_p), ("length", c_size_t)]


class KernelNative(Structure):
    """rocjit_kernel_native, version 1 (issue 29): the driver's handles of a kernel."""

    VERSION = 1
    _fields_ = [
        ("version", c_uint),
        ("platform", c_int),
        ("device", c_int),
        ("function", c_void_p),
        ("module", c_void_p),
    ]


class KernelResources(Structure):
    """rocjit_kernel_resources, version 1 (issue 29)."""

    VERSION = 1
    _fields_ = [
        ("version", c_uint),
        ("platform", c_int),
        ("registers", c_uint),
        ("agprs", c_uint),
        ("sgprs", c_uint),
        ("vgpr_spills", c_uint),
        ("sgpr_spills", c_uint),
        ("scratch_bytes", c_uint64),
        ("dynamic_stack", c_int),
        ("shared_bytes", c_uint64),
        ("param_bytes", c_uint64),
        ("max_threads", c_uint),
        ("wavefront", c_uint),
    ]


# Every struct above with the C name it mirrors (the layout test walks this).
MIRRORS = {
    "rocjit_options": Options,
    "rocjit_header": Header,
    "rocjit_program": Program,
    "rocjit_registered_options": RegisteredOptions,
    "rocjit_dim3": Dim3,
    "rocjit_code": Code,
    "rocjit_stats": Stats,
    "rocjit_entry": Entry,
    "rocjit_counters": Counters,  # or CountersV0 with a pre-issue-17 header
    "rocjit_remote_counters": RemoteCounters,
    "rocjit_codeobj_info": CodeobjInfo,
    "rocjit_source_file": SourceFile,
    "rocjit_kernel_native": KernelNative,
    "rocjit_kernel_resources": KernelResources,
}

# ---- Callback types -------------------------------------------------------------------------

ENTRY_FN = CFUNCTYPE(c_int, POINTER(Entry), c_void_p)
FIND_FN = CFUNCTYPE(c_int, POINTER(Entry), c_void_p, c_size_t, c_void_p)
VERIFY_FN = CFUNCTYPE(None, POINTER(Entry), c_int, c_char_p, c_void_p)
LOG_FN = CFUNCTYPE(None, c_void_p, c_int, c_char_p)
REJECT_FN = CFUNCTYPE(None, c_char_p, c_char_p, c_void_p)

ctx_p = c_void_p
kernel_p = c_void_p

# ---- Prototypes -----------------------------------------------------------------------------
# name: (restype, argtypes).  OPTIONAL ones may be missing from the library (older or newer
# than issue 17); the code checks lib.has(name) before calling them.

_REQUIRED = {
    "rocjit_version": (c_int, []),
    "rocjit_strerror": (c_char_p, [c_int]),
    "rocjit_last_error": (c_char_p, []),
    "rocjit_platform_name": (c_char_p, [c_int]),
    "rocjit_target_normalize": (c_int, [c_char_p, c_size_t, c_char_p]),
    "rocjit_target_platform": (c_int, [c_char_p]),
    "rocjit_open": (c_int, [POINTER(ctx_p), POINTER(Options)]),
    "rocjit_close": (None, [ctx_p]),
    "rocjit_cache_dir": (c_int, [c_char_p, c_size_t, c_char_p]),
    "rocjit_program_language": (c_int, [c_int, c_char_p]),
    "rocjit_kernel_get": (c_int, [POINTER(kernel_p), ctx_p, POINTER(Program), c_char_p]),
    "rocjit_kernel_get_registered_v2": (
        c_int,
        [POINTER(kernel_p), ctx_p, c_char_p, c_char_p, POINTER(RegisteredOptions)],
    ),
    "rocjit_kernel_name": (c_char_p, [kernel_p]),
    "rocjit_kernel_launch": (
        c_int,
        [kernel_p, Dim3, Dim3, c_uint, c_void_p, POINTER(c_void_p)],
    ),
    "rocjit_compile": (c_int, [POINTER(POINTER(Code)), ctx_p, c_char_p, POINTER(Program)]),
    "rocjit_compile_registered_v2": (
        c_int,
        [POINTER(POINTER(Code)), ctx_p, c_char_p, c_char_p, POINTER(RegisteredOptions)],
    ),
    "rocjit_code_lowered_name": (c_int, [POINTER(c_char_p), POINTER(Code), c_char_p]),
    "rocjit_stats_get": (c_int, [POINTER(Stats), ctx_p]),
    "rocjit_cache_foreach": (c_int, [ctx_p, ENTRY_FN, c_void_p]),
    "rocjit_cache_find": (c_int, [ctx_p, c_char_p, FIND_FN, c_void_p]),
    "rocjit_cache_remove": (c_int, [ctx_p, POINTER(c_char_p), c_size_t, POINTER(c_size_t)]),
    "rocjit_cache_compact": (c_int, [ctx_p]),
    "rocjit_cache_verify": (
        c_int,
        [ctx_p, c_int, VERIFY_FN, c_void_p, POINTER(c_uint64), POINTER(c_uint64)],
    ),
    "rocjit_cache_zero": (c_int, [ctx_p]),
    "rocjit_remote_counters_get": (c_int, [POINTER(RemoteCounters), ctx_p]),
    "rocjit_codeobj_inspect": (c_int, [POINTER(POINTER(CodeobjInfo)), c_void_p, c_size_t]),
    "rocjit_register_sources": (c_int, [POINTER(SourceFile), c_size_t]),
    "rocjit_register_headers": (c_int, [POINTER(SourceFile), c_size_t]),
    "rocjit_compiler_identity": (c_int, [POINTER(c_char_p), c_int]),
}

_OPTIONAL = {
    # issue 17 (include/rocjit.h may not have them yet)
    "rocjit_options_init": (c_int, [POINTER(Options), c_uint]),
    "rocjit_program_init": (c_int, [POINTER(Program), c_uint]),
    "rocjit_registered_options_init": (c_int, [POINTER(RegisteredOptions), c_uint]),
    "rocjit_stats_init": (c_int, [POINTER(Stats), c_uint]),
    "rocjit_counters_init": (c_int, [POINTER(Counters), c_uint]),
    "rocjit_remote_counters_init": (c_int, [POINTER(RemoteCounters), c_uint]),
    "rocjit_counters_get": (c_int, [POINTER(Counters), ctx_p]),
    "rocjit_register_sources_v2": (c_int, [POINTER(SourceFile), c_size_t, c_size_t]),
    "rocjit_register_headers_v2": (c_int, [POINTER(SourceFile), c_size_t, c_size_t]),
    "rocjit_codeobj_info_free": (None, [POINTER(CodeobjInfo)]),
    "rocjit_compiler_targets_get": (c_int, [c_char_p, c_size_t, c_int]),
    "rocjit_device_count_get": (c_int, [POINTER(c_int), c_int]),
    "rocjit_device_target_get": (c_int, [c_char_p, c_size_t, c_int, c_int]),
    "rocjit_set_log_callback": (None, [LOG_FN, c_void_p]),
    "rocjit_last_log": (c_char_p, []),
    # issue 29: what a launch needs beyond grid and block, and resources (a library
    # before it lacks them; _core says so when one is called)
    "rocjit_kernel_native_init": (c_int, [POINTER(KernelNative), c_uint]),
    "rocjit_kernel_native_get": (c_int, [POINTER(KernelNative), kernel_p]),
    "rocjit_kernel_attribute_get": (c_int, [POINTER(c_int), kernel_p, c_int]),
    "rocjit_kernel_attribute_set": (c_int, [kernel_p, c_int, c_int]),
    "rocjit_kernel_occupancy_get": (c_int, [POINTER(c_int), kernel_p, c_uint, c_size_t]),
    "rocjit_kernel_block_size_get": (
        c_int,
        [POINTER(c_int), POINTER(c_int), kernel_p, c_size_t, c_uint],
    ),
    "rocjit_kernel_launch_cooperative": (
        c_int,
        [kernel_p, Dim3, Dim3, c_uint, c_void_p, POINTER(c_void_p)],
    ),
    "rocjit_global_get": (c_int, [POINTER(c_void_p), POINTER(c_size_t), kernel_p, c_char_p]),
    "rocjit_global_write": (c_int, [kernel_p, c_char_p, c_size_t, c_void_p, c_size_t, c_void_p]),
    "rocjit_global_read": (c_int, [c_void_p, kernel_p, c_char_p, c_size_t, c_size_t, c_void_p]),
    "rocjit_kernel_resources_init": (c_int, [POINTER(KernelResources), c_uint]),
    "rocjit_codeobj_resources_get": (
        c_int,
        [POINTER(KernelResources), c_void_p, c_size_t, c_char_p],
    ),
    "rocjit_kernel_resources_get": (c_int, [POINTER(KernelResources), kernel_p]),
    # bundles, signing, pushing to the remote tier (issues 21-27)
    "rocjit_bundle_export": (
        c_int, [ctx_p, c_char_p, POINTER(c_char_p), c_size_t, POINTER(c_size_t)]),
    "rocjit_bundle_import_v2": (
        c_int,
        [ctx_p, c_char_p, POINTER(c_size_t), POINTER(c_size_t), REJECT_FN, c_void_p],
    ),
    "rocjit_keygen": (c_int, [c_char_p, c_char_p, c_char_p, c_size_t]),
    "rocjit_cache_sign": (c_int, [ctx_p, POINTER(c_char_p), c_size_t, POINTER(c_size_t)]),
    "rocjit_bundle_sign": (
        c_int, [ctx_p, c_char_p, POINTER(c_char_p), c_size_t, POINTER(c_size_t)]),
    "rocjit_remote_push": (
        c_int,
        [ctx_p, POINTER(c_char_p), c_size_t, POINTER(c_size_t), POINTER(c_size_t),
         POINTER(c_size_t), REJECT_FN, c_void_p],
    ),
    # the spellings issue 17 deprecates (a library may one day drop them)
    "rocjit_cache_counters": (c_int, [ctx_p, POINTER(CountersV0)]),
    "rocjit_codeobj_free": (None, [POINTER(CodeobjInfo)]),
    "rocjit_compiler_targets": (c_int, [c_int, c_char_p, c_size_t]),
    "rocjit_device_count": (c_int, [c_int, POINTER(c_int)]),
    "rocjit_device_target": (c_int, [c_int, c_int, c_char_p, c_size_t]),
}


class LibraryNotFoundError(OSError):
    """librocjit could not be loaded; the message says what was tried and what to set."""


class Lib:
    """The loaded library: attributes are the declared functions."""

    def __init__(self, cdll: ctypes.CDLL, path: str):
        self.cdll = cdll
        self.path = path
        self.missing = []
        for name, (restype, argtypes) in _REQUIRED.items():
            fn = getattr(cdll, name)  # AttributeError: not a rocjit we can bind
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)
        for name, (restype, argtypes) in _OPTIONAL.items():
            fn = getattr(cdll, name, None)
            if fn is None:
                self.missing.append(name)
                continue
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)

    def has(self, name: str) -> bool:
        return hasattr(self, name)


def _repo_build_candidates():
    """librocjit in the repository's build folders, when this file lies in a checkout
    (bindings/python/rocjit/_lib.py): for in-tree development."""
    root = Path(__file__).resolve().parents[3]
    if not (root / "include" / "rocjit.h").is_file():
        return []
    names = SONAMES + ("librocjit.so",)
    return [str(root / "build" / n) for n in names if (root / "build" / n).exists()]


def _candidates():
    """(how, name) pairs in the order they are tried."""
    env = os.environ.get("ROCJIT_LIBRARY")
    if env:
        # Explicit: only that one, so a wrong path is an error and not a silent fallback.
        return [("ROCJIT_LIBRARY", env)]
    out = [("dlopen", name) for name in SONAMES]
    found = ctypes.util.find_library("rocjit")
    if found:
        out.append(("find_library", found))
    out.extend(("build", path) for path in _repo_build_candidates())
    return out


_lock = threading.Lock()
_lib = None


def load() -> Lib:
    """The library, loaded on first use.  Raises LibraryNotFoundError."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for how, name in _candidates():
            try:
                cdll = ctypes.CDLL(name)
            except OSError as e:
                tried.append(f"{name} ({how}: {e})")
                continue
            try:
                lib = Lib(cdll, name)
            except AttributeError as e:
                tried.append(f"{name} ({how}: not a librocjit these bindings know: {e})")
                continue
            v = lib.rocjit_version()
            abi = (v // 10000, v // 100 % 100)
            if abi not in SUPPORTED_ABIS:
                tried.append(
                    f"{name} ({how}: librocjit {abi[0]}.{abi[1]}.{v % 100}; these "
                    f"bindings are for {', '.join('%d.%d' % a for a in SUPPORTED_ABIS)})"
                )
                continue
            _lib = lib
            return lib
        raise LibraryNotFoundError(
            "librocjit not found; set ROCJIT_LIBRARY to the library's path "
            "(e.g. ROCJIT_LIBRARY=/path/to/build/librocjit.so.0.1), or install it where "
            "the dynamic loader looks (ldconfig, LD_LIBRARY_PATH).  Tried: "
            + ("; ".join(tried) if tried else "nothing")
        )


def negotiate_version(lib: Lib, struct, init_name: str, base_version: int | None = None):
    """Initializes struct (an instance) for the newest version both sides know.

    With the library's rocjit_<struct>_init: tries the mirror's VERSION and then each older
    one down to base_version (the library refuses a version newer than its own).  Without
    it (a library before issue 17): zeroes nothing more and sets base_version (or VERSION),
    the version the header of that era had.
    """
    top = type(struct).VERSION
    low = base_version if base_version is not None else top
    fn = getattr(lib, init_name, None)
    if fn is None:
        struct.version = low
        return low
    for v in range(top, low - 1, -1):
        if fn(ctypes.byref(struct), v) == 0:
            return v
    raise RuntimeError(f"{init_name} refused versions {low}..{top}")
