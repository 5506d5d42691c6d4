"""A CuPy user's script on rocjit: RawModule, get_function, get_global, launches with NumPy
and Python scalars inside `with cupy.cuda.Stream():`, checked against NumPy on the CPU.

    python3 cupy_style.py                  # on a GPU machine with CuPy: launch and compare
    python3 cupy_style.py --target gfx90a  # no GPU: compile (hipRTC) and check the module
    python3 cupy_style.py --target sm_90   # no GPU: the same with NVRTC

The launches go to the stream of the `with` block without being told: rocjit takes CuPy's
current stream, so the CuPy work around them (the copies in, the fill of `bias`, the
multiply after, the copy out) is ordered with them.
"""

import argparse
import sys

import numpy as np

import rocjit

SOURCE = r"""
__device__ float bias;

extern "C" __global__ void saxpy_bias(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i] + bias;
}

template <typename T>
__global__ void affine(T *y, const T *x, T a, T b, long long n)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + b;
}
"""
EXPRESSIONS = ("affine<float>", "affine<double>")
N = 100_003


def expected(x, y):
    """What the GPU part computes, in NumPy."""
    y1 = (np.float32(2.5) * x + y + np.float32(0.25)) * np.float32(2)
    y2 = 0.5 * x.astype(np.float64) + 1.0
    return y1, y2


def compile_only(target: str) -> None:
    mod = rocjit.RawModule(code=SOURCE, options=("-O3",), name_expressions=EXPRESSIONS,
                           target=target)
    code = mod.compile()
    lowered = [code.lowered_names[e] for e in EXPRESSIONS]
    missing = {"saxpy_bias", *lowered} - set(code.kernels)
    if missing:
        sys.exit(f"{target}: the module lacks {sorted(missing)} (it has {code.kernels})")
    print(f"{target}: {code.size} bytes, kernels {code.kernels}, key {code.key}, "
          f"from_cache {code.from_cache}")


def on_gpu() -> None:
    import cupy as cp

    mod = rocjit.RawModule(code=SOURCE, options=("-O3",), name_expressions=EXPRESSIONS)
    saxpy = mod.get_function("saxpy_bias")
    affine = mod.get_function("affine<double>")
    x_h = np.arange(N, dtype=np.float32) / N
    y_h = np.ones(N, dtype=np.float32)
    grid, block = ((N + 255) // 256,), (256,)
    with cp.cuda.Stream(non_blocking=True) as stream:
        x, y = cp.asarray(x_h), cp.asarray(y_h)
        bias = cp.ndarray((1,), cp.float32, mod.get_global("bias"))
        bias.fill(0.25)
        saxpy(grid, block, (np.int32(N), np.float32(2.5), x, y))
        y *= 2
        x64 = x.astype(cp.float64)
        y64 = cp.empty_like(x64)
        affine(grid, block, (y64, x64, 0.5, 1.0, N))  # Python float: double; int: int64
        y1, y2 = cp.asnumpy(y), cp.asnumpy(y64)
        stream.synchronize()
    want1, want2 = expected(x_h, y_h)
    if not (np.allclose(y1, want1, rtol=1e-6) and np.allclose(y2, want2)):
        sys.exit(f"GPU and CPU differ: {y1[:4]} vs {want1[:4]}, {y2[:4]} vs {want2[:4]}")
    print(f"GPU matches the CPU on {N} items (stream {stream.ptr:#x})")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", help="compile only, for this target id (no GPU needed)")
    args = p.parse_args()
    if args.target:
        compile_only(args.target)
    else:
        on_gpu()
