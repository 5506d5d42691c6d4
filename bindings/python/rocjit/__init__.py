"""rocjit: compile HIP/CUDA kernel source at first use, cache the code object, reuse it.

Python bindings of librocjit (ctypes, standard library only).  The library is found at
first use: $ROCJIT_LIBRARY (a path), else librocjit.so.0.1 / librocjit.so.0 where the
dynamic loader looks, else the build/ folder of the checkout these bindings lie in.

    import rocjit
    with rocjit.Context(target="gfx90a") as ctx:
        code = ctx.compile(SOURCE, name="axpy.hip")        # bytes + metadata, no GPU needed
        k = ctx.get_kernel(SOURCE, "axpy", name="axpy.hip")
        k.launch((n + 255) // 256, 256, [numpy.int32(n), numpy.float32(2.0), x, y])

    # CuPy's shapes (launches go to CuPy's current stream when the program uses CuPy):
    mod = rocjit.RawModule(code=SOURCE, options=("-O3",), name_expressions=["scale<float>"])
    mod.get_function("axpy")((blocks,), (256,), (numpy.int32(n), numpy.float32(2.0), x, y))

include/rocjit.h is the specification of every call underneath.
"""

from ._core import (  # noqa: F401
    ATTR_BINARY_VERSION,
    ATTR_CONST_BYTES,
    ATTR_LOCAL_BYTES,
    ATTR_MAX_DYNAMIC_SHARED_BYTES,
    ATTR_MAX_THREADS_PER_BLOCK,
    ATTR_NUM_REGS,
    ATTR_PREFERRED_SHARED_CARVEOUT,
    ATTR_PTX_VERSION,
    ATTR_SHARED_BYTES,
    LANG_AUTO,
    LANG_CUDA,
    LANG_HIP,
    LOG_DEBUG,
    LOG_ERROR,
    LOG_INFO,
    LOG_WARN,
    OPEN_COMPILE_INPROCESS,
    OPEN_NO_CACHE,
    OPEN_NO_COMPILE,
    OPEN_READONLY,
    PLATFORM_AMD,
    PLATFORM_AUTO,
    PLATFORM_NVIDIA,
    REMOTE_NONE,
    REMOTE_OFF,
    REMOTE_UP,
    REQUIRE_SIGNED_ALL,
    REQUIRE_SIGNED_DEFAULT,
    REQUIRE_SIGNED_NONE,
    REQUIRE_SIGNED_SHARED,
    SIGNATURE_BAD,
    SIGNATURE_NONE,
    SIGNATURE_TRUSTED,
    SIGNATURE_UNCHECKED,
    SIGNATURE_UNTRUSTED,
    VERIFY_CHECKSUM,
    VERIFY_OBJECT,
    VERIFY_SIGNATURE,
    Attribute,
    BadEntry,
    BlockSize,
    CodeObject,
    CodeObjectInfo,
    Context,
    Counters,
    Entry,
    GlobalVar,
    Kernel,
    KernelNative,
    KernelResources,
    RemoteCounters,
    Stats,
    Transfer,
    VerifyResult,
    cache_dir,
    compiler_identity,
    compiler_targets,
    device_count,
    device_target,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    inspect,
    keygen,
    last_log,
    library_path,
    normalize_target,
    ptr,
    register_headers,
    register_sources,
    resources,
    strerror,
    target_platform,
    u8,
    u16,
    u32,
    u64,
    version,
)
from ._args import Pointer  # noqa: F401
from ._raw import RawKernel, RawModule  # noqa: F401
from ._errors import (  # noqa: F401
    EDEVICE,
    EFORMAT,
    EINVAL,
    EIO,
    ENOCOMPILER,
    ENODEV,
    ENOMEM,
    ENOTCACHED,
    ENOTFOUND,
    EUNSUPPORTED,
    ECOMPILE,
    CompileError,
    DeviceError,
    FormatError,
    InvalidArgumentError,
    NoCompilerError,
    NoDeviceError,
    NotCachedError,
    NotFoundError,
    OutOfMemoryError,
    RocjitError,
    RocjitIOError,
    UnsupportedError,
)
from ._lib import LibraryNotFoundError  # noqa: F401
from ._log import available as log_hook_available  # noqa: F401
from ._log import log_to_python  # noqa: F401

__version__ = "0.1.0"

# Classes show as rocjit.X (in tracebacks, reprs), where users import them from.
for _cls in (Context, Kernel, Pointer, RawModule, RawKernel, KernelNative, KernelResources, BlockSize, GlobalVar, Attribute,
             CodeObject, CodeObjectInfo, Entry, BadEntry, VerifyResult, Stats, Transfer,
             Counters, RemoteCounters, LibraryNotFoundError, RocjitError, CompileError,
             DeviceError, FormatError, InvalidArgumentError, NoCompilerError, NoDeviceError,
             NotCachedError, NotFoundError, OutOfMemoryError, RocjitIOError, UnsupportedError):
    _cls.__module__ = __name__
del _cls
