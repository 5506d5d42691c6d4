"""Launching rocjit kernels on CuPy arrays (a GPU and CuPy needed: skipped without them).

On NVIDIA rocjit compiles with NVRTC and launches with the CUDA driver, in the device's
primary context (the one CuPy uses), so CuPy's arrays and streams are used directly.
"""

import pytest

import rocjit

pytestmark = pytest.mark.gpu

# CUDA spelling (name "*.cu"): NVRTC compiles it as is, hipRTC with CUDA's names mapped.
AXPY = r"""
extern "C" __global__ void axpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

template <typename T>
__global__ void scale(T *x, T a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}
"""


@pytest.fixture(scope="module")
def cupy():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        n = cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 - no driver
        pytest.skip(f"CuPy finds no GPU: {e}")
    if n == 0:
        pytest.skip("CuPy finds no GPU")
    return cp


@pytest.fixture
def gpu_ctx(cupy, tmp_path, lib):
    if rocjit.device_count() == 0:
        pytest.skip("rocjit finds no GPU")
    with rocjit.Context(cache_dir=tmp_path, remote="") as ctx:
        yield ctx


def test_axpy_on_cupy_arrays_matches_cupy(cupy, gpu_ctx):
    n = 100_003
    x = cupy.arange(n, dtype=cupy.float32)
    y = cupy.full(n, 1.5, dtype=cupy.float32)
    expected = 2.5 * x + y
    k = gpu_ctx.get_kernel(AXPY, "axpy", name="axpy.cu")
    assert k.name == "axpy"
    stream = cupy.cuda.get_current_stream()
    k.launch((n + 255) // 256, 256, [rocjit.i32(n), rocjit.f32(2.5), x, y], stream=stream)
    stream.synchronize()
    assert cupy.allclose(y, expected)


def test_template_kernel_on_a_created_stream(cupy, gpu_ctx):
    n = 4096
    x = cupy.arange(n, dtype=cupy.float64)
    expected = x * 3.0
    k = gpu_ctx.get_kernel(AXPY, "scale<double>", name="axpy.cu",
                           name_expressions=["scale<double>"])
    assert k.name.startswith("_Z")
    with cupy.cuda.Stream(non_blocking=True) as s:
        k((n + 127) // 128, (128, 1, 1), [x, rocjit.f64(3.0), rocjit.i32(n)], stream=s.ptr)
        s.synchronize()
    assert cupy.array_equal(x, expected)


def test_second_context_loads_from_the_cache_and_launches(cupy, gpu_ctx, tmp_path):
    gpu_ctx.get_kernel(AXPY, "axpy", name="axpy.cu")
    with rocjit.Context(cache_dir=tmp_path, remote="") as again:
        k = again.get_kernel(AXPY, "axpy", name="axpy.cu")
        s = again.stats()
        assert (s.disk_hits, s.compiles) == (1, 0)
        n = 1000
        x = cupy.ones(n, dtype=cupy.float32)
        y = cupy.zeros(n, dtype=cupy.float32)
        k.launch(4, 256, [rocjit.i32(n), rocjit.f32(-1.0), x.data.ptr, y], stream=0)
        cupy.cuda.Device().synchronize()
        assert cupy.array_equal(y, -x)


def test_launch_after_close_is_refused(cupy, tmp_path, lib):
    if rocjit.device_count() == 0:
        pytest.skip("rocjit finds no GPU")
    ctx = rocjit.Context(cache_dir=tmp_path, remote="")
    k = ctx.get_kernel(AXPY, "axpy", name="axpy.cu")
    ctx.close()
    with pytest.raises(rocjit.InvalidArgumentError, match="closed"):
        k.launch(1, 1, [rocjit.i32(0), rocjit.f32(0), 0, 0])


SLOW = r"""
extern "C" __global__ void slow_set(int *p, long long cycles, int value)
{
	long long start = clock64();
	while (clock64() - start < cycles)
		;
	*p = value;
}
"""


def test_a_launch_without_a_stream_is_ordered_inside_a_cupy_stream_block(cupy, gpu_ctx):
    # The kernel spins ~50 ms before writing: CuPy's read after it sees the write only if
    # the launch went to the with block's (non-blocking) stream.
    np = pytest.importorskip("numpy")
    k = gpu_ctx.get_kernel(SLOW, "slow_set", name="slow.cu")
    with cupy.cuda.Stream(non_blocking=True):
        p = cupy.zeros(1, dtype=cupy.int32)
        k(1, 1, [p, 100_000_000, np.int32(42)])  # Python int: int64, as the kernel takes
        assert int(p.get()[0]) == 42


def test_raw_module_as_a_cupy_user_writes_it(cupy, tmp_path, lib):
    np = pytest.importorskip("numpy")
    if rocjit.device_count() == 0:
        pytest.skip("rocjit finds no GPU")
    with rocjit.Context(cache_dir=tmp_path, remote="") as ctx:
        mod = rocjit.RawModule(code=AXPY + "__device__ float offset;\n",
                               name_expressions=["scale<float>"], context=ctx)
        axpy, scale = mod.get_function("axpy"), mod.get_function("scale<float>")
        assert axpy.max_threads_per_block > 0 and axpy.num_regs > 0
        n = 5000
        with cupy.cuda.Stream(non_blocking=True) as s:
            x = cupy.arange(n, dtype=cupy.float32)
            y = cupy.ones(n, dtype=cupy.float32)
            axpy(((n + 255) // 256,), (256,), (np.int32(n), np.float32(2.0), x, y))
            scale(((n + 255) // 256,), (256,), (y, np.float32(0.5), np.int32(n)))
            off = cupy.ndarray((1,), cupy.float32, mod.get_global("offset"))
            off.fill(3.0)
            got, got_off = y.get(), float(off.get()[0])
            s.synchronize()
        assert np.allclose(got, (2.0 * np.arange(n, dtype=np.float32) + 1.0) * 0.5)
        assert got_off == 3.0
        raw = rocjit.RawKernel(AXPY, "axpy", context=ctx)
        raw(((n + 255) // 256,), (256,), (np.int32(n), np.float32(-1.0), x, y))
        cupy.cuda.get_current_stream().synchronize()
