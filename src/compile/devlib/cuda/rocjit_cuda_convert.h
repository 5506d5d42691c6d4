/*
 * rocjit_cuda_convert.h - the bit-level conversions behind rocjit's bf16 and fp8 types for
 * the CUDA dialect on AMD (cuda_bf16.h, cuda_fp8.h).  Plain C++14 on integers and floats:
 * nothing here needs HIP, so the same text also compiles on the host (g++ with __host__ and
 * __device__ defined empty), where every bit pattern is checked against CUDA's own headers.
 *
 * Rounding is round-to-nearest-even everywhere.  Doubles are first narrowed to float with
 * round-to-odd, which keeps the one final rounding correct (float has 24 significand bits,
 * more than the 2p+2 that bf16, fp16 and fp8 need), so there is no double rounding.
 *
 * Owns: the rocjit_cvt namespace.  Must not: declare anything CUDA or HIP names.
 */
#ifndef ROCJIT_CUDA_CONVERT_H
#define ROCJIT_CUDA_CONVERT_H

#define ROCJIT_CVT_FN __host__ __device__ inline

namespace rocjit_cvt {

ROCJIT_CVT_FN unsigned int f2u(float f) { return __builtin_bit_cast(unsigned int, f); }
ROCJIT_CVT_FN float u2f(unsigned int u) { return __builtin_bit_cast(float, u); }
ROCJIT_CVT_FN unsigned long long d2u(double d)
{
	return __builtin_bit_cast(unsigned long long, d);
}

/* double -> float rounded to odd: truncate towards zero, then set the last bit when the
 * result is inexact.  NaN stays NaN; a double beyond FLT_MAX becomes FLT_MAX | sticky. */
ROCJIT_CVT_FN float double_to_float_odd(double d)
{
	if (d != d)
		return (float)d;
	float f = (float)d; /* round to nearest even */
	unsigned int u = f2u(f);
	double fd = (double)f;
	if ((fd > 0.0 && fd > d) || (fd < 0.0 && fd < d)) {
		u -= 1; /* one step towards zero: the magnitude is above |d| */
		fd = (double)u2f(u);
	}
	if (fd != d)
		u |= 1u;
	return u2f(u);
}

/* ---- bfloat16 (1 sign, 8 exponent, 7 mantissa bits: the top half of a float) ---- */

/* float -> bf16 bits, round to nearest even; a NaN becomes the canonical 0x7fff, as CUDA's. */
ROCJIT_CVT_FN unsigned short float_to_bf16(float f)
{
	unsigned int u = f2u(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (unsigned short)0x7fffu;
	u += 0x7fffu + ((u >> 16) & 1u);
	return (unsigned short)(u >> 16);
}

ROCJIT_CVT_FN float bf16_to_float(unsigned short b) { return u2f((unsigned int)b << 16); }

ROCJIT_CVT_FN unsigned short double_to_bf16(double d)
{
	return float_to_bf16(double_to_float_odd(d));
}

/* ---- fp8 (OCP 8-bit floats): E4M3 (bias 7, max 448, no infinity, NaN S.1111.111) and
 * E5M2 (bias 15, max 57344, infinities and NaNs as in IEEE) ---- */

enum fp8_kind { FP8_E4M3 = 0, FP8_E5M2 = 1 };

/* float -> fp8 bits with round to nearest even.  NaN -> 0x7f (sign dropped, as CUDA does).
 * Overflow: with saturate, the largest finite value of the sign; without, NaN (E4M3) or
 * infinity (E5M2).  An infinite input saturates too when saturate is set. */
ROCJIT_CVT_FN unsigned char float_to_fp8(float f, bool saturate, fp8_kind kind)
{
	const int mbits = kind == FP8_E4M3 ? 3 : 2;
	const int bias = kind == FP8_E4M3 ? 7 : 15;
	const unsigned int maxenc = kind == FP8_E4M3 ? 0x7eu : 0x7bu;
	const unsigned int ovfenc = kind == FP8_E4M3 ? 0x7fu : 0x7cu;
	unsigned int u = f2u(f);
	unsigned int sign = (u >> 24) & 0x80u;
	unsigned int a = u & 0x7fffffffu;
	if (a > 0x7f800000u)
		return (unsigned char)0x7fu;
	if (a == 0x7f800000u)
		return (unsigned char)(sign | (saturate ? maxenc : ovfenc));
	int fe = (int)(a >> 23) - 127; /* unbiased exponent; float subnormals -> -127 */
	if (fe > 16) /* far above either format's range */
		return (unsigned char)(sign | (saturate ? maxenc : ovfenc));
	const int emin = 1 - bias;
	unsigned int sig = (a & 0x7fffffu) | (fe > -127 ? 0x800000u : 0u);
	int shift = 23 - mbits + (fe < emin ? emin - fe : 0);
	unsigned int enc;
	if (shift > 25) {
		enc = 0; /* below half of the smallest subnormal */
	} else {
		unsigned int r = sig >> shift;
		unsigned int rem = sig & ((1u << shift) - 1u);
		unsigned int halfway = 1u << (shift - 1);
		if (rem > halfway || (rem == halfway && (r & 1u)))
			r++;
		/* r counts quanta of the result's binade, hidden bit included when normal; adding
		 * it to the exponent field lets a carry step into the next binade by itself. */
		enc = (fe >= emin ? (unsigned int)(fe + bias - 1) << mbits : 0u) + r;
	}
	if (enc > maxenc)
		enc = saturate ? maxenc : ovfenc;
	return (unsigned char)(sign | enc);
}

/* fp8 bits -> half bits: exact for both kinds (every fp8 value is a half); NaN -> 0x7fff. */
ROCJIT_CVT_FN unsigned short fp8_to_half_bits(unsigned char v, fp8_kind kind)
{
	unsigned int sign = (unsigned int)(v & 0x80u) << 8;
	unsigned int a = v & 0x7fu;
	if (kind == FP8_E5M2 ? a > 0x7cu : a == 0x7fu)
		return (unsigned short)0x7fffu; /* NaN: the canonical half NaN, as CUDA's */
	if (kind == FP8_E5M2) /* E5M2 is the top byte of an IEEE half */
		return (unsigned short)(sign | (a << 8));
	unsigned int e = a >> 3, m = a & 7u;
	if (e == 0) {
		if (m == 0)
			return (unsigned short)sign;
		/* subnormal m * 2^-9: normalise into a half (bias 15) */
		unsigned int he = 15 - 6; /* exponent of 2^-6 */
		while (!(m & 8u)) {
			m <<= 1;
			he--;
		}
		return (unsigned short)(sign | (he << 10) | ((m & 7u) << 7));
	}
	return (unsigned short)(sign | ((e - 7 + 15) << 10) | (m << 7));
}

/* half bits -> float (exact). */
ROCJIT_CVT_FN float half_bits_to_float(unsigned short h)
{
	unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
	unsigned int e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
	if (e == 0x1f)
		return u2f(sign | 0x7f800000u | (m << 13));
	if (e == 0) {
		if (m == 0)
			return u2f(sign);
		e = 113; /* 127 - 14 */
		while (!(m & 0x400u)) {
			m <<= 1;
			e--;
		}
		return u2f(sign | ((e) << 23) | ((m & 0x3ffu) << 13));
	}
	return u2f(sign | ((e + 112) << 23) | (m << 13));
}

ROCJIT_CVT_FN float fp8_to_float(unsigned char v, fp8_kind kind)
{
	return half_bits_to_float(fp8_to_half_bits(v, kind));
}

/* The range of each integer type as floats (the first value out of range on each side,
 * exactly representable) and as integers. */
template <class I> struct int_range;
#define ROCJIT_CVT_RANGE(I, LO, HI, ILO, IHI)                                            \
	template <> struct int_range<I> {                                                 \
		static ROCJIT_CVT_FN float lo() { return LO; }                            \
		static ROCJIT_CVT_FN float hi() { return HI; }                            \
		static ROCJIT_CVT_FN I ilo() { return (I)(ILO); }                         \
		static ROCJIT_CVT_FN I ihi() { return (I)(IHI); }                         \
	};
ROCJIT_CVT_RANGE(signed char, -128.0f, 128.0f, -128, 127)
ROCJIT_CVT_RANGE(char, -128.0f, 128.0f, -128, 127)
ROCJIT_CVT_RANGE(unsigned char, 0.0f, 256.0f, 0, 255)
ROCJIT_CVT_RANGE(short, -32768.0f, 32768.0f, -32768, 32767)
ROCJIT_CVT_RANGE(unsigned short, 0.0f, 65536.0f, 0, 65535)
ROCJIT_CVT_RANGE(int, -2147483648.0f, 2147483648.0f, -2147483647 - 1, 2147483647)
ROCJIT_CVT_RANGE(unsigned int, 0.0f, 4294967296.0f, 0u, 4294967295u)
ROCJIT_CVT_RANGE(long, -9223372036854775808.0f, 9223372036854775808.0f,
		 -9223372036854775807L - 1, 9223372036854775807L)
ROCJIT_CVT_RANGE(unsigned long, 0.0f, 18446744073709551616.0f, 0UL, 18446744073709551615UL)
ROCJIT_CVT_RANGE(long long, -9223372036854775808.0f, 9223372036854775808.0f,
		 -9223372036854775807LL - 1, 9223372036854775807LL)
ROCJIT_CVT_RANGE(unsigned long long, 0.0f, 18446744073709551616.0f, 0ULL,
		 18446744073709551615ULL)
#undef ROCJIT_CVT_RANGE

/* float -> integer towards zero, saturating at the type's bounds, NaN -> 0: what NVIDIA's
 * cvt.rzi does and C++ leaves undefined. */
template <class I> ROCJIT_CVT_FN I float_to_int_rz(float f)
{
	if (f != f)
		return (I)0;
	if (f <= int_range<I>::lo())
		return int_range<I>::ilo();
	if (f >= int_range<I>::hi())
		return int_range<I>::ihi();
	return (I)f;
}

} /* namespace rocjit_cvt */

#endif
