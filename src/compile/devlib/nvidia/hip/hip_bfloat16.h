/*
 * hip/hip_bfloat16.h as rocjit serves it to NVRTC: HIP's older bfloat16 class,
 * `hip_bfloat16` (public 16-bit `data`, explicit construction from float, implicit
 * conversion to float, arithmetic and comparisons in float), built on CUDA's bf16
 * conversions (round to nearest even).  Device and host-device code only.
 */
#pragma once

#include <cuda_bf16.h>

struct hip_bfloat16 {
	unsigned short data;

	enum truncate_t { truncate };

	hip_bfloat16() = default;
	__host__ __device__ explicit hip_bfloat16(float f)
		: data(__bfloat16_as_ushort(__float2bfloat16(f)))
	{
	}
	/* Truncating construction (HIP's round-towards-zero form). */
	__host__ __device__ hip_bfloat16(float f, truncate_t)
		: data(__bfloat16_as_ushort(__float2bfloat16_rz(f)))
	{
	}
	__host__ __device__ operator float() const
	{
		return __bfloat162float(__ushort_as_bfloat16(data));
	}
	__host__ __device__ explicit operator bool() const { return (data & 0x7fffu) != 0u; }
	__host__ __device__ hip_bfloat16 &operator=(float f)
	{
		data = __bfloat16_as_ushort(__float2bfloat16(f));
		return *this;
	}
	static __host__ __device__ hip_bfloat16 round_to_bfloat16(float f) { return hip_bfloat16(f); }
};

/* Arithmetic and comparisons: in float, the result rounded once. */
#define ROCJIT_HIP_BF16_OP(OP)                                                                \
	__host__ __device__ inline hip_bfloat16 operator OP(hip_bfloat16 a, hip_bfloat16 b) \
	{                                                                                     \
		return hip_bfloat16(float(a) OP float(b));                                    \
	}                                                                                     \
	__host__ __device__ inline hip_bfloat16 &operator OP##=(hip_bfloat16 &a, hip_bfloat16 b) \
	{                                                                                     \
		return a = a OP b;                                                            \
	}
ROCJIT_HIP_BF16_OP(+)
ROCJIT_HIP_BF16_OP(-)
ROCJIT_HIP_BF16_OP(*)
ROCJIT_HIP_BF16_OP(/)
#undef ROCJIT_HIP_BF16_OP
#define ROCJIT_HIP_BF16_CMP(OP)                                                       \
	__host__ __device__ inline bool operator OP(hip_bfloat16 a, hip_bfloat16 b) \
	{                                                                             \
		return float(a) OP float(b);                                          \
	}
ROCJIT_HIP_BF16_CMP(==)
ROCJIT_HIP_BF16_CMP(!=)
ROCJIT_HIP_BF16_CMP(<)
ROCJIT_HIP_BF16_CMP(<=)
ROCJIT_HIP_BF16_CMP(>)
ROCJIT_HIP_BF16_CMP(>=)
#undef ROCJIT_HIP_BF16_CMP
__host__ __device__ inline hip_bfloat16 operator-(hip_bfloat16 a)
{
	a.data = (unsigned short)(a.data ^ 0x8000u);
	return a;
}
__host__ __device__ inline hip_bfloat16 operator+(hip_bfloat16 a) { return a; }
__host__ __device__ inline hip_bfloat16 &operator++(hip_bfloat16 &a) { return a += hip_bfloat16(1.0f); }
__host__ __device__ inline hip_bfloat16 &operator--(hip_bfloat16 &a) { return a -= hip_bfloat16(1.0f); }
