"""Kernel arguments and streams: Python values -> what a launch passes.

Owns the rules a launch applies to its args and stream, which are CuPy RawKernel's (CuPy 14,
cupy/cuda/function.pyx _pointer and cupy/_core/_scalar.pyx), so code written for CuPy passes
the same bytes here:

    None                      a NULL pointer (8 bytes)
    bool                      C bool (1 byte)
    int                       int64 (8 bytes); uint64 from 2**63 on; OverflowError past it
    float                     double (8 bytes): a kernel taking float needs numpy.float32(x)
    complex                   complex<double> (16 bytes)
    NumPy scalar              its dtype's bytes (numpy.float32(2) is a float, ...)
    NumPy array of one item   that item by value (any larger array: TypeError, as CuPy)
    cupy.ndarray, anything with __cuda_array_interface__, cupy MemoryPointer, GlobalVar
                              its device address
    rocjit.Pointer(addr)      addr as a pointer (the explicit way to pass a raw address)
    ctypes values             as they are (rocjit.f32(1.5), a Structure by value, ...)

A Python int is a 64-bit integer, not an address.  For an address below 2**63 (every user
space address) the 8 bytes are the same, so code that passed addresses as ints still works;
rocjit.Pointer says what is meant.  Neither NumPy nor CuPy is imported here: they are used
only when the caller's program imported them (sys.modules).
"""

from __future__ import annotations

import ctypes
import sys
from ctypes import c_void_p

from . import _core  # a cycle (_core imports this module): used at call time only

# NumPy type characters CuPy passes by value: bool, signed and unsigned ints, float16/32/64,
# complex64/128.
_NUMPY_CHARS = "?bhilqBHILQefdFD"

_CTYPES_VALUES = (ctypes._SimpleCData, ctypes.Structure, ctypes.Union, ctypes.Array,
                  ctypes._Pointer)


class Pointer(c_void_p):
    """A device address passed as a pointer argument: rocjit.Pointer(addr)."""

    def __repr__(self) -> str:
        return f"rocjit.Pointer({self.value or 0:#x})"


def _bytes_arg(data: bytes):
    return (ctypes.c_char * len(data)).from_buffer_copy(data)


def _numpy_value(a, i: int, np):
    """A NumPy scalar or one-item array -> its bytes by value, or None if a is neither."""
    if isinstance(a, np.ndarray):
        if a.size != 1:
            raise TypeError(f"argument {i}: a numpy.ndarray of shape {a.shape} cannot be a "
                            "kernel argument: only one-item arrays are passed (by value); "
                            "to pass device memory, pass a cupy.ndarray")
    elif not isinstance(a, np.generic):
        return None
    if a.dtype.char not in _NUMPY_CHARS:
        raise TypeError(f"argument {i}: NumPy dtype {a.dtype} has no C type here (bool, "
                        "integers, float16/32/64, complex64/128 do)")
    return _bytes_arg(a.tobytes())


def _cupy_address(a, cp):
    if isinstance(a, cp.ndarray):
        return a.data.ptr
    if isinstance(a, cp.cuda.MemoryPointer):
        return a.ptr
    return None


def kernel_arg(a, i: int):
    """One kernel argument -> a ctypes object whose address the launch passes."""
    if a is None:
        return c_void_p(None)
    if isinstance(a, _CTYPES_VALUES):
        return a
    if isinstance(a, bool):
        return ctypes.c_bool(a)
    if isinstance(a, int):
        if -(1 << 63) <= a < 1 << 63:
            return ctypes.c_int64(a)
        if 0 <= a < 1 << 64:
            return ctypes.c_uint64(a)
        raise OverflowError(f"argument {i}: Python int {a} is out of bounds for int64 and "
                            "uint64")
    if isinstance(a, float):
        return ctypes.c_double(a)
    if isinstance(a, complex):
        return (ctypes.c_double * 2)(a.real, a.imag)
    if isinstance(a, _core.GlobalVar):
        return c_void_p(a.address)
    cp = sys.modules.get("cupy")
    if cp is not None:
        address = _cupy_address(a, cp)
        if address is not None:
            return c_void_p(address)
    np = sys.modules.get("numpy")
    if np is not None:
        value = _numpy_value(a, i, np)
        if value is not None:
            return value
    cai = getattr(a, "__cuda_array_interface__", None)
    if cai is not None:
        return c_void_p(cai["data"][0])
    raise TypeError(f"argument {i}: cannot pass {type(a).__name__} to a kernel: give a "
                    "Python or NumPy scalar, a cupy.ndarray (or any object with "
                    "__cuda_array_interface__), rocjit.Pointer(address), or a ctypes value")


def stream_handle(stream):
    """A stream argument -> its handle (None: the legacy default stream)."""
    if stream is None:
        return None
    if isinstance(stream, int) and not isinstance(stream, bool):
        return stream or None
    if isinstance(stream, c_void_p):
        return stream.value
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        version_handle = proto() if callable(proto) else proto
        return version_handle[1] or None
    handle = getattr(stream, "ptr", None)  # cupy.cuda.Stream
    if isinstance(handle, int):
        return handle or None
    raise TypeError(f"stream must be an int handle, None, or a stream object with .ptr or "
                    f"__cuda_stream__, not {type(stream).__name__}")


def current_stream(platform: int | None):
    """The stream a launch without one goes to: CuPy's current stream when the program
    uses CuPy (imported it) and CuPy drives the kernel's platform, so a launch inside
    `with cupy.cuda.Stream():` is ordered with the CuPy work around it; else None, the
    legacy default stream.  platform: PLATFORM_AMD (1) / _NVIDIA (2), None if unknown."""
    cp = sys.modules.get("cupy")
    if cp is None:
        return None
    try:
        is_hip = bool(cp.cuda.runtime.is_hip)
        if platform is not None and is_hip != (platform == 1):
            return None  # CuPy drives the other platform: its streams are not ours
        return cp.cuda.get_current_stream().ptr or None
    except AttributeError:  # a partial import (or a CuPy without these names)
        return None
