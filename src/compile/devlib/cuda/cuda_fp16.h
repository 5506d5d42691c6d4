/*
 * cuda_fp16.h as rocjit serves it to hipRTC (AMD): for CUDA-dialect sources, and for HIP
 * sources through hip/hip_fp16.h (devlib/std/hip), which is this header under HIP's names.
 *
 * hipRTC builds HIP's __half, half, __half2, half2 in (with the operators, conversions and
 * most intrinsics CUDA's header has), so this header only adds what some HIP versions lack:
 * __hmax/__hmin/__hmax_nan/__hmin_nan (absent in 5.2, present in 5.7), __hmax2/__hmin2,
 * __double2half, and atomicAdd on __half (absent in both).
 *
 * Version handling: every addition is a fallback template (ROCJIT_CUDA_FALLBACK, from
 * rocjit_cuda_types_base.h).  Where the HIP in use declares the same function as a
 * non-template, overload resolution prefers HIP's, so the header compiles unchanged on 5.2,
 * 5.7 and later versions without a table of which version added what.
 *
 * Device code only.  Does not need the CUDA-dialect prelude (rocjit_cuda_types_base.h says
 * why), so HIP sources can include it.
 */
#ifndef ROCJIT_CUDA_FP16_H
#define ROCJIT_CUDA_FP16_H

#include "rocjit_cuda_types_base.h"
#include "rocjit_cuda_convert.h"

/* Max and min: a NaN operand gives the other operand (IEEE maxNum), as CUDA's __hmax. */
ROCJIT_CUDA_FALLBACK __device__ inline __half __hmax(const __half a, const __half b)
{
	float x = __half2float(a), y = __half2float(b);
	return (x > y || y != y) ? a : b;
}
ROCJIT_CUDA_FALLBACK __device__ inline __half __hmin(const __half a, const __half b)
{
	float x = __half2float(a), y = __half2float(b);
	return (x < y || y != y) ? a : b;
}
/* The _nan forms propagate a NaN operand (as a canonical NaN). */
ROCJIT_CUDA_FALLBACK __device__ inline __half __hmax_nan(const __half a, const __half b)
{
	float x = __half2float(a), y = __half2float(b);
	if (x != x || y != y)
		return __ushort_as_half((unsigned short)0x7fffu);
	return x > y ? a : b;
}
ROCJIT_CUDA_FALLBACK __device__ inline __half __hmin_nan(const __half a, const __half b)
{
	float x = __half2float(a), y = __half2float(b);
	if (x != x || y != y)
		return __ushort_as_half((unsigned short)0x7fffu);
	return x < y ? a : b;
}
ROCJIT_CUDA_FALLBACK __device__ inline __half2 __hmax2(const __half2 a, const __half2 b)
{
	return __halves2half2(__hmax(__low2half(a), __low2half(b)),
			      __hmax(__high2half(a), __high2half(b)));
}
ROCJIT_CUDA_FALLBACK __device__ inline __half2 __hmin2(const __half2 a, const __half2 b)
{
	return __halves2half2(__hmin(__low2half(a), __low2half(b)),
			      __hmin(__high2half(a), __high2half(b)));
}

/* double -> half with one rounding (round-to-odd through float, then nearest even). */
ROCJIT_CUDA_FALLBACK __device__ inline __half __double2half(const double d)
{
	return __float2half(rocjit_cvt::double_to_float_odd(d));
}

/* atomicAdd on a __half: a compare-and-swap loop on the 16-bit word; returns the old value. */
ROCJIT_CUDA_FALLBACK __device__ inline __half atomicAdd(__half *address, const __half val)
{
	float v = __half2float(val);
	return __ushort_as_half(rocjit_cuda_types::cas_loop(
		reinterpret_cast<unsigned short *>(address), [=](unsigned short old) {
			return __half_as_ushort(__float2half(__half2float(__ushort_as_half(old)) + v));
		}));
}

/* atomicAdd on a __half2: both halves in one 32-bit compare-and-swap loop. */
ROCJIT_CUDA_FALLBACK __device__ inline __half2 atomicAdd(__half2 *address, const __half2 val)
{
	float vlo = __low2float(val), vhi = __high2float(val);
	unsigned int old = rocjit_cuda_types::cas_loop(
		reinterpret_cast<unsigned int *>(address), [=](unsigned int w) {
			float lo = __half2float(__ushort_as_half((unsigned short)(w & 0xffffu))) + vlo;
			float hi = __half2float(__ushort_as_half((unsigned short)(w >> 16))) + vhi;
			return (unsigned int)__half_as_ushort(__float2half(lo)) |
			       ((unsigned int)__half_as_ushort(__float2half(hi)) << 16);
		});
	return __halves2half2(__ushort_as_half((unsigned short)(old & 0xffffu)),
			      __ushort_as_half((unsigned short)(old >> 16)));
}

/* CUDA's constant macros for half (cuda_fp16.h defines them from raw bits). */
#ifndef CUDART_INF_FP16
#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7c00u)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7fffu)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001u)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7bffu)
#define CUDART_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000u)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000u)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3c00u)
#endif

#endif
