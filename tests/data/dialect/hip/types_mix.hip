// types_mix.hip - HIP's 16-bit float headers included together, used the way mixed
// precision kernels use them: brace-initialised half2 accumulators, __hadd/__hmul on half
// operands, atomicAdd on half and __hip_bfloat16, and HIP's older bfloat16 class
// (hip_bfloat16: `data`, explicit from float, float arithmetic rounded once).  Compiles
// on AMD (hipRTC) and NVIDIA alike.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <hip/hip_bfloat16.h>

// out[i] = half(x[2i]) + half(x[2i+1]) and their product, by a zero-initialised half2.
extern "C" __global__ void mix_half2_acc(const unsigned int n, const float *x, half2 *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		half2 acc = {};
		half a = __float2half(x[2 * i]), b = __float2half(x[2 * i + 1]);
		acc = __hadd2(acc, __halves2half2(__hadd(a, b), __hmul(a, b)));
		out[i] = acc;
	}
}

// out[3i..3i+2] = bits of hip_bfloat16(x) (nearest even), of its truncation, and of
// hip_bfloat16(x) * 2 + 1 in the class's arithmetic.
extern "C" __global__ void mix_bfloat16_bits(const unsigned int n, const float *x,
					     unsigned short *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		hip_bfloat16 r(x[i]);
		hip_bfloat16 t(x[i], hip_bfloat16::truncate);
		hip_bfloat16 s = r * hip_bfloat16(2.0f);
		s += hip_bfloat16(1.0f);
		out[3 * i] = r.data;
		out[3 * i + 1] = t.data;
		out[3 * i + 2] = s.data;
	}
}

// acc[0] += half(v[i]), acc_b[0] += bf16(v[i]) by atomics, for all i < n: small integers,
// so every partial sum is exact and the order cannot matter.
extern "C" __global__ void mix_atomic_add_16(const unsigned int n, const int *v, __half *acc,
					     __hip_bfloat16 *acc_b)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		atomicAdd(acc, __float2half((float)v[i]));
		atomicAdd(acc_b, __float2bfloat16((float)v[i]));
	}
}
