/*
 * test_dialect_gpu.c - the dialect fixtures (tests/data/dialect: convert.cu, reduce.cu,
 * atomics.cu, std_math.cu, hip/types.hip, hip/coop.hip, and issue 28's types_*.cu,
 * hip/implicit_types.hip, hip/types_mix.hip, among others) compiled through rocjit on a real
 * NVIDIA GPU (rocjit_kernel_get with the file's text, its path as name, so *.cu is CUDA,
 * and -I<fixture folder> for the .cu files, as test_dialect.c compiles them), every
 * kernel launched on device buffers and checked against a CPU reference written here.
 * test_dialect.c proves they compile; this proves what they compute.  Like test_gpu.c,
 * every test exits 77 (skipped) without an NVIDIA GPU (cuda_rt.c), and below sm_80 (the
 * fixtures' bf16/fp8 kernels exist from __CUDA_ARCH__ 800 on).
 *
 * Exact (bit for bit) - on NVIDIA the kernels use CUDA's own headers, so the reference is
 * CUDA's behaviour: one rounding to nearest, ties to even, for every narrowing conversion
 * (float/double/u32 -> half, bf16; double with a single rounding, no double rounding
 * through float); fp8 per __nv_cvt_float_to_fp8: RNE, __NV_SATFINITE (the constructors)
 * clamps overflow and +-inf to +-448 (e4m3 0x7e) / +-57344 (e5m2 0x7b), __NV_NOSAT gives
 * the NaN 0x7f|sign (e4m3) or +-inf (e5m2); subnormals of every format, -0 kept; every
 * widening conversion over all 65536 (half, bf16) or 256 (fp8) codes; bf16 -> int toward
 * zero, saturating, NaN -> 0; affine (x * m + a) in f32/f16/bf16 with m = -2 or 4, so the
 * product is exact and a fused or an unfused multiply-add give the same one rounding;
 * relu; integer reductions, scans, votes, maxima (NaN propagating), broadcasts; 64-bit
 * atomic max/min, the double max through integer bits, half/bf16 atomicAdd of small
 * integers (every partial sum exact, so the order cannot matter), the 16-bit CAS counter
 * (and the neighbouring 16 bits untouched); __dp4a, __vsubss4, __vabsss4; std_math's
 * quantisation, row maxima, clamp-and-scale (numeric_limits lowest/max: an infinity
 * clamped to max, times pi, is inf only if max is FLT_MAX/DBL_MAX-sized - a wrong small
 * max gives a finite result), saturate_bf16 (numeric_limits<__nv_bfloat16>: +-inf ->
 * 0x7f7f/0xff7f), widen_mul_i64; the hip/ kernels (HIP names over CUDA's types).
 * NaN: where the reference is NaN the GPU must give a NaN of the format; its sign and
 * payload are not compared (the hardware canonicalises: cvt, satfinite).  relu of -0
 * may give either zero (__hmax of equal zeros).
 *
 * Tolerances (stated as bounds, not guesses):
 *   float sums over n terms in any order (warp_sum_f32/f64, block_sum_f32,
 *   atomic_add_f64 of fractions):  |got - sum| <= (n - 1) u sum|x_i|,
 *   u = 2^-24 (f32) or 2^-53 (f64), sum and sum|x| computed in long double.
 *   gelu_erf_f32: |got - ref| <= 1e-6 (1 + |x|), ref in double (erff is 2 ulp, the
 *   rest a few f32 roundings of terms bounded by |x|).
 *
 * Not checked: hip_texture_scale (needs a texture object: cudaCreateTextureObject and
 * a cudaResourceDesc the dlopen'ed runtime of cuda_rt.c does not provide) - compiled and
 * looked up only; cast_f32x2_to_f8e4m3_ptx runs only where the GPU is sm_89 or newer
 * (the fixture compiles it for __CUDA_ARCH__ >= 890 only).
 *
 * The reference conversions are checked on known pairs (ref_selfcheck) before anything
 * runs, GPU or not.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>

#include "cuda_rt.h"

/* ---- Failures: every mismatch is counted, the first MAX_REPORT printed ---------------------- */

#define MAX_REPORT 30

static int nbad;

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad(const char *fmt, ...)
{
	va_list ap;

	if (nbad++ < MAX_REPORT) {
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
	}
}

/* Ends a check: fails the test, naming it, when any element mismatched. */
static void finish(const char *what)
{
	fflush(stdout);
	if (nbad)
		rj_test_fail(__FILE__, __LINE__, "%s: %d mismatches (the first %d printed above)",
			     what, nbad, MAX_REPORT);
}

/* ---- Bits ------------------------------------------------------------------------------- */

static uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static uint64_t d2u(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

/* ---- Reference conversions ------------------------------------------------------------------ */

/*
 * The encoding (exponent field << frac | fraction) of a >= 0, finite, rounded to nearest,
 * ties to even, in a binary format with frac fraction bits and exponent bias bias, without
 * an upper limit (the caller decides what overflow gives).  Exact from any double: the
 * scaled value has at most 53 significant bits, and nearbyint rounds it to nearest even.
 */
static uint32_t enc_rne(double a, int frac, int bias)
{
	int e;
	double n;

	if (a == 0)
		return 0;
	frexp(a, &e);
	e -= 1; /* a in [2^e, 2^(e+1)) */
	if (e < 1 - bias)
		e = 1 - bias; /* subnormal: the quantum of the lowest binade */
	n = nearbyint(ldexp(a, frac - e));
	if (n >= ldexp(1, frac + 1)) { /* rounded up into the next binade: n == 2^(frac+1) */
		n /= 2;
		e++;
	}
	if (n < ldexp(1, frac)) /* subnormal or zero */
		return (uint32_t)n;
	return (uint32_t)(e + bias) << frac | ((uint32_t)n - (1u << frac));
}

/* v to an IEEE 16-bit format (half: 10, 5; bf16: 7, 8), RNE, overflow to inf; a NaN gives
 * 0x7fff (NaNs are compared as a class). */
static uint16_t ref_16(double v, int frac, int expb)
{
	uint32_t inf = ((1u << expb) - 1) << frac, e;
	uint16_t sign = signbit(v) ? 0x8000 : 0;

	if (isnan(v))
		return 0x7fff;
	if (isinf(v))
		return (uint16_t)(sign | inf);
	e = enc_rne(fabs(v), frac, (1 << (expb - 1)) - 1);
	return (uint16_t)(sign | (e >= inf ? inf : e));
}

static uint16_t ref_half(double v)
{
	return ref_16(v, 10, 5);
}

static uint16_t ref_bf16(double v)
{
	return ref_16(v, 7, 8);
}

/* v to fp8 as __nv_cvt_float_to_fp8: RNE; NaN -> 0x7f; sat (__NV_SATFINITE): overflow and
 * infinities to the largest finite of the sign; else 0x7f|sign (e4m3) or inf (e5m2). */
static uint8_t ref_fp8(double v, int e5m2, int sat)
{
	uint32_t maxenc = e5m2 ? 0x7b : 0x7e, ovf = e5m2 ? 0x7c : 0x7f, e;
	uint32_t sign = signbit(v) ? 0x80 : 0;

	if (isnan(v))
		return 0x7f;
	if (isinf(v))
		return (uint8_t)(sign | (sat ? maxenc : ovf));
	e = enc_rne(fabs(v), e5m2 ? 2 : 3, e5m2 ? 15 : 7);
	if (e > maxenc)
		e = sat ? maxenc : ovf;
	return (uint8_t)(sign | e);
}

/* The value of IEEE 16-bit float bits. */
static double dec_16(uint16_t h, int frac, int expb)
{
	int bias = (1 << (expb - 1)) - 1;
	unsigned int e = ((unsigned int)h >> frac) & ((1u << expb) - 1);
	unsigned int f = h & ((1u << frac) - 1);
	double v;

	if (e == (1u << expb) - 1)
		v = f ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(f, 1 - bias - frac);
	else
		v = ldexp(f + (1u << frac), (int)e - bias - frac);
	return h >> (frac + expb) ? -v : v;
}

static double dec_half(uint16_t h)
{
	return dec_16(h, 10, 5);
}

static double dec_bf16(uint16_t h)
{
	return dec_16(h, 7, 8);
}

/* The value of fp8 bits: e5m2 is the top byte of a half; e4m3 has no infinity and its
 * only NaNs are 0x7f and 0xff. */
static double dec_fp8(uint8_t b, int e5m2)
{
	unsigned int e = (b >> 3) & 15u, m = b & 7u;
	double v;

	if (e5m2)
		return dec_half((uint16_t)(b << 8));
	if ((b & 0x7f) == 0x7f)
		return NAN;
	v = e ? ldexp(8 + m, (int)e - 10) : ldexp(m, -9);
	return b & 0x80 ? -v : v;
}

static int nan16(uint16_t h, int expb)
{
	return isnan(dec_16(h, 15 - expb, expb));
}

/* float -> int toward zero, saturating, NaN -> 0 (cvt.rzi.s32). */
static int32_t ref_f2i(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 2147483648.0)
		return INT32_MAX;
	if (v <= -2147483648.0)
		return INT32_MIN;
	return (int32_t)v;
}

/* The signed byte k of w. */
static int sbyte(uint32_t w, int k)
{
	return (int)(int8_t)(uint8_t)(w >> (8 * k));
}

static int32_t ref_dp4a(uint32_t a, uint32_t b, int32_t c)
{
	int64_t s = c;

	for (int k = 0; k < 4; k++)
		s += sbyte(a, k) * sbyte(b, k);
	return (int32_t)(uint32_t)(uint64_t)s; /* wraps, no saturation */
}

static int sat8(int v)
{
	return v < -128 ? -128 : v > 127 ? 127 : v;
}

static uint32_t ref_vsubss4(uint32_t a, uint32_t b)
{
	uint32_t r = 0;

	for (int k = 0; k < 4; k++)
		r |= (uint32_t)(uint8_t)sat8(sbyte(a, k) - sbyte(b, k)) << (8 * k);
	return r;
}

static uint32_t ref_vabsss4(uint32_t a)
{
	uint32_t r = 0;

	for (int k = 0; k < 4; k++)
		r |= (uint32_t)(uint8_t)sat8(abs(sbyte(a, k))) << (8 * k);
	return r;
}

#define SELF(cond)                                                                        \
	do {                                                                              \
		if (!(cond))                                                              \
			rj_test_fail(__FILE__, __LINE__, "reference self-check: %s", #cond); \
	} while (0)

/* The reference on pairs known from the formats' definitions and CUDA's documentation. */
static void ref_selfcheck(void)
{
	SELF(ref_bf16(1.0) == 0x3f80);
	SELF(ref_bf16(u2f(0x3f808000)) == 0x3f80); /* tie, to even */
	SELF(ref_bf16(u2f(0x3f818000)) == 0x3f82);
	SELF(ref_bf16(u2f(0x3f808001)) == 0x3f81);
	SELF(ref_bf16(u2f(0x00000001)) == 0x0000); /* below half the least bf16 subnormal */
	SELF(ref_bf16(u2f(0x00008000)) == 0x0000); /* half of 0x0001: tie, to 0 */
	SELF(ref_bf16(u2f(0x00018000)) == 0x0002);
	SELF(ref_bf16(FLT_MAX) == 0x7f80);         /* rounds up to inf */
	SELF(ref_bf16(-0.0) == 0x8000);
	SELF(ref_half(65504) == 0x7bff);
	SELF(ref_half(u2f(0x477fefff)) == 0x7bff); /* just below 65520 */
	SELF(ref_half(65520) == 0x7c00);
	SELF(ref_half(ldexp(1, -24)) == 0x0001);
	SELF(ref_half(ldexp(1, -25)) == 0x0000);
	SELF(ref_half(ldexp(3, -25)) == 0x0002);
	SELF(ref_half(ldexp(1, -14)) == 0x0400);
	SELF(ref_half(-ldexp(1023, -24)) == 0x83ff);
	SELF(ref_half(1.0 / 3) == 0x3555);
	SELF(ref_half(-INFINITY) == 0xfc00);
	SELF(ref_fp8(448, 0, 1) == 0x7e);
	SELF(ref_fp8(464, 0, 1) == 0x7e && ref_fp8(464, 0, 0) == 0x7e); /* tie, to even */
	SELF(ref_fp8(nextafter(464, 1000), 0, 0) == 0x7f);
	SELF(ref_fp8(u2f(0x7f800000), 0, 1) == 0x7e);
	SELF(ref_fp8(-INFINITY, 0, 1) == 0xfe && ref_fp8(-INFINITY, 0, 0) == 0xff);
	SELF(ref_fp8(-1e30, 0, 0) == 0xff);
	SELF(ref_fp8(NAN, 0, 1) == 0x7f && ref_fp8(NAN, 1, 1) == 0x7f);
	SELF(ref_fp8(1.0, 0, 1) == 0x38 && ref_fp8(1.0, 1, 1) == 0x3c);
	SELF(ref_fp8(ldexp(1, -9), 0, 1) == 0x01 && ref_fp8(ldexp(1, -10), 0, 1) == 0x00);
	SELF(ref_fp8(ldexp(3, -10), 0, 1) == 0x02 && ref_fp8(ldexp(1, -6), 0, 1) == 0x08);
	SELF(ref_fp8(57344, 1, 1) == 0x7b && ref_fp8(61440, 1, 1) == 0x7b);
	SELF(ref_fp8(61440, 1, 0) == 0x7c && ref_fp8(61439, 1, 0) == 0x7b);
	SELF(ref_fp8(INFINITY, 1, 1) == 0x7b && ref_fp8(-INFINITY, 1, 0) == 0xfc);
	SELF(ref_fp8(ldexp(1, -16), 1, 1) == 0x01 && ref_fp8(-ldexp(1, -17), 1, 1) == 0x80);
	SELF(dec_fp8(0x7e, 0) == 448 && dec_fp8(0xfe, 0) == -448 && isnan(dec_fp8(0xff, 0)));
	SELF(dec_fp8(0x01, 0) == ldexp(1, -9) && dec_fp8(0x08, 0) == ldexp(1, -6));
	SELF(dec_fp8(0x7b, 1) == 57344 && isinf(dec_fp8(0x7c, 1)) && isnan(dec_fp8(0x7d, 1)));
	SELF(dec_fp8(0x01, 1) == ldexp(1, -16) && dec_fp8(0x3c, 1) == 1.0);
	SELF(dec_half(0x7bff) == 65504 && dec_half(0x0001) == ldexp(1, -24));
	SELF(dec_bf16(0x3f80) == 1.0 && dec_bf16(0x7f7f) == (double)u2f(0x7f7f0000));
	for (uint32_t c = 0; c < 256; c++) /* every finite fp8 code round-trips */
		for (int f = 0; f < 2; f++)
			if (!isnan(dec_fp8((uint8_t)c, f)) && !isinf(dec_fp8((uint8_t)c, f)))
				SELF(ref_fp8(dec_fp8((uint8_t)c, f), f, 1) == c);
	for (uint32_t h = 0; h < 65536; h++) { /* every half and bf16 round-trips */
		if (!nan16((uint16_t)h, 5))
			SELF(ref_half(dec_half((uint16_t)h)) == h);
		if (!nan16((uint16_t)h, 8))
			SELF(ref_bf16(dec_bf16((uint16_t)h)) == h);
	}
	SELF(ref_f2i(2147483648.0) == INT32_MAX && ref_f2i(-3e9) == INT32_MIN);
	SELF(ref_f2i(-1.75) == -1 && ref_f2i(NAN) == 0);
	SELF(ref_dp4a(0x80808080u, 0x80808080u, 0) == 65536);
	SELF(ref_dp4a(0x7f7f7f7fu, 0x7f7f7f7fu, INT32_MAX) == (int32_t)(0x7fffffffu + 64516u));
	SELF(ref_vsubss4(0x807f0000u, 0x0180ffffu) == 0x807f0101u);
	SELF(ref_vabsss4(0x80ff7f01u) == 0x7f017f01u);
}

/* ---- Fixture: a context on the GPU, the fixtures' kernels, buffers ---------------------- */

static struct {
	rocjit_ctx *ctx;
	int cc; /* compute capability, major * 10 + minor */
} fx;

static void setup(void)
{
	int dev = 0, major = 0, minor = 0;
	char why[128];

	ref_selfcheck();
	gpu_require();
	if (cu.cuDeviceGet(&dev, 0) != 0 ||
	    cu.cuDeviceGetAttribute(&major, CU_ATTR_CC_MAJOR, dev) != 0 ||
	    cu.cuDeviceGetAttribute(&minor, CU_ATTR_CC_MINOR, dev) != 0)
		rj_test_fail(__FILE__, __LINE__, "cannot read the compute capability of GPU 0");
	fx.cc = major * 10 + minor;
	if (fx.cc < 80) {
		snprintf(why, sizeof why, "GPU 0 is sm_%d: the fixtures' bf16/fp8 kernels need sm_80",
			 fx.cc);
		skip(why);
	}
	fx.ctx = gpu_open();
}

static void teardown(void)
{
	sync_stream(NULL);
	rocjit_close(fx.ctx);
}

/*
 * The kernel name of the fixture file (relative to tests/data/dialect), compiled for the
 * GPU: the text, its path as the program name (*.cu: CUDA, *.hip: HIP), -I<fixture
 * folder> for the CUDA files (their "dialect.cuh"), as test_dialect.c compiles them.
 * Returns NULL when want is 0 and the code object has no such kernel.
 */
/* The fixture folder: $ROCJIT_TEST_DIALECT_DIR (tests/gpu/run.sh sets it where the
 * repository lies on the GPU machine), else where it was at configure time. */
static const char *dialect_dir(void)
{
	const char *env = getenv("ROCJIT_TEST_DIALECT_DIR");

	return env && *env ? env : ROCJIT_TEST_DIALECT_DIR;
}

static rocjit_kernel *kernel_opt(const char *file, const char *name, int want)
{
	static char include[4200];
	static const char *const cu_options[] = { include };
	static char log[32768];
	char path[4096];
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_kernel *k = NULL;
	size_t len = 0, n = strlen(file);
	char *src;
	int rc;

	snprintf(include, sizeof include, "-I%s", dialect_dir());
	snprintf(path, sizeof path, "%s/%s", dialect_dir(), file);
	src = rj_test_read_file(path, &len);
	p.source = src;
	p.length = len;
	p.name = path;
	if (n > 3 && strcmp(file + n - 3, ".cu") == 0) {
		p.options = cu_options;
		p.num_options = 1;
	}
	rc = rocjit_kernel_get(&k, fx.ctx, &p, name);
	snprintf(log, sizeof log, "%s", rocjit_last_log());
	free(src);
	if (rc == ROCJIT_ENOTFOUND && !want)
		return NULL;
	if (rc != 0 || !k)
		rj_test_fail(__FILE__, __LINE__, "%s from %s: error %d (%s): %s\n%s", name, file, rc,
			     rocjit_strerror(rc), rocjit_last_error(), log);
	return k;
}

static rocjit_kernel *kernel(const char *file, const char *name)
{
	return kernel_opt(file, name, 1);
}

static rocjit_dim3 dim1(unsigned int x)
{
	rocjit_dim3 d = { x, 1, 1 };
	return d;
}

/* Launches k (grid x block threads) and waits for it, failing on any error. */
static void launch(const rocjit_kernel *k, unsigned int grid, unsigned int block, void **args)
{
	int rc = rocjit_kernel_launch(k, dim1(grid), dim1(block), 0, NULL, args);

	if (rc != 0)
		rj_test_fail(__FILE__, __LINE__, "launch %s grid %u block %u: error %d (%s): %s",
			     rocjit_kernel_name(k), grid, block, rc, rocjit_strerror(rc),
			     rocjit_last_error());
	sync_stream(NULL);
}

#define BLOCK 256u

/* A one-thread-per-element launch over n (the kernels check i < n). */
static void launch_n(const rocjit_kernel *k, size_t n, void **args)
{
	launch(k, (unsigned int)((n + BLOCK - 1) / BLOCK), BLOCK, args);
}

/* Device memory holding a copy of host (bytes), or zeroed when host is NULL. */
static void *dev_of(const void *host, size_t bytes)
{
	void *d = dev_alloc(bytes);

	if (host)
		to_dev(d, host, bytes);
	else
		CUDA(rt.cudaMemset(d, 0, bytes ? bytes : 1));
	return d;
}

static void dev_free(void *d)
{
	CUDA(rt.cudaFree(d));
}

/* ---- Deterministic data ----------------------------------------------------------------- */

static uint64_t rng = 0x5eed;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rnd32(void)
{
	return (uint32_t)(rnd() >> 32);
}

/* Uniform in [-1, 1), a multiple of 2^-24. */
static float rnd_unit(void)
{
	return (float)((int32_t)(rnd32() >> 7) - (1 << 24)) * 0x1p-24f;
}

/* ---- convert.cu --------------------------------------------------------------------------- */

/* The float inputs of the conversions: specials, every halfway point of the narrow
 * formats' grids (ties), random bit patterns (NaNs, subnormals, huge values) and random
 * values in the narrow formats' ranges. */
static float *convert_inputs(size_t *count)
{
	static const uint32_t special[] = {
		0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
		0x7fc00000, 0xffc00000, 0x7f800001, 0xffbfffff, 0x7f7fffff, 0xff7fffff,
		0x00800000, 0x80800000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff,
		0x00400000, 0x00008000, 0x00018000, 0x477fe000, 0x477fefff, 0x477ff000,
		0x477ff001, 0x47800000, 0xc77ff000, 0x7149f2ca, 0xf149f2ca, 0x3f808000,
		0x3f818000, 0x3f808001, 0x3f807fff, 0x33800000, 0x33000000, 0x33400000,
		0x38800000, 0x387fc000, 0x43e00000, 0x43e80000, 0x43e80001, 0x43f00000,
		0x43e10000, 0xc3e80001, 0x47600000, 0x47700000, 0x476fffff, 0x47700001,
		0x3b000000, 0x3a800000, 0x3ac00000, 0x37800000, 0x37000000, 0x37400000,
		0x3dcccccd, 0x3eaaaaab, 0x4f800000, 0xcf000000, 0x4effffff, 0x4f000000,
	};
	size_t cap = COUNT(special) + 3 * 4096 + 2 * 256 + 8192, n = 0;
	float *v = host_alloc(cap * sizeof *v);

	for (size_t i = 0; i < COUNT(special); i++)
		v[n++] = u2f(special[i]);
	/* bf16 ties: the low 16 bits exactly half; half ties: the midpoint of two
	 * neighbouring halves (12 significant bits: exact in float). */
	for (int i = 0; i < 4096; i++) {
		uint16_t h = (uint16_t)(rnd32() & 0x7bfe);

		v[n++] = u2f((rnd32() & 0xffff0000u) | 0x8000u);
		v[n++] = (float)((dec_half(h) + dec_half((uint16_t)(h + 1))) / 2) *
			 (rnd32() & 1 ? -1.0f : 1.0f);
	}
	/* fp8 ties between neighbouring finite codes of each format. */
	for (uint32_t c = 0; c < 0x7e; c++) {
		v[n++] = (float)((dec_fp8((uint8_t)c, 0) + dec_fp8((uint8_t)(c + 1), 0)) / 2);
		if (c < 0x7b)
			v[n++] = -(float)((dec_fp8((uint8_t)c, 1) + dec_fp8((uint8_t)(c + 1), 1)) /
					  2);
	}
	for (int i = 0; i < 4096; i++) {
		v[n++] = u2f(rnd32()); /* any pattern */
		/* in the narrow formats' range: 2^-26 .. 2^18 */
		v[n++] = u2f((rnd32() & 0x807fffffu) | (uint32_t)(101 + rnd32() % 44) << 23);
	}
	ASSERT(n <= cap);
	*count = n;
	return v;
}

/* Compares float bits: exact, a NaN reference matching any NaN. */
static void check_f32(const char *what, size_t i, uint64_t in_bits, float got, double want)
{
	float w = (float)want;

	if (isnan(want) ? !isnan(got) : f2u(got) != f2u(w))
		bad("%s[%zu]: input 0x%llx: got %a (0x%08x), want %a (0x%08x)", what, i,
		    (unsigned long long)in_bits, (double)got, f2u(got), (double)w, f2u(w));
}

/* Compares 16-bit float bits (expb 5: half, 8: bf16): exact, NaN matching any NaN. */
static void check_16(const char *what, size_t i, uint64_t in_bits, uint16_t got, uint16_t want,
		     int expb)
{
	if (nan16(want, expb) ? !nan16(got, expb) : got != want)
		bad("%s[%zu]: input 0x%llx: got 0x%04x, want 0x%04x", what, i,
		    (unsigned long long)in_bits, got, want);
}

static int nan8(uint8_t b, int e5m2)
{
	return isnan(dec_fp8(b, e5m2));
}

static void check_8(const char *what, size_t i, uint64_t in_bits, uint8_t got, uint8_t want,
		    int e5m2)
{
	if (nan8(want, e5m2) ? !nan8(got, e5m2) : got != want)
		bad("%s[%zu]: input 0x%llx: got 0x%02x, want 0x%02x", what, i,
		    (unsigned long long)in_bits, got, want);
}

/* float -> half, bf16, e4m3, e5m2 (saturating constructors) and the fp8 bytes without
 * saturation, over convert_inputs; and the sm_89 inline-PTX pair conversion. */
TEST(convert_narrowing_from_f32_matches_cuda_bit_for_bit)
{
	size_t n;
	float *x;
	void *dx, *dout;
	unsigned int un;
	uint8_t *o8;
	uint16_t *o16;
	rocjit_kernel *k;

	setup();
	x = convert_inputs(&n);
	un = (unsigned int)n;
	dx = dev_of(x, n * 4);
	dout = dev_of(NULL, n * 4);
	o8 = host_alloc(n * 4);
	o16 = (uint16_t *)(void *)o8;

	{
		void *args[] = { &un, &dx, &dout };

		launch_n(kernel("convert.cu", "cast_f32_to_f16"), n, args);
		from_dev(o16, dout, n * 2);
		for (size_t i = 0; i < n; i++)
			check_16("cast_f32_to_f16", i, f2u(x[i]), o16[i], ref_half(x[i]), 5);
		launch_n(kernel("convert.cu", "cast_f32_to_bf16"), n, args);
		from_dev(o16, dout, n * 2);
		for (size_t i = 0; i < n; i++)
			check_16("cast_f32_to_bf16", i, f2u(x[i]), o16[i], ref_bf16(x[i]), 8);
		launch_n(kernel("convert.cu", "cast_f32_to_f8e4m3"), n, args);
		from_dev(o8, dout, n);
		for (size_t i = 0; i < n; i++)
			check_8("cast_f32_to_f8e4m3", i, f2u(x[i]), o8[i], ref_fp8(x[i], 0, 1), 0);
		launch_n(kernel("convert.cu", "cast_f32_to_f8e5m2"), n, args);
		from_dev(o8, dout, n);
		for (size_t i = 0; i < n; i++)
			check_8("cast_f32_to_f8e5m2", i, f2u(x[i]), o8[i], ref_fp8(x[i], 1, 1), 1);
	}
	for (int e5m2 = 0; e5m2 < 2; e5m2++) {
		void *args[] = { &un, &dx, &e5m2, &dout };

		launch_n(kernel("convert.cu", "f32_to_fp8_bits_nosat"), n, args);
		from_dev(o8, dout, n);
		for (size_t i = 0; i < n; i++)
			check_8(e5m2 ? "f32_to_fp8_bits_nosat(e5m2)" : "f32_to_fp8_bits_nosat(e4m3)",
				i, f2u(x[i]), o8[i], ref_fp8(x[i], e5m2, 0), e5m2);
	}
	finish("float -> half/bf16/fp8");

	/* float2 {x, y} -> (e4m3(y) << 8) | e4m3(x), satfinite: the pairs (x[2j], x[2j+1]). */
	k = kernel_opt("convert.cu", "cast_f32x2_to_f8e4m3_ptx", fx.cc >= 89);
	if (fx.cc >= 89) {
		unsigned int pairs = un / 2;
		void *args[] = { &pairs, &dx, &dout };

		launch_n(k, pairs, args);
		from_dev(o16, dout, (size_t)pairs * 2);
		for (size_t j = 0; j < pairs; j++) {
			uint64_t in = (uint64_t)f2u(x[2 * j + 1]) << 32 | f2u(x[2 * j]);

			check_8("cast_f32x2_to_f8e4m3_ptx(lo)", j, in, (uint8_t)(o16[j] & 0xff),
				ref_fp8(x[2 * j], 0, 1), 0);
			check_8("cast_f32x2_to_f8e4m3_ptx(hi)", j, in, (uint8_t)(o16[j] >> 8),
				ref_fp8(x[2 * j + 1], 0, 1), 0);
		}
		finish("cast_f32x2_to_f8e4m3_ptx");
	} else {
		printf("sm_%d: cast_f32x2_to_f8e4m3_ptx is sm_89+ only, not run\n", fx.cc);
	}
	dev_free(dx);
	dev_free(dout);
	free(x);
	free(o8);
	teardown();
}

/* Every code of half, bf16, e4m3 and e5m2 to float (exact: every one is a float). */
TEST(convert_widening_to_f32_matches_cpu_for_every_code)
{
	unsigned int n16 = 65536, n8 = 256;
	uint16_t *codes = host_alloc(65536 * 2);
	float *got = host_alloc(65536 * 4);
	void *din, *dout;

	setup();
	for (uint32_t c = 0; c < 65536; c++)
		codes[c] = (uint16_t)c;
	din = dev_of(codes, 65536 * 2);
	dout = dev_of(NULL, 65536 * 4);
	{
		void *args[] = { &n16, &din, &dout };

		launch_n(kernel("convert.cu", "cast_f16_to_f32"), n16, args);
		from_dev(got, dout, 65536 * 4);
		for (uint32_t c = 0; c < 65536; c++)
			check_f32("cast_f16_to_f32", c, c, got[c], dec_half((uint16_t)c));
		launch_n(kernel("convert.cu", "cast_bf16_to_f32"), n16, args);
		from_dev(got, dout, 65536 * 4);
		for (uint32_t c = 0; c < 65536; c++)
			check_f32("cast_bf16_to_f32", c, c, got[c], dec_bf16((uint16_t)c));
	}
	/* every fp8 code, e4m3 and e5m2 */
	{
		uint8_t b[256];
		void *db;
		void *args[] = { &n8, &db, &dout };

		for (int c = 0; c < 256; c++)
			b[c] = (uint8_t)c;
		db = dev_of(b, 256);
		launch_n(kernel("convert.cu", "cast_f8e4m3_to_f32"), n8, args);
		from_dev(got, dout, 256 * 4);
		for (uint32_t c = 0; c < 256; c++)
			check_f32("cast_f8e4m3_to_f32", c, c, got[c], dec_fp8((uint8_t)c, 0));
		launch_n(kernel("convert.cu", "cast_f8e5m2_to_f32"), n8, args);
		from_dev(got, dout, 256 * 4);
		for (uint32_t c = 0; c < 256; c++)
			check_f32("cast_f8e5m2_to_f32", c, c, got[c], dec_fp8((uint8_t)c, 1));
		for (int e5m2 = 0; e5m2 < 2; e5m2++) {
			void *a2[] = { &n8, &db, &e5m2, &dout };

			launch_n(kernel("convert.cu", "fp8_bits_to_f32"), n8, a2);
			from_dev(got, dout, 256 * 4);
			for (uint32_t c = 0; c < 256; c++)
				check_f32(e5m2 ? "fp8_bits_to_f32(e5m2)" : "fp8_bits_to_f32(e4m3)", c,
					  c, got[c], dec_fp8((uint8_t)c, e5m2));
		}
		dev_free(db);
	}
	finish("half/bf16/fp8 -> float");
	dev_free(din);
	dev_free(dout);
	free(codes);
	free(got);
	teardown();
}

/* double -> half and bf16 in one rounding: the float inputs, plus doubles a hair either
 * side of the narrow formats' ties (where rounding through float first would land on the
 * tie and go to even), and doubles beyond float's range. */
TEST(convert_f64_rounds_once_and_integers_convert_like_cuda)
{
	size_t nf, n = 0;
	float *xf;
	double *x;
	uint16_t *o16;
	int32_t *oi;
	unsigned int un;
	void *dx, *dout;

	setup();
	xf = convert_inputs(&nf);
	x = host_alloc((nf + 4 * 2048 + 8) * sizeof *x);
	for (size_t i = 0; i < nf; i++)
		x[n++] = xf[i];
	for (int i = 0; i < 2048; i++) {
		uint16_t h = (uint16_t)(rnd32() & 0x7bfe), b = (uint16_t)(rnd32() & 0x7f7e);
		double mh = (dec_half(h) + dec_half((uint16_t)(h + 1))) / 2;
		double mb = (dec_bf16(b) + dec_bf16((uint16_t)(b + 1))) / 2;

		x[n++] = mh * (1 + 0x1p-40);
		x[n++] = -mh * (1 - 0x1p-40);
		x[n++] = mb * (1 + 0x1p-45);
		x[n++] = mb * (1 - 0x1p-45);
	}
	x[n++] = 1e300;
	x[n++] = -1e300;
	x[n++] = 1e-300;
	x[n++] = -4.9e-324;
	x[n++] = (double)FLT_MAX * (1 + 0x1p-30); /* beyond float, below the bf16 rounding edge */
	x[n++] = 0x1.fefffffffffffp127;           /* just below bf16's 0x7f7f..0x7f80 tie */
	x[n++] = 0x1.ff00000000001p127;           /* just above it: inf */
	x[n++] = 65519.999999999;
	un = (unsigned int)n;
	dx = dev_of(x, n * 8);
	dout = dev_of(NULL, n * 4);
	o16 = host_alloc(n * 2);
	{
		void *args[] = { &un, &dx, &dout };

		launch_n(kernel("convert.cu", "cast_f64_to_f16"), n, args);
		from_dev(o16, dout, n * 2);
		for (size_t i = 0; i < n; i++)
			check_16("cast_f64_to_f16", i, d2u(x[i]), o16[i], ref_half(x[i]), 5);
		launch_n(kernel("convert.cu", "cast_f64_to_bf16"), n, args);
		from_dev(o16, dout, n * 2);
		for (size_t i = 0; i < n; i++)
			check_16("cast_f64_to_bf16", i, d2u(x[i]), o16[i], ref_bf16(x[i]), 8);
	}
	dev_free(dx);
	dev_free(dout);

	/* bf16 -> int: every code.  u32 -> bf16: specials, ties, random. */
	{
		unsigned int n16 = 65536;
		uint16_t *codes = host_alloc(65536 * 2);
		void *dc, *di, *args[] = { &n16, &dc, &di };

		for (uint32_t c = 0; c < 65536; c++)
			codes[c] = (uint16_t)c;
		dc = dev_of(codes, 65536 * 2);
		di = dev_of(NULL, 65536 * 4);
		oi = host_alloc(65536 * 4);
		launch_n(kernel("convert.cu", "cast_bf16_to_i32"), n16, args);
		from_dev(oi, di, 65536 * 4);
		for (uint32_t c = 0; c < 65536; c++)
			if (oi[c] != ref_f2i(dec_bf16((uint16_t)c)))
				bad("cast_bf16_to_i32[%u]: input 0x%04x: got %d, want %d", c, c,
				    oi[c], ref_f2i(dec_bf16((uint16_t)c)));
		dev_free(dc);
		dev_free(di);
		free(codes);
		free(oi);
	}
	{
		static const uint32_t special[] = { 0, 1, 255, 256, 257, 511, 0x8080, 0x8180,
						    0x8181, 0x01008000, 0x01018000, 0x01008001,
						    0x7fffffff, 0x80000000, 0x80800000, 0xff800000,
						    0xff7fffff, 0xffffffff };
		uint32_t u[4096];
		unsigned int nu = 4096;
		void *du, *db, *args[] = { &nu, &du, &db };

		for (size_t i = 0; i < COUNT(u); i++)
			u[i] = i < COUNT(special) ? special[i] :
			       i % 2 ? rnd32() >> (rnd32() % 32) :
				       ((rnd32() & 0xffu) << 8 | 0x80u) << (rnd32() % 16);
		du = dev_of(u, sizeof u);
		db = dev_of(NULL, 4096 * 2);
		launch_n(kernel("convert.cu", "cast_u32_to_bf16"), nu, args);
		from_dev(o16, db, 4096 * 2);
		for (size_t i = 0; i < COUNT(u); i++)
			check_16("cast_u32_to_bf16", i, u[i], o16[i], ref_bf16((double)u[i]), 8);
		dev_free(du);
		dev_free(db);
	}
	/* iota_capped_u64 with a grid smaller than n: the grid-stride loop. */
	{
		size_t nn = 100003, cap = 77777;
		size_t *o = host_alloc(nn * sizeof *o);
		void *d = dev_of(NULL, nn * sizeof *o), *args[] = { &nn, &cap, &d };

		launch(kernel("convert.cu", "iota_capped_u64"), 16, BLOCK, args);
		from_dev(o, d, nn * sizeof *o);
		for (size_t i = 0; i < nn; i++)
			if (o[i] != (i < cap ? i : cap))
				bad("iota_capped_u64[%zu]: got %zu, want %zu", i, o[i],
				    i < cap ? i : cap);
		dev_free(d);
		free(o);
	}
	finish("double -> half/bf16, bf16 <-> integers, iota");
	free(o16);
	free(x);
	free(xf);
	teardown();
}

/*
 * affine out = x * m + a in the element type's arithmetic, m and a converted to the type
 * first; m = -2 or 4 keeps every product exact (no overflow: |x| bounded below), so the
 * result is x * m + a rounded once whether the compiler fuses the multiply-add or not.
 * The reference adds in double: exact, or (when the terms are more than 53 bits apart)
 * off by less than the small term, which is far from a midpoint of the narrow grid.
 * relu = __hmax(x, 0): NaN -> +0, -0 -> either zero.
 */
TEST(convert_affine_and_relu_match_cpu_bit_for_bit)
{
	static const float ms[] = { -2.0f, 4.0f }, as[] = { 0.3f, -1000.5f };
	unsigned int n16 = 65536;
	uint16_t *codes = host_alloc(65536 * 2), *o16 = host_alloc(65536 * 2);
	float *xf = host_alloc(65536 * 4), *of = host_alloc(65536 * 4);
	void *dc, *dout, *dxf;

	setup();
	for (uint32_t c = 0; c < 65536; c++)
		codes[c] = (uint16_t)c;
	for (int i = 0; i < 65536; i++) /* |x| < 2^100, nonzero exponent spread */
		xf[i] = i < 8 ? (float[]){ 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f,
					   0x1p-149f, -0x1p-126f }[i] :
			u2f((rnd32() & 0x807fffffu) | (uint32_t)(rnd32() % 227) << 23);
	dc = dev_of(codes, 65536 * 2);
	dxf = dev_of(xf, 65536 * 4);
	dout = dev_of(NULL, 65536 * 4);
	for (int t = 0; t < 2; t++) {
		float m = ms[t], a = as[t];
		double limit = m == -2.0f ? 16000 : 8000; /* half: |x m| well below 65504 */
		void *args16[] = { &n16, &dc, &dout, &m, &a };
		void *argsf[] = { &n16, &dxf, &dout, &m, &a };

		launch_n(kernel("convert.cu", "affine_f32"), n16, argsf);
		from_dev(of, dout, 65536 * 4);
		for (uint32_t i = 0; i < 65536; i++)
			check_f32(t ? "affine_f32(4, -1000.5)" : "affine_f32(-2, 0.3)", i,
				  f2u(xf[i]), of[i], (double)xf[i] * m + (double)a);
		launch_n(kernel("convert.cu", "affine_f16"), n16, args16);
		from_dev(o16, dout, 65536 * 2);
		for (uint32_t c = 0; c < 65536; c++) {
			double x = dec_half((uint16_t)c);

			if (fabs(x) > limit && !isinf(x))
				continue;
			check_16(t ? "affine_f16(4, -1000.5)" : "affine_f16(-2, 0.3)", c, c, o16[c],
				 ref_half(x * dec_half(ref_half(m)) + dec_half(ref_half(a))), 5);
		}
		launch_n(kernel("convert.cu", "affine_bf16"), n16, args16);
		from_dev(o16, dout, 65536 * 2);
		for (uint32_t c = 0; c < 65536; c++) {
			double x = dec_bf16((uint16_t)c);

			if (fabs(x) > 0x1p100 && !isinf(x))
				continue;
			check_16(t ? "affine_bf16(4, -1000.5)" : "affine_bf16(-2, 0.3)", c, c,
				 o16[c], ref_bf16(x * dec_bf16(ref_bf16(m)) + dec_bf16(ref_bf16(a))),
				 8);
		}
	}
	finish("affine");
	for (int b = 0; b < 2; b++) {
		int expb = b ? 8 : 5;
		void *args[] = { &n16, &dc, &dout };

		launch_n(kernel("convert.cu", b ? "relu_bf16" : "relu_f16"), n16, args);
		from_dev(o16, dout, 65536 * 2);
		for (uint32_t c = 0; c < 65536; c++) {
			double x = dec_16((uint16_t)c, 15 - expb, expb);
			uint16_t want = x > 0 ? (uint16_t)c : 0;

			if (c == 0x8000 && (o16[c] == 0 || o16[c] == 0x8000))
				continue;
			if (o16[c] != want)
				bad("%s[%u]: input 0x%04x: got 0x%04x, want 0x%04x",
				    b ? "relu_bf16" : "relu_f16", c, c, o16[c], want);
		}
	}
	finish("relu");
	dev_free(dc);
	dev_free(dxf);
	dev_free(dout);
	free(codes);
	free(o16);
	free(xf);
	free(of);
	teardown();
}

/* ---- reduce.cu ---------------------------------------------------------------------------- */

#define RGRID 8u
#define RN (RGRID * BLOCK) /* threads of the warp-level launches */
#define RW (RN / 32)       /* their warps */

/* |got - want| <= (n - 1) u sum|x|. */
static void check_sum(const char *what, size_t i, double got, long double want,
		      long double mag, int n, double u)
{
	long double tol = (long double)(n - 1) * u * mag;

	if (fabsl((long double)got - want) > tol)
		bad("%s[%zu]: got %.17g, want %.17Lg (tolerance %.3Lg)", what, i, got, want, tol);
}

/* A random finite nonzero 16-bit float (expb 5 or 8). */
static uint16_t rnd_finite16(int expb)
{
	for (;;) {
		uint16_t h = (uint16_t)rnd32();
		double v = dec_16(h, 15 - expb, expb);

		if (v != 0 && !isinf(v) && !isnan(v))
			return h;
	}
}

TEST(reduce_warp_sums_maxima_scans_votes_match_cpu)
{
	float *xf = host_alloc(RN * 4), *of = host_alloc(RN * 4);
	double *xd = host_alloc(RN * 8), *od = host_alloc(RN * 8);
	int32_t *xi = host_alloc(RN * 4), *oi = host_alloc(RN * 4);
	uint16_t *xh = host_alloc(RN * 2), *oh = host_alloc(RN * 2);
	void *din, *dout, *args[] = { &din, &dout };

	setup();
	din = dev_of(NULL, RN * 8);
	dout = dev_of(NULL, RN * 8);
	for (unsigned int i = 0; i < RN; i++) {
		xf[i] = rnd_unit();
		xd[i] = (double)rnd_unit() + (double)rnd_unit() * 0x1p-30;
		xi[i] = (int32_t)(rnd32() % 2000001) - 1000000;
	}
	/* sums */
	to_dev(din, xf, RN * 4);
	launch(kernel("reduce.cu", "warp_sum_f32"), RGRID, BLOCK, args);
	from_dev(of, dout, RW * 4);
	for (unsigned int w = 0; w < RW; w++) {
		long double s = 0, mag = 0;

		for (unsigned int l = 0; l < 32; l++) {
			s += xf[32 * w + l];
			mag += fabsf(xf[32 * w + l]);
		}
		check_sum("warp_sum_f32", w, of[w], s, mag, 32, 0x1p-24);
	}
	to_dev(din, xd, RN * 8);
	launch(kernel("reduce.cu", "warp_sum_f64"), RGRID, BLOCK, args);
	from_dev(od, dout, RW * 8);
	for (unsigned int w = 0; w < RW; w++) {
		long double s = 0, mag = 0;

		for (unsigned int l = 0; l < 32; l++) {
			s += xd[32 * w + l];
			mag += fabs(xd[32 * w + l]);
		}
		check_sum("warp_sum_f64", w, od[w], s, mag, 32, 0x1p-53);
	}
	to_dev(din, xi, RN * 4);
	launch(kernel("reduce.cu", "warp_sum_i32"), RGRID, BLOCK, args);
	from_dev(oi, dout, RW * 4);
	for (unsigned int w = 0; w < RW; w++) {
		int32_t s = 0;

		for (unsigned int l = 0; l < 32; l++)
			s += xi[32 * w + l];
		if (oi[w] != s)
			bad("warp_sum_i32[%u]: got %d, want %d", w, oi[w], s);
	}
	launch(kernel("reduce.cu", "warp_max_i32"), RGRID, BLOCK, args);
	from_dev(oi, dout, RW * 4);
	for (unsigned int w = 0; w < RW; w++) {
		int32_t m = INT32_MIN;

		for (unsigned int l = 0; l < 32; l++)
			m = xi[32 * w + l] > m ? xi[32 * w + l] : m;
		if (oi[w] != m)
			bad("warp_max_i32[%u]: got %d, want %d", w, oi[w], m);
	}
	launch(kernel("reduce.cu", "warp_inclusive_scan_i32"), RGRID, BLOCK, args);
	from_dev(oi, dout, RN * 4);
	for (unsigned int i = 0, s = 0; i < RN; i++) {
		s = (i % 32 ? s : 0) + (uint32_t)xi[i];
		if (oi[i] != (int32_t)s)
			bad("warp_inclusive_scan_i32[%u]: got %d, want %d", i, oi[i], (int32_t)s);
	}
	finish("warp sums and scans");

	/* maxima, exact, NaN propagating: warp 3 holds a NaN, warp 4 +inf, warp 5 only -inf */
	for (unsigned int i = 0; i < RN; i++) {
		unsigned int w = i / 32;

		xf[i] = w == 3 && i % 32 == 17 ? NAN : w == 4 && i % 32 == 9 ? INFINITY :
			w == 5 ? -INFINITY : xf[i];
		xd[i] = w == 3 && i % 32 == 30 ? NAN : w == 4 && i % 32 == 0 ? INFINITY :
			w == 5 ? -INFINITY : xd[i];
	}
	to_dev(din, xf, RN * 4);
	launch(kernel("reduce.cu", "warp_max_f32"), RGRID, BLOCK, args);
	from_dev(of, dout, RW * 4);
	for (unsigned int w = 0; w < RW; w++) {
		double m = -INFINITY;

		for (unsigned int l = 0; l < 32; l++)
			m = isnan(m) || isnan(xf[32 * w + l]) ? NAN : fmax(m, xf[32 * w + l]);
		check_f32("warp_max_f32", w, w, of[w], m);
	}
	to_dev(din, xd, RN * 8);
	launch(kernel("reduce.cu", "warp_max_f64"), RGRID, BLOCK, args);
	from_dev(od, dout, RW * 8);
	for (unsigned int w = 0; w < RW; w++) {
		double m = -INFINITY;

		for (unsigned int l = 0; l < 32; l++)
			m = isnan(m) || isnan(xd[32 * w + l]) ? NAN : fmax(m, xd[32 * w + l]);
		if (isnan(m) ? !isnan(od[w]) : d2u(od[w]) != d2u(m))
			bad("warp_max_f64[%u]: got %a, want %a", w, od[w], m);
	}
	for (int b = 0; b < 2; b++) {
		int expb = b ? 8 : 5;

		for (unsigned int i = 0; i < RN; i++)
			xh[i] = i / 32 == 3 && i % 32 == 5 ? 0x7fff :
				i / 32 == 4 && i % 32 == 31 ? (b ? 0x7f80 : 0x7c00) :
							      rnd_finite16(expb);
		to_dev(din, xh, RN * 2);
		launch(kernel("reduce.cu", b ? "warp_max_bf16" : "warp_max_f16"), RGRID, BLOCK,
		       args);
		from_dev(oh, dout, RW * 2);
		for (unsigned int w = 0; w < RW; w++) {
			uint16_t want = xh[32 * w];

			for (unsigned int l = 0; l < 32; l++) {
				uint16_t h = xh[32 * w + l];
				double v = dec_16(h, 15 - expb, expb);

				if (nan16(want, expb) || nan16(h, expb))
					want = 0x7fff;
				else if (v > dec_16(want, 15 - expb, expb))
					want = h;
			}
			check_16(b ? "warp_max_bf16" : "warp_max_f16", w, w, oh[w], want, expb);
		}
	}
	finish("warp maxima");

	/* halves summed in float: multiples of 1/16 below 32, sums exact */
	for (unsigned int i = 0; i < RN; i++)
		xh[i] = ref_half((int)(rnd32() % 1025) / 16.0 - 32);
	to_dev(din, xh, RN * 2);
	launch(kernel("reduce.cu", "warp_sum_f16_as_f32"), RGRID, BLOCK, args);
	from_dev(of, dout, RW * 4);
	for (unsigned int w = 0; w < RW; w++) {
		double s = 0;

		for (unsigned int l = 0; l < 32; l++)
			s += dec_half(xh[32 * w + l]);
		check_f32("warp_sum_f16_as_f32", w, w, of[w], s);
	}
	/* broadcast: bits of lane src of each warp */
	for (unsigned int i = 0; i < RN; i++)
		xh[i] = (uint16_t)rnd32();
	to_dev(din, xh, RN * 2);
	for (int src = 0; src < 32; src += 13) {
		void *bargs[] = { &din, &src, &dout };

		launch(kernel("reduce.cu", "warp_broadcast_bf16"), RGRID, BLOCK, bargs);
		from_dev(oh, dout, RN * 2);
		for (unsigned int i = 0; i < RN; i++)
			if (oh[i] != xh[i / 32 * 32 + (unsigned int)src])
				bad("warp_broadcast_bf16(src %d)[%u]: got 0x%04x, want 0x%04x", src,
				    i, oh[i], xh[i / 32 * 32 + (unsigned int)src]);
	}
	/* votes: warps all positive, none (zeros, -0, NaN, negatives), random, exactly one */
	for (unsigned int i = 0; i < RN; i++) {
		unsigned int w = i / 32, l = i % 32;
		static const float nonpos[] = { 0.0f, -0.0f, NAN, -1.0f, -0x1p-149f };

		xf[i] = w % 4 == 0 ? 0.5f + (float)l :
			w % 4 == 1 ? nonpos[l % 5] :
			w % 4 == 2 ? rnd_unit() :
				     (l == w % 32 ? 1.0f : -1.0f);
	}
	to_dev(din, xf, RN * 4);
	launch(kernel("reduce.cu", "warp_votes"), RGRID, BLOCK, args);
	from_dev(oi, dout, RW * 3 * 4);
	for (unsigned int w = 0; w < RW; w++) {
		int pop = 0;

		for (unsigned int l = 0; l < 32; l++)
			pop += xf[32 * w + l] > 0.0f;
		if (oi[3 * w] != pop || oi[3 * w + 1] != (pop > 0) || oi[3 * w + 2] != (pop == 32))
			bad("warp_votes[%u]: got popc %d any %d all %d, want %d %d %d", w,
			    oi[3 * w], oi[3 * w + 1], oi[3 * w + 2], pop, pop > 0, pop == 32);
	}
	finish("warp sums of halves, broadcasts, votes");
	dev_free(din);
	dev_free(dout);
	free(xf);
	free(of);
	free(xd);
	free(od);
	free(xi);
	free(oi);
	free(xh);
	free(oh);
	teardown();
}

TEST(reduce_block_sum_matches_cpu_within_tolerance)
{
	static const unsigned int blocks[] = { 1024, 96, 32 }, grids[] = { 4, 7, 3 };
	size_t cap = 4096;
	float *x = host_alloc(cap * 4), *o = host_alloc(64 * 4);
	void *din, *dout;

	setup();
	for (size_t i = 0; i < cap; i++)
		x[i] = rnd_unit() * 100;
	din = dev_of(x, cap * 4);
	dout = dev_of(NULL, 64 * 4);
	for (size_t c = 0; c < COUNT(blocks); c++) {
		void *args[] = { &din, &dout };

		ASSERT(blocks[c] * grids[c] <= cap);
		launch(kernel("reduce.cu", "block_sum_f32"), grids[c], blocks[c], args);
		from_dev(o, dout, grids[c] * 4);
		for (unsigned int b = 0; b < grids[c]; b++) {
			long double s = 0, mag = 0;
			char what[64];

			for (unsigned int t = 0; t < blocks[c]; t++) {
				s += x[b * blocks[c] + t];
				mag += fabsf(x[b * blocks[c] + t]);
			}
			snprintf(what, sizeof what, "block_sum_f32(block %u)", blocks[c]);
			check_sum(what, b, o[b], s, mag, (int)blocks[c], 0x1p-24);
		}
	}
	finish("block_sum_f32");
	dev_free(din);
	dev_free(dout);
	free(x);
	free(o);
	teardown();
}

/* ---- atomics.cu ----------------------------------------------------------------------------- */

TEST(atomics_64bit_minmax_adds_cas_and_simd_bytes_match_cpu)
{
	unsigned int n = 20000;
	int64_t *xi = host_alloc(n * 8);
	uint64_t *xu = host_alloc(n * 8);
	double *xd = host_alloc(n * 8);
	void *dx, *dout, *args[] = { &n, &dx, &dout };

	setup();
	dx = dev_of(NULL, n * 8);
	dout = dev_of(NULL, 64);
	/* 64-bit max/min: values across the whole range, the extremes included */
	{
		int64_t init[2] = { INT64_MIN, INT64_MAX }, got[2], mx = INT64_MIN, mn = INT64_MAX;
		uint64_t uinit[2] = { 0, UINT64_MAX }, ugot[2], umx = 0, umn = UINT64_MAX;

		for (unsigned int i = 0; i < n; i++) {
			xu[i] = rnd() >> (rnd32() % 64);
			xi[i] = (int64_t)rnd() >> (rnd32() % 64);
			mx = xi[i] > mx ? xi[i] : mx;
			mn = xi[i] < mn ? xi[i] : mn;
			umx = xu[i] > umx ? xu[i] : umx;
			umn = xu[i] < umn ? xu[i] : umn;
		}
		to_dev(dx, xi, n * 8);
		to_dev(dout, init, 16);
		launch_n(kernel("atomics.cu", "atomic_minmax_i64"), n, args);
		from_dev(got, dout, 16);
		if (got[0] != mx || got[1] != mn)
			bad("atomic_minmax_i64: got max %lld min %lld, want %lld %lld",
			    (long long)got[0], (long long)got[1], (long long)mx, (long long)mn);
		to_dev(dx, xu, n * 8);
		to_dev(dout, uinit, 16);
		launch_n(kernel("atomics.cu", "atomic_minmax_u64"), n, args);
		from_dev(ugot, dout, 16);
		if (ugot[0] != umx || ugot[1] != umn)
			bad("atomic_minmax_u64: got max %llu min %llu, want %llu %llu",
			    (unsigned long long)ugot[0], (unsigned long long)ugot[1],
			    (unsigned long long)umx, (unsigned long long)umn);
	}
	/* double max through the integer bits (x >= 0), then the double adds */
	{
		double zero = 0, got, mx = 0;
		long double s = 0, mag = 0;

		for (unsigned int i = 0; i < n; i++) {
			xd[i] = fabs((double)rnd_unit()) * ldexp(1, (int)(rnd32() % 40) - 20);
			mx = xd[i] > mx ? xd[i] : mx;
		}
		xd[n / 2] = 0x1p30; /* the max, in the middle */
		mx = 0x1p30;
		to_dev(dx, xd, n * 8);
		to_dev(dout, &zero, 8);
		launch_n(kernel("atomics.cu", "atomic_max_f64_bits"), n, args);
		from_dev(&got, dout, 8);
		if (d2u(got) != d2u(mx))
			bad("atomic_max_f64_bits: got %a, want %a", got, mx);
		for (unsigned int i = 0; i < n; i++) {
			xd[i] = (double)rnd_unit() + (double)rnd_unit() * 0x1p-29;
			s += xd[i];
			mag += fabs(xd[i]);
		}
		to_dev(dx, xd, n * 8);
		to_dev(dout, &zero, 8);
		launch_n(kernel("atomics.cu", "atomic_add_f64"), n, args);
		from_dev(&got, dout, 8);
		check_sum("atomic_add_f64 (fractions)", 0, got, s, mag, (int)n, 0x1p-53);
	}
	/* half / bf16 adds of +-1, +2: every partial sum an integer of at most sum|x| (2000
	 * for half, 255 for bf16), exact in the type: the result is exact in any order */
	for (int b = 0; b < 2; b++) {
		unsigned int m = b ? 170 : 1000;
		uint16_t *x = (uint16_t *)(void *)xi, got = 0, want;
		int s = 0, expb = b ? 8 : 5;
		void *a2[] = { &m, &dx, &dout };

		for (unsigned int i = 0; i < m; i++) {
			int v = i % 3 == 0 ? -1 : i % 3 == 1 ? 1 : 2;

			x[i] = b ? ref_bf16(v) : ref_half(v);
			s += v;
		}
		to_dev(dx, x, m * 2);
		CUDA(rt.cudaMemset(dout, 0, 8));
		launch_n(kernel("atomics.cu", b ? "atomic_add_bf16" : "atomic_add_f16"), m, a2);
		from_dev(&got, dout, 2);
		want = b ? ref_bf16(s) : ref_half(s);
		check_16(b ? "atomic_add_bf16" : "atomic_add_f16", 0, (uint64_t)m, got, want, expb);
	}
	/* the 16-bit CAS counter: (65000 + n) mod 65536; the next 16 bits untouched */
	{
		uint16_t init[4] = { 65000, 0xbeef, 0xdead, 0xf00d }, got[4];
		void *a2[] = { &n, &dout };

		to_dev(dout, init, 8);
		launch_n(kernel("atomics.cu", "atomic_cas_u16_count"), n, a2);
		from_dev(got, dout, 8);
		if (got[0] != (uint16_t)(65000u + n) || got[1] != 0xbeef || got[2] != 0xdead ||
		    got[3] != 0xf00d)
			bad("atomic_cas_u16_count: got %u (neighbours 0x%04x 0x%04x 0x%04x), "
			    "want %u", got[0], got[1], got[2], got[3], (uint16_t)(65000u + n));
	}
	finish("atomics");
	dev_free(dx);
	dev_free(dout);

	/* __dp4a, __vsubss4, __vabsss4 */
	{
		static const uint32_t edge[] = { 0x80808080, 0x7f7f7f7f, 0x00000000, 0xffffffff,
						 0x807f01ff, 0x7f80ff01 };
		unsigned int m = 4096;
		uint32_t *a = host_alloc(m * 4), *bb = host_alloc(m * 4), *c = host_alloc(m * 4);
		uint32_t *dot = host_alloc(m * 4), *sub = host_alloc(m * 4), *ab = host_alloc(m * 4);
		void *da, *db, *dc, *ddot, *dsub, *dabs;

		for (unsigned int i = 0; i < m; i++) {
			a[i] = i < 36 ? edge[i % 6] : rnd32();
			bb[i] = i < 36 ? edge[i / 6] : rnd32();
			c[i] = i < 36 ? (i % 2 ? 0x7fffffffu : 0x80000000u) : rnd32();
		}
		da = dev_of(a, m * 4);
		db = dev_of(bb, m * 4);
		dc = dev_of(c, m * 4);
		ddot = dev_of(NULL, m * 4);
		dsub = dev_of(NULL, m * 4);
		dabs = dev_of(NULL, m * 4);
		{
			void *a2[] = { &m, &da, &db, &dc, &ddot, &dsub, &dabs };

			launch_n(kernel("atomics.cu", "simd_bytes"), m, a2);
		}
		from_dev(dot, ddot, m * 4);
		from_dev(sub, dsub, m * 4);
		from_dev(ab, dabs, m * 4);
		for (unsigned int i = 0; i < m; i++) {
			uint32_t wd = (uint32_t)ref_dp4a(a[i], bb[i], (int32_t)c[i]);

			if (dot[i] != wd || sub[i] != ref_vsubss4(a[i], bb[i]) ||
			    ab[i] != ref_vabsss4(a[i]))
				bad("simd_bytes[%u]: a 0x%08x b 0x%08x c 0x%08x: got dp4a 0x%08x "
				    "vsubss4 0x%08x vabsss4 0x%08x, want 0x%08x 0x%08x 0x%08x", i,
				    a[i], bb[i], c[i], dot[i], sub[i], ab[i], wd,
				    ref_vsubss4(a[i], bb[i]), ref_vabsss4(a[i]));
		}
		finish("simd_bytes");
		dev_free(da);
		dev_free(db);
		dev_free(dc);
		dev_free(ddot);
		dev_free(dsub);
		dev_free(dabs);
		free(a);
		free(bb);
		free(c);
		free(dot);
		free(sub);
		free(ab);
	}
	free(xi);
	free(xu);
	free(xd);
	teardown();
}

/* ---- std_math.cu ---------------------------------------------------------------------------- */

TEST(std_math_kernels_match_cpu)
{
	static const float qx[] = { 0.0f, -0.0f, 1.0f, -1.0f, 0.125f, 0.375f, -0.375f, 31.875f,
				    31.5f, -31.875f, -32.0f, -32.125f, 1e30f, -1e30f, INFINITY,
				    -INFINITY, NAN, 0x1p-149f, 2.5f, -2.5f, 100.0f, 7.0f };
	static const float scales[] = { 0.25f, 3.0f };
	unsigned int n = 4096;
	float *x = host_alloc(n * 4), *of = host_alloc(n * 4);
	double *xd = host_alloc(n * 8), *od = host_alloc(n * 8);
	int8_t *q = host_alloc(n);
	void *dx, *dout;

	setup();
	dx = dev_of(NULL, n * 8);
	dout = dev_of(NULL, n * 8);
	/* quantize_i8: clamp(round(x / scale), -128, 127), NaN -> 0; round half away */
	for (unsigned int i = 0; i < n; i++)
		x[i] = i < COUNT(qx) ? qx[i] : rnd_unit() * 200;
	to_dev(dx, x, n * 4);
	for (size_t s = 0; s < COUNT(scales); s++) {
		float scale = scales[s];
		void *args[] = { &n, &dx, &scale, &dout };

		launch_n(kernel("std_math.cu", "quantize_i8"), n, args);
		from_dev(q, dout, n);
		for (unsigned int i = 0; i < n; i++) {
			float v = roundf(x[i] / scale);
			int want = isnan(v) ? 0 : v < -128 ? -128 : v > 127 ? 127 : (int)v;

			if (q[i] != want)
				bad("quantize_i8(scale %g)[%u]: x %a: got %d, want %d",
				    (double)scale, i, (double)x[i], q[i], want);
		}
	}
	finish("quantize_i8");

	/* row maxima (one 32-thread block per row; fmaxf drops NaN; from -inf) */
	{
		static const unsigned int colss[] = { 100, 5 };

		for (size_t t = 0; t < COUNT(colss); t++) {
			unsigned int cols = colss[t], rows = 32;
			uint16_t *xb = (uint16_t *)(void *)xd, *ob = (uint16_t *)(void *)od;
			void *args[] = { &cols, &dx, &dout };

			for (unsigned int i = 0; i < rows * cols; i++) {
				unsigned int r = i / cols;

				x[i] = r == 1 ? NAN : r == 2 && i % 3 ? NAN : r == 3 ? -INFINITY :
				       r == 4 && i % cols == cols - 1 ? INFINITY : rnd_unit() * 1e3f;
				xb[i] = ref_bf16(x[i]);
			}
			to_dev(dx, x, rows * cols * 4);
			launch(kernel("std_math.cu", "row_max_f32"), rows, 32, args);
			from_dev(of, dout, rows * 4);
			for (unsigned int r = 0; r < rows; r++) {
				double m = -INFINITY;

				for (unsigned int c = 0; c < cols; c++)
					m = fmax(m, x[r * cols + c]);
				check_f32("row_max_f32", r, cols, of[r], m);
			}
			to_dev(dx, xb, rows * cols * 2);
			launch(kernel("std_math.cu", "row_max_bf16"), rows, 32, args);
			from_dev(ob, dout, rows * 2);
			for (unsigned int r = 0; r < rows; r++) {
				double m = -INFINITY;

				for (unsigned int c = 0; c < cols; c++)
					m = fmax(m, dec_bf16(xb[r * cols + c]));
				check_16("row_max_bf16", r, cols, ob[r], ref_bf16(m), 8);
			}
		}
	}
	finish("row_max");

	/* gelu_erf_f32 (uint64_t n): within 1e-6 (1 + |x|) of the double reference */
	{
		uint64_t n64 = n;
		void *args[] = { &n64, &dx, &dout };

		for (unsigned int i = 0; i < n; i++)
			x[i] = rnd_unit() * 6;
		to_dev(dx, x, n * 4);
		launch_n(kernel("std_math.cu", "gelu_erf_f32"), n, args);
		from_dev(of, dout, n * 4);
		for (unsigned int i = 0; i < n; i++) {
			double want = 0.5 * x[i] * (1 + erf(x[i] * M_SQRT1_2));

			if (!(fabs(of[i] - want) <= 1e-6 * (1 + fabs((double)x[i]))))
				bad("gelu_erf_f32[%u]: x %a: got %.9g, want %.9g", i, (double)x[i],
				    (double)of[i], want);
		}
	}
	finish("gelu_erf_f32");

	/* clamp to numeric_limits<T>::lowest/max, times pi: exact */
	{
		static const double cx[] = { 0, -0.0, 1, -1, INFINITY, -INFINITY, NAN, 1e300,
					     -1e300, 0x1p-1074 };
		void *args[] = { &n, &dx, &dout };

		for (unsigned int i = 0; i < n; i++) {
			x[i] = i < 10 ? (float)cx[i] :
			       i < 12 ? (i % 2 ? -FLT_MAX / 4 : FLT_MAX / 4) :
				        u2f(rnd32());
			xd[i] = i < 10 ? cx[i] : i < 12 ? (i % 2 ? -DBL_MAX / 4 : DBL_MAX / 4) :
				(double)rnd_unit() * ldexp(1, (int)(rnd32() % 2000) - 1000);
		}
		to_dev(dx, x, n * 4);
		launch_n(kernel("std_math.cu", "clamp_scale_f32"), n, args);
		from_dev(of, dout, n * 4);
		for (unsigned int i = 0; i < n; i++) {
			float v = x[i] < -FLT_MAX ? -FLT_MAX : x[i] > FLT_MAX ? FLT_MAX : x[i];

			check_f32("clamp_scale_f32", i, f2u(x[i]), of[i], v * (float)M_PI);
		}
		to_dev(dx, xd, n * 8);
		launch_n(kernel("std_math.cu", "clamp_scale_f64"), n, args);
		from_dev(od, dout, n * 8);
		for (unsigned int i = 0; i < n; i++) {
			double v = xd[i] < -DBL_MAX ? -DBL_MAX : xd[i] > DBL_MAX ? DBL_MAX : xd[i];
			double want = v * M_PI;

			if (isnan(want) ? !isnan(od[i]) : d2u(od[i]) != d2u(want))
				bad("clamp_scale_f64[%u]: x %a: got %a, want %a", i, xd[i], od[i],
				    want);
		}
	}
	finish("clamp_scale");

	/* saturate_bf16: every code; +-inf -> +-max finite, NaN stays NaN */
	{
		unsigned int n16 = 65536;
		uint16_t *codes = host_alloc(65536 * 2), *o = host_alloc(65536 * 2);
		void *dc, *db, *args[] = { &n16, &dc, &db };

		for (uint32_t c = 0; c < 65536; c++)
			codes[c] = (uint16_t)c;
		dc = dev_of(codes, 65536 * 2);
		db = dev_of(NULL, 65536 * 2);
		launch_n(kernel("std_math.cu", "saturate_bf16"), n16, args);
		from_dev(o, db, 65536 * 2);
		for (uint32_t c = 0; c < 65536; c++) {
			uint16_t want = c == 0x7f80 ? 0x7f7f : c == 0xff80 ? 0xff7f : (uint16_t)c;

			check_16("saturate_bf16", c, c, o[c], want, 8);
		}
		dev_free(dc);
		dev_free(db);
		free(codes);
		free(o);
	}
	/* widen_mul_i64: (int64) a * (uint16) b + INT32_MAX */
	{
		int32_t *a = host_alloc(n * 4);
		uint16_t *b = host_alloc(n * 2);
		int64_t *o = host_alloc(n * 8);
		void *da, *db, *args[] = { &n, &da, &db, &dout };

		for (unsigned int i = 0; i < n; i++) {
			a[i] = i == 0 ? INT32_MIN : i == 1 ? INT32_MAX : (int32_t)rnd32();
			b[i] = i < 2 ? 65535 : (uint16_t)rnd32();
		}
		da = dev_of(a, n * 4);
		db = dev_of(b, n * 2);
		launch_n(kernel("std_math.cu", "widen_mul_i64"), n, args);
		from_dev(o, dout, n * 8);
		for (unsigned int i = 0; i < n; i++)
			if (o[i] != (int64_t)a[i] * b[i] + INT32_MAX)
				bad("widen_mul_i64[%u]: %d * %u: got %lld, want %lld", i, a[i], b[i],
				    (long long)o[i], (long long)((int64_t)a[i] * b[i] + INT32_MAX));
		dev_free(da);
		dev_free(db);
		free(a);
		free(b);
		free(o);
	}
	finish("saturate_bf16, widen_mul_i64");
	dev_free(dx);
	dev_free(dout);
	free(x);
	free(of);
	free(xd);
	free(od);
	free(q);
	teardown();
}

/* ---- hip/types.hip, hip/coop.hip ------------------------------------------------------------ */

TEST(hip_types_and_coop_kernels_match_cpu)
{
	size_t nx;
	float *x, *of;
	unsigned int n;
	void *dx, *dout;

	setup();
	x = convert_inputs(&nx);
	n = (unsigned int)nx;
	dx = dev_of(x, nx * 4);
	dout = dev_of(NULL, nx * 8);
	of = host_alloc(nx * 8);
	/* half(x) * 2 + 1 by __hfma: one rounding of the exact value */
	{
		void *args[] = { &n, &dx, &dout };

		launch_n(kernel("hip/types.hip", "hip_half_axpb"), nx, args);
		from_dev(of, dout, nx * 4);
		for (size_t i = 0; i < nx; i++)
			check_f32("hip_half_axpb", i, f2u(x[i]), of[i],
				  dec_half(ref_half(dec_half(ref_half(x[i])) * 2 + 1)));
		launch_n(kernel("hip/types.hip", "hip_fp8_roundtrip"), nx, args);
		from_dev(of, dout, nx * 8);
		for (size_t i = 0; i < nx; i++) {
			check_f32("hip_fp8_roundtrip(e4m3)", i, f2u(x[i]), of[2 * i],
				  dec_fp8(ref_fp8(x[i], 0, 1), 0));
			check_f32("hip_fp8_roundtrip(e5m2)", i, f2u(x[i]), of[2 * i + 1],
				  dec_fp8(ref_fp8(x[i], 1, 1), 1));
		}
	}
	finish("hip_half_axpb, hip_fp8_roundtrip");
	/* bf16 pairs: __hmax_nan (no +0/-0 pairs), hip_bfloat16 + (exponents within 14:
	 * the float sum is exact, so it is rounded once) */
	{
		unsigned int m = 8192;
		uint16_t *a = host_alloc(m * 2), *b = host_alloc(m * 2), *o = host_alloc(m * 2);
		void *da, *db, *args[] = { &m, &da, &db, &dout };

		for (unsigned int i = 0; i < m; i++) {
			a[i] = i == 0 ? 0x7fff : i == 1 ? 0x3f80 : i == 2 ? 0xff80 : rnd32() & 1 ?
			       rnd_finite16(8) : (uint16_t)rnd32();
			b[i] = i == 0 ? 0x3f80 : i == 1 ? 0xffc1 : i == 2 ? 0x0000 : rnd32() & 1 ?
			       rnd_finite16(8) : (uint16_t)rnd32();
			if ((a[i] & 0x7fff) == 0 && (b[i] & 0x7fff) == 0)
				b[i] = a[i];
		}
		da = dev_of(a, m * 2);
		db = dev_of(b, m * 2);
		launch_n(kernel("hip/types.hip", "hip_bf16_max"), m, args);
		from_dev(o, dout, m * 2);
		for (unsigned int i = 0; i < m; i++) {
			double va = dec_bf16(a[i]), vb = dec_bf16(b[i]);
			uint16_t want = isnan(va) || isnan(vb) ? 0x7fff : va > vb ? a[i] : b[i];

			check_16("hip_bf16_max", i, (uint64_t)a[i] << 16 | b[i], o[i], want, 8);
		}
		for (unsigned int i = 0; i < m; i++) {
			static const uint16_t sa[] = { 0x7f80, 0x7fc0, 0x3f80, 0x8000, 0x7f7f };
			static const uint16_t sb[] = { 0xff80, 0x3f80, 0xbf80, 0x8000, 0x7f7f };

			if (i < COUNT(sa)) {
				a[i] = sa[i];
				b[i] = sb[i];
			} else {
				a[i] = (uint16_t)((rnd32() & 0x807f) | (120 + rnd32() % 15) << 7);
				b[i] = (uint16_t)((rnd32() & 0x807f) | (120 + rnd32() % 15) << 7);
			}
		}
		to_dev(da, a, m * 2);
		to_dev(db, b, m * 2);
		launch_n(kernel("hip/types.hip", "hip_bfloat16_add"), m, args);
		from_dev(o, dout, m * 2);
		for (unsigned int i = 0; i < m; i++)
			check_16("hip_bfloat16_add", i, (uint64_t)a[i] << 16 | b[i], o[i],
				 ref_bf16(dec_bf16(a[i]) + dec_bf16(b[i])), 8);
		dev_free(da);
		dev_free(db);
		free(a);
		free(b);
		free(o);
	}
	finish("hip_bf16_max, hip_bfloat16_add");
	/* the feature macros (one thread: lane 0) */
	{
		int got[2] = { -1, -1 };
		void *args[] = { &dout };

		launch(kernel("hip/types.hip", "hip_arch_features"), 1, 1, args);
		from_dev(got, dout, 8);
		if (got[0] != 1 || got[1] != 0)
			bad("hip_arch_features: got %d, lane %d; want 1, lane 0", got[0], got[1]);
	}
	/* compiled and present; not launched (see the file comment) */
	(void)kernel("hip/types.hip", "hip_texture_scale");
	/* coop.hip: 16-lane tile sums; warp sums and votes (any + 2 all) */
	{
		unsigned int m = RN;
		int32_t *in = host_alloc(m * 4), *o = host_alloc(m * 4);
		void *din, *args[] = { &din, &dout }, *a2[] = { &m, &din, &dout };

		for (unsigned int i = 0; i < m; i++) {
			unsigned int w = i / 32;

			in[i] = w % 3 == 0 ? (int32_t)(rnd32() % 1000) + 1 :
				w % 3 == 1 ? -(int32_t)(rnd32() % 1000) :
					     (int32_t)(rnd32() % 2001) - 1000;
		}
		din = dev_of(in, m * 4);
		launch(kernel("hip/coop.hip", "coop_tile_sum_i32"), RGRID, BLOCK, args);
		from_dev(o, dout, m / 16 * 4);
		for (unsigned int t = 0; t < m / 16; t++) {
			int32_t s = 0;

			for (unsigned int l = 0; l < 16; l++)
				s += in[16 * t + l];
			if (o[t] != s)
				bad("coop_tile_sum_i32[%u]: got %d, want %d", t, o[t], s);
		}
		launch(kernel("hip/coop.hip", "hip_warp_sum_votes"), RGRID, BLOCK, a2);
		from_dev(o, dout, m / 32 * 2 * 4);
		for (unsigned int w = 0; w < m / 32; w++) {
			int32_t s = 0;
			int any = 0, all = 1;

			for (unsigned int l = 0; l < 32; l++) {
				s += in[32 * w + l];
				any |= in[32 * w + l] > 0;
				all &= in[32 * w + l] > 0;
			}
			if (o[w] != s || o[m / 32 + w] != any + 2 * all)
				bad("hip_warp_sum_votes[%u]: got sum %d votes %d, want %d %d", w, o[w],
				    o[m / 32 + w], s, any + 2 * all);
		}
		dev_free(din);
		free(in);
		free(o);
	}
	finish("hip_arch_features, coop.hip");
	dev_free(dx);
	dev_free(dout);
	free(x);
	free(of);
	teardown();
}

/* ---- coop_tex.cu, wmma.cu ------------------------------------------------------------------
 * Cooperative-groups collectives (exact: integers, and max/min), the staged copies (exact:
 * a factor of 2, or + 1 computed in float here as there), clock() moving forward, and one
 * 16x16x16 WMMA tile product (small integers: every product and sum exact in fp32).
 * Not launched: tex1dfetch_scale_f32 and tex2d_to_surface_f32 (texture objects, see the
 * file comment) - compiled and looked up only. */
#define CT_BLOCK 128u
#define CT_GRID 64u

TEST(coop_tex_collectives_copies_and_clock_match_cpu)
{
	unsigned int n = CT_BLOCK * CT_GRID;
	int32_t *in = NULL, *o = NULL, *o2 = NULL;
	float *f = NULL, *of = NULL;
	void *din, *dout, *dout2;

	setup();
	in = host_alloc(n * 4);
	o = host_alloc(n * 4);
	o2 = host_alloc(n * 4);
	f = host_alloc(n * 4);
	of = host_alloc(n * 4);
	for (unsigned int i = 0; i < n; i++) {
		in[i] = (int32_t)(rnd32() % 2001) - 1000;
		f[i] = rnd_unit() * 100.0f;
	}
	din = dev_of(in, n * 4);
	dout = dev_of(NULL, n * 4);
	dout2 = dev_of(NULL, n * 4);
	/* tile sums, indexed by meta_group_rank */
	{
		void *args[] = { &din, &dout };

		launch(kernel("coop_tex.cu", "cg_tile_sum_i32"), CT_GRID, CT_BLOCK, args);
		from_dev(o, dout, n / 32 * 4);
		for (unsigned int w = 0; w < n / 32; w++) {
			int32_t s = 0;

			for (unsigned int l = 0; l < 32; l++)
				s += in[32 * w + l];
			if (o[w] != s)
				bad("cg_tile_sum_i32[%u]: got %d, want %d", w, o[w], s);
		}
	}
	/* 16-lane max and min (cg::greater, cg::less) */
	{
		void *df = dev_of(f, n * 4), *args[] = { &df, &dout };

		launch(kernel("coop_tex.cu", "cg_tile_maxmin_f32"), CT_GRID, CT_BLOCK, args);
		from_dev(of, dout, n / 16 * 2 * 4);
		for (unsigned int t = 0; t < n / 16; t++) {
			float hi = f[16 * t], lo = f[16 * t];

			for (unsigned int l = 1; l < 16; l++) {
				hi = f[16 * t + l] > hi ? f[16 * t + l] : hi;
				lo = f[16 * t + l] < lo ? f[16 * t + l] : lo;
			}
			if (of[2 * t] != hi || of[2 * t + 1] != lo)
				bad("cg_tile_maxmin_f32[%u]: got %g %g, want %g %g", t, of[2 * t],
				    of[2 * t + 1], hi, lo);
		}
		dev_free(df);
	}
	/* and / or / xor over 8-lane tiles of 32-lane tiles (and their meta_group_rank) */
	{
		void *args[] = { &din, &dout };

		launch(kernel("coop_tex.cu", "cg_subtile_bits_u32"), CT_GRID, CT_BLOCK, args);
		from_dev(o, dout, n / 8 * 3 * 4);
		for (unsigned int t = 0; t < n / 8; t++) {
			uint32_t a = ~0u, r = 0, x = 0;

			for (unsigned int l = 0; l < 8; l++) {
				a &= (uint32_t)in[8 * t + l];
				r |= (uint32_t)in[8 * t + l];
				x ^= (uint32_t)in[8 * t + l];
			}
			if ((uint32_t)o[3 * t] != a || (uint32_t)o[3 * t + 1] != r ||
			    (uint32_t)o[3 * t + 2] != x)
				bad("cg_subtile_bits_u32[%u]: got %08x %08x %08x, want %08x %08x %08x",
				    t, o[3 * t], o[3 * t + 1], o[3 * t + 2], a, r, x);
		}
	}
	/* inclusive and exclusive scans over 32-lane tiles */
	{
		void *args[] = { &din, &dout, &dout2 };

		launch(kernel("coop_tex.cu", "cg_tile_scan_i32"), CT_GRID, CT_BLOCK, args);
		from_dev(o, dout, n * 4);
		from_dev(o2, dout2, n * 4);
		for (unsigned int i = 0, s = 0; i < n; i++) {
			if (i % 32 == 0)
				s = 0;
			if (o2[i] != (int32_t)s || o[i] != (int32_t)(s + (uint32_t)in[i]))
				bad("cg_tile_scan_i32[%u]: got %d %d, want %d %d", i, o[i], o2[i],
				    (int32_t)(s + (uint32_t)in[i]), (int32_t)s);
			s += (uint32_t)in[i];
		}
	}
	/* coalesced groups: the positive lanes of each 32-lane warp count and sum themselves */
	{
		int32_t *p = host_alloc(n * 4);
		void *dp, *args[] = { &dp, &dout };

		for (unsigned int i = 0; i < n; i++)
			p[i] = rnd32() % 3 == 0 ? (int32_t)(rnd32() % 100) + 1 : -(int32_t)(rnd32() % 5);
		dp = dev_of(p, n * 4);
		launch(kernel("coop_tex.cu", "cg_coalesced_sum_i32"), CT_GRID, CT_BLOCK, args);
		from_dev(o, dout, n * 4);
		for (unsigned int w = 0; w < n / 32; w++) {
			int32_t count = 0, sum = 0;

			for (unsigned int l = 0; l < 32; l++)
				if (p[32 * w + l] > 0) {
					count++;
					sum += p[32 * w + l];
				}
			for (unsigned int l = 0; l < 32; l++) {
				unsigned int i = 32 * w + l;
				int32_t want = p[i] > 0 ? count * 65536 + sum : -1;

				if (o[i] != want)
					bad("cg_coalesced_sum_i32[%u]: got %d, want %d", i, o[i], want);
			}
		}
		dev_free(dp);
		free(p);
	}
	/* binary_partition, labeled_partition and match_any within 32-lane warps */
	{
		void *args[] = { &din, &dout };

		launch(kernel("coop_tex.cu", "cg_partition_counts_i32"), CT_GRID, CT_BLOCK, args);
		from_dev(o, dout, n * 4);
		for (unsigned int i = 0; i < n; i++) {
			int32_t sign = 0, label = 0, want;

			for (unsigned int l = i / 32 * 32; l < i / 32 * 32 + 32; l++) {
				sign += (in[l] > 0) == (in[i] > 0);
				label += (in[l] & 3) == (in[i] & 3);
			}
			want = 65536 * sign + 256 * label + label;
			if (o[i] != want)
				bad("cg_partition_counts_i32[%u]: got %d, want %d", i, o[i], want);
		}
	}
	/* staged copies: cg::memcpy_async, then the __pipeline primitives */
	{
		void *df = dev_of(f, n * 4), *args[] = { &df, &dout };

		launch(kernel("coop_tex.cu", "cg_memcpy_async_reverse_f32"), CT_GRID, CT_BLOCK, args);
		from_dev(of, dout, n * 4);
		for (unsigned int i = 0; i < n; i++) {
			float want = 2.0f * f[i / CT_BLOCK * CT_BLOCK + CT_BLOCK - 1 - i % CT_BLOCK];

			if (of[i] != want)
				bad("cg_memcpy_async_reverse_f32[%u]: got %g, want %g", i, of[i], want);
		}
		launch(kernel("coop_tex.cu", "pipeline_reverse_f32"), CT_GRID, CT_BLOCK, args);
		from_dev(of, dout, n * 4);
		for (unsigned int i = 0; i < n; i++) {
			volatile float v = f[i / CT_BLOCK * CT_BLOCK + CT_BLOCK - 1 - i % CT_BLOCK];
			float want = v + 1.0f;

			if (of[i] != want)
				bad("pipeline_reverse_f32[%u]: got %g, want %g", i, of[i], want);
		}
		dev_free(df);
	}
	/* libcu++: a two-stage block pipeline over 3 batches, a block barrier */
	{
		int batches = 3;
		unsigned int grid = CT_GRID / 4, m = grid * CT_BLOCK * (unsigned int)batches;
		void *df = dev_of(f, n * 4), *args[] = { &df, &dout, &batches },
		     *a2[] = { &df, &dout };

		launch(kernel("coop_tex.cu", "cuda_pipeline_double_f32"), grid, CT_BLOCK, args);
		from_dev(of, dout, m * 4);
		for (unsigned int i = 0; i < m; i++)
			if (of[i] != 2.0f * f[i])
				bad("cuda_pipeline_double_f32[%u]: got %g, want %g", i, of[i],
				    2.0f * f[i]);
		launch(kernel("coop_tex.cu", "cuda_barrier_reverse_f32"), CT_GRID, CT_BLOCK, a2);
		from_dev(of, dout, n * 4);
		for (unsigned int i = 0; i < n; i++) {
			volatile float v = f[i / CT_BLOCK * CT_BLOCK + CT_BLOCK - 1 - i % CT_BLOCK];
			float want = v - 1.0f;

			if (of[i] != want)
				bad("cuda_barrier_reverse_f32[%u]: got %g, want %g", i, of[i], want);
		}
		dev_free(df);
	}
	/* clock() and clock64() move forward */
	{
		void *df = dev_of(f, n * 4), *args[] = { &df, &dout, &dout2 };

		launch(kernel("coop_tex.cu", "clock_elapsed"), CT_GRID, CT_BLOCK, args);
		from_dev(o, dout, n * 4);
		for (unsigned int i = 0; i < n; i++)
			if (o[i] != 1)
				bad("clock_elapsed[%u]: got %d, want 1", i, o[i]);
		dev_free(df);
	}
	(void)kernel("coop_tex.cu", "tex1dfetch_scale_f32");
	(void)kernel("coop_tex.cu", "tex2d_to_surface_f32");
	finish("coop_tex.cu");
	/* wmma.cu: c = a (row-major) * b (column-major), 16x16x16, one warp */
	{
		uint16_t a[256], b[256];
		float c[256];
		void *da, *db, *args[] = { &da, &db, &dout };

		for (unsigned int i = 0; i < 256; i++) {
			a[i] = ref_half((double)((int)(rnd32() % 7) - 3));
			b[i] = ref_half((double)((int)(rnd32() % 7) - 3));
		}
		da = dev_of(a, sizeof a);
		db = dev_of(b, sizeof b);
		launch(kernel("wmma.cu", "wmma_16x16x16_f16_f32"), 1, 32, args);
		from_dev(c, dout, sizeof c);
		for (unsigned int r = 0; r < 16; r++)
			for (unsigned int col = 0; col < 16; col++) {
				double s = 0;

				for (unsigned int k = 0; k < 16; k++)
					s += dec_half(a[16 * r + k]) * dec_half(b[16 * col + k]);
				if (c[16 * r + col] != (float)s)
					bad("wmma_16x16x16_f16_f32[%u][%u]: got %g, want %g", r, col,
					    c[16 * r + col], s);
			}
		dev_free(da);
		dev_free(db);
	}
	finish("wmma.cu");
	dev_free(din);
	dev_free(dout);
	dev_free(dout2);
	free(in);
	free(o);
	free(o2);
	free(f);
	free(of);
	teardown();
}

/* ---- tests/data/cub: CUB's block and warp primitives (CCCL's CUB on NVIDIA) ------------- */

/* The CUB fixtures lie beside the dialect folder. */
#define CUB(file) "../cub/" file
#define CTILE 512u /* the 128-thread, 4-item tiles of scan.cu, load_store.cu, radix_sort.cu */

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_f32_desc(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x < y) - (x > y);
}

/* RN integers in [-1000, 1000]: sums of a block stay exact. */
static int32_t *rnd_small_ints(void)
{
	int32_t *x = host_alloc(RN * 4);

	for (unsigned int i = 0; i < RN; i++)
		x[i] = (int32_t)(rnd32() % 2001) - 1000;
	return x;
}

/* o: the inclusive sums of x over each block of BLOCK (RGRID blocks); totals (or NULL):
 * each block's sum. */
static void check_block_inclusive_sums(const char *what, const int32_t *x, const int32_t *o,
				       const int32_t *totals)
{
	for (unsigned int b = 0; b < RGRID; b++) {
		int32_t s = 0;

		for (unsigned int i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
			s += x[i];
			if (o[i] != s)
				bad("%s[%u]: got %d, want %d", what, i, o[i], s);
		}
		if (totals && totals[b] != s)
			bad("%s total[%u]: got %d, want %d", what, b, totals[b], s);
	}
}

TEST(cub_block_and_warp_reductions_match_cpu)
{
	int n = (int)(RGRID * BLOCK) - 100, valid = 20; /* kernel arguments: not const */
	float *xf = host_alloc(RN * 4), *of = host_alloc(RN * 4);
	int32_t *xi = host_alloc(RN * 4), *oi = host_alloc(RN * 4);
	void *din, *dout;

	setup();
	for (unsigned int i = 0; i < RN; i++) {
		xf[i] = rnd_unit() * 100;
		xi[i] = (int32_t)(rnd32() % 2000001) - 1000000;
	}
	din = dev_of(xf, RN * 4);
	dout = dev_of(NULL, RN * 4);
	/* block sums, the last block partial */
	for (int v = 0; v < 2; v++) {
		const char *name = v ? "cub_block_sum_valid_f32" : "cub_block_sum_f32";
		void *args[] = { &din, &dout, &n };

		launch(kernel(CUB("reduce.cu"), name), RGRID, BLOCK, args);
		from_dev(of, dout, RGRID * 4);
		for (unsigned int b = 0; b < RGRID; b++) {
			long double s = 0, mag = 0;

			for (unsigned int t = 0; t < BLOCK && (int)(b * BLOCK + t) < n; t++) {
				s += xf[b * BLOCK + t];
				mag += fabsf(xf[b * BLOCK + t]);
			}
			check_sum(name, b, of[b], s, mag, (int)BLOCK, 0x1p-24);
		}
	}
	/* warp sums (32) and the larger magnitude over logical warps of 16 */
	{
		void *args[] = { &din, &dout };

		launch(kernel(CUB("reduce.cu"), "cub_warp_sum_f32"), RGRID, BLOCK, args);
		from_dev(of, dout, RW * 4);
		for (unsigned int w = 0; w < RW; w++) {
			long double s = 0, mag = 0;

			for (unsigned int l = 0; l < 32; l++) {
				s += xf[32 * w + l];
				mag += fabsf(xf[32 * w + l]);
			}
			check_sum("cub_warp_sum_f32", w, of[w], s, mag, 32, 0x1p-24);
		}
		launch(kernel(CUB("reduce.cu"), "cub_warp16_absmax_f32"), RGRID, BLOCK, args);
		from_dev(of, dout, RN / 16 * 4);
		for (unsigned int w = 0; w < RN / 16; w++) {
			float m = 0;
			int seen = 0;

			for (unsigned int l = 0; l < 16; l++)
				m = fmaxf(m, fabsf(xf[16 * w + l]));
			for (unsigned int l = 0; l < 16; l++)
				seen |= of[w] == xf[16 * w + l];
			if (fabsf(of[w]) != m || !seen)
				bad("cub_warp16_absmax_f32[%u]: got %g, want magnitude %g", w, of[w], m);
		}
	}
	/* integers: block maximum over 4 items a thread, a partial warp's sum */
	to_dev(din, xi, RN * 4);
	{
		void *args[] = { &din, &dout }, *args_v[] = { &din, &dout, &valid };

		launch(kernel(CUB("reduce.cu"), "cub_block_max_items_i32"), RN / CTILE, 128, args);
		from_dev(oi, dout, RN / CTILE * 4);
		for (unsigned int b = 0; b < RN / CTILE; b++) {
			int32_t m = xi[b * CTILE];

			for (unsigned int i = 1; i < CTILE; i++)
				m = xi[b * CTILE + i] > m ? xi[b * CTILE + i] : m;
			if (oi[b] != m)
				bad("cub_block_max_items_i32[%u]: got %d, want %d", b, oi[b], m);
		}
		launch(kernel(CUB("reduce.cu"), "cub_warp_sum_valid_i32"), RGRID, BLOCK, args_v);
		from_dev(oi, dout, RW * 4);
		for (unsigned int w = 0; w < RW; w++) {
			int32_t s = 0;

			for (int l = 0; l < valid; l++)
				s += xi[32 * w + (unsigned int)l];
			if (oi[w] != s)
				bad("cub_warp_sum_valid_i32[%u]: got %d, want %d", w, oi[w], s);
		}
	}
	finish("cub reductions");
	dev_free(din);
	dev_free(dout);
	free(xf);
	free(of);
	free(xi);
	free(oi);
	teardown();
}

TEST(cub_block_and_warp_scans_match_cpu)
{
	int floor = -500;
	int32_t *x = rnd_small_ints(), *o = host_alloc(RN * 4), *o2 = host_alloc(RN * 4);
	int32_t *tot = host_alloc(RN * 4);
	void *din, *dout, *dout2, *dtot;

	setup();
	din = dev_of(x, RN * 4);
	dout = dev_of(NULL, RN * 4);
	dout2 = dev_of(NULL, RN * 4);
	dtot = dev_of(NULL, RN * 4);
	{
		void *args[] = { &din, &dout, &dtot };

		launch(kernel(CUB("scan.cu"), "cub_block_inclusive_sum_i32"), RGRID, BLOCK, args);
		from_dev(o, dout, RN * 4);
		from_dev(tot, dtot, RGRID * 4);
		check_block_inclusive_sums("cub_block_inclusive_sum_i32", x, o, tot);
	}
	{
		void *args[] = { &din, &dout };

		launch(kernel(CUB("scan.cu"), "cub_block_exclusive_sum_items_i32"), RN / CTILE, 128,
		       args);
		from_dev(o, dout, RN * 4);
		for (unsigned int b = 0; b < RN / CTILE; b++) {
			int32_t s = 0;

			for (unsigned int i = b * CTILE; i < (b + 1) * CTILE; i++) {
				if (o[i] != s)
					bad("cub_block_exclusive_sum_items_i32[%u]: got %d, want %d", i,
					    o[i], s);
				s += x[i];
			}
		}
	}
	{
		void *args[] = { &din, &dout, &floor };

		launch(kernel(CUB("scan.cu"), "cub_block_exclusive_max_i32"), RGRID, BLOCK, args);
		from_dev(o, dout, RN * 4);
		for (unsigned int b = 0; b < RGRID; b++) {
			int32_t m = floor;

			for (unsigned int i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
				if (o[i] != m)
					bad("cub_block_exclusive_max_i32[%u]: got %d, want %d", i, o[i], m);
				m = x[i] > m ? x[i] : m;
			}
		}
	}
	{
		void *args[] = { &din, &dout, &dout2, &dtot };

		launch(kernel(CUB("scan.cu"), "cub_warp_scans_i32"), RGRID, BLOCK, args);
		from_dev(o, dout, RN * 4);
		from_dev(o2, dout2, RN * 4);
		from_dev(tot, dtot, RW * 4);
		for (unsigned int w = 0; w < RW; w++) {
			int32_t s = 0;

			for (unsigned int i = 32 * w; i < 32 * w + 32; i++) {
				if (o2[i] != s)
					bad("cub_warp_scans_i32 exclusive[%u]: got %d, want %d", i, o2[i], s);
				s += x[i];
				if (o[i] != s)
					bad("cub_warp_scans_i32 inclusive[%u]: got %d, want %d", i, o[i], s);
			}
			if (tot[w] != s)
				bad("cub_warp_scans_i32 total[%u]: got %d, want %d", w, tot[w], s);
		}
	}
	finish("cub scans");
	dev_free(din);
	dev_free(dout);
	dev_free(dout2);
	dev_free(dtot);
	free(x);
	free(o);
	free(o2);
	free(tot);
	teardown();
}

TEST(cub_block_loads_stores_and_radix_sorts_match_cpu)
{
	const unsigned int tiles = RN / CTILE;
	int n = (int)RN - 77;
	float a = 2.0f; /* a * x + 1 is rounded once, fused or not: 2x is exact */
	float *xf = host_alloc(RN * 4), *of = host_alloc(RN * 4), *ref = host_alloc(RN * 4);
	int32_t *xi = host_alloc(RN * 4), *oi = host_alloc(RN * 4), *idx = host_alloc(RN * 4);
	int32_t *refi = host_alloc(RN * 4);
	void *dx, *dy, *dy2;

	setup();
	for (unsigned int i = 0; i < RN; i++) {
		xf[i] = rnd_unit() * 1000;
		xi[i] = (int32_t)(rnd32() % 1000) - 500; /* duplicates: the sorts' stability shows */
		of[i] = -12345.0f;
		oi[i] = -12345;
	}
	dx = dev_of(xf, RN * 4);
	dy = dev_of(of, RN * 4); /* the sentinel: what lies past n stays */
	dy2 = dev_of(NULL, RN * 4);
	{
		void *args[] = { &dx, &dy, &a, &n };

		launch(kernel(CUB("load_store.cu"), "cub_load_store_direct_f32"), tiles, 128, args);
		from_dev(of, dy, RN * 4);
		for (unsigned int i = 0; i < RN; i++) {
			float want = (int)i < n ? a * xf[i] + 1.0f : -12345.0f;

			if (of[i] != want)
				bad("cub_load_store_direct_f32[%u]: got %g, want %g", i, of[i], want);
		}
	}
	to_dev(dx, xi, RN * 4);
	to_dev(dy, oi, RN * 4);
	{
		void *args[] = { &dx, &dy, &n }, *args2[] = { &dx, &dy2 };

		launch(kernel(CUB("load_store.cu"), "cub_direct_blocked_negate_i32"), tiles, 128, args);
		from_dev(oi, dy, RN * 4);
		for (unsigned int i = 0; i < RN; i++) {
			int32_t want = (int)i < n ? -xi[i] : -12345;

			if (oi[i] != want)
				bad("cub_direct_blocked_negate_i32[%u]: got %d, want %d", i, oi[i], want);
		}
		launch(kernel(CUB("load_store.cu"), "cub_load_striped_scale_i32"), tiles, 128, args2);
		from_dev(oi, dy2, RN * 4);
		for (unsigned int i = 0; i < RN; i++) {
			int32_t want = xi[i] * (int32_t)((i % CTILE) / 128 + 1);

			if (oi[i] != want)
				bad("cub_load_striped_scale_i32[%u]: got %d, want %d", i, oi[i], want);
		}
		launch(kernel(CUB("radix_sort.cu"), "cub_block_sort_i32"), tiles, 128, args2);
		from_dev(oi, dy2, RN * 4);
		memcpy(refi, xi, RN * 4);
		for (unsigned int b = 0; b < tiles; b++)
			qsort(refi + b * CTILE, CTILE, 4, cmp_i32);
		for (unsigned int i = 0; i < RN; i++)
			if (oi[i] != refi[i])
				bad("cub_block_sort_i32[%u]: got %d, want %d", i, oi[i], refi[i]);
	}
	{
		/* unsigned keys with their index: sorted, each index naming its key, equal
		   keys in their original order (CUB's radix sort is stable) */
		void *args[] = { &dx, &dy, &dy2 };

		launch(kernel(CUB("radix_sort.cu"), "cub_block_argsort_u32"), tiles, 128, args);
		from_dev(oi, dy, RN * 4);
		from_dev(idx, dy2, RN * 4);
		for (unsigned int b = 0; b < tiles; b++)
			for (unsigned int i = b * CTILE; i < (b + 1) * CTILE; i++) {
				uint32_t k = (uint32_t)oi[i];
				int32_t j = idx[i];

				if (j < 0 || j >= (int32_t)CTILE || (uint32_t)xi[b * CTILE + (uint32_t)j] != k)
					bad("cub_block_argsort_u32[%u]: key %u, index %d", i, k, j);
				else if (i > b * CTILE &&
					 ((uint32_t)oi[i - 1] > k ||
					  ((uint32_t)oi[i - 1] == k && idx[i - 1] >= j)))
					bad("cub_block_argsort_u32[%u]: key %u index %d after key %u "
					    "index %d", i, k, j, (uint32_t)oi[i - 1], idx[i - 1]);
			}
	}
	to_dev(dx, xf, RN * 4);
	{
		void *args[] = { &dx, &dy };

		launch(kernel(CUB("radix_sort.cu"), "cub_block_sort_desc_f32"), tiles, 128, args);
		from_dev(of, dy, RN * 4);
		memcpy(ref, xf, RN * 4);
		for (unsigned int b = 0; b < tiles; b++)
			qsort(ref + b * CTILE, CTILE, 4, cmp_f32_desc);
		for (unsigned int i = 0; i < RN; i++)
			if (of[i] != ref[i])
				bad("cub_block_sort_desc_f32[%u]: got %g, want %g", i, of[i], ref[i]);
	}
	finish("cub loads, stores, sorts");
	dev_free(dx);
	dev_free(dy);
	dev_free(dy2);
	free(xf);
	free(of);
	free(ref);
	free(xi);
	free(oi);
	free(idx);
	free(refi);
	teardown();
}

TEST(hipcub_spelling_reductions_and_scan_match_cpu)
{
	int32_t *x = rnd_small_ints(), *o = host_alloc(RN * 4), *o2 = host_alloc(RN * 4);
	void *din, *dout, *dout2;

	setup();
	din = dev_of(x, RN * 4);
	dout = dev_of(NULL, RN * 4);
	dout2 = dev_of(NULL, RN * 4);
	{
		void *args[] = { &din, &dout, &dout2 };

		launch(kernel(CUB("hipcub.hip"), "hipcub_block_max_warp_sums_i32"), RGRID, BLOCK,
		       args);
		from_dev(o, dout, RGRID * 4);
		from_dev(o2, dout2, RW * 4);
		for (unsigned int b = 0; b < RGRID; b++) {
			int32_t m = x[b * BLOCK], s[BLOCK / 32] = { 0 };

			for (unsigned int t = 0; t < BLOCK; t++) {
				m = x[b * BLOCK + t] > m ? x[b * BLOCK + t] : m;
				s[t / 32] += x[b * BLOCK + t];
			}
			if (o[b] != m)
				bad("hipcub_block_max_warp_sums_i32 max[%u]: got %d, want %d", b, o[b], m);
			for (unsigned int w = 0; w < BLOCK / 32; w++)
				if (o2[b * BLOCK / 32 + w] != s[w])
					bad("hipcub_block_max_warp_sums_i32 sum[%u]: got %d, want %d",
					    b * BLOCK / 32 + w, o2[b * BLOCK / 32 + w], s[w]);
		}
	}
	{
		void *args[] = { &din, &dout };

		launch(kernel(CUB("hipcub.hip"), "hipcub_block_inclusive_sum_i32"), RGRID, BLOCK, args);
		from_dev(o, dout, RN * 4);
		check_block_inclusive_sums("hipcub_block_inclusive_sum_i32", x, o, NULL);
	}
	finish("hipcub.hip");
	dev_free(din);
	dev_free(dout);
	dev_free(dout2);
	free(x);
	free(o);
	free(o2);
	teardown();
}

/* ---- implicit.cu, hip/platform.hip, host_helpers.cu, arch_gates.cu (issue 28) ----------- */

/* What a CUDA file gets without includes computes what nvcc's would: the masked maximum
 * (UINT_MAX marks a masked element, NULL no mask), the limits, NaN for infinities and
 * |x| pi + FLT_EPSILON, clock() and clock64() counting; the HIP file takes the NVIDIA
 * branch of its platform test; the kernel beside unannotated host helpers scales; and on
 * sm_90 the sm_90-only branch of arch_gates.cu is in (x[i] = x[0] + 1). */
TEST(implicit_platform_helpers_and_arch_gate_kernels_match_cpu)
{
	unsigned int n = 1000, *mask = host_alloc(n * 4);
	float *x = host_alloc(n * 4), *y = host_alloc(n * 4), out[64];
	int limits[6], warp = 0;
	long clk[32];
	long long clk64[32];
	void *dx = NULL, *dm, *dout, *dout64;

	setup();
	for (unsigned int i = 0; i < n; i++) {
		x[i] = (float)((int)(i * 7919u % 2001u) - 1000) / 8.0f;
		mask[i] = i % 5 == 0 ? UINT_MAX : 1u;
	}
	dx = dev_of(x, n * 4);
	dm = dev_of(mask, n * 4);
	dout = dev_of(NULL, 64 * 8);
	dout64 = dev_of(NULL, 64 * 8);
	for (int masked = 0; masked < 2; masked++) {
		size_t sn = n;
		void *m = masked ? dm : NULL;
		void *args[] = { &dx, &m, &dout, &sn };

		launch(kernel("implicit.cu", "implicit_masked_max"), 1, 64, args);
		from_dev(out, dout, 64 * 4);
		/* Thread t saw elements t, t + 64 ...: the maximum of its own share. */
		for (unsigned int t = 0; t < 64; t++) {
			float w = -INFINITY;
			for (unsigned int i = t; i < n; i += 64)
				if (!masked || mask[i] != UINT_MAX)
					w = fmaxf(w, x[i]);
			if (out[t] != w)
				bad("implicit_masked_max(mask %d)[%u]: got %g, want %g", masked, t,
				    (double)out[t], (double)w);
		}
	}
	{
		void *args[] = { &dout };
		static const int want[6] = { INT_MAX, 0x7fffffff, 0x3fffffff, 3 + CHAR_BIT, 1,
					     65535 };

		launch(kernel("implicit.cu", "implicit_int_limits"), 1, 1, args);
		from_dev(limits, dout, sizeof limits);
		for (int i = 0; i < 6; i++)
			if (limits[i] != want[i])
				bad("implicit_int_limits[%d]: got %d, want %d", i, limits[i], want[i]);
	}
	{
		void *args[] = { &dout, &dout64 };

		launch(kernel("implicit.cu", "implicit_clock"), 1, 32, args);
		from_dev(clk, dout, sizeof clk);
		from_dev(clk64, dout64, sizeof clk64);
		for (int i = 0; i < 32; i++)
			if (clk[i] != 1 || clk64[i] != 1)
				bad("implicit_clock[%d]: got %ld, %lld, want 1, 1", i, clk[i], clk64[i]);
	}
	{
		int m = 64;
		void *args[] = { &dout, &dx, &m };

		x[3] = INFINITY;
		x[4] = -INFINITY;
		to_dev(dx, x, n * 4);
		launch(kernel("implicit.cu", "implicit_math"), 1, 64, args);
		from_dev(y, dout, 64 * 4);
		for (int i = 0; i < m; i++) {
			/* fused or not: the compiler may contract the multiply-add */
			float want = isinf(x[i]) ? NAN : fabsf(x[i]) * (float)M_PI + FLT_EPSILON;
			float fused = fmaf(fabsf(x[i]), (float)M_PI, FLT_EPSILON);
			if (isnan(want) ? !isnan(y[i]) : y[i] != want && y[i] != fused)
				bad("implicit_math[%d]: x %g: got %g, want %g", i, (double)x[i],
				    (double)y[i], (double)want);
		}
	}
	finish("implicit.cu");
	{
		void *args[] = { &dout };

		launch(kernel("hip/platform.hip", "platform_on_nvidia"), 1, 1, args);
		from_dev(&warp, dout, 4);
		if (warp != 32)
			bad("platform_on_nvidia: got warpSize %d, want 32", warp);
		if (kernel_opt("hip/platform.hip", "platform_on_amd", 0))
			bad("platform.hip: the AMD branch was compiled for NVIDIA");
	}
	{
		int m = 300;
		void *args[] = { &dx, &m };

		to_dev(dx, x, n * 4);
		launch(kernel("host_helpers.cu", "helpers_tile_scale"), 3, 128, args);
		from_dev(y, dx, n * 4);
		for (int i = 0; i < 400; i++) {
			/* 3 blocks of 128 threads over tiles of 128 (tile_of(256)), n = 300 */
			float want = i < 300 ? x[i] * 2.0f : x[i];
			if (y[i] != want)
				bad("helpers_tile_scale[%d]: got %g, want %g", i, (double)y[i],
				    (double)want);
		}
	}
	{
		void *args[] = { &dx, &dout };

		to_dev(dx, x, n * 4);
		launch(kernel("arch_gates.cu", "gate_sm90_only"), 1, 32, args);
		from_dev(y, dout, 32 * 4);
		for (int i = 0; i < 32; i++)
			if (y[i] != x[i] + 1.0f)
				bad("gate_sm90_only[%d]: got %g, want %g", i, (double)y[i],
				    (double)(x[i] + 1.0f));
	}
	finish("platform.hip, host_helpers.cu, arch_gates.cu");
	dev_free(dx);
	dev_free(dm);
	dev_free(dout);
	dev_free(dout64);
	free(mask);
	free(x);
	free(y);
	teardown();
}

/* ---- Issue 28's type fixtures: types_cuda_h.cu, types_fp16_bf16.cu, hip/implicit_types.hip,
 * hip/types_mix.hip ---------------------------------------------------------------------- */

static uint16_t pos_zero(uint16_t h) /* x + (+0) in round to nearest: -0 becomes +0 */
{
	return h == 0x8000 ? 0 : h;
}

static uint64_t rotl64(uint64_t v, unsigned int s)
{
	s %= 64;
	return s ? v << s | v >> (64 - s) : v;
}

/* Exact: integer kernels; one rounding per narrowing (CUDA's headers), the float sums of
 * hip_bfloat16 done in float as the class does, then rounded to bf16. */
TEST(type_fixtures_match_cpu)
{
	size_t nx;
	float *x, *of;
	unsigned int n, np;
	void *dx, *dout;

	setup();
	x = convert_inputs(&nx);
	n = (unsigned int)nx;
	np = n / 2;
	dx = dev_of(x, nx * 4);
	dout = dev_of(NULL, nx * 8);
	of = host_alloc(nx * 8);
	/* implicit_types.hip: rotations through uint/ulong/ullong, signed widening */
	{
		uint32_t *u = host_alloc(nx * 4);
		uint64_t *o = host_alloc(nx * 8);
		size_t nn = nx;
		void *du, *args[] = { &n, &du, &dout }, *a2[] = { &nn, &du, &dout };

		for (size_t i = 0; i < nx; i++)
			u[i] = rnd32();
		du = dev_of(u, nx * 4);
		launch_n(kernel("hip/implicit_types.hip", "implicit_rotl"), nx, args);
		from_dev(o, dout, nx * 8);
		for (size_t i = 0; i < nx; i++) {
			uint32_t r = (uint32_t)(i % 32) ? u[i] << (i % 32) | u[i] >> (32 - i % 32) : u[i];
			uint64_t want = rotl64(r, 32) ^ (uint64_t)BLOCK << 48;

			if (o[i] != want)
				bad("implicit_rotl[%zu]: got 0x%llx, want 0x%llx", i,
				    (unsigned long long)o[i], (unsigned long long)want);
		}
		launch_n(kernel("hip/implicit_types.hip", "implicit_signed"), nx, a2);
		from_dev(o, dout, nx * 8);
		for (size_t i = 0; i < nx; i++)
			if ((int64_t)o[i] != (int64_t)(int32_t)(u[i] ^ 0x80000000u))
				bad("implicit_signed[%zu]: got %lld for 0x%08x", i, (long long)o[i], u[i]);
		dev_free(du);
		free(u);
		free(o);
	}
	finish("implicit_types.hip");
	/* types_cuda_h.cu: CUdeviceptr addresses in a struct; a tensor map's words */
	{
		struct {
			uint64_t src, dst;
			unsigned int n;
		} a = { (uint64_t)(uintptr_t)dx, (uint64_t)(uintptr_t)dout, n };
		struct {
			_Alignas(64) uint64_t opaque[16];
		} map;
		uint64_t words[2] = { 0, 0 };
		void *args[] = { &a }, *a2[] = { &map, &dout };

		launch_n(kernel("types_cuda_h.cu", "scale_by_address"), nx, args);
		from_dev(of, dout, nx * 4);
		for (size_t i = 0; i < nx; i++)
			check_f32("scale_by_address", i, f2u(x[i]), of[i], 2.0 * x[i]);
		for (int w = 0; w < 16; w++)
			map.opaque[w] = 0x0123456789abcdefull * (unsigned int)(w + 1);
		launch(kernel("types_cuda_h.cu", "tensor_map_words"), 1, 32, a2);
		from_dev(words, dout, 16);
		if (words[0] != map.opaque[0] || words[1] != map.opaque[1])
			bad("tensor_map_words: got 0x%llx 0x%llx", (unsigned long long)words[0],
			    (unsigned long long)words[1]);
	}
	finish("types_cuda_h.cu");
	/* types_fp16_bf16.cu: (half, bf16) sums of pairs through zero-initialised pairs */
	{
		void *args[] = { &np, &dx, &dout };

		launch_n(kernel("types_fp16_bf16.cu", "mix_fp16_bf16_add"), np, args);
		from_dev(of, dout, np * 8);
		for (unsigned int i = 0; i < np; i++) {
			uint16_t h0 = pos_zero(ref_half(x[2 * i])), h1 = pos_zero(ref_half(x[2 * i + 1]));
			uint16_t b0 = pos_zero(ref_bf16(x[2 * i])), b1 = pos_zero(ref_bf16(x[2 * i + 1]));

			check_f32("mix_fp16_bf16_add(half)", i, f2u(x[2 * i]), of[2 * i],
				  dec_half(ref_half(dec_half(h0) + dec_half(h1))));
			check_f32("mix_fp16_bf16_add(bf16)", i, f2u(x[2 * i]), of[2 * i + 1],
				  dec_bf16(ref_bf16(dec_bf16(b0) + dec_bf16(b1))));
		}
	}
	finish("types_fp16_bf16.cu");
	/* types_mix.hip: half2 sum and product of pairs; hip_bfloat16 bits */
	{
		uint16_t *o = host_alloc(nx * 6);
		void *args[] = { &np, &dx, &dout }, *a2[] = { &n, &dx, &dout };

		launch_n(kernel("hip/types_mix.hip", "mix_half2_acc"), np, args);
		from_dev(o, dout, np * 4);
		for (unsigned int i = 0; i < np; i++) {
			double a = dec_half(ref_half(x[2 * i])), b = dec_half(ref_half(x[2 * i + 1]));

			check_16("mix_half2_acc(sum)", i, f2u(x[2 * i]), o[2 * i],
				 pos_zero(ref_half(a + b)), 5);
			check_16("mix_half2_acc(product)", i, f2u(x[2 * i]), o[2 * i + 1],
				 pos_zero(ref_half(a * b)), 5);
		}
		launch_n(kernel("hip/types_mix.hip", "mix_bfloat16_bits"), nx, a2);
		from_dev(o, dout, nx * 6);
		for (size_t i = 0; i < nx; i++) {
			uint16_t r = ref_bf16(x[i]);
			uint16_t t = isnan(x[i]) ? 0x7fff : (uint16_t)(f2u(x[i]) >> 16);
			float p = (float)dec_bf16(ref_bf16((float)dec_bf16(r) * 2.0f));
			uint16_t s = ref_bf16(p + 1.0f);

			check_16("mix_bfloat16_bits(round)", i, f2u(x[i]), o[3 * i], r, 8);
			check_16("mix_bfloat16_bits(truncate)", i, f2u(x[i]), o[3 * i + 1], t, 8);
			check_16("mix_bfloat16_bits(*2+1)", i, f2u(x[i]), o[3 * i + 2], s, 8);
		}
		free(o);
	}
	/* atomicAdd of 0/1 on a half and a bf16: the sum (128) is exact in both */
	{
		unsigned int m = 256;
		int *v = host_alloc(m * sizeof *v);
		uint16_t acc[2] = { 1, 1 };
		void *dv, *dacc, *dacc_b, *args[] = { &m, &dv, &dacc, &dacc_b };

		for (unsigned int i = 0; i < m; i++)
			v[i] = (int)(i % 2);
		dv = dev_of(v, m * sizeof *v);
		dacc = dev_of(NULL, 4);
		dacc_b = (char *)dacc + 2;
		launch_n(kernel("hip/types_mix.hip", "mix_atomic_add_16"), m, args);
		from_dev(acc, dacc, 4);
		if (acc[0] != ref_half(128) || acc[1] != ref_bf16(128))
			bad("mix_atomic_add_16: got half 0x%04x bf16 0x%04x, want 0x%04x 0x%04x",
			    acc[0], acc[1], ref_half(128), ref_bf16(128));
		dev_free(dv);
		dev_free(dacc);
		free(v);
	}
	finish("types_mix.hip");
	dev_free(dx);
	dev_free(dout);
	free(x);
	free(of);
	teardown();
}
