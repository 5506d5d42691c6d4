"""RawModule and RawKernel: CuPy's shapes (cupy.RawModule, cupy.RawKernel) over a Context.

Owns only the translation of CuPy's constructor and call conventions into Context.compile /
get_kernel and Kernel.launch; compiling, caching, loading and launching stay in the library.
A module compiles at its first get_function / get_global / compile(), as CuPy's does.

Without context=, every RawModule of one (target, device) shares a process-wide Context on
the default cache, opened at first use and never closed (a context unloads its modules when
it closes, and a module's kernels may be launched until the process ends).
"""

from __future__ import annotations

import os
import sys
import threading

from . import _core

_DEFAULT_NAME = "rawmodule.cu"  # CuPy's code is CUDA: the name says so to hipRTC too
_BACKENDS = ("nvrtc", "hiprtc")

_contexts: dict = {}
_contexts_lock = threading.Lock()


def _current_device() -> int:
    """CuPy's current device where the program uses CuPy, else device 0."""
    cp = sys.modules.get("cupy")
    if cp is None:
        return 0
    try:
        return cp.cuda.Device().id
    except Exception:  # noqa: BLE001 - no driver: compile-only use
        return 0


def _shared_context(target, device: int) -> "_core.Context":
    key = (target, device)
    with _contexts_lock:
        ctx = _contexts.get(key)
        if ctx is None:
            ctx = _contexts[key] = _core.Context(target=target, device=device)
        return ctx


def _unsupported(what: str, hint: str):
    return ValueError(f"{what} is not supported by rocjit: {hint}")


class RawModule:
    """cupy.RawModule's shape: RawModule(code=..., options=(...), name_expressions=[...]).

    code (CUDA or HIP source) or path (a file); options: compiler options, one per item;
    backend: "nvrtc" or "hiprtc", both meaning the platform's runtime compiler (rocjit picks
    NVRTC or hipRTC by the target); name_expressions: as CuPy (template kernels and
    variables by their C++ expression).  rocjit's own keywords: name (the source's file name,
    default "rawmodule.cu", or path's), headers ({name: text}), target (default: the
    device's), device (default: CuPy's current device, else 0), context (a Context to use
    instead of the shared one)."""

    def __init__(self, code=None, *, path=None, options=(), backend="nvrtc",
                 translate_cucomplex=False, enable_cooperative_groups=False,
                 name_expressions=None, jitify=False, name=None, headers=None, target=None,
                 device=None, context=None):
        if (code is None) == (path is None):
            raise TypeError("give code (source text) or path (a file), one of them")
        if path is not None:
            with open(path, encoding="utf-8") as f:
                code = f.read()
            name = name or os.path.basename(os.fspath(path))
        if backend not in _BACKENDS:
            raise _unsupported(f"backend={backend!r}", "rocjit compiles with the runtime "
                               "compiler (NVRTC or hipRTC): give backend='nvrtc' or leave it")
        if jitify:
            raise _unsupported("jitify=True", "include what the source needs, or register "
                               "headers (headers={name: text})")
        if translate_cucomplex:
            raise _unsupported("translate_cucomplex=True", "use thrust::complex or "
                               "cuComplex's functions in the source")
        self.code = code
        self.name = name or _DEFAULT_NAME
        self.options = tuple(options or ())
        self.backend = backend
        self.name_expressions = tuple(name_expressions or ())
        self.enable_cooperative_groups = bool(enable_cooperative_groups)
        self._headers = headers
        self._target = target
        self._device = device
        self._ctx = context
        self._functions = {}

    def _context(self) -> "_core.Context":
        if self._ctx is None:
            device = _current_device() if self._device is None else int(self._device)
            self._ctx = _shared_context(self._target, device)
        return self._ctx

    def _request(self) -> dict:
        return dict(name=self.name, options=self.options, headers=self._headers,
                    name_expressions=self.name_expressions)

    def compile(self, log_stream=None, *, target=None) -> "_core.CodeObject":
        """Compiles now (or finds it in the cache), for target (default: the module's, else
        the device's); no GPU needed with a target.  Returns the CodeObject (its .kernels,
        .lowered_names, .from_cache); log_stream (a file) receives the compiler log."""
        code = self._context().compile(self.code, target=target or self._target,
                                       **self._request())
        if log_stream is not None and code.log:
            log_stream.write(code.log)
        return code

    def get_function(self, name: str) -> "RawKernel":
        """The kernel name (an extern "C" name, a mangled name, or one of
        name_expressions), loaded on the device, as a RawKernel."""
        fn = self._functions.get(name)
        if fn is None:
            kernel = self._context().get_kernel(self.code, name, **self._request())
            fn = self._functions[name] = RawKernel._of(self, name, kernel)
        return fn

    def _any_kernel(self) -> "_core.Kernel":
        """A kernel of the module: module variables are reached through one."""
        for fn in self._functions.values():
            return fn.kernel
        kernels = self.compile().kernels
        if not kernels:
            raise _core._errors.NotFoundError(
                _core._errors.ENOTFOUND, f"{self.name} has no kernel, so rocjit cannot load "
                "it to reach its variables: add a kernel (an empty one will do)",
                "not found")
        return self.get_function(kernels[0]).kernel

    def get_global(self, name: str):
        """A __device__ / __constant__ variable by name (or by name expression, "&var"):
        as CuPy, a cupy.cuda.MemoryPointer to it where the program uses CuPy, else
        rocjit.GlobalVar(address, size)."""
        kernel = self._any_kernel()
        var = kernel.get_global(name)
        cp = sys.modules.get("cupy")
        if cp is None:
            return var
        memory = cp.cuda.UnownedMemory(var.address, var.size, self, kernel.native().device)
        return cp.cuda.MemoryPointer(memory, 0)

    def __repr__(self) -> str:
        return f"<rocjit.RawModule {self.name}>"


class RawKernel:
    """cupy.RawKernel's shape: RawKernel(code, name, options=(...)), called as
    kernel(grid, block, args, shared_mem=0, stream=None).  Also what
    RawModule.get_function returns.  rocjit's keywords of RawModule apply."""

    def __init__(self, code, name, options=(), backend="nvrtc", *, translate_cucomplex=False,
                 enable_cooperative_groups=False, jitify=False, **rocjit_keywords):
        self.module = RawModule(code=code, options=options, backend=backend,
                                translate_cucomplex=translate_cucomplex,
                                enable_cooperative_groups=enable_cooperative_groups,
                                jitify=jitify, **rocjit_keywords)
        self.name = name
        self._kernel = None

    @classmethod
    def _of(cls, module: RawModule, name: str, kernel) -> "RawKernel":
        self = cls.__new__(cls)
        self.module, self.name, self._kernel = module, name, kernel
        return self

    @property
    def code(self) -> str:
        return self.module.code

    @property
    def options(self) -> tuple:
        return self.module.options

    @property
    def kernel(self) -> "_core.Kernel":
        """The rocjit.Kernel underneath (loaded at first use)."""
        if self._kernel is None:
            self._kernel = self.module.get_function(self.name)._kernel
        return self._kernel

    def compile(self, log_stream=None, *, target=None) -> "_core.CodeObject":
        return self.module.compile(log_stream, target=target)

    def __call__(self, grid, block, args, *, shared_mem: int = 0, stream=None) -> None:
        """Launches (asynchronously) on stream; None: CuPy's current stream where the
        program uses CuPy, else the default stream.  args as CuPy converts them."""
        k = self.kernel
        launch = k.launch_cooperative if self.module.enable_cooperative_groups else k.launch
        launch(grid, block, args, shared_mem=shared_mem, stream=stream)

    # CuPy's attribute properties, read from (and two set on) the driver.
    def _attr(self, a) -> int:
        return self.kernel.attribute(a)

    max_threads_per_block = property(lambda s: s._attr(_core.Attribute.MAX_THREADS_PER_BLOCK))
    shared_size_bytes = property(lambda s: s._attr(_core.Attribute.SHARED_BYTES))
    const_size_bytes = property(lambda s: s._attr(_core.Attribute.CONST_BYTES))
    local_size_bytes = property(lambda s: s._attr(_core.Attribute.LOCAL_BYTES))
    num_regs = property(lambda s: s._attr(_core.Attribute.NUM_REGS))
    ptx_version = property(lambda s: s._attr(_core.Attribute.PTX_VERSION))
    binary_version = property(lambda s: s._attr(_core.Attribute.BINARY_VERSION))
    max_dynamic_shared_size_bytes = property(
        lambda s: s._attr(_core.Attribute.MAX_DYNAMIC_SHARED_BYTES),
        lambda s, v: s.kernel.set_attribute(_core.Attribute.MAX_DYNAMIC_SHARED_BYTES, v))
    preferred_shared_memory_carveout = property(
        lambda s: s._attr(_core.Attribute.PREFERRED_SHARED_CARVEOUT),
        lambda s, v: s.kernel.set_attribute(_core.Attribute.PREFERRED_SHARED_CARVEOUT, v))

    def __repr__(self) -> str:
        return f"<rocjit.RawKernel {self.name}>"
