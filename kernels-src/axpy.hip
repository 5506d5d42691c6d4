/*
 * axpy.hip - y = a*x + y for float and double vectors.
 *
 * Kernels
 *   axpy_f32(int n, float a, const float *x, float *y)
 *   axpy_f64(int n, double a, const double *x, double *y)
 *
 * Launch contract (both kernels)
 *   block:  1-D, any size (256 is a good default).
 *   grid:   1-D, any size; a grid-stride loop covers all n elements, so
 *           grid = min(ceil(n / block), some cap) is enough.  n <= 0 does nothing.
 *   shared: 0 bytes.
 *   x and y may be the same buffer (y = (a + 1) * y); they must not overlap otherwise.
 *
 * Portable HIP only: builds with hipRTC (AMD) and with NVRTC behind a HIP preamble.
 */
#include <hip/hip_runtime.h>

template <typename T>
__device__ static void axpy(int n, T a, const T *x, T *y)
{
	int stride = (int)(blockDim.x * gridDim.x);

	for (int i = (int)(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += stride)
		y[i] = a * x[i] + y[i];
}

extern "C" __global__ void axpy_f32(int n, float a, const float *x, float *y)
{
	axpy<float>(n, a, x, y);
}

extern "C" __global__ void axpy_f64(int n, double a, const double *x, double *y)
{
	axpy<double>(n, a, x, y);
}
