"""RocjitError and one subclass per ROCJIT_E* code (values pinned by include/rocjit.h)."""

from __future__ import annotations

import re

OK = 0
EINVAL = -1
ENOMEM = -2
ENOTFOUND = -3
ECOMPILE = -4
EUNSUPPORTED = -5
ENODEV = -6
ENOCOMPILER = -7
EDEVICE = -8
EIO = -9
EFORMAT = -10
ENOTCACHED = -11


class RocjitError(Exception):
    """A rocjit call failed.

    code:    the ROCJIT_E* value (negative int)
    name:    rocjit_strerror(code), e.g. "compile error"
    message: rocjit_last_error() of the failing call: the detail, what to do included
    log:     the compiler log of the call's compile ("" when none ran or it said nothing)

    c_message: rocjit_last_error() as the C library wrote it (message names the Python
             parameters where it names C fields: target= for rocjit_options.target)
    """

    code: int | None = None

    def __init__(self, code: int, message: str, name: str = "", log: str = ""):
        self.c_message = message
        message = python_terms(message)
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.name = name
        self.log = log

    def __str__(self) -> str:
        head = f"{self.name} ({self.code})" if self.name else f"rocjit error {self.code}"
        return f"{head}: {self.message}" if self.message else head


class InvalidArgumentError(RocjitError, ValueError):
    """ROCJIT_EINVAL: a NULL or malformed argument, a bad option."""

    code = EINVAL


class OutOfMemoryError(RocjitError, MemoryError):
    """ROCJIT_ENOMEM."""

    code = ENOMEM


class NotFoundError(RocjitError, LookupError):
    """ROCJIT_ENOTFOUND: no such kernel, registered source or cache entry."""

    code = ENOTFOUND


class CompileError(RocjitError):
    """ROCJIT_ECOMPILE: the source did not compile (see .message and .log)."""

    code = ECOMPILE


class UnsupportedError(RocjitError):
    """ROCJIT_EUNSUPPORTED: the installed compiler cannot target this target id."""

    code = EUNSUPPORTED


class NoDeviceError(RocjitError):
    """ROCJIT_ENODEV: no GPU (and no target given where one is needed)."""

    code = ENODEV


class NoCompilerError(RocjitError):
    """ROCJIT_ENOCOMPILER: hipRTC / NVRTC could not be loaded."""

    code = ENOCOMPILER


class DeviceError(RocjitError):
    """ROCJIT_EDEVICE: the GPU runtime refused to load or launch."""

    code = EDEVICE


class RocjitIOError(RocjitError):
    """ROCJIT_EIO: a file could not be read; no cache; the database failed."""

    code = EIO


class FormatError(RocjitError):
    """ROCJIT_EFORMAT: a malformed or foreign code object (or entries refused)."""

    code = EFORMAT


class NotCachedError(RocjitError):
    """ROCJIT_ENOTCACHED: compiling is forbidden and the request missed."""

    code = ENOTCACHED


BY_CODE = {
    cls.code: cls
    for cls in (
        InvalidArgumentError,
        OutOfMemoryError,
        NotFoundError,
        CompileError,
        UnsupportedError,
        NoDeviceError,
        NoCompilerError,
        DeviceError,
        RocjitIOError,
        FormatError,
        NotCachedError,
    )
}


# The C library's hints name its own API; a Python caller spells them differently.
# rocjit_options.X is Context(X=...), rocjit_program.X a keyword of compile/get_kernel.
_C_TERMS = [
    (re.compile(r"\brocjit_(?:options|program|registered_options)\.(\w+)"), r"\1="),
    (re.compile(r"\bROCJIT_ATTR_(\w+)"), r"rocjit.Attribute.\1"),
    (re.compile(r"\bROCJIT_OPEN_NO_CACHE\b"), "no_cache=True"),
    (re.compile(r"\bROCJIT_OPEN_NO_COMPILE\b"), "no_compile=True"),
    (re.compile(r"\bROCJIT_OPEN_READONLY\b"), "readonly=True"),
    (re.compile(r"\brocjit_compile\b"), "Context.compile"),
    (re.compile(r"\brocjit_kernel_get\b"), "Context.get_kernel"),
    (re.compile(r"\brocjit_kernel_attribute_set\b"), "Kernel.set_attribute"),
    (re.compile(r"\brocjit_global_get\b"), "Kernel.get_global"),
    (re.compile(r"\brocjit_register_(sources|headers)\b"), r"rocjit.register_\1"),
]


def python_terms(message: str) -> str:
    """message with the C API's names of parameters replaced by the Python ones."""
    for pattern, repl in _C_TERMS:
        message = pattern.sub(repl, message)
    return message


def error_for(code: int, message: str, name: str = "", log: str = "") -> RocjitError:
    """The exception for a ROCJIT_E* code (RocjitError itself for an unknown code)."""
    return BY_CODE.get(code, RocjitError)(code, message, name, log)
