/*
 * math.h as rocjit serves it to the device compilers (kernel code only).
 *
 * The math functions themselves (sqrtf, expf, isnan, ...) are built into hipRTC and NVRTC
 * and are not declared again here.  This header adds what kernel code expects beside
 * them: INFINITY, NAN, HUGE_VAL(F), the FP_* classes, the M_* constants (glibc exposes
 * them by default; _USE_MATH_DEFINES is not needed), and the BSD names isnanf, isinff,
 * finitef, which neither compiler has (hipRTC 5.2, NVRTC 13).
 */
#ifndef ROCJIT_DEVLIB_MATH_H
#define ROCJIT_DEVLIB_MATH_H

/* Constant expressions on both compilers: clang's builtins, and under NVRTC (which lacks
   them) the IEEE bit patterns through __builtin_bit_cast. */
#ifndef INFINITY
#if defined(__clang__)
#define INFINITY (__builtin_huge_valf())
#define NAN (__builtin_nanf(""))
#else
#define INFINITY (__builtin_bit_cast(float, 0x7f800000U))
#define NAN (__builtin_bit_cast(float, 0x7fc00000U))
#endif
#endif
#ifndef HUGE_VAL
#if defined(__clang__)
#define HUGE_VAL (__builtin_huge_val())
#else
#define HUGE_VAL (__builtin_bit_cast(double, 0x7ff0000000000000ULL))
#endif
#define HUGE_VALF INFINITY
#endif

#ifndef FP_NAN
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#endif

#ifndef M_PI
#define M_E 2.7182818284590452353602874713526625
#define M_LOG2E 1.4426950408889634073599246810018921
#define M_LOG10E 0.4342944819032518276511289189166051
#define M_LN2 0.6931471805599453094172321214581766
#define M_LN10 2.3025850929940456840179914546843642
#define M_PI 3.1415926535897932384626433832795029
#define M_PI_2 1.5707963267948966192313216916397514
#define M_PI_4 0.7853981633974483096156608458198757
#define M_1_PI 0.3183098861837906715377675267450287
#define M_2_PI 0.6366197723675813430755350534900574
#define M_2_SQRTPI 1.1283791670955125738961589031215452
#define M_SQRT2 1.4142135623730950488016887242096981
#define M_SQRT1_2 0.7071067811865475244008443621048490
#endif

/*
 * Function templates, not functions: a compiler that declares isnanf(float) itself (a
 * newer HIP may) keeps its own, which overload resolution prefers, instead of failing on
 * a second definition.
 */
template <class T> __host__ __device__ inline int isnanf(T x)
{
	return __builtin_isnan(static_cast<float>(x));
}
template <class T> __host__ __device__ inline int isinff(T x)
{
	return __builtin_isinf(static_cast<float>(x)) ? (x < 0 ? -1 : 1) : 0;
}
template <class T> __host__ __device__ inline int finitef(T x)
{
	return __builtin_isfinite(static_cast<float>(x));
}

#endif
