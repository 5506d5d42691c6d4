/*
 * dialect_numerics.cpp - the conversions behind rocjit's CUDA-dialect bf16 and fp8 types
 * (src/compile/devlib/cuda/rocjit_cuda_convert.h) give the same bits as CUDA's own headers,
 * compiled here for the host, where CUDA's cuda_bf16.h / cuda_fp8.h run their plain C++
 * reference paths.  Checked:
 *   - float -> bf16 and float -> fp8 (e4m3, e5m2; saturating and not) for every
 *     combination of the top 16 bits with the low-half patterns that decide rounding
 *     (0, 1, 0x7fff, 0x8000, 0x8001, 0xffff), a stride over all 2^32 floats and random ones;
 *   - double -> bf16 / half / fp8 on random doubles and on doubles next to bf16 ties
 *     (where rounding through float first would be wrong);
 *   - every half and bf16 -> fp8, every fp8 -> half, every half -> float, every bf16 ->
 *     float and bf16 -> int/uint/short/long long (NaN -> long long excepted: CUDA's host
 *     path gives LLONG_MIN like x86, its device cvt.rzi gives 0, as rocjit does).
 * NaN results are compared as "both NaN" where CUDA keeps a NaN's sign or payload.
 * Exit status 0 when every check matches, 1 otherwise (the first mismatches are printed).
 * A full run over all 2^32 floats: `dialect_numerics full` (minutes).
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

/* By its path: the folder also holds rocjit's cuda_fp16.h ..., which must not stand in for
 * CUDA's here. */
#include ROCJIT_TEST_CONVERT_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>

using namespace rocjit_cvt;

static unsigned long long checks, fails;

static void check(bool ok, const char *what, unsigned long long input, unsigned ref, unsigned mine)
{
	checks++;
	if (!ok && fails++ < 20)
		std::printf("%s(0x%llx): CUDA 0x%x, rocjit 0x%x\n", what, input, ref, mine);
}

static double u2d(unsigned long long v)
{
	double d;
	std::memcpy(&d, &v, sizeof d);
	return d;
}

static bool fp8_is_nan(unsigned v, bool e5m2)
{
	return e5m2 ? (v & 0x7fu) > 0x7cu : (v & 0x7fu) == 0x7fu;
}

static __nv_saturation_t sat_of(int s) { return s ? __NV_SATFINITE : __NV_NOSAT; }
static __nv_fp8_interpretation_t kind_of(int k) { return k ? __NV_E5M2 : __NV_E4M3; }
static fp8_kind mine_of(int k) { return k ? FP8_E5M2 : FP8_E4M3; }

static void float_case(unsigned u)
{
	float f = u2f(u);
	unsigned ref = __bfloat16_as_ushort(__float2bfloat16(f));
	check(ref == float_to_bf16(f), "float->bf16", u, ref, float_to_bf16(f));
	for (int k = 0; k < 2; k++)
		for (int s = 0; s < 2; s++) {
			unsigned r = __nv_cvt_float_to_fp8(f, sat_of(s), kind_of(k));
			unsigned m = float_to_fp8(f, s, mine_of(k));
			check(r == m, k ? "float->e5m2" : "float->e4m3", u, r, m);
		}
}

static void double_case(double d)
{
	unsigned long long u = d2u(d);
	bool nan = d != d;
	unsigned ref = __bfloat16_as_ushort(__double2bfloat16(d)), mine = double_to_bf16(d);
	check(ref == mine || (nan && (ref & 0x7fffu) > 0x7f80u && (mine & 0x7fffu) > 0x7f80u),
	      "double->bf16", u, ref, mine);
	ref = __half_as_ushort(__double2half(d));
	mine = __half_as_ushort(__float2half(double_to_float_odd(d)));
	check(ref == mine || nan, "double->half", u, ref, mine);
	for (int k = 0; k < 2; k++)
		for (int s = 0; s < 2; s++) {
			unsigned r = __nv_cvt_double_to_fp8(d, sat_of(s), kind_of(k));
			unsigned m = float_to_fp8(double_to_float_odd(d), s, mine_of(k));
			check(r == m || (nan && fp8_is_nan(r, k) && fp8_is_nan(m, k)), "double->fp8", u,
			      r, m);
		}
}

int main(int argc, char **argv)
{
	const bool full = argc > 1 && std::strcmp(argv[1], "full") == 0;
	static const unsigned lows[] = { 0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu };
	std::mt19937_64 rng(20261125);

	if (full) {
		for (unsigned long long u = 0; u <= 0xffffffffull; u++)
			float_case((unsigned)u);
	} else {
		for (unsigned hi = 0; hi < 65536u; hi++)
			for (unsigned l : lows)
				float_case(hi << 16 | l);
		for (unsigned long long u = 0; u <= 0xffffffffull; u += 65521u)
			float_case((unsigned)u);
		for (int i = 0; i < 1000000; i++)
			float_case((unsigned)rng());
	}

	for (int i = 0; i < 2000000; i++) {
		double d;
		if (i & 1) {
			d = u2d(rng());
		} else { /* a bf16 value plus half an ulp, give or take a few double ulps */
			unsigned short b = (unsigned short)rng();
			double base = bf16_to_float(b);
			double half_ulp = ((double)bf16_to_float((unsigned short)(b + 1)) - base) / 2;
			unsigned long long v = d2u(base + half_ulp) + (rng() % 5) - 2;
			d = u2d(v);
		}
		double_case(d);
	}

	for (unsigned h = 0; h < 65536u; h++) {
		__half_raw hr;
		__nv_bfloat16_raw br;
		hr.x = (unsigned short)h;
		br.x = (unsigned short)h;
		float rf = __half2float(__half(hr)), mf = half_bits_to_float((unsigned short)h);
		check(f2u(rf) == f2u(mf) || (rf != rf && mf != mf), "half->float", h, f2u(rf), f2u(mf));
		float bf = bf16_to_float((unsigned short)h);
		__nv_bfloat16 b = __ushort_as_bfloat16((unsigned short)h);
		check(f2u(__bfloat162float(b)) == f2u(bf), "bf16->float", h, f2u(__bfloat162float(b)),
		      f2u(bf));
		check(__bfloat162int_rz(b) == float_to_int_rz<int>(bf), "bf16->int", h,
		      (unsigned)__bfloat162int_rz(b), (unsigned)float_to_int_rz<int>(bf));
		check(__bfloat162uint_rz(b) == float_to_int_rz<unsigned>(bf), "bf16->uint", h,
		      __bfloat162uint_rz(b), float_to_int_rz<unsigned>(bf));
		check(__bfloat162short_rz(b) == float_to_int_rz<short>(bf), "bf16->short", h,
		      (unsigned)__bfloat162short_rz(b), (unsigned)float_to_int_rz<short>(bf));
		if (bf == bf)
			check((long long)__bfloat162ll_rz(b) == float_to_int_rz<long long>(bf),
			      "bf16->long long", h, (unsigned)__bfloat162ll_rz(b),
			      (unsigned)float_to_int_rz<long long>(bf));
		for (int k = 0; k < 2; k++)
			for (int s = 0; s < 2; s++) {
				unsigned r = __nv_cvt_halfraw_to_fp8(hr, sat_of(s), kind_of(k));
				unsigned m = float_to_fp8(mf, s, mine_of(k));
				check(r == m, "half->fp8", h, r, m);
				r = __nv_cvt_bfloat16raw_to_fp8(br, sat_of(s), kind_of(k));
				m = float_to_fp8(bf, s, mine_of(k));
				check(r == m, "bf16->fp8", h, r, m);
			}
	}

	for (unsigned v = 0; v < 256u; v++)
		for (int k = 0; k < 2; k++) {
			__half_raw r = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)v, kind_of(k));
			unsigned m = fp8_to_half_bits((unsigned char)v, mine_of(k));
			check(r.x == m, "fp8->half", v, r.x, m);
		}

	std::printf("%llu checks%s, %llu mismatches\n", checks, full ? " (every float)" : "", fails);
	return fails != 0;
}
