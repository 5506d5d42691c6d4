"""Kernel arguments as CuPy's RawKernel converts them (rocjit/_args.py), checked byte for
byte with no GPU: each argument becomes the bytes a launch passes.  NumPy cases skip
(visibly) without NumPy; CuPy objects are stood in for by __cuda_array_interface__."""

import ctypes
import struct
import sys

import pytest

import rocjit
from rocjit._args import current_stream, kernel_arg


def passed(a) -> bytes:
    """The bytes a launch passes for argument a."""
    v = kernel_arg(a, 0)
    return ctypes.string_at(ctypes.addressof(v), ctypes.sizeof(v))


@pytest.mark.parametrize("value, expected", [
    (None, struct.pack("<Q", 0)),
    (True, b"\x01"),
    (False, b"\x00"),
    (3, struct.pack("<q", 3)),
    (-7, struct.pack("<q", -7)),
    (2**63, struct.pack("<Q", 2**63)),  # uint64 from 2**63 on, as CuPy
    (2**64 - 1, struct.pack("<Q", 2**64 - 1)),
    (1.5, struct.pack("<d", 1.5)),  # double: a float parameter needs numpy.float32
    (1 - 2j, struct.pack("<dd", 1.0, -2.0)),
    (rocjit.Pointer(0x7000), struct.pack("<Q", 0x7000)),
    (rocjit.f32(2.5), struct.pack("<f", 2.5)),
    (rocjit.GlobalVar(0x9000, 64), struct.pack("<Q", 0x9000)),
])
def test_python_values_pass_as_cupy_passes_them(value, expected):
    assert passed(value) == expected


def test_an_address_given_as_int_passes_the_same_bytes_as_a_pointer():
    # What the bindings did before (an int was a pointer) keeps working: same 8 bytes.
    assert passed(0x7F00_1234_5000) == passed(rocjit.Pointer(0x7F00_1234_5000))


def test_what_has_no_c_type_is_a_type_error_that_says_what_to_give():
    for bad in ("x", b"x", [1], object(), {"a": 1}):
        with pytest.raises(TypeError, match="cannot pass .* rocjit.Pointer"):
            kernel_arg(bad, 0)
    with pytest.raises(OverflowError, match="out of bounds"):
        kernel_arg(2**64, 0)
    with pytest.raises(OverflowError):
        kernel_arg(-(2**63) - 1, 0)


def test_cuda_array_interface_objects_pass_their_address():
    class Array:
        __cuda_array_interface__ = {"data": (0x7000, False), "shape": (4,), "typestr": "<f4",
                                    "version": 3}

    assert passed(Array()) == struct.pack("<Q", 0x7000)


@pytest.fixture
def np():
    return pytest.importorskip("numpy", reason="NumPy is not installed (python3-numpy)")


def test_numpy_scalars_pass_by_their_dtype(np):
    for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
              np.int64, np.uint64, np.float16, np.float32, np.float64, np.complex64,
              np.complex128):
        x = t(3)
        assert passed(x) == x.tobytes(), t
    assert passed(np.float32(2.0)) == struct.pack("<f", 2.0)
    assert passed(np.int32(-3)) == struct.pack("<i", -3)


def test_numpy_arrays_pass_only_with_one_item(np):
    assert passed(np.array([1.5], dtype=np.float32)) == struct.pack("<f", 1.5)
    assert passed(np.array(7, dtype=np.int16)) == struct.pack("<h", 7)
    with pytest.raises(TypeError, match="shape \\(4,\\).*cupy.ndarray"):
        kernel_arg(np.zeros(4, dtype=np.float32), 0)
    with pytest.raises(TypeError, match="dtype"):
        kernel_arg(np.datetime64("2026-01-01"), 0)


def test_without_cupy_a_launch_has_no_stream_of_its_own(monkeypatch):
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    assert current_stream(rocjit.PLATFORM_NVIDIA) is None


class _FakeCupy:
    """What current_stream reads of CuPy: runtime.is_hip and get_current_stream().ptr."""

    def __init__(self, is_hip, ptr):
        stream = type("Stream", (), {"ptr": ptr})()
        runtime = type("runtime", (), {"is_hip": is_hip})
        self.cuda = type("cuda", (), {"runtime": runtime,
                                      "get_current_stream": staticmethod(lambda: stream)})


def test_with_cupy_a_launch_goes_to_cupys_current_stream_of_its_platform(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _FakeCupy(False, 0xABC))
    assert current_stream(rocjit.PLATFORM_NVIDIA) == 0xABC
    assert current_stream(None) == 0xABC
    assert current_stream(rocjit.PLATFORM_AMD) is None  # CUDA's stream is no HIP stream
    monkeypatch.setitem(sys.modules, "cupy", _FakeCupy(True, 0xDEF))
    assert current_stream(rocjit.PLATFORM_AMD) == 0xDEF
    monkeypatch.setitem(sys.modules, "cupy", _FakeCupy(False, 0))
    assert current_stream(rocjit.PLATFORM_NVIDIA) is None  # the null stream
