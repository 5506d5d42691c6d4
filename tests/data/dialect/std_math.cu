// std_math.cu - CUDA-dialect kernels that need a device standard library: <cstdint>,
// <cmath>, <limits> and libcu++'s <cuda/std/limits>, <cuda/std/type_traits>.  These
// headers come from rocjit's devlib/std (both platforms) and devlib/cuda/cuda/std (AMD;
// CUDA's own cccl folder on NVIDIA), so this file compiles only where they are served.
#include "dialect.cuh" // first: libcu++ gives numeric_limits<__nv_bfloat16> once bf16 is known
#include <cstdint>
#include <cmath>
#include <limits>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

// Saturating float -> int8 quantisation: q = clamp(round(x / scale), -128, 127); NaN -> 0.
extern "C" __global__ void quantize_i8(const uint32_t n, const float *x, const float scale, int8_t *q)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = std::round(x[i] / scale);
		const float lo = std::numeric_limits<int8_t>::min();
		const float hi = std::numeric_limits<int8_t>::max();
		q[i] = std::isnan(v) ? int8_t(0) : static_cast<int8_t>(fminf(fmaxf(v, lo), hi));
	}
}

// Max over a row of length cols, starting from -INFINITY: out[row] = max(x[row, :]).
template <typename T>
__device__ void row_max(const uint32_t cols, const T *x, T *out)
{
	uint32_t row = blockIdx.x;
	float m = -INFINITY;
	for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x)
		m = fmaxf(m, dl::to_float(x[row * cols + c]));
	m = dl::warp_max(m);
	if (threadIdx.x == 0)
		out[row] = dl::from_float<T>(m);
}
extern "C" __global__ void row_max_f32(const uint32_t cols, const float *x, float *out)
{
	row_max(cols, x, out);
}
extern "C" __global__ void row_max_bf16(const uint32_t cols, const __nv_bfloat16 *x, __nv_bfloat16 *out)
{
	row_max(cols, x, out);
}

// Gaussian-error GELU on 64-bit indices: out = 0.5 x (1 + erf(x / sqrt 2)).
extern "C" __global__ void gelu_erf_f32(const uint64_t n, const float *x, float *out)
{
	uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * float(M_SQRT1_2)));
}

// Clamp to the finite range of T (cuda::std::numeric_limits, libcu++'s spelling), then
// scale by pi: out = clamp(x, lowest, max) * M_PI, in float or double.
template <typename T>
__device__ void clamp_scale(const uint32_t n, const T *x, T *out)
{
	static_assert(cuda::std::is_floating_point<T>::value, "floating types only");
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		T v = x[i];
		v = v < cuda::std::numeric_limits<T>::lowest() ? cuda::std::numeric_limits<T>::lowest() : v;
		v = v > cuda::std::numeric_limits<T>::max() ? cuda::std::numeric_limits<T>::max() : v;
		out[i] = v * static_cast<T>(M_PI);
	}
}
extern "C" __global__ void clamp_scale_f32(const uint32_t n, const float *x, float *out)
{
	clamp_scale(n, x, out);
}
extern "C" __global__ void clamp_scale_f64(const uint32_t n, const double *x, double *out)
{
	clamp_scale(n, x, out);
}

// bf16 saturation to the finite range (cuda::std::numeric_limits<__nv_bfloat16>): +-inf
// become +-max finite (0x7f7f / 0xff7f), NaN stays NaN.
extern "C" __global__ void saturate_bf16(const uint32_t n, const __nv_bfloat16 *x, __nv_bfloat16 *out)
{
	using lim = cuda::std::numeric_limits<__nv_bfloat16>;
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		__nv_bfloat16 v = x[i];
		out[i] = v > lim::max() ? lim::max() : v < lim::lowest() ? lim::lowest() : v;
	}
}

// Fixed-width integers: out[i] = (int64) a[i] * (uint16) b[i] + INT32_MAX.
extern "C" __global__ void widen_mul_i64(const uint32_t n, const int32_t *a, const uint16_t *b, int64_t *out)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = int64_t(a[i]) * int64_t(b[i]) + INT32_MAX;
}
