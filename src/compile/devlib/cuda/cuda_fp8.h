/*
 * cuda_fp8.h as rocjit serves it to hipRTC (AMD): for CUDA-dialect sources, and for HIP
 * sources through hip/hip_fp8.h (devlib/std/hip), which is this header under HIP's names.
 *
 * CUDA's OCP 8-bit float types: __nv_fp8_e4m3 (bias 7, max 448, no infinity) and
 * __nv_fp8_e5m2 (bias 15, max 57344, IEEE-like infinities), the x2/x4 storage types, and the
 * conversion functions (__nv_cvt_*).  Pure bit manipulation (rocjit_cuda_convert.h), round to
 * nearest even: none of gfx90a/gfx1030 has fp8 instructions, and gfx94x's are the FNUZ
 * variants, a different encoding.  As in CUDA, the constructors are explicit and saturate
 * to the largest finite value; the conversion operators are explicit.
 *
 * Device code only.  Owns the __nv_fp8* names.
 */
#ifndef ROCJIT_CUDA_FP8_H
#define ROCJIT_CUDA_FP8_H

#include "rocjit_cuda_types_base.h"
#include "rocjit_cuda_convert.h"
#include "cuda_fp16.h"
#include "cuda_bf16.h"

#define ROCJIT_FP8_FN __host__ __device__ inline

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short int __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;

typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

namespace rocjit_cuda {
ROCJIT_FP8_FN rocjit_cvt::fp8_kind fp8_kind_of(__nv_fp8_interpretation_t t)
{
	return t == __NV_E5M2 ? rocjit_cvt::FP8_E5M2 : rocjit_cvt::FP8_E4M3;
}
} /* namespace rocjit_cuda */

/* ---- Conversion functions ------------------------------------------------------------ */
ROCJIT_FP8_FN __nv_fp8_storage_t __nv_cvt_float_to_fp8(const float x,
							const __nv_saturation_t saturate,
							const __nv_fp8_interpretation_t kind)
{
	return rocjit_cvt::float_to_fp8(x, saturate == __NV_SATFINITE,
					rocjit_cuda::fp8_kind_of(kind));
}
ROCJIT_FP8_FN __nv_fp8_storage_t __nv_cvt_double_to_fp8(const double x,
							 const __nv_saturation_t saturate,
							 const __nv_fp8_interpretation_t kind)
{
	return __nv_cvt_float_to_fp8(rocjit_cvt::double_to_float_odd(x), saturate, kind);
}
ROCJIT_FP8_FN __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(const float2 x,
							     const __nv_saturation_t saturate,
							     const __nv_fp8_interpretation_t kind)
{
	return (__nv_fp8x2_storage_t)(__nv_cvt_float_to_fp8(x.x, saturate, kind) |
				      (__nv_cvt_float_to_fp8(x.y, saturate, kind) << 8));
}
__device__ inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(const __half_raw x,
							    const __nv_saturation_t saturate,
							    const __nv_fp8_interpretation_t kind)
{
	return __nv_cvt_float_to_fp8(rocjit_cvt::half_bits_to_float(x.x), saturate, kind);
}
ROCJIT_FP8_FN __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(const __nv_bfloat16_raw x,
							      const __nv_saturation_t saturate,
							      const __nv_fp8_interpretation_t kind)
{
	return __nv_cvt_float_to_fp8(rocjit_cvt::bf16_to_float(x.x), saturate, kind);
}
__device__ inline __half_raw __nv_cvt_fp8_to_halfraw(const __nv_fp8_storage_t x,
						     const __nv_fp8_interpretation_t kind)
{
	__half_raw r;
	r.x = rocjit_cvt::fp8_to_half_bits(x, rocjit_cuda::fp8_kind_of(kind));
	return r;
}
__device__ inline __half2_raw __nv_cvt_fp8x2_to_halfraw2(const __nv_fp8x2_storage_t x,
							 const __nv_fp8_interpretation_t kind)
{
	__half2_raw r;
	r.x = rocjit_cvt::fp8_to_half_bits((unsigned char)(x & 0xffu), rocjit_cuda::fp8_kind_of(kind));
	r.y = rocjit_cvt::fp8_to_half_bits((unsigned char)(x >> 8), rocjit_cuda::fp8_kind_of(kind));
	return r;
}

/* ---- Types ------------------------------------------------------------------------------
 * One body for both kinds; KIND is the interpretation.  Integer constructors go through
 * float as CUDA's do; the explicit integer conversions (one template over the integer types
 * rocjit_cvt::int_range knows) truncate and saturate (NaN -> 0). */
#define ROCJIT_FP8_TYPE(NAME, KIND)                                                                \
	struct __attribute__((aligned(1))) NAME {                                                  \
		__nv_fp8_storage_t __x;                                                            \
                                                                                                   \
		NAME() = default;                                                                  \
		ROCJIT_FP8_FN explicit NAME(const float f)                                         \
			: __x(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, KIND))                      \
		{                                                                                  \
		}                                                                                  \
		ROCJIT_FP8_FN explicit NAME(const double d)                                        \
			: __x(__nv_cvt_double_to_fp8(d, __NV_SATFINITE, KIND))                     \
		{                                                                                  \
		}                                                                                  \
		__device__ explicit NAME(const __half h)                                           \
			: __x(__nv_cvt_float_to_fp8(__half2float(h), __NV_SATFINITE, KIND))        \
		{                                                                                  \
		}                                                                                  \
		ROCJIT_FP8_FN explicit NAME(const __nv_bfloat16 b)                                 \
			: __x(__nv_cvt_bfloat16raw_to_fp8(b, __NV_SATFINITE, KIND))                \
		{                                                                                  \
		}                                                                                  \
		ROCJIT_FP8_FN explicit NAME(const unsigned short v) : NAME((float)v) {}            \
		ROCJIT_FP8_FN explicit NAME(const unsigned int v) : NAME((float)v) {}              \
		ROCJIT_FP8_FN explicit NAME(const unsigned long v) : NAME((float)v) {}             \
		ROCJIT_FP8_FN explicit NAME(const unsigned long long v) : NAME((float)v) {}        \
		ROCJIT_FP8_FN explicit NAME(const short v) : NAME((float)v) {}                     \
		ROCJIT_FP8_FN explicit NAME(const int v) : NAME((float)v) {}                       \
		ROCJIT_FP8_FN explicit NAME(const long v) : NAME((float)v) {}                      \
		ROCJIT_FP8_FN explicit NAME(const long long v) : NAME((float)v) {}                 \
                                                                                                   \
		ROCJIT_FP8_FN float rocjit_float() const                                           \
		{                                                                                  \
			return rocjit_cvt::fp8_to_float(__x, rocjit_cuda::fp8_kind_of(KIND));      \
		}                                                                                  \
		ROCJIT_FP8_FN explicit operator float() const { return rocjit_float(); }           \
		ROCJIT_FP8_FN explicit operator double() const { return (double)rocjit_float(); }  \
		__device__ explicit operator __half() const                                        \
		{                                                                                  \
			return __half(__nv_cvt_fp8_to_halfraw(__x, KIND));                         \
		}                                                                                  \
		ROCJIT_FP8_FN explicit operator __nv_bfloat16() const                              \
		{                                                                                  \
			return __float2bfloat16(rocjit_float());                                   \
		}                                                                                  \
		ROCJIT_FP8_FN explicit operator bool() const { return (__x & 0x7fu) != 0u; }       \
		template <class I, class = decltype(rocjit_cvt::int_range<I>::lo())>               \
		ROCJIT_FP8_FN explicit operator I() const                                          \
		{                                                                                  \
			return rocjit_cvt::float_to_int_rz<I>(rocjit_float());                     \
		}                                                                                  \
	};

ROCJIT_FP8_TYPE(__nv_fp8_e4m3, __NV_E4M3)
ROCJIT_FP8_TYPE(__nv_fp8_e5m2, __NV_E5M2)
#undef ROCJIT_FP8_TYPE

/* Pairs and quads: storage plus conversions to and from float2/float4. */
#define ROCJIT_FP8_VEC(NAME, KIND)                                                            \
	struct __attribute__((aligned(2))) __nv_fp8x2_##NAME {                               \
		__nv_fp8x2_storage_t __x;                                                     \
		__nv_fp8x2_##NAME() = default;                                                \
		ROCJIT_FP8_FN explicit __nv_fp8x2_##NAME(const float2 f)                      \
			: __x(__nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, KIND))              \
		{                                                                             \
		}                                                                             \
		ROCJIT_FP8_FN explicit operator float2() const                                \
		{                                                                             \
			return make_float2(                                                   \
				rocjit_cvt::fp8_to_float((unsigned char)(__x & 0xffu),        \
							 rocjit_cuda::fp8_kind_of(KIND)),     \
				rocjit_cvt::fp8_to_float((unsigned char)(__x >> 8),           \
							 rocjit_cuda::fp8_kind_of(KIND)));    \
		}                                                                             \
	};                                                                                    \
	struct __attribute__((aligned(4))) __nv_fp8x4_##NAME {                               \
		__nv_fp8x4_storage_t __x;                                                     \
		__nv_fp8x4_##NAME() = default;                                                \
		ROCJIT_FP8_FN explicit __nv_fp8x4_##NAME(const float4 f)                      \
			: __x((__nv_fp8x4_storage_t)__nv_cvt_float_to_fp8(f.x, __NV_SATFINITE, KIND) | \
			      ((__nv_fp8x4_storage_t)__nv_cvt_float_to_fp8(f.y, __NV_SATFINITE, KIND) << 8) | \
			      ((__nv_fp8x4_storage_t)__nv_cvt_float_to_fp8(f.z, __NV_SATFINITE, KIND) << 16) | \
			      ((__nv_fp8x4_storage_t)__nv_cvt_float_to_fp8(f.w, __NV_SATFINITE, KIND) << 24)) \
		{                                                                             \
		}                                                                             \
		ROCJIT_FP8_FN explicit operator float4() const                                \
		{                                                                             \
			rocjit_cvt::fp8_kind k = rocjit_cuda::fp8_kind_of(KIND);              \
			return make_float4(rocjit_cvt::fp8_to_float((unsigned char)__x, k),   \
					   rocjit_cvt::fp8_to_float((unsigned char)(__x >> 8), k), \
					   rocjit_cvt::fp8_to_float((unsigned char)(__x >> 16), k), \
					   rocjit_cvt::fp8_to_float((unsigned char)(__x >> 24), k)); \
		}                                                                             \
	};

ROCJIT_FP8_VEC(e4m3, __NV_E4M3)
ROCJIT_FP8_VEC(e5m2, __NV_E5M2)
#undef ROCJIT_FP8_VEC

typedef __nv_fp8_e4m3 nv_fp8_e4m3;
typedef __nv_fp8_e5m2 nv_fp8_e5m2;

#undef ROCJIT_FP8_FN

#endif
