"""How Kernel.write_global / read_global take host memory (no GPU needed): any
C-contiguous buffer, without a copy where the memory may be read later (a stream)."""

import array
import ctypes

import pytest

import rocjit
from rocjit._core import _host_buffer


def _bytes_at(address, n):
    return ctypes.string_at(address, n)


@pytest.mark.parametrize("make", [
    lambda: b"\x01\x02\x03\x04",
    lambda: bytearray(b"\x01\x02\x03\x04"),
    lambda: memoryview(bytearray(b"\x01\x02\x03\x04")),
    lambda: memoryview(b"\x01\x02\x03\x04"),
    lambda: array.array("B", [1, 2, 3, 4]),
])
def test_a_source_buffer_gives_its_bytes(make):
    data = make()
    address, n, keep = _host_buffer(data, "data", False, None)
    assert n == 4 and _bytes_at(address, n) == b"\x01\x02\x03\x04"
    assert keep is not None


def test_a_typed_buffer_counts_bytes_not_items():
    a = array.array("f", [1.0, 2.0, 3.0])
    address, n, _keep = _host_buffer(a, "data", False, None)
    assert n == 12 and _bytes_at(address, n) == a.tobytes()


def test_writable_buffers_and_bytes_are_used_in_place():
    b = bytearray(8)
    address, n, _keep = _host_buffer(b, "out", True, 0x1234)
    ctypes.memmove(address, b"abcdefgh", 8)
    assert b == b"abcdefgh"  # no copy: what a queued read fills is the caller's buffer
    data = b"12345678"
    address, n, _keep = _host_buffer(data, "data", False, 0x1234)
    assert address == ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value


def test_numpy_arrays_are_buffers():
    np = pytest.importorskip("numpy")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    address, n, _keep = _host_buffer(x, "data", False, None)
    assert n == 24 and _bytes_at(address, n) == x.tobytes()
    out = np.zeros(4, dtype=np.uint32)
    address, n, _keep = _host_buffer(out, "out", True, None)
    ctypes.memmove(address, np.array([1, 2, 3, 4], dtype=np.uint32).tobytes(), 16)
    assert out.tolist() == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="contiguous"):
        _host_buffer(x[:, ::2], "data", False, None)


def test_what_cannot_be_used_is_refused_saying_why():
    with pytest.raises(TypeError, match="buffer protocol"):
        _host_buffer([1, 2, 3], "data", False, None)
    with pytest.raises(ValueError, match="contiguous"):
        _host_buffer(memoryview(bytearray(8))[::2], "data", False, None)
    with pytest.raises(TypeError, match="read-only"):
        _host_buffer(b"1234", "out", True, None)
    # A read-only buffer other than bytes is copied: fine now, not for a queued copy.
    ro = memoryview(bytearray(b"1234")).toreadonly()
    assert _bytes_at(_host_buffer(ro, "data", False, None)[0], 4) == b"1234"
    with pytest.raises(TypeError, match="stream"):
        _host_buffer(ro, "data", False, 0x1234)
    assert _host_buffer(bytearray(), "data", False, None)[:2] == (None, 0)


def test_attribute_constants_are_the_enum():
    assert rocjit.ATTR_MAX_DYNAMIC_SHARED_BYTES is rocjit.Attribute.MAX_DYNAMIC_SHARED_BYTES
    assert int(rocjit.Attribute.PREFERRED_SHARED_CARVEOUT) == 9
