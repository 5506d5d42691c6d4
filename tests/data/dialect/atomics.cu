// atomics.cu - atomics CUDA code relies on: 64-bit max/min, half/bf16/double adds, 16-bit
// compare-and-swap; and the SIMD-in-a-word integer intrinsics of quantized kernels.
#include "dialect.cuh"

// out[0] = max(out[0], x[*]), out[1] = min(out[1], x[*]) over signed 64-bit values
// (initialise out to LLONG_MIN / LLONG_MAX).
extern "C" __global__ void atomic_minmax_i64(const unsigned int n, const long long *x, long long *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		atomicMax(&out[0], x[i]);
		atomicMin(&out[1], x[i]);
	}
}
extern "C" __global__ void atomic_minmax_u64(const unsigned int n, const unsigned long long *x,
					     unsigned long long *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		atomicMax(&out[0], x[i]);
		atomicMin(&out[1], x[i]);
	}
}

// Max of floats through the signed-integer trick kernel libraries use: for non-negative
// floats the bit patterns order like the values.  out[0] = max over x (x >= 0).
extern "C" __global__ void atomic_max_f64_bits(const unsigned int n, const double *x, double *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicMax(reinterpret_cast<long long *>(out), __double_as_longlong(x[i]));
}

// *sum += x[i] for all i (choose x so every partial sum is exact in the type: small
// integers; then the result does not depend on the order).
extern "C" __global__ void atomic_add_f16(const unsigned int n, const __half *x, __half *sum)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(sum, x[i]);
}
#if DL_HAVE_BF16
extern "C" __global__ void atomic_add_bf16(const unsigned int n, const __nv_bfloat16 *x, __nv_bfloat16 *sum)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(sum, x[i]);
}
#endif
extern "C" __global__ void atomic_add_f64(const unsigned int n, const double *x, double *sum)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(sum, x[i]);
}

// A 16-bit counter incremented by every thread with a compare-and-swap loop on
// unsigned short: *counter ends at (start + n) mod 65536.
extern "C" __global__ void atomic_cas_u16_count(const unsigned int n, unsigned short *counter)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		unsigned short old = *counter, assumed;
		do {
			assumed = old;
			old = atomicCAS(counter, assumed, (unsigned short)(assumed + 1));
		} while (old != assumed);
	}
}

// SIMD within a 32-bit word (4 signed bytes):
//   dot[i]  = c[i] + sum_k a[i].byte[k] * b[i].byte[k]        (__dp4a, no saturation)
//   sub[i]  = per byte saturate(a - b) to [-128, 127]         (__vsubss4)
//   abs[i]  = per byte saturate(|a|) (|-128| = 127)           (__vabsss4)
extern "C" __global__ void simd_bytes(const unsigned int n, const int *a, const int *b, const int *c,
				      int *dot, unsigned int *sub, unsigned int *abs)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		dot[i] = __dp4a(a[i], b[i], c[i]);
		sub[i] = __vsubss4(a[i], b[i]);
		abs[i] = __vabsss4(a[i]);
	}
}
