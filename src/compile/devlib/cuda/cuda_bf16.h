/*
 * cuda_bf16.h as rocjit serves it to hipRTC (AMD): for CUDA-dialect sources, and for HIP
 * sources through hip/hip_bf16.h (devlib/std/hip), which is this header under HIP's names.
 *
 * HIP 5.2 has no bfloat16 type at all; 5.7 has only the older `hip_bfloat16` class, under
 * another name.  This header defines CUDA's: __nv_bfloat16_raw, __nv_bfloat16 (a 16-bit
 * storage struct, arithmetic done in float and rounded to nearest even - exact for + - * /
 * because float carries more than twice bf16's precision) and __nv_bfloat162, with the
 * conversions, operators and intrinsics CUDA kernels use.  The implicit conversions follow
 * CUDA 12/13's header: implicit from float, double and every integer type, implicit to float
 * and every integer type (not to double: that would make float/double ambiguous), explicit
 * from __half.  No GPU we compile for has bf16 arithmetic instructions; gfx90a's conversion
 * instructions are not needed for correctness.
 *
 * cuda_fp8.h is included at the end, so fp8 types are visible wherever bf16 is (some kernel
 * libraries rely on nvcc reaching cuda_fp8.h transitively).
 *
 * Device code only.  Owns the __nv_bfloat16* names and their intrinsics.
 */
#ifndef ROCJIT_CUDA_BF16_H
#define ROCJIT_CUDA_BF16_H

#include "rocjit_cuda_types_base.h"
#include "rocjit_cuda_convert.h"
#include "cuda_fp16.h"

#define ROCJIT_BF16_FN __host__ __device__ inline

struct __nv_bfloat16_raw {
	unsigned short x;
};
struct __nv_bfloat162_raw {
	unsigned short x;
	unsigned short y;
};

struct __attribute__((aligned(2))) __nv_bfloat16 {
	unsigned short __x;

	__nv_bfloat16() = default;
	__nv_bfloat16(const __nv_bfloat16 &) = default;
	ROCJIT_BF16_FN constexpr __nv_bfloat16(const __nv_bfloat16_raw &r) : __x(r.x) {}
	ROCJIT_BF16_FN __nv_bfloat16(float f) : __x(rocjit_cvt::float_to_bf16(f)) {}
	ROCJIT_BF16_FN __nv_bfloat16(double d) : __x(rocjit_cvt::double_to_bf16(d)) {}
	/* Integers go through double: exact for 32-bit values, so one rounding. */
	ROCJIT_BF16_FN __nv_bfloat16(short v) : __x(rocjit_cvt::float_to_bf16((float)v)) {}
	ROCJIT_BF16_FN __nv_bfloat16(unsigned short v) : __x(rocjit_cvt::float_to_bf16((float)v)) {}
	ROCJIT_BF16_FN __nv_bfloat16(int v) : __x(rocjit_cvt::double_to_bf16((double)v)) {}
	ROCJIT_BF16_FN __nv_bfloat16(unsigned int v) : __x(rocjit_cvt::double_to_bf16((double)v)) {}
	ROCJIT_BF16_FN __nv_bfloat16(long v) : __x(rocjit_cvt::double_to_bf16((double)v)) {}
	ROCJIT_BF16_FN __nv_bfloat16(unsigned long v) : __x(rocjit_cvt::double_to_bf16((double)v)) {}
	ROCJIT_BF16_FN __nv_bfloat16(long long v) : __x(rocjit_cvt::double_to_bf16((double)v)) {}
	ROCJIT_BF16_FN __nv_bfloat16(unsigned long long v)
		: __x(rocjit_cvt::double_to_bf16((double)v))
	{
	}
	/* __half -> bf16 is explicit, as in CUDA: the two 16-bit types never mix silently. */
	__device__ explicit __nv_bfloat16(const __half h)
		: __x(rocjit_cvt::float_to_bf16(__half2float(h)))
	{
	}

	ROCJIT_BF16_FN operator __nv_bfloat16_raw() const
	{
		__nv_bfloat16_raw r;
		r.x = __x;
		return r;
	}
	ROCJIT_BF16_FN operator __nv_bfloat16_raw() const volatile
	{
		__nv_bfloat16_raw r;
		r.x = __x;
		return r;
	}
	ROCJIT_BF16_FN __nv_bfloat16 &operator=(const __nv_bfloat16_raw &r)
	{
		__x = r.x;
		return *this;
	}
	ROCJIT_BF16_FN volatile __nv_bfloat16 &operator=(const __nv_bfloat16 &o) volatile
	{
		__x = o.__x;
		return *this;
	}
	__nv_bfloat16 &operator=(const __nv_bfloat16 &) = default;

	ROCJIT_BF16_FN operator float() const { return rocjit_cvt::bf16_to_float(__x); }
	ROCJIT_BF16_FN operator bool() const { return (__x & 0x7fffu) != 0u; }
	/* Integer conversions truncate towards zero, saturate, and give 0 for NaN. */
#define ROCJIT_BF16_TO_INT(T)                                                           \
	ROCJIT_BF16_FN operator T() const                                               \
	{                                                                               \
		return rocjit_cvt::float_to_int_rz<T>(rocjit_cvt::bf16_to_float(__x)); \
	}
	ROCJIT_BF16_TO_INT(signed char)
	ROCJIT_BF16_TO_INT(unsigned char)
	ROCJIT_BF16_TO_INT(char)
	ROCJIT_BF16_TO_INT(short)
	ROCJIT_BF16_TO_INT(unsigned short)
	ROCJIT_BF16_TO_INT(int)
	ROCJIT_BF16_TO_INT(unsigned int)
	ROCJIT_BF16_TO_INT(long)
	ROCJIT_BF16_TO_INT(unsigned long)
	ROCJIT_BF16_TO_INT(long long)
	ROCJIT_BF16_TO_INT(unsigned long long)
#undef ROCJIT_BF16_TO_INT
};

struct __attribute__((aligned(4))) __nv_bfloat162 {
	__nv_bfloat16 x;
	__nv_bfloat16 y;

	__nv_bfloat162() = default;
	ROCJIT_BF16_FN constexpr __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b)
		: x(a), y(b)
	{
	}
	ROCJIT_BF16_FN __nv_bfloat162(const __nv_bfloat162_raw &r)
	{
		x.__x = r.x;
		y.__x = r.y;
	}
	ROCJIT_BF16_FN operator __nv_bfloat162_raw() const
	{
		__nv_bfloat162_raw r;
		r.x = x.__x;
		r.y = y.__x;
		return r;
	}
};

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

/* ---- Conversions -------------------------------------------------------------------- */
ROCJIT_BF16_FN float __bfloat162float(const __nv_bfloat16 a)
{
	return rocjit_cvt::bf16_to_float(a.__x);
}
ROCJIT_BF16_FN constexpr __nv_bfloat16 __ushort_as_bfloat16(const unsigned short u)
{
	return __nv_bfloat16(__nv_bfloat16_raw{u});
}
ROCJIT_BF16_FN constexpr unsigned short __bfloat16_as_ushort(const __nv_bfloat16 a)
{
	return a.__x;
}
ROCJIT_BF16_FN __nv_bfloat16 __short_as_bfloat16(const short s)
{
	return __ushort_as_bfloat16((unsigned short)s);
}
ROCJIT_BF16_FN short __bfloat16_as_short(const __nv_bfloat16 a) { return (short)a.__x; }
ROCJIT_BF16_FN __nv_bfloat16 __float2bfloat16(const float f)
{
	return __ushort_as_bfloat16(rocjit_cvt::float_to_bf16(f));
}
ROCJIT_BF16_FN __nv_bfloat16 __float2bfloat16_rn(const float f) { return __float2bfloat16(f); }
/* Round towards zero: drop the low half (NaN stays a NaN). */
ROCJIT_BF16_FN __nv_bfloat16 __float2bfloat16_rz(const float f)
{
	unsigned int u = rocjit_cvt::f2u(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return __ushort_as_bfloat16((unsigned short)0x7fffu);
	return __ushort_as_bfloat16((unsigned short)(u >> 16));
}
/* Round down (towards -inf) and up (towards +inf): an inexact value takes the truncated
 * bits (towards zero) or the next magnitude, by its sign (NaN stays a NaN; past the
 * largest finite value the next magnitude is the infinity, as IEEE directs). */
ROCJIT_BF16_FN __nv_bfloat16 rocjit_bf16_directed(const float f, const unsigned int up)
{
	unsigned int u = rocjit_cvt::f2u(f), away = (u >> 31) ? !up : up;
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return __ushort_as_bfloat16((unsigned short)0x7fffu);
	return __ushort_as_bfloat16((unsigned short)((u >> 16) + ((u & 0xffffu) != 0 && away)));
}
ROCJIT_BF16_FN __nv_bfloat16 __float2bfloat16_rd(const float f) { return rocjit_bf16_directed(f, 0); }
ROCJIT_BF16_FN __nv_bfloat16 __float2bfloat16_ru(const float f) { return rocjit_bf16_directed(f, 1); }
ROCJIT_BF16_FN __nv_bfloat16 __double2bfloat16(const double d)
{
	return __ushort_as_bfloat16(rocjit_cvt::double_to_bf16(d));
}
ROCJIT_BF16_FN __nv_bfloat16 __int2bfloat16_rn(const int i) { return __nv_bfloat16(i); }
ROCJIT_BF16_FN __nv_bfloat16 __uint2bfloat16_rn(const unsigned int i) { return __nv_bfloat16(i); }
ROCJIT_BF16_FN __nv_bfloat16 __ll2bfloat16_rn(const long long i) { return __nv_bfloat16(i); }
ROCJIT_BF16_FN __nv_bfloat16 __ull2bfloat16_rn(const unsigned long long i)
{
	return __nv_bfloat16(i);
}
ROCJIT_BF16_FN __nv_bfloat16 __short2bfloat16_rn(const short i) { return __nv_bfloat16(i); }
ROCJIT_BF16_FN __nv_bfloat16 __ushort2bfloat16_rn(const unsigned short i)
{
	return __nv_bfloat16(i);
}
ROCJIT_BF16_FN int __bfloat162int_rz(const __nv_bfloat16 a) { return (int)a; }
ROCJIT_BF16_FN unsigned int __bfloat162uint_rz(const __nv_bfloat16 a) { return (unsigned int)a; }
ROCJIT_BF16_FN long long __bfloat162ll_rz(const __nv_bfloat16 a) { return (long long)a; }
ROCJIT_BF16_FN unsigned long long __bfloat162ull_rz(const __nv_bfloat16 a)
{
	return (unsigned long long)a;
}
ROCJIT_BF16_FN short __bfloat162short_rz(const __nv_bfloat16 a) { return (short)a; }
ROCJIT_BF16_FN unsigned short __bfloat162ushort_rz(const __nv_bfloat16 a)
{
	return (unsigned short)a;
}
__device__ inline __nv_bfloat16 __half2bfloat16(const __half h) { return __nv_bfloat16(h); }
__device__ inline __half __bfloat162half(const __nv_bfloat16 a)
{
	return __float2half(__bfloat162float(a));
}

/* Pairs. */
ROCJIT_BF16_FN __nv_bfloat162 __floats2bfloat162_rn(const float a, const float b)
{
	return __nv_bfloat162(__float2bfloat16(a), __float2bfloat16(b));
}
ROCJIT_BF16_FN __nv_bfloat162 __float2bfloat162_rn(const float a)
{
	return __floats2bfloat162_rn(a, a);
}
ROCJIT_BF16_FN __nv_bfloat162 __halves2bfloat162(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	return __nv_bfloat162(a, b);
}
ROCJIT_BF16_FN __nv_bfloat162 __bfloat162bfloat162(const __nv_bfloat16 a)
{
	return __nv_bfloat162(a, a);
}
ROCJIT_BF16_FN __nv_bfloat16 __low2bfloat16(const __nv_bfloat162 a) { return a.x; }
ROCJIT_BF16_FN __nv_bfloat16 __high2bfloat16(const __nv_bfloat162 a) { return a.y; }
ROCJIT_BF16_FN float __low2float(const __nv_bfloat162 a) { return __bfloat162float(a.x); }
ROCJIT_BF16_FN float __high2float(const __nv_bfloat162 a) { return __bfloat162float(a.y); }
ROCJIT_BF16_FN float2 __bfloat1622float2(const __nv_bfloat162 a)
{
	return make_float2(__bfloat162float(a.x), __bfloat162float(a.y));
}
ROCJIT_BF16_FN __nv_bfloat162 __float22bfloat162_rn(const float2 f)
{
	return __floats2bfloat162_rn(f.x, f.y);
}
ROCJIT_BF16_FN __nv_bfloat162 __lowhigh2highlow(const __nv_bfloat162 a)
{
	return __nv_bfloat162(a.y, a.x);
}

#ifndef CUDART_INF_BF16
#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7f80u)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7fffu)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001u)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7f7fu)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000u)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000u)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3f80u)
#endif

/* ---- Arithmetic: in float, rounded once ---------------------------------------------- */
#define ROCJIT_BF16_F(a) rocjit_cvt::bf16_to_float((a).__x)
ROCJIT_BF16_FN __nv_bfloat16 __hadd(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	return __float2bfloat16(ROCJIT_BF16_F(a) + ROCJIT_BF16_F(b));
}
ROCJIT_BF16_FN __nv_bfloat16 __hsub(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	return __float2bfloat16(ROCJIT_BF16_F(a) - ROCJIT_BF16_F(b));
}
ROCJIT_BF16_FN __nv_bfloat16 __hmul(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	return __float2bfloat16(ROCJIT_BF16_F(a) * ROCJIT_BF16_F(b));
}
ROCJIT_BF16_FN __nv_bfloat16 __hdiv(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	return __float2bfloat16(ROCJIT_BF16_F(a) / ROCJIT_BF16_F(b));
}
/* a*b+c: the product of two bf16 is exact in float, so one float add rounds it. */
ROCJIT_BF16_FN __nv_bfloat16 __hfma(const __nv_bfloat16 a, const __nv_bfloat16 b,
				    const __nv_bfloat16 c)
{
	return __float2bfloat16(__builtin_fmaf(ROCJIT_BF16_F(a), ROCJIT_BF16_F(b), ROCJIT_BF16_F(c)));
}
ROCJIT_BF16_FN __nv_bfloat16 __hneg(const __nv_bfloat16 a)
{
	return __ushort_as_bfloat16((unsigned short)(a.__x ^ 0x8000u));
}
ROCJIT_BF16_FN __nv_bfloat16 __habs(const __nv_bfloat16 a)
{
	return __ushort_as_bfloat16((unsigned short)(a.__x & 0x7fffu));
}
ROCJIT_BF16_FN bool __hisnan(const __nv_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }
ROCJIT_BF16_FN int __hisinf(const __nv_bfloat16 a)
{
	return a.__x == 0x7f80u ? 1 : a.__x == 0xff80u ? -1 : 0;
}
ROCJIT_BF16_FN __nv_bfloat16 __hmax(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	float x = ROCJIT_BF16_F(a), y = ROCJIT_BF16_F(b);
	return (x > y || y != y) ? a : b;
}
ROCJIT_BF16_FN __nv_bfloat16 __hmin(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	float x = ROCJIT_BF16_F(a), y = ROCJIT_BF16_F(b);
	return (x < y || y != y) ? a : b;
}
ROCJIT_BF16_FN __nv_bfloat16 __hmax_nan(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	float x = ROCJIT_BF16_F(a), y = ROCJIT_BF16_F(b);
	if (x != x || y != y)
		return __ushort_as_bfloat16((unsigned short)0x7fffu);
	return x > y ? a : b;
}
ROCJIT_BF16_FN __nv_bfloat16 __hmin_nan(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	float x = ROCJIT_BF16_F(a), y = ROCJIT_BF16_F(b);
	if (x != x || y != y)
		return __ushort_as_bfloat16((unsigned short)0x7fffu);
	return x < y ? a : b;
}
/* Comparisons: ordered (false on NaN) and the unordered ...u forms (true on NaN). */
ROCJIT_BF16_FN bool __heq(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	return ROCJIT_BF16_F(a) == ROCJIT_BF16_F(b);
}
ROCJIT_BF16_FN bool __hne(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	float x = ROCJIT_BF16_F(a), y = ROCJIT_BF16_F(b);
	return x < y || x > y;
}
ROCJIT_BF16_FN bool __hlt(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	return ROCJIT_BF16_F(a) < ROCJIT_BF16_F(b);
}
ROCJIT_BF16_FN bool __hle(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	return ROCJIT_BF16_F(a) <= ROCJIT_BF16_F(b);
}
ROCJIT_BF16_FN bool __hgt(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	return ROCJIT_BF16_F(a) > ROCJIT_BF16_F(b);
}
ROCJIT_BF16_FN bool __hge(const __nv_bfloat16 a, const __nv_bfloat16 b)
{
	return ROCJIT_BF16_F(a) >= ROCJIT_BF16_F(b);
}
ROCJIT_BF16_FN bool __hequ(const __nv_bfloat16 a, const __nv_bfloat16 b) { return !__hne(a, b); }
ROCJIT_BF16_FN bool __hneu(const __nv_bfloat16 a, const __nv_bfloat16 b) { return !__heq(a, b); }
ROCJIT_BF16_FN bool __hltu(const __nv_bfloat16 a, const __nv_bfloat16 b) { return !__hge(a, b); }
ROCJIT_BF16_FN bool __hleu(const __nv_bfloat16 a, const __nv_bfloat16 b) { return !__hgt(a, b); }
ROCJIT_BF16_FN bool __hgtu(const __nv_bfloat16 a, const __nv_bfloat16 b) { return !__hle(a, b); }
ROCJIT_BF16_FN bool __hgeu(const __nv_bfloat16 a, const __nv_bfloat16 b) { return !__hlt(a, b); }

/* Pair arithmetic: each half separately. */
#define ROCJIT_BF16_PAIR(NAME, FN)                                                          \
	ROCJIT_BF16_FN __nv_bfloat162 NAME(const __nv_bfloat162 a, const __nv_bfloat162 b) \
	{                                                                                   \
		return __nv_bfloat162(FN(a.x, b.x), FN(a.y, b.y));                          \
	}
ROCJIT_BF16_PAIR(__hadd2, __hadd)
ROCJIT_BF16_PAIR(__hsub2, __hsub)
ROCJIT_BF16_PAIR(__hmul2, __hmul)
ROCJIT_BF16_PAIR(__h2div, __hdiv)
ROCJIT_BF16_PAIR(__hmax2, __hmax)
ROCJIT_BF16_PAIR(__hmin2, __hmin)
#undef ROCJIT_BF16_PAIR
ROCJIT_BF16_FN __nv_bfloat162 __hfma2(const __nv_bfloat162 a, const __nv_bfloat162 b,
				      const __nv_bfloat162 c)
{
	return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}

/* ---- Math: in float, rounded once ----------------------------------------------------- */
#define ROCJIT_BF16_MATH(NAME, EXPR)                                \
	__device__ inline __nv_bfloat16 NAME(const __nv_bfloat16 a) \
	{                                                           \
		float x = ROCJIT_BF16_F(a);                         \
		return __float2bfloat16(EXPR);                      \
	}
ROCJIT_BF16_MATH(hsqrt, __builtin_sqrtf(x))
ROCJIT_BF16_MATH(hrsqrt, 1.0f / __builtin_sqrtf(x))
ROCJIT_BF16_MATH(hrcp, 1.0f / x)
ROCJIT_BF16_MATH(hexp, expf(x))
ROCJIT_BF16_MATH(hexp2, exp2f(x))
ROCJIT_BF16_MATH(hexp10, exp10f(x))
ROCJIT_BF16_MATH(hlog, logf(x))
ROCJIT_BF16_MATH(hlog2, log2f(x))
ROCJIT_BF16_MATH(hlog10, log10f(x))
ROCJIT_BF16_MATH(hsin, sinf(x))
ROCJIT_BF16_MATH(hcos, cosf(x))
ROCJIT_BF16_MATH(htanh, tanhf(x))
ROCJIT_BF16_MATH(hceil, ceilf(x))
ROCJIT_BF16_MATH(hfloor, floorf(x))
ROCJIT_BF16_MATH(htrunc, truncf(x))
ROCJIT_BF16_MATH(hrint, rintf(x))
#undef ROCJIT_BF16_MATH

/* ---- Operators (free functions, as CUDA's) -------------------------------------------- */
#define ROCJIT_BF16_OP(OP, FN)                                                              \
	ROCJIT_BF16_FN __nv_bfloat16 operator OP(const __nv_bfloat16 &a, const __nv_bfloat16 &b) \
	{                                                                                   \
		return FN(a, b);                                                            \
	}                                                                                   \
	ROCJIT_BF16_FN __nv_bfloat16 &operator OP##=(__nv_bfloat16 &a, const __nv_bfloat16 &b) \
	{                                                                                   \
		return a = FN(a, b);                                                        \
	}                                                                                   \
	ROCJIT_BF16_FN __nv_bfloat162 operator OP(const __nv_bfloat162 &a,                  \
						  const __nv_bfloat162 &b)                  \
	{                                                                                   \
		return __nv_bfloat162(FN(a.x, b.x), FN(a.y, b.y));                          \
	}
ROCJIT_BF16_OP(+, __hadd)
ROCJIT_BF16_OP(-, __hsub)
ROCJIT_BF16_OP(*, __hmul)
ROCJIT_BF16_OP(/, __hdiv)
#undef ROCJIT_BF16_OP
#define ROCJIT_BF16_CMP(OP, FN)                                                     \
	ROCJIT_BF16_FN bool operator OP(const __nv_bfloat16 &a, const __nv_bfloat16 &b) \
	{                                                                           \
		return FN(a, b);                                                    \
	}
ROCJIT_BF16_CMP(==, __heq)
ROCJIT_BF16_CMP(!=, __hneu)
ROCJIT_BF16_CMP(<, __hlt)
ROCJIT_BF16_CMP(<=, __hle)
ROCJIT_BF16_CMP(>, __hgt)
ROCJIT_BF16_CMP(>=, __hge)
#undef ROCJIT_BF16_CMP
ROCJIT_BF16_FN __nv_bfloat16 &operator++(__nv_bfloat16 &a) { return a += CUDART_ONE_BF16; }
ROCJIT_BF16_FN __nv_bfloat16 &operator--(__nv_bfloat16 &a) { return a -= CUDART_ONE_BF16; }
ROCJIT_BF16_FN __nv_bfloat16 operator++(__nv_bfloat16 &a, int)
{
	__nv_bfloat16 old = a;
	++a;
	return old;
}
ROCJIT_BF16_FN __nv_bfloat16 operator--(__nv_bfloat16 &a, int)
{
	__nv_bfloat16 old = a;
	--a;
	return old;
}
ROCJIT_BF16_FN __nv_bfloat16 operator+(const __nv_bfloat16 &a) { return a; }
ROCJIT_BF16_FN __nv_bfloat16 operator-(const __nv_bfloat16 &a) { return __hneg(a); }
#undef ROCJIT_BF16_F

/* ---- Memory ---------------------------------------------------------------------------- */
__device__ inline __nv_bfloat16 __ldg(const __nv_bfloat16 *p) { return *p; }
__device__ inline __nv_bfloat162 __ldg(const __nv_bfloat162 *p) { return *p; }

/* atomicAdd on a bf16: a compare-and-swap loop on the 16-bit word; returns the old value. */
__device__ inline __nv_bfloat16 atomicAdd(__nv_bfloat16 *address, const __nv_bfloat16 val)
{
	return __ushort_as_bfloat16(rocjit_cuda_types::cas_loop(
		reinterpret_cast<unsigned short *>(address), [=](unsigned short old) {
			return __hadd(__ushort_as_bfloat16(old), val).__x;
		}));
}


#undef ROCJIT_BF16_FN

#include "cuda_fp8.h"

#endif
