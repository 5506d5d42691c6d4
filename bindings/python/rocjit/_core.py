"""Contexts, kernels, code objects and cache administration on top of rocjit._lib.

Owns the Python objects users hold and the conversions between Python values and the C
structs.  Every C call is checked here: a negative return becomes the RocjitError subclass
of its code with rocjit_last_error()'s text (and the compiler log where one ran).
"""

from __future__ import annotations

import ctypes
import dataclasses
import enum
import os
import sys
import threading
from ctypes import byref, c_char_p, c_int, c_size_t, c_uint64, c_void_p, sizeof
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from . import _args, _errors, _lib, _log
from ._errors import error_for

# ---- Constants (include/rocjit.h; tests/test_layout.py compares them with the header) -----

PLATFORM_AUTO, PLATFORM_AMD, PLATFORM_NVIDIA = 0, 1, 2
LANG_AUTO, LANG_HIP, LANG_CUDA = 0, 1, 2
OPEN_NO_CACHE, OPEN_NO_COMPILE, OPEN_READONLY, OPEN_COMPILE_INPROCESS = 0x1, 0x2, 0x4, 0x8
REQUIRE_SIGNED_DEFAULT, REQUIRE_SIGNED_NONE = 0, 1
REQUIRE_SIGNED_SHARED, REQUIRE_SIGNED_ALL = 2, 3
REMOTE_NONE, REMOTE_UP, REMOTE_OFF = 0, 1, 2
SIGNATURE_NONE, SIGNATURE_UNCHECKED, SIGNATURE_TRUSTED = 0, 1, 2
SIGNATURE_UNTRUSTED, SIGNATURE_BAD = 3, 4
VERIFY_CHECKSUM, VERIFY_OBJECT, VERIFY_SIGNATURE = 1, 2, 3
LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG = 1, 2, 3, 4



class Attribute(enum.IntEnum):
    """Function attributes (ROCJIT_ATTR_*: the values of CUfunction_attribute and
    hipFunction_attribute) for Kernel.attribute / set_attribute.  All can be read; only
    MAX_DYNAMIC_SHARED_BYTES and PREFERRED_SHARED_CARVEOUT can be set."""

    MAX_THREADS_PER_BLOCK = 0  # the most threads a block may have
    SHARED_BYTES = 1  # static shared memory (LDS)
    CONST_BYTES = 2  # constant memory it uses
    LOCAL_BYTES = 3  # local (scratch) bytes per thread
    NUM_REGS = 4  # registers per thread
    PTX_VERSION = 5  # NVIDIA: PTX version, 10*major+minor
    BINARY_VERSION = 6  # the binary's architecture, 10*major+minor
    MAX_DYNAMIC_SHARED_BYTES = 8  # get, set: the most dynamic shared memory a launch takes
    PREFERRED_SHARED_CARVEOUT = 9  # get, set (NVIDIA): percent of L1 as shared, -1 default


ATTR_MAX_THREADS_PER_BLOCK = Attribute.MAX_THREADS_PER_BLOCK
ATTR_SHARED_BYTES = Attribute.SHARED_BYTES
ATTR_CONST_BYTES = Attribute.CONST_BYTES
ATTR_LOCAL_BYTES = Attribute.LOCAL_BYTES
ATTR_NUM_REGS = Attribute.NUM_REGS
ATTR_PTX_VERSION = Attribute.PTX_VERSION
ATTR_BINARY_VERSION = Attribute.BINARY_VERSION
ATTR_MAX_DYNAMIC_SHARED_BYTES = Attribute.MAX_DYNAMIC_SHARED_BYTES
ATTR_PREFERRED_SHARED_CARVEOUT = Attribute.PREFERRED_SHARED_CARVEOUT

_PLATFORMS = {"auto": PLATFORM_AUTO, "amd": PLATFORM_AMD, "nvidia": PLATFORM_NVIDIA}
_LANGS = {"auto": LANG_AUTO, "hip": LANG_HIP, "cuda": LANG_CUDA}

# Kernel argument types: rocjit.f32(1.5), rocjit.i32(3), ... (ctypes types; any ctypes
# instance, a Structure passed by value included, is accepted by Kernel.launch).
f32, f64 = ctypes.c_float, ctypes.c_double
i8, i16, i32, i64 = ctypes.c_int8, ctypes.c_int16, ctypes.c_int32, ctypes.c_int64
u8, u16, u32, u64 = ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32, ctypes.c_uint64
ptr = ctypes.c_void_p

_LOG_BUF_SIZE = 1 << 16

# ---- Library access and error checking ----------------------------------------------------

_hook_lock = threading.Lock()
_hooked = False


def _L() -> _lib.Lib:
    """The library; the first call also routes its diagnostics to logging."""
    global _hooked
    lib = _lib.load()
    if not _hooked:
        with _hook_lock:
            if not _hooked:
                _hooked = True
                _log.install_default()
    return lib


def _text(b) -> str:
    return b.decode("utf-8", "replace") if b else ""


def _raise(rc: int, log: str = "") -> None:
    lib = _lib.load()
    message = _text(lib.rocjit_last_error())
    raise error_for(rc, message, _text(lib.rocjit_strerror(rc)), log)


def _check(rc: int) -> int:
    if rc < 0:
        _raise(rc)
    return rc


def _optional(lib, name: str, since: str = ""):
    """A function of _lib._OPTIONAL, or UnsupportedError from a library without it."""
    fn = getattr(lib, name, None)
    if fn is None:
        raise _errors.UnsupportedError(
            _errors.EUNSUPPORTED, f"{name}: the librocjit at {lib.path} predates it{since}; "
            "use a newer librocjit (ROCJIT_LIBRARY)", "not supported")
    return fn


def _issue29(lib, name: str):
    """An issue 29 function, or UnsupportedError from a library that predates it."""
    return _optional(lib, name, " (issue 29)")


def _keys(keys):
    """Cache keys (32-hex-digit strings or Entry objects, or one of them) -> _strings."""
    if isinstance(keys, (str, bytes, Entry)):
        keys = [keys]
    return _strings([k.key if isinstance(k, Entry) else k for k in keys], "keys")


def _b(s, what: str) -> bytes | None:
    """str / bytes / os.PathLike -> bytes (None stays None)."""
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    if isinstance(s, str):
        return s.encode("utf-8")
    if isinstance(s, os.PathLike):
        return os.fsencode(s)
    raise TypeError(f"{what} must be str or bytes, not {type(s).__name__}")


def _strings(seq, what: str):
    """A sequence of str -> (c_char_p array or None, count, kept bytes)."""
    if seq is None:
        return None, 0, []
    if isinstance(seq, (str, bytes)):
        raise TypeError(f"{what} must be a sequence of strings (one item each), not a string")
    items = [_b(s, what) for s in seq]
    if not items:
        return None, 0, []
    arr = (c_char_p * len(items))(*items)
    return arr, len(items), items


def _platform(p) -> int:
    if p is None:
        return PLATFORM_AUTO
    if isinstance(p, str):
        try:
            return _PLATFORMS[p.lower()]
        except KeyError:
            raise ValueError(f"platform must be one of {sorted(_PLATFORMS)}, not {p!r}") from None
    return int(p)


def _language(lang) -> int:
    if lang is None:
        return LANG_AUTO
    if isinstance(lang, str):
        try:
            return _LANGS[lang.lower()]
        except KeyError:
            raise ValueError(f"language must be one of {sorted(_LANGS)}, not {lang!r}") from None
    return int(lang)


def _last_log(lib, program) -> str:
    """The compiler log of this thread's last request: rocjit_last_log (issue 17), else
    the program's log buffer (libraries before it)."""
    if lib.has("rocjit_last_log"):
        return _text(lib.rocjit_last_log())
    buf = getattr(program, "_log_buf", None) if program is not None else None
    return _text(buf.value) if buf is not None else ""


# ---- Value types returned to users --------------------------------------------------------


def _dataclass_of(name: str, struct, doc: str):
    """A frozen dataclass with struct's fields (less version): char arrays become str."""
    fields = []
    for fname, ftype in struct._fields_:
        if fname == "version":
            continue
        if isinstance(ftype, type) and issubclass(ftype, ctypes.Array):
            fields.append((fname, str))
        elif ftype in (ctypes.c_double, ctypes.c_float):
            fields.append((fname, float))
        else:
            fields.append((fname, int))
    cls = dataclasses.make_dataclass(name, fields, frozen=True)
    cls.__doc__ = doc
    cls.__module__ = "rocjit"
    return cls


def _from_struct(cls, s):
    """cls from s; a field an older struct lacks (CountersV0's failures) reads 0."""
    values = {}
    for f in dataclasses.fields(cls):
        v = getattr(s, f.name, 0)
        values[f.name] = _text(v) if isinstance(v, bytes) else v
    return cls(**values)


Stats = _dataclass_of(
    "Stats",
    _lib.Stats,
    "rocjit_stats: this context's hits, misses and compiles, the cache's size, the "
    "workers, the remote tier and signatures (see include/rocjit.h for each field).",
)
Counters = _dataclass_of(
    "Counters",
    _lib.Counters,
    "rocjit_counters: the cache's counters across processes since the last zero().",
)
RemoteCounters = _dataclass_of(
    "RemoteCounters",
    _lib.RemoteCounters,
    "rocjit_remote_counters: the remote tier's counters kept in the cache.",
)


KernelResources = _dataclass_of(
    "KernelResources",
    _lib.KernelResources,
    "rocjit_kernel_resources: what a kernel uses as its code object records it, read with "
    "no GPU (registers, agprs, sgprs, vgpr_spills, sgpr_spills, scratch_bytes, "
    "dynamic_stack, shared_bytes, param_bytes, max_threads, wavefront; see "
    "include/rocjit.h for each field).",
)


def _resources(fn, *args) -> "KernelResources":
    r = _lib.KernelResources()
    _lib.negotiate_version(_L(), r, "rocjit_kernel_resources_init")
    _check(fn(byref(r), *args))
    res = _from_struct(KernelResources, r)
    return dataclasses.replace(res, dynamic_stack=bool(res.dynamic_stack))


@dataclasses.dataclass(frozen=True)
class KernelNative:
    """The driver's own handles of a kernel (rocjit_kernel_native), to launch or query it
    with the platform's API (CuPy, cuda-python, hip-python).  Owned by the context: valid
    while it is open, never to be unloaded by the caller."""

    platform: int  # PLATFORM_AMD (HIP handles) or PLATFORM_NVIDIA (CUDA handles)
    device: int  # the device ordinal the module is loaded on
    function: int  # AMD: hipFunction_t.  NVIDIA: CUfunction
    module: int  # AMD: hipModule_t.  NVIDIA: CUmodule, in the device's primary context


class BlockSize(NamedTuple):
    """Kernel.suggested_block_size: the block size with the highest occupancy, and the
    fewest blocks that fill the device at it."""

    block_threads: int
    min_grid_blocks: int


class GlobalVar(NamedTuple):
    """Kernel.get_global: a module variable's device address (valid while the context
    is open) and size in bytes."""

    address: int
    size: int


@dataclasses.dataclass(frozen=True)
class Entry:
    """One cache entry (rocjit_entry)."""

    key: str
    platform: str
    target: str
    compiler: str
    options: str
    source_name: str
    headers: list
    kernels: list
    size: int
    created: int
    last_used: int
    hits: int
    compile_ms: float
    name_expressions: dict  # expression -> lowered name
    pkey: str
    signer: str
    signature: int  # SIGNATURE_*


def _entry(p) -> Entry:
    e = p.contents
    pairs = {}
    for line in _text(e.name_expressions).split("\n"):
        if "\t" in line:
            expr, lowered = line.split("\t", 1)
            pairs[expr] = lowered
    return Entry(
        key=_text(e.key),
        platform=_text(e.platform),
        target=_text(e.target),
        compiler=_text(e.compiler),
        options=_text(e.options),
        source_name=_text(e.source_name),
        headers=[h for h in _text(e.headers).split(" ") if h],
        kernels=[k for k in _text(e.kernels).split(",") if k],
        size=e.size,
        created=e.created,
        last_used=e.last_used,
        hits=e.hits,
        compile_ms=e.compile_ms,
        name_expressions=pairs,
        pkey=_text(e.pkey),
        signer=_text(e.signer),
        signature=e.signature,
    )


@dataclasses.dataclass(frozen=True)
class BadEntry:
    """An entry verify() found bad: reason is VERIFY_CHECKSUM, _OBJECT or _SIGNATURE."""

    entry: Entry
    reason: int
    message: str


@dataclasses.dataclass(frozen=True)
class VerifyResult:
    checked: int
    bad: list  # of BadEntry

    @property
    def ok(self) -> bool:
        return not self.bad


class Transfer(NamedTuple):
    """What import_bundle / push did: entries copied (pushed), already there (push
    only), and [(key, reason)] of those refused (or that failed)."""

    done: int
    present: int
    refused: list


@dataclasses.dataclass(frozen=True)
class CodeObjectInfo:
    """What a code object says about itself (rocjit_codeobj_inspect)."""

    platform: int
    target: str
    flags_target: str
    kernels: list


@dataclasses.dataclass(frozen=True)
class CodeObject:
    """A compiled code object (rocjit_code), copied out of the context."""

    data: bytes = dataclasses.field(repr=False)
    target: str
    key: str
    from_cache: bool  # no compile ran for this request: a disk (or remote) hit, or a
    # repeat served by the context's in-memory table (rocjit_code.from_cache says 0
    # there: the object is the one this context compiled; see Context.compile)
    compile_ms: float
    lowered_names: dict  # name expression -> lowered (mangled) kernel name
    log: str = dataclasses.field(repr=False)  # compiler log of a compile done now, or ""

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def kernels(self) -> list:
        """Kernel symbols in the object (rocjit_codeobj_inspect)."""
        return inspect(self.data).kernels

    def resources(self, kernel: str) -> "KernelResources":
        """What kernel (a symbol, as .kernels lists it) uses, read from this code object
        with no GPU (rocjit_codeobj_resources_get).  NotFoundError: no such kernel."""
        return resources(self.data, kernel)

    def all_resources(self) -> dict:
        """{kernel symbol: KernelResources} for every kernel of the object."""
        return {k: self.resources(k) for k in self.kernels}


# ---- Building the C structs ---------------------------------------------------------------


def _program(lib, source, name, options, headers, name_expressions, language):
    """A rocjit_program for the call; everything it points to is kept on it."""
    p = _lib.Program()
    version = _lib.negotiate_version(lib, p, "rocjit_program_init", _lib.Program.BASE_VERSION)
    keep = []
    src = _b(source, "source")
    if src is None:
        raise TypeError("source must be given")
    p.source, p.length = src, len(src)
    keep.append(src)
    p.name = _b(name, "name")
    keep.append(p.name)
    arr, n, items = _strings(options, "options")
    if arr is not None:
        p.options, p.num_options = arr, n
    keep += [arr, items]
    if headers:
        pairs = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
        harr = (_lib.Header * len(pairs))()
        for i, (hname, htext) in enumerate(pairs):
            hn, ht = _b(hname, "header name"), _b(htext, "header text")
            harr[i].name, harr[i].source, harr[i].length = hn, ht, len(ht)
            keep += [hn, ht]
        p.headers, p.num_headers = harr, len(pairs)
        keep.append(harr)
    if version >= 3:
        p.header_size = sizeof(_lib.Header)
    p.language = _language(language)
    arr, n, items = _strings(name_expressions, "name_expressions")
    if arr is not None:
        p.name_expressions, p.num_name_expressions = arr, n
    keep += [arr, items]
    if not lib.has("rocjit_last_log"):
        buf = ctypes.create_string_buffer(_LOG_BUF_SIZE)
        p.log, p.log_size = ctypes.addressof(buf), _LOG_BUF_SIZE
        p._log_buf = buf
    p._keep = keep
    return p


def _registered_options(lib, options, name_expressions):
    o = _lib.RegisteredOptions()
    _lib.negotiate_version(lib, o, "rocjit_registered_options_init")
    keep = []
    arr, n, items = _strings(options, "options")
    if arr is not None:
        o.options, o.num_options = arr, n
    keep += [arr, items]
    arr, n, items = _strings(name_expressions, "name_expressions")
    if arr is not None:
        o.name_expressions, o.num_name_expressions = arr, n
    keep += [arr, items]
    o._keep = keep
    return o


def _dim3(v, what: str) -> _lib.Dim3:
    t = (v,) if isinstance(v, int) else tuple(v)
    if not 1 <= len(t) <= 3:
        raise ValueError(f"{what} must be an int or 1 to 3 ints, not {v!r}")
    t = t + (1,) * (3 - len(t))
    for x in t:
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < 1 << 32:
            raise ValueError(f"{what} must hold unsigned 32-bit ints, not {v!r}")
    return _lib.Dim3(*t)


_arg = _args.kernel_arg
_stream = _args.stream_handle


def _host_buffer(data, what: str, writable: bool, stream):
    """(address or None, bytes, what keeps the memory alive) of a host buffer: bytes or
    anything with the buffer protocol (bytearray, memoryview, array.array, NumPy),
    C-contiguous.  A read-only buffer that is not bytes is copied, which only a
    synchronous copy (no stream) allows: a queued one reads the memory later."""
    if isinstance(data, bytes) and not writable:
        # c_char_p points into the bytes object itself: no copy.
        return ctypes.cast(c_char_p(data), c_void_p).value, len(data), data
    try:
        mv = memoryview(data)
    except TypeError:
        raise TypeError(f"{what} must support the buffer protocol (bytes, bytearray, "
                        f"memoryview, array.array, a NumPy array), not "
                        f"{type(data).__name__}") from None
    if not mv.c_contiguous:
        raise ValueError(f"{what} must be C-contiguous (e.g. numpy.ascontiguousarray)")
    mv = mv.cast("B")
    if mv.nbytes == 0:
        return None, 0, mv
    if not mv.readonly:
        buf = (ctypes.c_char * mv.nbytes).from_buffer(mv)
    elif writable:
        raise TypeError(f"{what} is read-only: give a writable buffer (bytearray, a "
                        "writable NumPy array, ...)")
    elif stream is None:
        buf = (ctypes.c_char * mv.nbytes).from_buffer_copy(mv)
    else:
        raise TypeError(f"{what}: with a stream, give bytes or a writable buffer (a "
                        "read-only one would be copied, and the copy freed before the "
                        "stream reads it)")
    return ctypes.addressof(buf), mv.nbytes, buf


# ---- Kernel ---------------------------------------------------------------------------------


class Kernel:
    """A launchable kernel (rocjit_kernel), valid while its Context is open.  Shareable
    between threads."""

    __slots__ = ("_ctx", "_handle", "name", "_platform")

    def __init__(self, ctx: "Context", handle: int):
        self._ctx = ctx
        self._handle = handle
        self._platform = None
        self.name = _text(_L().rocjit_kernel_name(handle))

    def _launch_stream(self, stream):
        """stream None: CuPy's current stream when CuPy is in use, for this kernel's
        platform (asked once: a launch needs the device anyway)."""
        if stream is not None:
            return _stream(stream)
        if "cupy" not in sys.modules:
            return None
        if self._platform is None:
            try:
                self._platform = self.native().platform
            except _errors.UnsupportedError:  # a librocjit before issue 29
                self._platform = 0
        return _args.current_stream(self._platform or None)

    def _h(self):
        if self._ctx._handle is None:
            raise _errors.InvalidArgumentError(
                _errors.EINVAL, f"kernel {self.name}: its context is closed", "invalid argument")
        return self._handle

    def _launch(self, fn, grid, block, args, shared_mem, stream) -> None:
        h = self._h()
        g, b = _dim3(grid, "grid"), _dim3(block, "block")
        if isinstance(shared_mem, bool) or not 0 <= int(shared_mem) < 1 << 32:
            raise ValueError(f"shared_mem must be 0 to 2**32-1 bytes, not {shared_mem!r}")
        values = [_arg(a, i) for i, a in enumerate(args)]
        ptrs = (c_void_p * max(len(values), 1))()
        for i, v in enumerate(values):
            ptrs[i] = ctypes.addressof(v)
        rc = fn(h, g, b, int(shared_mem), self._launch_stream(stream), ptrs)
        if rc < 0:
            _raise(rc)

    def launch(self, grid, block, args: Sequence[Any] = (), shared_mem: int = 0,
               stream=None) -> None:
        """Launches on stream: an int handle (0: the legacy default stream), an object
        with .ptr such as cupy.cuda.Stream, or __cuda_stream__; None: CuPy's current
        stream when the program imported CuPy, else the legacy default stream.  grid,
        block: an int or 1 to 3 ints.  args: converted as CuPy's RawKernel converts them
        (see rocjit/_args.py): Python and NumPy scalars by their type, CuPy arrays and
        __cuda_array_interface__ objects by address, rocjit.Pointer(addr), ctypes
        values.  Asynchronous."""
        self._launch(_L().rocjit_kernel_launch, grid, block, args, shared_mem, stream)

    def launch_cooperative(self, grid, block, args: Sequence[Any] = (), shared_mem: int = 0,
                           stream=None) -> None:
        """As launch, as a cooperative launch (rocjit_kernel_launch_cooperative): every
        block is resident at once, so the kernel may synchronize the whole grid
        (cooperative groups' this_grid().sync()).  A grid larger than the device holds at
        once raises InvalidArgumentError, the message giving the most blocks it takes."""
        fn = _issue29(_L(), "rocjit_kernel_launch_cooperative")
        self._launch(fn, grid, block, args, shared_mem, stream)

    # -- what a launch needs beyond grid and block (issue 29); each needs the GPU

    def native(self) -> KernelNative:
        """The kernel's native function and module (rocjit_kernel_native_get): ints,
        owned by the context, valid while it is open."""
        lib = _L()
        n = _lib.KernelNative()
        _lib.negotiate_version(lib, n, "rocjit_kernel_native_init")
        _check(_issue29(lib, "rocjit_kernel_native_get")(byref(n), self._h()))
        return KernelNative(platform=n.platform, device=n.device,
                            function=n.function or 0, module=n.module or 0)

    def attribute(self, attribute: Attribute) -> int:
        """A function attribute's value from the driver (rocjit_kernel_attribute_get).
        UnsupportedError where the platform has no such attribute."""
        v = c_int()
        fn = _issue29(_L(), "rocjit_kernel_attribute_get")
        _check(fn(byref(v), self._h(), int(attribute)))
        return v.value

    def set_attribute(self, attribute: Attribute, value: int) -> None:
        """Sets Attribute.MAX_DYNAMIC_SHARED_BYTES (needed on NVIDIA before a launch with
        more than 48 KB of dynamic shared memory) or PREFERRED_SHARED_CARVEOUT, for every
        later launch of this kernel (rocjit_kernel_attribute_set).  A value above the
        device's limit raises InvalidArgumentError naming the limit."""
        fn = _issue29(_L(), "rocjit_kernel_attribute_set")
        _check(fn(self._h(), int(attribute), int(value)))

    def occupancy(self, block, shared_mem: int = 0) -> int:
        """How many blocks of `block` threads (an int), each with shared_mem bytes of
        dynamic shared memory, fit on one multiprocessor at once
        (rocjit_kernel_occupancy_get)."""
        n = c_int()
        fn = _issue29(_L(), "rocjit_kernel_occupancy_get")
        _check(fn(byref(n), self._h(), int(block), int(shared_mem)))
        return n.value

    def suggested_block_size(self, shared_mem: int = 0, block_limit: int = 0) -> BlockSize:
        """The block size with the highest occupancy, at most block_limit threads (0: the
        kernel's own limit), and the fewest blocks that fill the device at it
        (rocjit_kernel_block_size_get)."""
        threads, grid = c_int(), c_int()
        fn = _issue29(_L(), "rocjit_kernel_block_size_get")
        _check(fn(byref(threads), byref(grid), self._h(), int(shared_mem), int(block_limit)))
        return BlockSize(threads.value, grid.value)

    def get_global(self, name: str) -> GlobalVar:
        """A __device__ or __constant__ variable of the kernel's module by its symbol name
        (rocjit_global_get): (address, size).  NotFoundError lists the module's
        variables."""
        address, size = c_void_p(), c_size_t()
        fn = _issue29(_L(), "rocjit_global_get")
        _check(fn(byref(address), byref(size), self._h(), _b(name, "name")))
        return GlobalVar(address.value or 0, size.value)

    def write_global(self, name: str, data, offset: int = 0, stream=None) -> None:
        """Copies data (bytes, bytearray, memoryview, array.array, a NumPy array: any
        C-contiguous buffer) into the variable name, offset bytes in
        (rocjit_global_write).  stream None: done when the call returns; else queued on
        stream, and data must stay alive and unchanged until the stream ran the copy."""
        s = _stream(stream)
        address, nbytes, _keep = _host_buffer(data, "data", False, s)
        fn = _issue29(_L(), "rocjit_global_write")
        _check(fn(self._h(), _b(name, "name"), int(offset), address, nbytes, s))

    def read_global(self, name: str, out=None, *, offset: int = 0, size: int | None = None,
                    stream=None):
        """The variable name's bytes from offset on (rocjit_global_read).  Without out:
        returns bytes (size of them; default: to the variable's end).  With out (a
        writable C-contiguous buffer: bytearray, NumPy array, ...): fills all of it and
        returns it.  stream None: done when the call returns; else queued on stream (out
        needed), and out must not be used until the stream ran the copy."""
        s = _stream(stream)
        fn = _issue29(_L(), "rocjit_global_read")
        if out is None:
            if s is not None:
                raise TypeError("read_global with a stream needs out= (a buffer to fill "
                                "once the stream runs the copy)")
            if size is None:
                size = max(self.get_global(name).size - int(offset), 0)
            buf = ctypes.create_string_buffer(int(size))
            _check(fn(buf, self._h(), _b(name, "name"), int(offset), int(size), None))
            return buf.raw
        address, nbytes, _keep = _host_buffer(out, "out", True, s)
        _check(fn(address, self._h(), _b(name, "name"), int(offset), nbytes, s))
        return out

    def resources(self) -> "KernelResources":
        """What the kernel uses, read from the code object it was loaded from when asked
        (rocjit_kernel_resources_get), not from the driver."""
        return _resources(_issue29(_L(), "rocjit_kernel_resources_get"), self._h())

    def __call__(self, grid, block, args: Sequence[Any] = (), *, shared_mem: int = 0,
                 stream=None) -> None:
        """Same as launch (CuPy RawKernel's calling convention)."""
        self.launch(grid, block, args, shared_mem=shared_mem, stream=stream)

    def __repr__(self) -> str:
        return f"<rocjit.Kernel {self.name}>"


# ---- Context --------------------------------------------------------------------------------


class Context:
    """A rocjit context (rocjit_open): one device, one cache, the in-process table.

    Arguments are rocjit_options' fields (None: the library's default, which reads the
    environment: ROCJIT_CACHE_DIR, ROCJIT_ARCH, ROCJIT_REMOTE, ...).  flags: OPEN_* bits;
    no_cache / no_compile / readonly add OPEN_NO_CACHE / _NO_COMPILE / _READONLY.

    Internally locked: any thread may use it.  close() (or leaving the with block) frees
    every kernel it returned; call it when no other thread uses the context.
    """

    def __init__(self, cache_dir=None, target=None, flags: int = 0, remote=None, *,
                 platform=None, device: int = 0, bundles=None, signing_key=None,
                 trusted_keys=None, require_signed: int | None = None,
                 no_cache: bool = False, no_compile: bool = False, readonly: bool = False):
        self._handle = None
        self._returned = set()  # addresses of the rocjit_code objects compile() returned
        lib = _L()
        o = _lib.Options()
        _lib.negotiate_version(lib, o, "rocjit_options_init")
        if isinstance(bundles, (list, tuple)):
            bundles = ":".join(os.fspath(x) for x in bundles)
        keep = [_b(cache_dir, "cache_dir"), _b(target, "target"), _b(bundles, "bundles"),
                _b(remote, "remote"), _b(signing_key, "signing_key"),
                _b(trusted_keys, "trusted_keys")]
        (o.cache_dir, o.target, o.bundles, o.remote, o.signing_key, o.trusted_keys) = keep
        o.platform = _platform(platform)
        o.device = int(device)
        o.flags = (int(flags) | (OPEN_NO_CACHE if no_cache else 0)
                   | (OPEN_NO_COMPILE if no_compile else 0) | (OPEN_READONLY if readonly else 0))
        if require_signed is not None:
            o.require_signed = int(require_signed)
        h = c_void_p()
        _check(lib.rocjit_open(byref(h), byref(o)))
        self._handle = h.value
        self._close_fn = lib.rocjit_close

    # -- lifetime

    def _compiles(self) -> int:
        """The context's compiles so far: a version 1 rocjit_stats reads only counters."""
        s = _lib.Stats()
        s.version = 1
        _check(_L().rocjit_stats_get(byref(s), self._h()))
        return s.compiles

    def close(self) -> None:
        """Closes the context (rocjit_close); its kernels may not be launched after."""
        h, self._handle = self._handle, None
        self._returned.clear()
        if h is not None:
            self._close_fn(h)

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    @property
    def closed(self) -> bool:
        return self._handle is None

    def _h(self):
        if self._handle is None:
            raise _errors.InvalidArgumentError(_errors.EINVAL, "the context is closed",
                                               "invalid argument")
        return self._handle

    # -- compiling and getting kernels

    def compile(self, source=None, *, name=None, options: Sequence[str] = (), headers=None,
                name_expressions: Sequence[str] = (), target=None, language=None,
                registered=None) -> CodeObject:
        """The code object of source for target (None: the context's target), from the
        cache or compiled and stored (rocjit_compile); no GPU needed with a target.

        registered="file.hip" instead of source compiles a registered source
        (rocjit_compile_registered_v2; headers, name and language are its own)."""
        lib = _L()
        h = self._h()
        out = ctypes.POINTER(_lib.Code)()
        t = _b(target, "target")
        compiles = self._compiles()
        if registered is not None:
            if source is not None:
                raise TypeError("give source or registered, not both")
            o = _registered_options(lib, options, name_expressions)
            rc = lib.rocjit_compile_registered_v2(byref(out), h, t, _b(registered, "registered"),
                                                  byref(o))
            prog = None
        else:
            prog = _program(lib, source, name, options, headers, name_expressions, language)
            rc = lib.rocjit_compile(byref(out), h, t, byref(prog))
        if rc < 0:
            log = _last_log(lib, prog)
            _raise(rc, log)
        log = _last_log(lib, prog)
        code = out.contents
        lowered = {}
        for expr in name_expressions or ():
            name_out = c_char_p()
            _check(lib.rocjit_code_lowered_name(byref(name_out), out, _b(expr, "expression")))
            lowered[expr] = _text(name_out.value)
        # rocjit_code.from_cache is 1 only for an object read from disk or the remote
        # tier; an object this context compiled keeps 0 when a repeat request is served
        # from memory.  A request compiled nothing when its object was returned before
        # (exact, whatever other threads do) or no compile ran meanwhile (exact with
        # one thread; with several, another thread's compile makes it say False).
        address = ctypes.addressof(code)
        repeat = address in self._returned or self._compiles() == compiles
        self._returned.add(address)
        return CodeObject(
            data=ctypes.string_at(code.data, code.size),
            target=_text(code.target),
            key=_text(code.key),
            from_cache=bool(code.from_cache) or repeat,
            compile_ms=code.compile_ms,
            lowered_names=lowered,
            log=log,
        )

    def get_kernel(self, source=None, kernel: str | None = None, *, name=None,
                   options: Sequence[str] = (), headers=None,
                   name_expressions: Sequence[str] = (), language=None,
                   registered=None) -> Kernel:
        """The launchable kernel `kernel` (an extern "C" symbol, a mangled name, or one of
        name_expressions as given) of source, for the context's device (rocjit_kernel_get).

        registered="file.hip" instead of source takes a registered source
        (rocjit_kernel_get_registered_v2)."""
        if kernel is None:
            raise TypeError("kernel (the kernel's name) must be given")
        lib = _L()
        h = self._h()
        out = c_void_p()
        kname = _b(kernel, "kernel")
        if registered is not None:
            if source is not None:
                raise TypeError("give source or registered, not both")
            o = _registered_options(lib, options, name_expressions)
            rc = lib.rocjit_kernel_get_registered_v2(byref(out), h, _b(registered, "registered"),
                                                     kname, byref(o))
            prog = None
        else:
            prog = _program(lib, source, name, options, headers, name_expressions, language)
            rc = lib.rocjit_kernel_get(byref(out), h, byref(prog), kname)
        if rc < 0:
            _raise(rc, _last_log(lib, prog))
        return Kernel(self, out.value)

    # -- statistics

    def stats(self) -> Stats:
        """This context's statistics (rocjit_stats_get)."""
        lib = _L()
        s = _lib.Stats()
        _lib.negotiate_version(lib, s, "rocjit_stats_init")
        _check(lib.rocjit_stats_get(byref(s), self._h()))
        return _from_struct(Stats, s)

    def counters(self) -> Counters:
        """The cache's counters across processes since the last zero()."""
        lib = _L()
        if lib.has("rocjit_counters_get"):
            c = _lib.Counters()
            _lib.negotiate_version(lib, c, "rocjit_counters_init")
            _check(lib.rocjit_counters_get(byref(c), self._h()))
        else:
            c = _lib.CountersV0()
            _check(lib.rocjit_cache_counters(self._h(), byref(c)))
        return _from_struct(Counters, c)

    def remote_counters(self) -> RemoteCounters:
        """The remote tier's counters kept in the cache (rocjit_remote_counters_get)."""
        lib = _L()
        c = _lib.RemoteCounters()
        _lib.negotiate_version(lib, c, "rocjit_remote_counters_init")
        _check(lib.rocjit_remote_counters_get(byref(c), self._h()))
        return _from_struct(RemoteCounters, c)

    def zero(self) -> None:
        """Sets the cache's counters to zero (rocjit_cache_zero)."""
        _check(_L().rocjit_cache_zero(self._h()))

    # -- cache administration

    def entries(self) -> list:
        """Every cache entry, in key order (rocjit_cache_foreach)."""
        lib = _L()
        found, failure = [], []

        def each(p, user):
            try:
                found.append(_entry(p))
                return 0
            except BaseException as e:  # noqa: BLE001 - re-raised below
                failure.append(e)
                return 1

        rc = lib.rocjit_cache_foreach(self._h(), _lib.ENTRY_FN(each), None)
        if failure:
            raise failure[0]
        _check(rc)
        return found

    def find(self, prefix: str):
        """(Entry, code bytes) of the one entry whose key starts with prefix (at least 4
        hex digits); code is None when it fails its checksum (rocjit_cache_find).  Raises
        NotFoundError, InvalidArgumentError (ambiguous: the message lists the matches)."""
        lib = _L()
        result, failure = [], []

        def each(p, code, size, user):
            try:
                result.append((_entry(p), ctypes.string_at(code, size) if code else None))
                return 0
            except BaseException as e:  # noqa: BLE001
                failure.append(e)
                return 1

        rc = lib.rocjit_cache_find(self._h(), _b(prefix, "prefix"), _lib.FIND_FN(each), None)
        if failure:
            raise failure[0]
        _check(rc)
        return result[0]

    def remove(self, keys) -> int:
        """Removes entries (keys: 32-hex-digit strings or Entry objects, or one of them) in
        one transaction; returns how many existed (rocjit_cache_remove)."""
        arr, n, _keep = _keys(keys)
        removed = c_size_t()
        _check(_L().rocjit_cache_remove(self._h(), arr, n, byref(removed)))
        return removed.value

    # -- bundles, signing, the remote tier

    def export_bundle(self, path, keys) -> int:
        """Writes a new bundle file at path holding these entries (keys as remove()
        takes them), signed with the context's signing key when it has one; returns how
        many it wrote (rocjit_bundle_export)."""
        arr, n, _keep = _keys(keys)
        count = c_size_t()
        fn = _optional(_L(), "rocjit_bundle_export")
        _check(fn(self._h(), _b(path, "path"), arr, n, byref(count)))
        return count.value

    def import_bundle(self, path) -> "Transfer":
        """Copies a bundle's entries into the cache, each checked first (and its signature
        where the context trusts keys) (rocjit_bundle_import_v2).  Entries refused are in
        the result's .refused, not raised; the call raises only when the bundle cannot be
        used at all."""
        copied, rejected, refused = c_size_t(), c_size_t(), []
        cb = _lib.REJECT_FN(lambda key, why, user: refused.append((_text(key), _text(why))))
        fn = _optional(_L(), "rocjit_bundle_import_v2")
        rc = fn(self._h(), _b(path, "path"), byref(copied), byref(rejected), cb, None)
        if rc < 0 and not (rc == _errors.EFORMAT and rejected.value):
            _raise(rc)
        return Transfer(copied.value, 0, refused)

    def sign(self, keys=None) -> int:
        """Signs these entries (None: every entry) with the context's signing key, as far
        as their origin allows; returns how many carry such a signature
        (rocjit_cache_sign).  FormatError names entries it would not sign."""
        arr, n, _keep = _keys(keys) if keys is not None else (None, 0, None)
        count = c_size_t()
        _check(_optional(_L(), "rocjit_cache_sign")(self._h(), arr, n, byref(count)))
        return count.value

    def sign_bundle(self, path, keys=None) -> int:
        """sign() on the bundle file path (replaced by a signed copy; rocjit_bundle_sign)."""
        arr, n, _keep = _keys(keys) if keys is not None else (None, 0, None)
        count = c_size_t()
        fn = _optional(_L(), "rocjit_bundle_sign")
        _check(fn(self._h(), _b(path, "path"), arr, n, byref(count)))
        return count.value

    def push(self, keys) -> "Transfer":
        """Puts these entries on the remote tier, never replacing a value there
        (rocjit_remote_push).  Entries that could not be pushed are in .refused."""
        arr, n, _keep = _keys(keys)
        pushed, present, failed, refused = c_size_t(), c_size_t(), c_size_t(), []
        cb = _lib.REJECT_FN(lambda key, why, user: refused.append((_text(key), _text(why))))
        fn = _optional(_L(), "rocjit_remote_push")
        rc = fn(self._h(), arr, n, byref(pushed), byref(present), byref(failed), cb, None)
        if rc < 0 and not failed.value:
            _raise(rc)
        return Transfer(pushed.value, present.value, refused)

    def purge(self, where: Callable[[Entry], bool] | None = None, *, dry_run: bool = False,
              compact: bool = True) -> list:
        """Removes the entries where(entry) is true (None: every entry), then compacts the
        file; returns the entries removed (or that would be, with dry_run).  The Python
        spelling of `rocjit purge`: e.g. where=lambda e: e.target.startswith("gfx90a")."""
        chosen = [e for e in self.entries() if where is None or where(e)]
        if not dry_run and chosen:
            self.remove(chosen)
            if compact:
                self.compact()
        return chosen

    def compact(self) -> None:
        """Gives free pages back to the file system (rocjit_cache_compact)."""
        _check(_L().rocjit_cache_compact(self._h()))

    def verify(self, fix: bool = False) -> VerifyResult:
        """Checks every entry's checksum, code object and signature; with fix, removes the
        bad ones (rocjit_cache_verify)."""
        lib = _L()
        bad, failure = [], []

        def each(p, reason, message, user):
            try:
                bad.append(BadEntry(_entry(p), reason, _text(message)))
            except BaseException as e:  # noqa: BLE001
                failure.append(e)

        checked, bad_count = c_uint64(), c_uint64()
        rc = lib.rocjit_cache_verify(self._h(), 1 if fix else 0, _lib.VERIFY_FN(each), None,
                                     byref(checked), byref(bad_count))
        if failure:
            raise failure[0]
        _check(rc)
        return VerifyResult(checked=checked.value, bad=bad)

    def __repr__(self) -> str:
        return "<rocjit.Context closed>" if self.closed else f"<rocjit.Context {self._handle:#x}>"


# ---- Process-wide calls ---------------------------------------------------------------------


def version() -> str:
    """The loaded library's version, "0.1.0"."""
    v = _L().rocjit_version()
    return f"{v // 10000}.{v // 100 % 100}.{v % 100}"


def library_path() -> str:
    """The librocjit the bindings loaded (as it was found)."""
    return _L().path


def strerror(code: int) -> str:
    return _text(_L().rocjit_strerror(int(code)))


def last_log() -> str:
    """The compiler log of this thread's last request (rocjit_last_log; "" when the library
    predates issue 17: then see CodeObject.log and RocjitError.log)."""
    lib = _L()
    return _text(lib.rocjit_last_log()) if lib.has("rocjit_last_log") else ""


def normalize_target(target: str) -> str:
    """"gfx90a:xnack-:sramecc+" -> "gfx90a:sramecc+:xnack-" (rocjit_target_normalize)."""
    buf = ctypes.create_string_buffer(256)
    _check(_L().rocjit_target_normalize(buf, len(buf), _b(target, "target")))
    return _text(buf.value)


def target_platform(target: str) -> int:
    """PLATFORM_AMD for gfx*, PLATFORM_NVIDIA for sm_*, 0 otherwise."""
    return _L().rocjit_target_platform(_b(target, "target"))


def cache_dir(dir=None) -> str:
    """The cache folder a Context(cache_dir=dir) would use (rocjit_cache_dir)."""
    buf = ctypes.create_string_buffer(4096)
    _check(_L().rocjit_cache_dir(buf, len(buf), _b(dir, "dir")))
    return os.fsdecode(buf.value)


def compiler_identity(platform="amd") -> str:
    out = c_char_p()
    _check(_L().rocjit_compiler_identity(byref(out), _platform(platform)))
    return _text(out.value)


def compiler_targets(platform="amd") -> list:
    """The targets the platform's installed compiler supports."""
    lib = _L()
    buf = ctypes.create_string_buffer(1 << 16)
    if lib.has("rocjit_compiler_targets_get"):
        _check(lib.rocjit_compiler_targets_get(buf, len(buf), _platform(platform)))
    else:
        _check(lib.rocjit_compiler_targets(_platform(platform), buf, len(buf)))
    return _text(buf.value).split()


def device_count(platform="auto") -> int:
    """How many GPUs of the platform ("amd", "nvidia"; "auto": both) this machine has (0
    without a driver)."""
    lib = _L()
    p = _platform(platform)
    if p == PLATFORM_AUTO:
        return device_count(PLATFORM_AMD) + device_count(PLATFORM_NVIDIA)
    n = c_int()
    if lib.has("rocjit_device_count_get"):
        _check(lib.rocjit_device_count_get(byref(n), p))
    else:
        _check(lib.rocjit_device_count(p, byref(n)))
    return n.value


def device_target(platform="auto", device: int = 0) -> str:
    lib = _L()
    buf = ctypes.create_string_buffer(256)
    if lib.has("rocjit_device_target_get"):
        _check(lib.rocjit_device_target_get(buf, len(buf), _platform(platform), int(device)))
    else:
        _check(lib.rocjit_device_target(_platform(platform), int(device), buf, len(buf)))
    return _text(buf.value)


def inspect(data: bytes) -> CodeObjectInfo:
    """What a code object (AMDGPU ELF or CUBIN) says about itself (rocjit_codeobj_inspect)."""
    lib = _L()
    data = bytes(data)
    out = ctypes.POINTER(_lib.CodeobjInfo)()
    _check(lib.rocjit_codeobj_inspect(byref(out), data, len(data)))
    try:
        info = out.contents
        return CodeObjectInfo(
            platform=info.platform,
            target=_text(info.target),
            flags_target=_text(info.flags_target),
            kernels=[_text(info.kernels[i]) for i in range(info.num_kernels)],
        )
    finally:
        if lib.has("rocjit_codeobj_info_free"):
            lib.rocjit_codeobj_info_free(out)
        else:
            lib.rocjit_codeobj_free(out)


def resources(data, kernel: str) -> "KernelResources":
    """What kernel uses, read from a code object's bytes with no GPU, for any target
    (rocjit_codeobj_resources_get).  NotFoundError: no such kernel; FormatError: a
    malformed object or record."""
    data = bytes(data)
    fn = _issue29(_L(), "rocjit_codeobj_resources_get")
    return _resources(fn, data, len(data), _b(kernel, "kernel"))


_registered_keep = []  # registered sources must live as long as the process


def _register(files, what: str, v1: str, v2: str) -> None:
    lib = _L()
    pairs = list(files.items()) if isinstance(files, Mapping) else list(files)
    if not pairs:
        return
    arr = (_lib.SourceFile * len(pairs))()
    keep = [arr]
    for i, (name, text) in enumerate(pairs):
        n, t = _b(name, f"{what} name"), _b(text, f"{what} text")
        arr[i].name, arr[i].text, arr[i].length = n, t, len(t)
        keep += [n, t]
    _registered_keep.append(keep)
    if lib.has(v2):
        _check(getattr(lib, v2)(arr, len(pairs), sizeof(_lib.SourceFile)))
    else:
        _check(getattr(lib, v1)(arr, len(pairs)))


def keygen(name: str, dir) -> str:
    """Makes an ed25519 key pair, dir/NAME.secret (mode 0600: Context(signing_key=...))
    and dir/NAME.pub; returns the public key line "NAME:BASE64" to give consumers
    (Context(trusted_keys=...)) (rocjit_keygen)."""
    buf = ctypes.create_string_buffer(256)
    fn = _optional(_L(), "rocjit_keygen")
    _check(fn(_b(name, "name"), _b(dir, "dir"), buf, len(buf)))
    return _text(buf.value)


def register_sources(files) -> None:
    """Registers sources process-wide ({name: text} or (name, text) pairs), as the CMake
    function rocjit_add_kernels does; then get_kernel(registered=name, ...)."""
    _register(files, "source", "rocjit_register_sources", "rocjit_register_sources_v2")


def register_headers(files) -> None:
    """Registers files as headers of every registered source, whatever their names."""
    _register(files, "header", "rocjit_register_headers", "rocjit_register_headers_v2")

