/*
 * hip/hip_bfloat16.h as rocjit serves it on every platform: HIP's older bfloat16 class,
 * `hip_bfloat16`.  hipRTC 5.2 builds in no bfloat16 type, and its file on disk pulls host
 * headers (<cmath>, <iostream>: "stdarg.h not found"); 5.7 ships no headers; HIP's NVIDIA
 * header is host code.  One bit-level definition, so both platforms give the same bits.
 * rocPRIM's config.hpp includes this header for its rocprim::bfloat16 (rocjit's CUB on AMD).
 *
 * The class as HIP has it: a public 16-bit `data` (the bits, so code may fill it raw),
 * explicit construction from float (round to nearest even; a NaN stays a NaN), the
 * `truncate` tag for round towards zero, implicit conversion to float, and arithmetic and
 * comparisons done in float, the result rounded once.  Device and host-device code only.
 */
#ifndef ROCJIT_DEVLIB_HIP_BFLOAT16_H
#define ROCJIT_DEVLIB_HIP_BFLOAT16_H

#include <hip/hip_runtime.h>

/* hipRTC 5.7 builds HIP's own class in (its guard, _HIP_BFLOAT16_H_, is then defined):
 * that one is used, as a second definition would be an error. */
#ifndef _HIP_BFLOAT16_H_
#define _HIP_BFLOAT16_H_

struct hip_bfloat16 {
	unsigned short data;

	enum truncate_t { truncate };

	hip_bfloat16() = default;
	__host__ __device__ explicit hip_bfloat16(float f) : data(round_bits(f)) {}
	__host__ __device__ hip_bfloat16(float f, truncate_t) : data(truncate_bits(f)) {}

	__host__ __device__ operator float() const
	{
		bits b;
		b.u = (unsigned int)data << 16;
		return b.f;
	}
	__host__ __device__ explicit operator bool() const { return (data & 0x7fffu) != 0u; }
	__host__ __device__ hip_bfloat16 &operator=(float f)
	{
		data = round_bits(f);
		return *this;
	}
	static __host__ __device__ hip_bfloat16 round_to_bfloat16(float f) { return hip_bfloat16(f); }
	static __host__ __device__ hip_bfloat16 round_to_bfloat16(float f, truncate_t)
	{
		return hip_bfloat16(f, truncate);
	}

	/* A float's bits (a union: hipRTC's clang and NVRTC both read the other member; NVRTC
	   has neither __builtin_memcpy nor __builtin_bit_cast). */
	union bits {
		float f;
		unsigned int u;
	};
	static __host__ __device__ unsigned int as_bits(float f)
	{
		bits b;
		b.f = f;
		return b.u;
	}

	/* Round to nearest even on the 16 bits dropped; a NaN keeps its sign and stays a NaN
	   (its high payload bit is set, so dropping the low half cannot make it infinity). */
	static __host__ __device__ unsigned short round_bits(float f)
	{
		unsigned int u = as_bits(f);
		if ((u & 0x7fffffffu) > 0x7f800000u)
			return (unsigned short)((u >> 16) | 0x0040u);
		u += 0x7fffu + ((u >> 16) & 1u);
		return (unsigned short)(u >> 16);
	}
	static __host__ __device__ unsigned short truncate_bits(float f)
	{
		unsigned int u = as_bits(f);
		if ((u & 0x7fffffffu) > 0x7f800000u)
			return (unsigned short)((u >> 16) | 0x0040u);
		return (unsigned short)(u >> 16);
	}
};

/* Arithmetic and comparisons: in float, the result rounded once. */
#define ROCJIT_HIP_BF16_OP(OP)                                                                   \
	__host__ __device__ inline hip_bfloat16 operator OP(hip_bfloat16 a, hip_bfloat16 b)    \
	{                                                                                        \
		return hip_bfloat16(float(a) OP float(b));                                       \
	}                                                                                        \
	__host__ __device__ inline hip_bfloat16 &operator OP##=(hip_bfloat16 &a, hip_bfloat16 b) \
	{                                                                                        \
		return a = a OP b;                                                               \
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

#endif /* _HIP_BFLOAT16_H_ */

#endif
