/*
 * test_ops.c - rocjit_ops (ops/rocjit_ops.h) on a real GPU: every operation, for every type
 * it exists for, on every kind of view (contiguous, transposed, stepped, reversed, broadcast,
 * scalar, empty, odd sizes), checked element by element against a CPU reference; the types
 * an operation does not exist for give ROCJIT_EUNSUPPORTED, malformed shapes ROCJIT_EINVAL
 * with a message.  Each TEST is one family of operations looping over ops, types and
 * layouts; a failure names the case (op, types, views, shape), the element (index and
 * coordinates), what the GPU gave, what was expected and the inputs.  Output storage
 * outside the view (gaps of strided views, GUARD elements either side) must keep its
 * sentinel bytes.
 *
 * Like test_gpu.c every test exits 77 (skipped) without an NVIDIA GPU (cuda_rt.c).
 *
 * The reference computes from the inputs as stored (decoded exactly), in double or long
 * double, then rounds to the output type the way the header says the library does: one
 * rounding to nearest, ties to even, for f16/bf16/f32 (round_float_bits below, checked
 * against the compiler's _Float16 and float conversions where it has them), Rust `as` for
 * float -> integer (toward zero, saturating, NaN -> 0), low bits for integer -> integer.
 *
 * Tolerances: the GPU value must equal the reference rounded to the output type (NaN
 * matching NaN), or be within  rel * |want| + abs + extra  in the approximate cases:
 *   exact: every integer result; comparisons, where, casts (bit for bit, the sign of zero
 *     included), copies, copy2d, fill; arange with steps exact in f64; min/max; argmin,
 *     argmax and argsort indices; index_select, gather; scatter_add and index_add of small
 *     integers; neg, abs, relu, sqr, floor, ceil, round, sign, clamp; add, sub, mul
 *     (f16/bf16 computed in f32 and rounded once are still correctly rounded, 24 >= 2*11+2);
 *     sums of small integers and of multiples of 1/2 (exact in an f32 accumulator).
 *   approximate (exp, log, sqrt, sin, cos, tanh, gelu, gelu_erf, silu, sigmoid, recip,
 *     div, pow, affine, elu, powf, mean, softmax, log_softmax, layer_norm, rms_norm):
 *         f64 rel 1e-12 abs 1e-13    f32 rel 1e-5 abs 1e-6
 *         f16 rel 2e-3  abs 1e-5     bf16 rel 1.6e-2 abs 1e-4
 *   and where a result accumulates n terms (sums of fractions, mean, softmax, log_softmax,
 *   the norms) extra = 4 u sqrt(n) times the sum of the magnitudes involved (8 u sqrt(n)
 *   for the norms), u = 2^-24 for f16/bf16/f32 (the header's f32 accumulator), 2^-53 for
 *   f64; arange with a step inexact in binary: one ulp of the output type.
 * |want| is replaced by the magnitude of the terms where a result cancels (affine: |x m| +
 * |a|; log_softmax: |x - max| + |log sum|; layer_norm: |normalized * alpha| + |beta|).
 * scatter_add and index_add of f32 fractions (rel 1e-5 of the sum of magnitudes) also run
 * twice and must give the same bits: the header promises no atomics.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

#include "cuda_rt.h"
#include "rocjit_ops.h"

_Static_assert(LDBL_MANT_DIG >= 64, "the reference holds every i64 exactly in a long double");

#define MAXD ROCJIT_OPS_MAX_DIMS
#define GUARD 16                        /* sentinel elements either side of every storage */
#define SENTINEL 0xA5                   /* the byte untouched output storage holds        */
#define ARENA_BYTES ((size_t)256 << 20) /* device memory of one test                     */

/* ---- Fixture: a context, the ops handle, a stream and device memory ----------------------- */

static struct {
	rocjit_ctx *ctx;
	rocjit_ops *ops;
	void *stream;
	unsigned char *arena;
	size_t used;
} fx;

/*
 * The first call of every test.  The context caches in $ROCJIT_TEST_OPS_CACHE when it is
 * set (CMakeLists.txt sets it for ctest: one folder for the tests of this program, so that
 * the op files compile once per build folder instead of once per test), else in the test's
 * own folder.
 */
static void ops_setup(void)
{
	const char *shared = getenv("ROCJIT_TEST_OPS_CACHE");

	gpu_require();
	fx.ctx = gpu_open_at(shared && *shared ? shared : rj_test_cache_dir, 0);
	ASSERT_INT(rocjit_ops_create(&fx.ops, fx.ctx), 0);
	ASSERT(fx.ops != NULL);
	CUDA(rt.cudaStreamCreate(&fx.stream));
	fx.arena = dev_alloc(ARENA_BYTES);
	fx.used = 0;
}

static void ops_teardown(void)
{
	sync_stream(NULL);
	CUDA(rt.cudaFree(fx.arena));
	CUDA(rt.cudaStreamDestroy(fx.stream));
	rocjit_ops_destroy(fx.ops);
	rocjit_close(fx.ctx);
}

/* Cases alternate between the default stream and a stream of the runtime's. */
static void *case_stream(int k)
{
	return k % 2 ? fx.stream : NULL;
}

/* ---- Cases: what the failure message names, and memory that lives as long as the case ---- */

static char case_desc[640];

static void set_case(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_case(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(case_desc, sizeof case_desc, fmt, ap);
	va_end(ap);
}

static void *case_mem[64];
static int case_nmem;

/* Zeroed host memory, freed by case_end() or case_release(). */
static void *case_alloc(size_t bytes)
{
	void *p = calloc(1, bytes ? bytes : 1);

	ASSERT(p != NULL);
	ASSERT(case_nmem < (int)COUNT(case_mem));
	case_mem[case_nmem++] = p;
	return p;
}

/* Device memory from the test's arena, 256-byte aligned, reused after case_end(). */
static void *arena_take(size_t bytes)
{
	size_t at = (fx.used + 255) & ~(size_t)255;

	if (at + bytes > ARENA_BYTES)
		rj_test_fail(__FILE__, __LINE__, "%s: %zu bytes more do not fit the test's %zu-byte "
			     "device arena", case_desc, bytes, ARENA_BYTES);
	fx.used = at + bytes;
	return fx.arena + at;
}

struct mark {
	int nmem;
	size_t used;
};

static struct mark case_mark(void)
{
	struct mark m = { case_nmem, fx.used };
	return m;
}

/* Frees what was taken since m.  The work launched on that memory must have completed. */
static void case_release(struct mark m)
{
	while (case_nmem > m.nmem)
		free(case_mem[--case_nmem]);
	fx.used = m.used;
}

static void case_end(void)
{
	struct mark none = { 0, 0 };

	case_release(none);
}

/* Waits for the case's work and fails, naming the case, on any error it raised. */
static void sync_case(void *stream)
{
	int e = stream ? rt.cudaStreamSynchronize(stream) : rt.cudaDeviceSynchronize();

	if (e == 0)
		e = rt.cudaGetLastError();
	if (e != 0)
		rj_test_fail(__FILE__, __LINE__, "%s: the launched work failed: CUDA error %d (%s)",
			     case_desc, e, rt.cudaGetErrorString(e));
}

/* An rocjit_ops call that must return want; a failure must leave a message. */
#define OPS_OK(call) ops_rc(__LINE__, #call, (call), 0, 0)
#define OPS_FAILS(call, code) ops_rc(__LINE__, #call, (call), (code), (code))
/* Where the header allows either code (a type outside an operand's list). */
#define OPS_FAILS_EITHER(call, a, b) ops_rc(__LINE__, #call, (call), (a), (b))

static void ops_rc(int line, const char *what, int rc, int want, int also)
{
	const char *msg = rocjit_ops_last_error();

	if (rc != want && rc != also)
		rj_test_fail(__FILE__, line, "%s: %s returned %d (%s), expected %d (%s); last error: "
			     "%s", case_desc, what, rc, rocjit_strerror(rc), want,
			     rocjit_strerror(want), msg ? msg : "(null)");
	if (want != 0 && (!msg || !*msg))
		rj_test_fail(__FILE__, line, "%s: %s returned %d but rocjit_ops_last_error() is "
			     "empty", case_desc, what, rc);
}

/* ---- Deterministic data --------------------------------------------------------------------- */

static uint64_t rng_state;

/* Every case seeds from its own coordinates: a case's data do not depend on the others. */
static void rng_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	rng_state = (((a * 1000003u + b) * 1000003u + c) * 1000003u + d) ^ 0x5eed5eed5eedull;
}

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd(void)
{
	rng_state += 0x9e3779b97f4a7c15ull;
	return mix64(rng_state);
}

/* Uniform in [lo, hi]. */
static int64_t rnd_range(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* ---- Element types and the reference conversions ------------------------------------------ */

static const char *const dt_names[ROCJIT_NUM_DTYPES] = { "f32", "f16", "bf16", "f64",
							  "u8",  "u32", "i64" };
static const size_t dt_sizes[ROCJIT_NUM_DTYPES] = { 4, 2, 2, 8, 1, 4, 8 };
static const int dt_frac_bits[4] = { 23, 10, 7, 52 }; /* f32 f16 bf16 f64 */

/* The tolerances of the file comment, indexed by the float types. */
static const double tol_rel[4] = { 1e-5, 2e-3, 1.6e-2, 1e-12 };
static const double tol_abs[4] = { 1e-6, 1e-5, 1e-4, 1e-13 };
static const double acc_u[4] = { 0x1p-24, 0x1p-24, 0x1p-24, 0x1p-53 };

static int is_int(rocjit_dtype dt)
{
	return dt == ROCJIT_U8 || dt == ROCJIT_U32 || dt == ROCJIT_I64;
}

static int64_t int_max(rocjit_dtype dt)
{
	return dt == ROCJIT_U8 ? 255 : dt == ROCJIT_U32 ? 4294967295 : INT64_MAX;
}

static int64_t int_min(rocjit_dtype dt)
{
	return dt == ROCJIT_I64 ? INT64_MIN : 0;
}

/*
 * v rounded to the binary format with frac_bits fraction bits and exp_bits exponent bits,
 * to nearest, ties to even, in one step from the exact value (long double holds every f64
 * and every i64): subnormals, overflow to infinity, a quiet NaN for NaN.  Returns the bits.
 */
static uint64_t round_float_bits(long double v, int frac_bits, int exp_bits)
{
	int bias = (1 << (exp_bits - 1)) - 1, e;
	uint64_t top = (1ull << exp_bits) - 1, sign = (uint64_t)(signbit(v) != 0);
	uint64_t sign_bit = sign << (frac_bits + exp_bits), n;
	long double a = fabsl(v);

	if (isnan(v))
		return sign_bit | top << frac_bits | 1ull << (frac_bits - 1);
	if (isinf(v))
		return sign_bit | top << frac_bits;
	if (a == 0)
		return sign_bit;
	frexpl(a, &e);
	e -= 1; /* a in [2^e, 2^(e+1)) */
	if (e < 1 - bias)
		e = 1 - bias; /* subnormal: the quantum of the lowest binade */
	/* a in units of the last place kept; nearbyintl rounds to nearest even (the default
	 * mode), exactly: the scaled value has at most 64 significant bits. */
	n = (uint64_t)nearbyintl(ldexpl(a, frac_bits - e));
	if (n >> (frac_bits + 1)) { /* rounded up into the next binade */
		n >>= 1;
		e++;
	}
	if (n < 1ull << frac_bits) /* subnormal or zero (then e is the lowest exponent) */
		return sign_bit | n;
	if (e + bias >= (int)top)
		return sign_bit | top << frac_bits;
	return sign_bit | (uint64_t)(e + bias) << frac_bits | (n - (1ull << frac_bits));
}

/* The value of 16-bit float bits (f16: 10 fraction bits, 5 exponent; bf16: 7 and 8). */
static double decode_half(uint16_t h, int frac_bits, int exp_bits)
{
	int bias = (1 << (exp_bits - 1)) - 1;
	unsigned int e = ((unsigned int)h >> frac_bits) & ((1u << exp_bits) - 1);
	unsigned int f = h & ((1u << frac_bits) - 1);
	double v;

	if (e == (1u << exp_bits) - 1)
		v = f ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(f, 1 - bias - frac_bits);
	else
		v = ldexp(f + (1u << frac_bits), (int)e - bias - frac_bits);
	return h >> (frac_bits + exp_bits) ? -v : v;
}

/* The value of one element, exactly (i64 too: long double). */
static long double get_ld(rocjit_dtype dt, const void *p)
{
	uint16_t h;
	uint32_t u;
	float f;
	double d;
	int64_t i;

	switch (dt) {
	case ROCJIT_F32:
		memcpy(&f, p, 4);
		return f;
	case ROCJIT_F16:
		memcpy(&h, p, 2);
		return decode_half(h, 10, 5);
	case ROCJIT_BF16:
		memcpy(&h, p, 2);
		return decode_half(h, 7, 8);
	case ROCJIT_F64:
		memcpy(&d, p, 8);
		return d;
	case ROCJIT_U8:
		return *(const uint8_t *)p;
	case ROCJIT_U32:
		memcpy(&u, p, 4);
		return u;
	case ROCJIT_I64:
		memcpy(&i, p, 8);
		return i;
	}
	rj_test_fail(__FILE__, __LINE__, "dtype %d", (int)dt);
}

/* Rust's `as` from a float to an integer type: toward zero, saturating, NaN -> 0. */
static int64_t float_to_int(rocjit_dtype dt, long double v)
{
	if (isnan(v))
		return 0;
	v = truncl(v);
	if (v <= (long double)int_min(dt))
		return int_min(dt);
	if (dt == ROCJIT_I64 && v >= 0x1p63L)
		return INT64_MAX;
	if (dt != ROCJIT_I64 && v >= (long double)int_max(dt))
		return int_max(dt);
	return (int64_t)v;
}

static void put_int(rocjit_dtype dt, void *p, int64_t v);

/* Stores v as an element of dt: floats rounded once (nearest even), integers by Rust `as`. */
static void put_ld(rocjit_dtype dt, void *p, long double v)
{
	uint32_t u;
	uint16_t h;
	double d;

	switch (dt) {
	case ROCJIT_F32:
		u = (uint32_t)round_float_bits(v, 23, 8);
		memcpy(p, &u, 4);
		return;
	case ROCJIT_F16:
		h = (uint16_t)round_float_bits(v, 10, 5);
		memcpy(p, &h, 2);
		return;
	case ROCJIT_BF16:
		h = (uint16_t)round_float_bits(v, 7, 8);
		memcpy(p, &h, 2);
		return;
	case ROCJIT_F64:
		d = (double)v; /* x87 / SSE conversion: nearest even */
		memcpy(p, &d, 8);
		return;
	default:
		put_int(dt, p, float_to_int(dt, v));
	}
}

/* Stores the integer v as an element of dt: integers keep the low bits (two's complement),
 * floats get it rounded once. */
static void put_int(rocjit_dtype dt, void *p, int64_t v)
{
	uint32_t u = (uint32_t)v;

	switch (dt) {
	case ROCJIT_U8:
		*(uint8_t *)p = (uint8_t)v;
		return;
	case ROCJIT_U32:
		memcpy(p, &u, 4);
		return;
	case ROCJIT_I64:
		memcpy(p, &v, 8);
		return;
	default:
		put_ld(dt, p, (long double)v);
	}
}

/* One unit in the last place of the float type dt at v (the subnormal quantum below). */
static double ulp_of(rocjit_dtype dt, long double v)
{
	int e, emin = dt == ROCJIT_F16 ? -14 : dt == ROCJIT_F64 ? -1022 : -126;

	frexpl(fabsl(v), &e);
	e -= 1;
	if (e < emin)
		e = emin;
	return ldexp(1.0, e - dt_frac_bits[dt]);
}

/* ---- Tensors: a view, its storage on the host and in the device arena ----------------------- */

enum layout {
	L_DENSE,   /* row-major, rocjit_tensor_dense                                     */
	L_TRANS,   /* column-major: the transpose of a dense buffer                      */
	L_STEP,    /* innermost stride 2, every outer stride padded by one element        */
	L_NEG,     /* row-major with the innermost, third innermost, ... strides negated  */
	L_ROW,     /* inputs: a 1-D vector of the last extent, rocjit_tensor_broadcast    */
	L_COL,     /* inputs: the last extent 1, broadcast                                */
	L_SCALAR,  /* inputs: one element (ndim 0), broadcast                             */
	L_INPLACE, /* outputs: the very view of an input                                  */
	L_NONE     /* an optional operand left out (NULL)                                 */
};
static const char *const layout_names[] = { "dense", "transposed", "stepped", "reversed",
					    "broadcast row", "broadcast column",
					    "broadcast scalar", "in place", "none" };

struct tens {
	rocjit_tensor t;     /* the view handed to the operation                   */
	size_t esize;
	int64_t n;           /* elements of the view                               */
	int64_t len;         /* elements of the storage, GUARD either side included */
	int64_t origin;      /* storage index of element (0, .., 0)                */
	unsigned char *host; /* the storage on the host ...                        */
	unsigned char *dev;  /* ... and on the device                              */
};

static int64_t numel(int ndim, const int64_t *dims)
{
	int64_t n = 1;

	for (int d = 0; d < ndim; d++)
		n *= dims[d];
	return n;
}

static int64_t ext1(int64_t e)
{
	return e > 1 ? e : 1;
}

static void layout_strides(enum layout lay, int ndim, const int64_t *dims, int64_t *st)
{
	int64_t s = lay == L_STEP ? 2 : 1;

	if (lay == L_TRANS) {
		for (int d = 0; d < ndim; d++) {
			st[d] = s;
			s *= ext1(dims[d]);
		}
		return;
	}
	for (int d = ndim - 1; d >= 0; d--) {
		st[d] = s;
		s = s * ext1(dims[d]) + (lay == L_STEP);
	}
	if (lay == L_NEG)
		for (int d = ndim - 1; d >= 0; d -= 2)
			st[d] = -st[d];
}

/* rocjit_tensor_dense as the header says: the extents, row-major strides. */
static void check_dense(const rocjit_tensor *t, rocjit_dtype dt, int ndim, const int64_t *dims)
{
	int64_t s = 1;

	ASSERT(t->dtype == dt);
	ASSERT_INT(t->ndim, ndim);
	ASSERT_INT(rocjit_tensor_numel(t), numel(ndim, dims));
	for (int d = ndim - 1; d >= 0; d--) {
		ASSERT_INT(t->dims[d], dims[d]);
		if (numel(ndim, dims) > 0 && dims[d] > 1 && t->strides[d] != s)
			rj_test_fail(__FILE__, __LINE__, "rocjit_tensor_dense: stride %d of %lld, "
				     "expected %lld", d, (long long)t->strides[d], (long long)s);
		s *= dims[d];
	}
}

/* src seen with extents dims through rocjit_tensor_broadcast, its strides checked. */
static void broadcast_view(rocjit_tensor *out, const rocjit_tensor *src, int ndim,
			   const int64_t *dims)
{
	int lead = ndim - src->ndim;

	ASSERT_INT(rocjit_tensor_broadcast(out, src, ndim, dims), 0);
	ASSERT(out->data == src->data);
	ASSERT(out->dtype == src->dtype);
	ASSERT_INT(out->ndim, ndim);
	for (int d = 0; d < ndim; d++) {
		int j = d - lead;
		int64_t want = j < 0 || src->dims[j] == 1 ? 0 : src->strides[j];

		ASSERT_INT(out->dims[d], dims[d]);
		if (dims[d] > 1 && out->strides[d] != want)
			rj_test_fail(__FILE__, __LINE__, "rocjit_tensor_broadcast: stride %d of %lld, "
				     "expected %lld", d, (long long)out->strides[d],
				     (long long)want);
	}
}

/*
 * A tensor of extents dims laid out as lay, its storage filled with the sentinel on the
 * host (upload it with tens_up).  Broadcast layouts make a smaller source and view it with
 * rocjit_tensor_broadcast.
 */
static struct tens *tens_new(rocjit_dtype dt, int ndim, const int64_t *dims, enum layout lay)
{
	struct tens *T = case_alloc(sizeof *T);
	int64_t sdims[MAXD] = { 0 }, lo = 0, hi = 0;
	int sndim = ndim, bcast = lay == L_ROW || lay == L_COL || lay == L_SCALAR;
	rocjit_tensor src;

	ASSERT(lay < L_INPLACE);
	for (int d = 0; d < ndim; d++)
		sdims[d] = dims[d];
	if (lay == L_ROW) {
		sndim = ndim > 0;
		sdims[0] = ndim > 0 ? dims[ndim - 1] : 0;
	} else if (lay == L_COL && ndim > 0) {
		sdims[ndim - 1] = 1;
	} else if (lay == L_SCALAR) {
		sndim = 0;
	}
	if (lay == L_DENSE) {
		src = rocjit_tensor_dense(NULL, dt, sndim, sdims);
		check_dense(&src, dt, sndim, sdims);
	} else {
		memset(&src, 0, sizeof src);
		src.dtype = dt;
		src.ndim = sndim;
		for (int d = 0; d < sndim; d++)
			src.dims[d] = sdims[d];
		layout_strides(bcast ? L_DENSE : lay, sndim, sdims, src.strides);
	}
	if (numel(sndim, sdims) > 0)
		for (int d = 0; d < sndim; d++) {
			int64_t span = (sdims[d] - 1) * src.strides[d];

			if (span < 0)
				lo += span;
			else
				hi += span;
		}
	T->esize = dt_sizes[dt];
	T->origin = GUARD - lo;
	T->len = hi - lo + 1 + 2 * GUARD;
	T->host = case_alloc((size_t)T->len * T->esize);
	memset(T->host, SENTINEL, (size_t)T->len * T->esize);
	T->dev = arena_take((size_t)T->len * T->esize);
	src.data = T->dev + (size_t)T->origin * T->esize;
	if (bcast)
		broadcast_view(&T->t, &src, ndim, dims);
	else
		T->t = src;
	T->n = numel(ndim, dims);
	return T;
}

/* Storage index of element i (row-major over the view's extents). */
static int64_t tens_index(const struct tens *T, int64_t i)
{
	int64_t at = T->origin;

	for (int d = T->t.ndim - 1; d >= 0; d--) {
		at += (i % T->t.dims[d]) * T->t.strides[d];
		i /= T->t.dims[d];
	}
	return at;
}

static unsigned char *at(const struct tens *T, int64_t i)
{
	return T->host + (size_t)tens_index(T, i) * T->esize;
}

static long double val(const struct tens *T, int64_t i)
{
	return get_ld(T->t.dtype, at(T, i));
}

static void tens_up(const struct tens *T)
{
	to_dev(T->dev, T->host, (size_t)T->len * T->esize);
}

static void tens_down(const struct tens *T)
{
	from_dev(T->host, T->dev, (size_t)T->len * T->esize);
}

static void coords(char *buf, size_t size, const rocjit_tensor *t, int64_t i)
{
	int64_t c[MAXD];
	size_t used = 0;

	for (int d = t->ndim - 1; d >= 0; d--) {
		c[d] = i % t->dims[d];
		i /= t->dims[d];
	}
	used += (size_t)snprintf(buf, size, "(");
	for (int d = 0; d < t->ndim && used < size; d++)
		used += (size_t)snprintf(buf + used, size - used, "%s%lld", d ? ", " : "",
					 (long long)c[d]);
	if (used < size)
		snprintf(buf + used, size - used, ")");
}

/* An element's bytes as hex, most significant first (buf: 17 bytes). */
static void hex(char *buf, const unsigned char *p, size_t n)
{
	for (size_t b = 0; b < n; b++)
		snprintf(buf + 2 * b, 3, "%02x", p[n - 1 - b]);
}

/* Output storage outside the view must still hold the sentinel. */
static void check_untouched(const struct tens *y)
{
	unsigned char *covered = calloc((size_t)y->len, 1);

	ASSERT(covered != NULL);
	for (int64_t i = 0; i < y->n; i++)
		covered[tens_index(y, i)] = 1;
	for (int64_t s = 0; s < y->len; s++)
		for (size_t b = 0; !covered[s] && b < y->esize; b++)
			if (y->host[(size_t)s * y->esize + b] != SENTINEL) {
				free(covered);
				rj_test_fail(__FILE__, __LINE__, "%s: storage element %lld, outside "
					     "the output view (whose element 0 is storage element "
					     "%lld), was written", case_desc, (long long)s,
					     (long long)y->origin);
			}
	free(covered);
}

/* ---- Input data ------------------------------------------------------------------------------ */

struct dom {
	double lo, hi, q;   /* floats: lo + k q in [lo, hi)                               */
	double min_abs;     /* floats: smaller magnitudes are moved out to it              */
	int specials;       /* floats: some NaN and +-inf; integers: 0, 1, min, max         */
	int64_t ilo, ihi;   /* integers: in [ilo, ihi] (within the type); equal: any bits  */
	int mix;            /* integers with a range: a quarter of them any bits anyway    */
};

/* A float domain; integers of any bits (with the specials when sp). */
#define FLT(lo, hi, q, min_abs, sp) { (lo), (hi), (q), (min_abs), (sp), 0, 0, 0 }

static long double gen_float(const struct dom *D)
{
	int64_t steps = (int64_t)((D->hi - D->lo) / D->q);
	double v;

	if (D->specials) {
		uint64_t r = rnd() % 64;

		if (r == 0)
			return NAN;
		if (r == 1)
			return INFINITY;
		if (r == 2)
			return -INFINITY;
	}
	v = D->lo + D->q * (double)rnd_range(0, steps - 1);
	if (fabs(v) < D->min_abs)
		v = v < 0 ? -D->min_abs : D->min_abs;
	return v;
}

static int64_t gen_int(rocjit_dtype dt, const struct dom *D)
{
	if (D->ilo < D->ihi && !(D->mix && rnd() % 4 == 0)) {
		int64_t lo = D->ilo > int_min(dt) ? D->ilo : int_min(dt);
		int64_t hi = D->ihi < int_max(dt) ? D->ihi : int_max(dt);

		return rnd_range(lo, hi);
	}
	if (D->specials)
		switch (rnd() % 16) {
		case 0: return 0;
		case 1: return 1;
		case 2: return int_max(dt);
		case 3: return int_min(dt);
		default: break;
		}
	return (int64_t)rnd();
}

/* Writes the view's elements (not the gaps, which keep the sentinel) and uploads. */
static void fill(struct tens *T, const struct dom *D)
{
	rocjit_dtype dt = T->t.dtype;

	for (int64_t i = 0; i < T->n; i++) {
		if (is_int(dt))
			put_int(dt, at(T, i), gen_int(dt, D));
		else
			put_ld(dt, at(T, i), gen_float(D));
	}
	tens_up(T);
}

/* Random bytes in every element of the view (NaNs and all), uploaded. */
static void fill_bits(struct tens *T)
{
	for (int64_t i = 0; i < T->n; i++) {
		uint64_t r = rnd();

		memcpy(at(T, i), &r, T->esize);
	}
	tens_up(T);
}

/* ---- Expected values and the comparison ------------------------------------------------------ */

enum mode {
	M_TOL,   /* within the tolerance of the file comment                */
	M_EXACT, /* the reference rounded to the type (NaN matching NaN)    */
	M_BITS   /* the bytes of want.bits (any NaN matching a NaN)         */
};

struct want {
	long double v;         /* the result before rounding to the output type  */
	double mag;            /* what the relative tolerance scales             */
	double extra;          /* absolute tolerance on top (accumulations)      */
	double in[2];          /* inputs, for the failure message                */
	int nin;
	unsigned char bits[8]; /* M_BITS: the expected bytes                    */
};

static struct want *wants(int64_t n)
{
	return case_alloc(sizeof(struct want) * (size_t)(n > 0 ? n : 1));
}

static void fail_elem(const struct tens *y, int64_t i, const struct want *w,
		      const unsigned char *expect, long double tol)
{
	rocjit_dtype dt = y->t.dtype;
	char where[128], ins[128] = "", got_hex[17], want_hex[17];
	const unsigned char *p = at(y, i);

	coords(where, sizeof where, &y->t, i);
	hex(got_hex, p, y->esize);
	hex(want_hex, expect, y->esize);
	if (w->nin == 1)
		snprintf(ins, sizeof ins, "; input %.17g", w->in[0]);
	else if (w->nin == 2)
		snprintf(ins, sizeof ins, "; inputs %.17g, %.17g", w->in[0], w->in[1]);
	rj_test_fail(__FILE__, __LINE__, "%s: element %lld %s of %s is %.17Lg (0x%s), expected "
		     "%.17Lg (0x%s; exact %.17Lg, tolerance %.3Lg)%s", case_desc, (long long)i,
		     where, dt_names[dt], get_ld(dt, p), got_hex, get_ld(dt, expect), want_hex,
		     w->v, tol, ins);
}

static void check_elem(const struct tens *y, int64_t i, const struct want *w, enum mode m)
{
	rocjit_dtype dt = y->t.dtype;
	const unsigned char *p = at(y, i);
	unsigned char expect[8] = { 0 };
	long double got, want, tol = 0;
	int ok;

	if (m == M_BITS) {
		memcpy(expect, w->bits, y->esize);
		if (!is_int(dt) && isnan(get_ld(dt, expect)))
			ok = isnan(get_ld(dt, p));
		else
			ok = memcmp(p, expect, y->esize) == 0;
	} else if (is_int(dt)) {
		put_int(dt, expect, (int64_t)w->v);
		ok = memcmp(p, expect, y->esize) == 0;
	} else {
		put_ld(dt, expect, w->v);
		want = get_ld(dt, expect);
		got = get_ld(dt, p);
		if (m == M_TOL)
			tol = tol_rel[dt] * w->mag + tol_abs[dt] + w->extra;
		ok = isnan(want) ? isnan(got) : got == want || fabsl(got - want) <= tol;
	}
	if (!ok)
		fail_elem(y, i, w, expect, tol);
}

/* Waits for the case, fetches y and checks every element and the storage around them. */
static void finish(void *stream, const struct tens *y, const struct want *w, enum mode m)
{
	sync_case(stream);
	tens_down(y);
	for (int64_t i = 0; i < y->n; i++)
		check_elem(y, i, &w[i], m);
	check_untouched(y);
}

/* Outputs start as sentinel on the device too. */
static struct tens *out_new(rocjit_dtype dt, int ndim, const int64_t *dims, enum layout lay)
{
	struct tens *y = tens_new(dt, ndim, dims, lay);

	tens_up(y);
	return y;
}

/* ---- Elementwise shapes ---------------------------------------------------------------------- */

/* One shape of an elementwise case: its extents, the layouts of up to three inputs and of
 * the output (L_INPLACE: the output is the family's in-place input). */
struct ew_case {
	const char *what;
	int ndim;
	int64_t dims[MAXD];
	enum layout in[3];
	enum layout out;
};

#define LAYS(a, b, c) { L_##a, L_##b, L_##c }

static const struct ew_case ew_cases[] = {
	{ "scalar (ndim 0)", 0, { 0 }, LAYS(DENSE, DENSE, DENSE), L_DENSE },
	{ "1 element", 1, { 1 }, LAYS(DENSE, DENSE, DENSE), L_DENSE },
	{ "3 elements", 1, { 3 }, LAYS(DENSE, DENSE, DENSE), L_DENSE },
	{ "127 elements", 1, { 127 }, LAYS(DENSE, DENSE, DENSE), L_DENSE },
	{ "1001 elements", 1, { 1001 }, LAYS(DENSE, DENSE, DENSE), L_DENSE },
	{ "65537 elements", 1, { 65537 }, LAYS(DENSE, DENSE, DENSE), L_DENSE },
	{ "empty (0)", 1, { 0 }, LAYS(DENSE, DENSE, DENSE), L_DENSE },
	{ "empty (3x0x5)", 3, { 3, 0, 5 }, LAYS(TRANS, STEP, NEG), L_STEP },
	{ "37x53", 2, { 37, 53 }, LAYS(TRANS, TRANS, TRANS), L_DENSE },
	{ "37x53", 2, { 37, 53 }, LAYS(DENSE, STEP, DENSE), L_TRANS },
	{ "1001", 1, { 1001 }, LAYS(STEP, NEG, STEP), L_NEG },
	{ "5x6x7", 3, { 5, 6, 7 }, LAYS(NEG, TRANS, STEP), L_STEP },
	{ "37x53", 2, { 37, 53 }, LAYS(ROW, COL, SCALAR), L_DENSE },
	{ "37x53", 2, { 37, 53 }, LAYS(COL, SCALAR, ROW), L_TRANS },
	{ "1001", 1, { 1001 }, LAYS(SCALAR, DENSE, COL), L_DENSE },
	{ "2x3x1x4x5x3 (6-D)", 6, { 2, 3, 1, 4, 5, 3 }, LAYS(TRANS, ROW, STEP), L_NEG },
	{ "129x509 (65661 elements)", 2, { 129, 509 }, LAYS(TRANS, DENSE, COL), L_DENSE },
	{ "1001", 1, { 1001 }, LAYS(DENSE, DENSE, DENSE), L_INPLACE },
	{ "37x53", 2, { 37, 53 }, LAYS(TRANS, STEP, ROW), L_INPLACE },
};

/* "37x53 (x transposed, y dense)" for the case description. */
static void ew_describe(char *buf, size_t size, const struct ew_case *c, int nin,
			const char *const *names)
{
	size_t used = (size_t)snprintf(buf, size, "%s (", c->what);

	for (int k = 0; k < nin && used < size; k++)
		used += (size_t)snprintf(buf + used, size - used, "%s %s, ", names[k],
					 layout_names[c->in[k]]);
	if (used < size)
		snprintf(buf + used, size - used, "%s %s)", names[nin], layout_names[c->out]);
}

/* The case's output: a new view, or input `inplace` itself. */
static struct tens *ew_out(const struct ew_case *c, rocjit_dtype dt, struct tens *inplace)
{
	return c->out == L_INPLACE ? inplace : out_new(dt, c->ndim, c->dims, c->out);
}

/*
 * Every (op, type) of an elementwise family on every shape of ew_cases: run(op, dt, k), or
 * missing(op, dt) - the EUNSUPPORTED check - where exists(op, dt) says the op does not
 * exist for the type.  The library's name of every op must be set, NULL past the last.
 */
static void ew_family(int nops, const char *(*name_of)(int op),
		      int (*exists)(int op, rocjit_dtype dt),
		      void (*missing)(int op, rocjit_dtype dt),
		      void (*run)(int op, rocjit_dtype dt, int k))
{
	for (int op = 0; op < nops; op++) {
		const char *name = name_of(op);

		if (!name || !*name)
			rj_test_fail(__FILE__, __LINE__, "the library's name of op %d is empty", op);
		for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++) {
			if (!exists(op, (rocjit_dtype)dt)) {
				missing(op, (rocjit_dtype)dt);
				continue;
			}
			for (int k = 0; k < (int)COUNT(ew_cases); k++)
				run(op, (rocjit_dtype)dt, k);
		}
	}
	if (name_of(nops) != NULL)
		rj_test_fail(__FILE__, __LINE__, "op %d past the last has a name: %s", nops,
			     name_of(nops));
}

/* ---- Unary -------------------------------------------------------------------------------- */

#define INT_BIT(dt) (1u << (dt))
#define ALL_INTS (INT_BIT(ROCJIT_U8) | INT_BIT(ROCJIT_U32) | INT_BIT(ROCJIT_I64))

struct unary_info {
	const char *name;
	struct dom dom;     /* floats (well-conditioned ranges); integers: any bits */
	enum mode mode;     /* for the float types                                  */
	unsigned int ints;  /* the integer types the op exists for                  */
};

/* Indexed by rocjit_unary_op.  Specials (NaN, +-inf) only where every reasonable formula
 * agrees on the result. */
static const struct unary_info unary_info[ROCJIT_NUM_UNARY_OPS] = {
	{ "neg", FLT(-6, 6, 1.0 / 16, 0, 1), M_EXACT, INT_BIT(ROCJIT_I64) },
	{ "abs", FLT(-6, 6, 1.0 / 16, 0, 1), M_EXACT, INT_BIT(ROCJIT_I64) },
	{ "exp", FLT(-8, 8, 1.0 / 64, 0, 1), M_TOL, 0 },
	{ "log", FLT(1.0 / 64, 50, 1.0 / 64, 0, 1), M_TOL, 0 },
	{ "sqrt", FLT(0, 50, 1.0 / 64, 0, 1), M_TOL, 0 },
	{ "sin", FLT(-6, 6, 1.0 / 64, 0, 1), M_TOL, 0 },
	{ "cos", FLT(-6, 6, 1.0 / 64, 0, 1), M_TOL, 0 },
	{ "tanh", FLT(-5, 5, 1.0 / 64, 0, 1), M_TOL, 0 },
	{ "relu", FLT(-6, 6, 1.0 / 16, 0, 0), M_EXACT, INT_BIT(ROCJIT_I64) },
	{ "gelu", FLT(-6, 6, 1.0 / 64, 0, 0), M_TOL, 0 },
	{ "gelu_erf", FLT(-6, 6, 1.0 / 64, 0, 0), M_TOL, 0 },
	{ "silu", FLT(-6, 6, 1.0 / 64, 0, 0), M_TOL, 0 },
	{ "sigmoid", FLT(-8, 8, 1.0 / 64, 0, 0), M_TOL, 0 },
	{ "recip", FLT(-8, 8, 1.0 / 64, 1.0 / 8, 1), M_TOL, 0 },
	{ "sqr", FLT(-8, 8, 1.0 / 64, 0, 1), M_EXACT, ALL_INTS },
	{ "floor", FLT(-6, 6, 1.0 / 16, 0, 1), M_EXACT, 0 },
	{ "ceil", FLT(-6, 6, 1.0 / 16, 0, 1), M_EXACT, 0 },
	{ "round", FLT(-6, 6, 1.0 / 16, 0, 1), M_EXACT, 0 },
	{ "sign", FLT(-3, 3, 1.0 / 4, 0, 1), M_EXACT, ALL_INTS },
};

static int unary_exists(int op, rocjit_dtype dt)
{
	return !is_int(dt) || (unary_info[op].ints & INT_BIT(dt));
}

static long double unary_ref(rocjit_unary_op op, long double lx)
{
	double x = (double)lx;

	switch (op) {
	case ROCJIT_NEG: return -x;
	case ROCJIT_ABS: return fabs(x);
	case ROCJIT_EXP: return exp(x);
	case ROCJIT_LOG: return log(x);
	case ROCJIT_SQRT: return sqrt(x);
	case ROCJIT_SIN: return sin(x);
	case ROCJIT_COS: return cos(x);
	case ROCJIT_TANH: return tanh(x);
	case ROCJIT_RELU: return x > 0 ? x : 0;
	case ROCJIT_GELU:
		return 0.5 * x * (1 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
	case ROCJIT_GELU_ERF: return 0.5 * x * (1 + erf(x * 0.70710678118654752440));
	case ROCJIT_SILU: return x / (1 + exp(-x));
	case ROCJIT_SIGMOID: return 1 / (1 + exp(-x));
	case ROCJIT_RECIP: return 1 / x;
	case ROCJIT_SQR: return x * x; /* one rounding in double, exact for f32 and below */
	case ROCJIT_FLOOR: return floor(x);
	case ROCJIT_CEIL: return ceil(x);
	case ROCJIT_ROUND: return round(x); /* half away from zero */
	case ROCJIT_SIGN: return x > 0 ? 1 : x < 0 ? -1 : x == 0 ? 0 : x;
	}
	return NAN;
}

/* Integer ops wrap (two's complement); u8/u32 values are non-negative here. */
static int64_t unary_ref_int(rocjit_unary_op op, int64_t x)
{
	uint64_t u = (uint64_t)x;

	switch (op) {
	case ROCJIT_NEG: return (int64_t)(0 - u);
	case ROCJIT_ABS: return x < 0 ? (int64_t)(0 - u) : x;
	case ROCJIT_RELU: return x > 0 ? x : 0;
	case ROCJIT_SQR: return (int64_t)(u * u);
	case ROCJIT_SIGN: return x > 0 ? 1 : x < 0 ? -1 : 0;
	default: return 0;
	}
}

static const int64_t three[1] = { 3 };

/* An op on a type it does not exist for: EUNSUPPORTED, whatever the (valid) shapes. */
static void unary_unsupported(int op, rocjit_dtype dt)
{
	struct tens *x = out_new(dt, 1, three, L_DENSE), *y = out_new(dt, 1, three, L_DENSE);

	set_case("unary %s on %s", unary_info[op].name, dt_names[dt]);
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, (rocjit_unary_op)op, &x->t, &y->t),
		  ROCJIT_EUNSUPPORTED);
	sync_case(NULL);
	tens_down(y);
	check_untouched(y);
	case_end();
}

static void unary_case(int op, rocjit_dtype dt, int k)
{
	static const char *const names[] = { "x", "y" };
	const struct ew_case *c = &ew_cases[k];
	void *stream = case_stream(k);
	struct tens *x, *y;
	struct want *w;
	char shape[256];

	ew_describe(shape, sizeof shape, c, 1, names);
	set_case("unary %s %s, %s", unary_info[op].name, dt_names[dt], shape);
	rng_seed(1, (uint64_t)op, (uint64_t)dt, (uint64_t)k);
	x = tens_new(dt, c->ndim, c->dims, c->in[0]);
	fill(x, &unary_info[op].dom);
	y = ew_out(c, dt, x);
	w = wants(x->n);
	for (int64_t i = 0; i < x->n; i++) {
		long double v = val(x, i);

		w[i].in[0] = (double)v;
		w[i].nin = 1;
		w[i].v = is_int(dt) ? (long double)unary_ref_int((rocjit_unary_op)op, (int64_t)v) :
				      unary_ref((rocjit_unary_op)op, v);
		w[i].mag = (double)fabsl(w[i].v);
	}
	OPS_OK(rocjit_ops_unary(fx.ops, stream, (rocjit_unary_op)op, &x->t, &y->t));
	finish(stream, y, w, is_int(dt) ? M_EXACT : unary_info[op].mode);
	case_end();
}

static const char *unary_name_of(int op)
{
	return rocjit_unary_op_name((rocjit_unary_op)op);
}

TEST(unary_every_op_type_and_layout_matches_cpu)
{
	ops_setup();
	ew_family(ROCJIT_NUM_UNARY_OPS, unary_name_of, unary_exists, unary_unsupported, unary_case);
	ops_teardown();
}

/* ---- affine, elu, powf, clamp ------------------------------------------------------------- */

enum scalar_kind { K_AFFINE, K_ELU, K_POWF, K_CLAMP };

struct scalar_op {
	const char *name;
	enum scalar_kind kind;
	double a, b;       /* affine: mul, add; elu: alpha; powf: e; clamp: lo, hi */
	int types;         /* 0: every type, 1: integers only, 2: floats only      */
	struct dom dom;
};

static const struct scalar_op scalar_ops[] = {
	{ "affine(x * 1.5 - 0.25)", K_AFFINE, 1.5, -0.25, 0, FLT(-6, 6, 1.0 / 64, 0, 0) },
	{ "affine(x * -3.1 + 7)", K_AFFINE, -3.1, 7, 0, FLT(-6, 6, 1.0 / 64, 0, 0) },
	/* integers: mul 2.7 -> 2, add -1 -> 0 (u8, u32) or -1 (i64), as Rust `as` converts */
	{ "affine(x * 2.7 - 1)", K_AFFINE, 2.7, -1, 0, FLT(-6, 6, 1.0 / 64, 0, 0) },
	{ "affine(x * 65537 + 4e9)", K_AFFINE, 65537, 4e9, 1, FLT(0, 1, 1, 0, 1) },
	{ "elu(x, 0.7)", K_ELU, 0.7, 0, 2, FLT(-6, 6, 1.0 / 256, 0, 0) },
	{ "elu(x, 1)", K_ELU, 1, 0, 2, FLT(-3, 3, 1.0 / 1024, 0, 0) },
	{ "powf(x, 2.5)", K_POWF, 2.5, 0, 2, FLT(0, 8, 1.0 / 64, 0, 0) },
	{ "powf(x, -1.5)", K_POWF, -1.5, 0, 2, FLT(0.25, 8, 1.0 / 64, 0, 0) },
	{ "powf(x, 3)", K_POWF, 3, 0, 2, FLT(-4, 4, 1.0 / 64, 0, 0) },
	{ "powf(x, 0)", K_POWF, 0, 0, 2, FLT(-4, 4, 1.0 / 8, 0, 0) },
	/* No NaN: fmin/fmax and compare-and-select formulas differ on it. */
	{ "clamp(x, -1.5, 2.25)", K_CLAMP, -1.5, 2.25, 0, { -6, 6, 1.0 / 16, 0, 0, -10, 300, 1 } },
	/* integers: u8 [0, 200], i64 [-3, 200] */
	{ "clamp(x, -3.5, 200.9)", K_CLAMP, -3.5, 200.9, 0,
	  { -6, 6, 1.0 / 16, 0, 0, -10, 300, 1 } },
	/* u8: both bounds saturate to 255 */
	{ "clamp(x, 1000, 3e9)", K_CLAMP, 1000, 3e9, 0,
	  { -6, 6, 1.0 / 16, 0, 0, 0, 4000000000, 1 } },
};

static int scalar_op_call(const struct scalar_op *s, void *stream, const struct tens *x,
			  const struct tens *y)
{
	switch (s->kind) {
	case K_AFFINE: return rocjit_ops_affine(fx.ops, stream, &x->t, &y->t, s->a, s->b);
	case K_ELU: return rocjit_ops_elu(fx.ops, stream, &x->t, &y->t, s->a);
	case K_POWF: return rocjit_ops_powf(fx.ops, stream, &x->t, &y->t, s->a);
	case K_CLAMP: return rocjit_ops_clamp(fx.ops, stream, &x->t, &y->t, s->a, s->b);
	}
	return ROCJIT_EINVAL;
}

/* The result and its tolerance scale for one element. */
static void scalar_ref(const struct scalar_op *s, rocjit_dtype dt, long double v, struct want *w)
{
	double x = (double)v;

	if (is_int(dt)) {
		uint64_t m = (uint64_t)float_to_int(dt, s->a), add = (uint64_t)float_to_int(dt, s->b);
		int64_t ix = (int64_t)v, lo = float_to_int(dt, s->a), hi = float_to_int(dt, s->b);

		if (s->kind == K_AFFINE)
			w->v = (int64_t)((uint64_t)ix * m + add);
		else
			w->v = ix < lo ? lo : ix > hi ? hi : ix;
		return;
	}
	switch (s->kind) {
	case K_AFFINE:
		w->v = x * s->a + s->b;
		w->mag = fabs(x * s->a) + fabs(s->b);
		return;
	case K_ELU:
		w->v = x > 0 ? x : s->a * (exp(x) - 1);
		break;
	case K_POWF:
		w->v = pow(x, s->a);
		break;
	case K_CLAMP:
		w->v = x < s->a ? s->a : x > s->b ? s->b : x;
		break;
	}
	w->mag = (double)fabsl(w->v);
}

static void scalar_case(const struct scalar_op *s, int si, rocjit_dtype dt, int k)
{
	static const char *const names[] = { "x", "y" };
	const struct ew_case *c = &ew_cases[k];
	void *stream = case_stream(k + si);
	struct tens *x, *y;
	struct want *w;
	char shape[256];

	ew_describe(shape, sizeof shape, c, 1, names);
	set_case("%s %s, %s", s->name, dt_names[dt], shape);
	rng_seed(2, (uint64_t)si, (uint64_t)dt, (uint64_t)k);
	x = tens_new(dt, c->ndim, c->dims, c->in[0]);
	fill(x, &s->dom);
	y = ew_out(c, dt, x);
	w = wants(x->n);
	for (int64_t i = 0; i < x->n; i++) {
		w[i].in[0] = (double)val(x, i);
		w[i].nin = 1;
		scalar_ref(s, dt, val(x, i), &w[i]);
	}
	OPS_OK(scalar_op_call(s, stream, x, y));
	finish(stream, y, w, is_int(dt) || s->kind == K_CLAMP ? M_EXACT : M_TOL);
	case_end();
}

TEST(affine_elu_powf_clamp_every_type_and_layout_match_cpu)
{
	ops_setup();
	for (int si = 0; si < (int)COUNT(scalar_ops); si++) {
		const struct scalar_op *s = &scalar_ops[si];

		for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++) {
			if (s->types == (is_int((rocjit_dtype)dt) ? 2 : 1)) {
				if (s->kind == K_ELU || s->kind == K_POWF) {
					struct tens *x = out_new((rocjit_dtype)dt, 1, three, L_DENSE);

					set_case("%s on %s", s->name, dt_names[dt]);
					OPS_FAILS(scalar_op_call(s, NULL, x, x), ROCJIT_EUNSUPPORTED);
					case_end();
				}
				continue;
			}
			for (int k = 0; k < (int)COUNT(ew_cases); k++)
				scalar_case(s, si, (rocjit_dtype)dt, k);
		}
	}
	ops_teardown();
}

/* ---- Binary ------------------------------------------------------------------------------- */

static const char *const binary_names[ROCJIT_NUM_BINARY_OPS] = {
	"add", "sub", "mul", "div", "min", "max", "pow", "eq", "ne", "lt", "le", "gt", "ge"
};

static int is_cmp(rocjit_binary_op op)
{
	return op >= ROCJIT_EQ;
}

/* The operands' domains: well-conditioned floats with NaN/inf where IEEE fixes the result,
 * many ties for the comparisons; integers of any bits, small divisors (zero included). */
static void binary_doms(rocjit_binary_op op, struct dom *a, struct dom *b)
{
	static const struct dom wide = FLT(-8, 8, 1.0 / 64, 0, 1);
	static const struct dom ties = { -2, 2, 0.25, 0, 1, -2, 3, 1 };

	*a = *b = wide;
	if (op == ROCJIT_DIV) {
		b->min_abs = 0.125;
		b->ilo = -9;
		b->ihi = 20;
		b->mix = 1;
	} else if (op == ROCJIT_POW) {
		*a = (struct dom)FLT(1.0 / 16, 4, 1.0 / 64, 0, 0);
		*b = (struct dom)FLT(-3, 3, 1.0 / 8, 0, 0);
	} else if (is_cmp(op)) {
		*a = *b = ties;
	}
}

/* A comparison given the ordering of a and b: -1, 0, 1, or 2 when unordered (a NaN). */
static int compare(rocjit_binary_op op, int ord)
{
	switch (op) {
	case ROCJIT_EQ: return ord == 0;
	case ROCJIT_NE: return ord != 0;
	case ROCJIT_LT: return ord == -1;
	case ROCJIT_LE: return ord == -1 || ord == 0;
	case ROCJIT_GT: return ord == 1;
	default: return ord == 1 || ord == 0;
	}
}

static long double binary_ref(rocjit_binary_op op, long double la, long double lb)
{
	double a = (double)la, b = (double)lb;

	if (is_cmp(op))
		return compare(op, isnan(a) || isnan(b) ? 2 : (a > b) - (a < b));
	switch (op) {
	case ROCJIT_ADD: return a + b;
	case ROCJIT_SUB: return a - b;
	case ROCJIT_MUL: return a * b;
	case ROCJIT_DIV: return a / b;
	case ROCJIT_MIN: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
	case ROCJIT_MAX: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
	case ROCJIT_POW: return pow(a, b);
	default: return NAN;
	}
}

static int64_t binary_ref_int(rocjit_binary_op op, int64_t a, int64_t b)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;

	if (is_cmp(op))
		return compare(op, (a > b) - (a < b));
	switch (op) {
	case ROCJIT_ADD: return (int64_t)(ua + ub);
	case ROCJIT_SUB: return (int64_t)(ua - ub);
	case ROCJIT_MUL: return (int64_t)(ua * ub);
	case ROCJIT_DIV: return b == 0 ? 0 : a == INT64_MIN && b == -1 ? a : a / b;
	case ROCJIT_MIN: return a < b ? a : b;
	case ROCJIT_MAX: return a > b ? a : b;
	default: return 0;
	}
}

static void binary_case(int bop, rocjit_dtype dt, int k)
{
	static const char *const names[] = { "a", "b", "out" };
	rocjit_binary_op op = (rocjit_binary_op)bop;
	const struct ew_case *c = &ew_cases[k];
	rocjit_dtype odt = is_cmp(op) ? ROCJIT_U8 : dt;
	void *stream = case_stream(k + (int)op);
	struct tens *a, *b, *y;
	struct dom da, db;
	struct want *w;
	enum mode m;
	char shape[256];

	if (c->out == L_INPLACE && odt != dt)
		return;
	ew_describe(shape, sizeof shape, c, 2, names);
	set_case("binary %s %s, %s", binary_names[op], dt_names[dt], shape);
	rng_seed(3, (uint64_t)op, (uint64_t)dt, (uint64_t)k);
	binary_doms(op, &da, &db);
	a = tens_new(dt, c->ndim, c->dims, c->in[0]);
	b = tens_new(dt, c->ndim, c->dims, c->in[1]);
	fill(a, &da);
	fill(b, &db);
	if (op == ROCJIT_DIV && dt == ROCJIT_I64) /* keep INT64_MIN / -1 out */
		for (int64_t i = 0; i < b->n; i++)
			if ((int64_t)val(b, i) == -1)
				put_int(dt, at(b, i), -2);
	tens_up(b);
	y = ew_out(c, odt, a);
	w = wants(a->n);
	for (int64_t i = 0; i < a->n; i++) {
		long double va = val(a, i), vb = val(b, i);

		w[i].in[0] = (double)va;
		w[i].in[1] = (double)vb;
		w[i].nin = 2;
		if (is_int(dt))
			w[i].v = binary_ref_int(op, (int64_t)va, (int64_t)vb);
		else
			w[i].v = binary_ref(op, va, vb);
		w[i].mag = (double)fabsl(w[i].v);
	}
	m = is_int(dt) || (op != ROCJIT_DIV && op != ROCJIT_POW) ? M_EXACT : M_TOL;
	OPS_OK(rocjit_ops_binary(fx.ops, stream, op, &a->t, &b->t, &y->t));
	finish(stream, y, w, m);
	case_end();
}

static const char *binary_name_of(int op)
{
	return rocjit_binary_op_name((rocjit_binary_op)op);
}

static int binary_exists(int op, rocjit_dtype dt)
{
	return op != ROCJIT_POW || !is_int(dt);
}

static void binary_unsupported(int op, rocjit_dtype dt)
{
	struct tens *x = out_new(dt, 1, three, L_DENSE), *y = out_new(dt, 1, three, L_DENSE);

	set_case("binary %s on %s", binary_names[op], dt_names[dt]);
	OPS_FAILS(rocjit_ops_binary(fx.ops, NULL, (rocjit_binary_op)op, &x->t, &x->t, &y->t),
		  ROCJIT_EUNSUPPORTED);
	case_end();
}

TEST(binary_every_op_type_and_layout_matches_cpu_comparisons_give_u8)
{
	ops_setup();
	ew_family(ROCJIT_NUM_BINARY_OPS, binary_name_of, binary_exists, binary_unsupported,
		  binary_case);
	ops_teardown();
}

/* ---- where --------------------------------------------------------------------------------- */

static const rocjit_dtype cond_types[] = { ROCJIT_U8, ROCJIT_U32, ROCJIT_I64 };

/* Half zeros, half non-zero values of every sort (1, the top bit, all bits). */
static void fill_cond(struct tens *cond)
{
	static const int64_t nonzero[] = { 1, 2, 255, 256, 0x80000000, (int64_t)1 << 40, -1,
					   INT64_MIN };
	rocjit_dtype dt = cond->t.dtype;

	for (int64_t i = 0; i < cond->n; i++) {
		int64_t v = 0;

		if (rnd() % 2) {
			do
				v = nonzero[rnd() % COUNT(nonzero)];
			while ((dt == ROCJIT_U8 && (v & 0xff) == 0) ||
			       (dt == ROCJIT_U32 && (v & 0xffffffff) == 0));
		}
		put_int(dt, at(cond, i), v);
	}
	tens_up(cond);
}

static void where_case(rocjit_dtype cdt, rocjit_dtype dt, int k)
{
	static const char *const names[] = { "cond", "a", "b", "out" };
	static const struct dom values = FLT(-100, 100, 1.0 / 8, 0, 1);
	const struct ew_case *c = &ew_cases[k];
	void *stream = case_stream(k);
	struct tens *cond, *a, *b, *y;
	struct want *w;
	char shape[256];

	ew_describe(shape, sizeof shape, c, 3, names);
	set_case("where cond %s, values %s, %s", dt_names[cdt], dt_names[dt], shape);
	rng_seed(4, (uint64_t)cdt, (uint64_t)dt, (uint64_t)k);
	cond = tens_new(cdt, c->ndim, c->dims, c->in[0]);
	a = tens_new(dt, c->ndim, c->dims, c->in[1]);
	b = tens_new(dt, c->ndim, c->dims, c->in[2]);
	fill_cond(cond);
	fill(a, &values);
	fill(b, &values);
	y = ew_out(c, dt, a);
	w = wants(a->n);
	for (int64_t i = 0; i < a->n; i++) {
		int pick_a = val(cond, i) != 0;

		w[i].in[0] = (double)val(cond, i);
		w[i].nin = 1;
		memcpy(w[i].bits, at(pick_a ? a : b, i), a->esize);
	}
	OPS_OK(rocjit_ops_where(fx.ops, stream, &cond->t, &a->t, &b->t, &y->t));
	finish(stream, y, w, M_BITS);
	case_end();
}

TEST(where_every_cond_and_value_type_and_layout_matches_cpu)
{
	ops_setup();
	for (size_t ci = 0; ci < COUNT(cond_types); ci++)
		for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++)
			for (int k = 0; k < (int)COUNT(ew_cases); k++)
				where_case(cond_types[ci], (rocjit_dtype)dt, k);
	ops_teardown();
}

/* ---- cast ---------------------------------------------------------------------------------- */

/*
 * Values every cast starts from besides random ones: ties of each narrower type, values
 * just off a tie (a detour through f32 turns 1 + 2^-11 + 2^-40 into the f16 tie 1 + 2^-11,
 * which then rounds the wrong way: a double rounding), subnormals, overflow, NaN, and the
 * edges of Rust's `as` saturation.
 */
static const double cast_f64_specials[] = {
	0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.9999, -0.9999, 1.5, -1.5, 2.5, -2.5, 255.0, 255.9,
	256.0, 300.7, -300.7, 65504.0, 65519.99, 65520.0, 65536.0, -65520.0, 1e10, -1e10,
	4294967295.0, 4294967295.5, 4294967296.0, 9.3e18, -9.3e18, 0x1p63, -0x1p63,
	0x1.fffffffffffffp62, 1e300, -1e300, 1e-300, -1e-300, INFINITY, -INFINITY, NAN, -NAN,
	/* f16: ties to even (down, up), just above and below a tie */
	0x1.002p0, 0x1.006p0, 0x1.002p0 + 0x1p-40, 0x1.002p0 - 0x1p-40, -(0x1.002p0 + 0x1p-40),
	/* bf16 */
	0x1.01p0, 0x1.03p0, 0x1.01p0 + 0x1p-40, 0x1.01p0 - 0x1p-40, -(0x1.01p0 + 0x1p-40),
	/* f32 */
	0x1.000001p0, 0x1.000003p0, 0x1.000001p0 + 0x1p-60,
	/* f16 subnormals: the least, a tie to 0, just above it, a tie to 2^-23, the rounding up
	 * to the least normal */
	0x1p-24, 0x1p-25, 0x1p-25 + 0x1p-50, 0x1.8p-24, 0x1p-14, 0x1p-14 - 0x1p-25,
	/* f32 and bf16 subnormals */
	0x1p-126, 0x1p-149, 0x1p-150, 0x1.8p-149, 0x1p-133, 0x1p-134, 0x1p-134 + 0x1p-160,
	0x1.fffffcp-127,
	/* overflow: f32's max, its tie with 2^128 (to infinity), just below; bf16's */
	0x1.fffffep127, 0x1.ffffffp127, 0x1.fffffefffffffp127, 0x1.fep127, 0x1.ffp127,
	0x1.fefffffffffffp127, -0x1.ffp127,
};

/* Exactly representable in f32. */
static const double cast_f32_specials[] = {
	0x1.002002p0, 0x1.001ffep0, 0x1.010002p0, 0x1.00fffep0, -0x1.010002p0,
	0x1.fffffep127, -0x1.fffffep127, 0x1.ffp127, 0x1.fefffep127,
	0x1p-149, -0x1p-149, 0x1p-134, 0x1.8p-133, 0x1.0002p-134, 0x1.fffffcp-127,
	0x1.ffep15, 0x1.ffdffep15, 0x1p-24, 0x1p-25, 0x1.000002p-25, 0x1.8p-24, 0x1.ffcp-15,
	0x1p32, 0x1.fffffep31, 0x1p63, -0x1p63, 0x1.fffffep62, 255.5, -0.75, 0x1p31,
};
static const uint32_t cast_f32_nan_bits[] = { 0x7f800001, 0xffc00001, 0x7fffffff };

static const int64_t cast_u32_specials[] = {
	0, 1, 255, 256, 257, 2047, 2049, 2051, 65504, 65519, 65520, 65535, 65536,
	16777216, 16777217, 16777219, 0x7fffffff, 0x80000000, 0x80000080, 0x80000081,
	0x80000180, 0xffffff7f, 0xffffff80, 0xffffffff,
};

#define P2(e) ((int64_t)1 << (e))
static const int64_t cast_i64_specials[] = {
	0, 1, -1, 255, 256, -256, 65519, 65520, -65520, -65519, 16777217, P2(53) + 1, P2(53) + 3,
	INT64_MAX, INT64_MIN, INT64_MIN + 1, P2(62) + P2(54) + 1, -(P2(62) + P2(54) + 1),
	P2(62) + P2(54), P2(60) + P2(36) + 1, P2(60) + P2(36), 4294967295, 4294967296,
	4294967297, -4294967295, 0x1234567890abcdef, -0x1234567890abcdef,
	INT64_MAX - P2(39) + 1, INT64_MAX - P2(38) + 1,
};

#define CAST_RANDOM 6144

static int64_t cast_count(rocjit_dtype st)
{
	switch (st) {
	case ROCJIT_F16:
	case ROCJIT_BF16: return 65536; /* every bit pattern */
	case ROCJIT_U8: return 256;
	case ROCJIT_F32:
		return (int64_t)(COUNT(cast_f64_specials) + COUNT(cast_f32_specials) +
				 COUNT(cast_f32_nan_bits)) + CAST_RANDOM;
	case ROCJIT_F64: return (int64_t)COUNT(cast_f64_specials) + CAST_RANDOM;
	case ROCJIT_U32: return (int64_t)COUNT(cast_u32_specials) + CAST_RANDOM;
	case ROCJIT_I64: return (int64_t)COUNT(cast_i64_specials) + CAST_RANDOM;
	}
	return 0;
}

/* Source value k of type st (0 <= k < cast_count(st)), a pure function of (st, k). */
static void cast_value(rocjit_dtype st, int64_t k, unsigned char *p)
{
	uint64_t r = mix64((uint64_t)k * 0x9e3779b97f4a7c15ull + (uint64_t)st);
	int64_t n64 = (int64_t)COUNT(cast_f64_specials), n32 = (int64_t)COUNT(cast_f32_specials);
	uint16_t h = (uint16_t)k;
	double v;

	switch (st) {
	case ROCJIT_F16:
	case ROCJIT_BF16:
		memcpy(p, &h, 2);
		return;
	case ROCJIT_U8:
		*p = (uint8_t)k;
		return;
	case ROCJIT_F64:
	case ROCJIT_F32:
		if (k < n64) {
			put_ld(st, p, cast_f64_specials[k]);
			return;
		}
		if (st == ROCJIT_F32 && (k -= n64) < n32) {
			put_ld(st, p, cast_f32_specials[k]);
			return;
		}
		if (st == ROCJIT_F32 && (k -= n32) < (int64_t)COUNT(cast_f32_nan_bits)) {
			memcpy(p, &cast_f32_nan_bits[k], 4);
			return;
		}
		break;
	case ROCJIT_U32:
		if (k < (int64_t)COUNT(cast_u32_specials)) {
			put_int(st, p, cast_u32_specials[k]);
			return;
		}
		break;
	case ROCJIT_I64:
		if (k < (int64_t)COUNT(cast_i64_specials)) {
			put_int(st, p, cast_i64_specials[k]);
			return;
		}
		break;
	}
	switch (r % 4) {
	case 0: /* any bits */
		memcpy(p, &r, dt_sizes[st]);
		return;
	case 1: /* around the f16 range, with fractions */
		v = (double)((int64_t)(r >> 8) % 140001 - 70000) + (double)(r & 0xff) / 256;
		break;
	case 2: /* small, on a grid of 1/8 */
		v = (double)((int64_t)(r >> 8) % 4801 - 2400) / 8;
		break;
	default: /* any magnitude, every significand bit */
		if (is_int(st)) {
			put_int(st, p, (int64_t)(r >> (r % 63 + 1)) * ((r >> 7) & 1 ? -1 : 1));
			return;
		}
		v = ldexp(1 + (double)(r >> 11) * 0x1p-53, (int)(r % 140) - 70);
		v = (r >> 9) & 1 ? -v : v;
		break;
	}
	if (is_int(st))
		put_int(st, p, (int64_t)v);
	else
		put_ld(st, p, v);
}

/* The header's conversion of one element, cross-checked against the compiler's own f16 and
 * f32 conversions (correctly rounded in one step) where it has them. */
static void cast_ref(rocjit_dtype st, const unsigned char *src, rocjit_dtype dt,
		     unsigned char *out)
{
	long double v = get_ld(st, src);
	float f;

	if (is_int(dt))
		put_int(dt, out, is_int(st) ? (int64_t)v : float_to_int(dt, v));
	else
		put_ld(dt, out, v);
	if (isnan(v))
		return;
	if (dt == ROCJIT_F32) {
		f = is_int(st) ? (float)(int64_t)v : (float)(double)v;
		if (memcmp(&f, out, 4) != 0)
			rj_test_fail(__FILE__, __LINE__, "reference bug: %.21Lg to f32 is %.9g by "
				     "the compiler but not by round_float_bits", v, f);
	}
#ifdef __FLT16_MAX__
	if (dt == ROCJIT_F16) {
		_Float16 hf = is_int(st) ? (_Float16)(int64_t)v : (_Float16)(double)v;

		if (memcmp(&hf, out, 2) != 0)
			rj_test_fail(__FILE__, __LINE__, "reference bug: %.21Lg to f16 differs from "
				     "the compiler's _Float16", v);
	}
#endif
}

/* The shapes of ew_cases a cast runs on besides the dense run over every value. */
static const int cast_shapes[] = { 0, 1, 7, 8, 9, 10, 11, 12, 13, 15, 17, 18 };

static void cast_case(rocjit_dtype st, rocjit_dtype dt, int k)
{
	static const char *const names[] = { "x", "y" };
	int64_t n = cast_count(st);
	const struct ew_case *c = k < 0 ? NULL : &ew_cases[k];
	void *stream = case_stream(k + 1);
	struct tens *x, *y;
	struct want *w;
	char shape[256];

	if (c && c->out == L_INPLACE && st != dt)
		return;
	if (c)
		ew_describe(shape, sizeof shape, c, 1, names);
	else
		snprintf(shape, sizeof shape, "%lld values, dense", (long long)n);
	set_case("cast %s -> %s, %s", dt_names[st], dt_names[dt], shape);
	rng_seed(5, (uint64_t)st, (uint64_t)dt, (uint64_t)(k + 1));
	x = c ? tens_new(st, c->ndim, c->dims, c->in[0]) : tens_new(st, 1, &n, L_DENSE);
	for (int64_t i = 0; i < x->n; i++)
		cast_value(st, c ? (int64_t)(rnd() % (uint64_t)n) : i, at(x, i));
	tens_up(x);
	y = c ? ew_out(c, dt, x) : out_new(dt, 1, &n, L_DENSE);
	w = wants(x->n);
	for (int64_t i = 0; i < x->n; i++) {
		w[i].in[0] = (double)val(x, i);
		w[i].nin = 1;
		cast_ref(st, at(x, i), dt, w[i].bits);
	}
	OPS_OK(rocjit_ops_cast(fx.ops, stream, &x->t, &y->t));
	finish(stream, y, w, M_BITS);
	case_end();
}

TEST(cast_every_type_pair_rounds_once_and_saturates_like_rust_as)
{
	ops_setup();
	for (int st = 0; st < ROCJIT_NUM_DTYPES; st++)
		for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++) {
			cast_case((rocjit_dtype)st, (rocjit_dtype)dt, -1);
			for (size_t s = 0; s < COUNT(cast_shapes); s++)
				cast_case((rocjit_dtype)st, (rocjit_dtype)dt, cast_shapes[s]);
		}
	ops_teardown();
}

/* ---- copy, copy2d, fill, arange --------------------------------------------------------------- */

/* A shape and the layouts of an input x and an output y (copy, argsort). */
struct xy_case {
	const char *what;
	int ndim;
	int64_t dims[MAXD];
	enum layout x, y;
};

static const struct xy_case copy_cases[] = {
	{ "scalar (ndim 0)", 0, { 0 }, L_DENSE, L_DENSE },
	{ "1 element", 1, { 1 }, L_DENSE, L_DENSE },
	{ "65537 elements", 1, { 65537 }, L_DENSE, L_DENSE },
	{ "1001", 1, { 1001 }, L_NEG, L_DENSE },
	{ "37x53", 2, { 37, 53 }, L_TRANS, L_DENSE },
	{ "5x6x7", 3, { 5, 6, 7 }, L_STEP, L_DENSE },
	{ "3x1x127", 3, { 3, 1, 127 }, L_STEP, L_DENSE },
	{ "37x53", 2, { 37, 53 }, L_ROW, L_DENSE },
	{ "37x53", 2, { 37, 53 }, L_COL, L_TRANS },
	{ "1001", 1, { 1001 }, L_SCALAR, L_DENSE },
	{ "37x53", 2, { 37, 53 }, L_DENSE, L_TRANS },
	{ "5x6x7", 3, { 5, 6, 7 }, L_DENSE, L_STEP },
	{ "129x509", 2, { 129, 509 }, L_DENSE, L_NEG },
	{ "129x509", 2, { 129, 509 }, L_TRANS, L_STEP },
	{ "2x3x1x4x5x3 (6-D)", 6, { 2, 3, 1, 4, 5, 3 }, L_TRANS, L_NEG },
	{ "empty (3x0x5)", 3, { 3, 0, 5 }, L_TRANS, L_DENSE },
};

TEST(copy_strided_to_dense_and_dense_to_strided_is_bit_exact)
{
	ops_setup();
	for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++)
		for (int k = 0; k < (int)COUNT(copy_cases); k++) {
			const struct xy_case *c = &copy_cases[k];
			void *stream = case_stream(k);
			struct tens *x, *y;
			struct want *w;

			set_case("copy %s, %s (x %s, y %s)", dt_names[dt], c->what,
				 layout_names[c->x], layout_names[c->y]);
			rng_seed(6, (uint64_t)dt, (uint64_t)k, 0);
			x = tens_new((rocjit_dtype)dt, c->ndim, c->dims, c->x);
			fill_bits(x);
			y = out_new((rocjit_dtype)dt, c->ndim, c->dims, c->y);
			w = wants(x->n);
			for (int64_t i = 0; i < x->n; i++)
				memcpy(w[i].bits, at(x, i), x->esize);
			OPS_OK(rocjit_ops_copy(fx.ops, stream, &x->t, &y->t));
			finish(stream, y, w, M_BITS);
			case_end();
		}
	ops_teardown();
}

struct copy2d_case {
	int64_t rows, cols, src_stride, dst_stride;
};

static const struct copy2d_case copy2d_cases[] = {
	{ 1, 1, 1, 1 },           { 3, 5, 7, 9 },      { 37, 53, 53, 60 },
	{ 1000, 3, 3, 4 },        { 1, 65537, 65537, 65537 }, { 64, 1001, 1001, 1001 },
	{ 129, 509, 600, 509 },   { 7, 4, 0, 4 },      { 5, 0, 3, 4 },
	{ 0, 5, 5, 5 },
};

/* The same element, any NaN matching any NaN. */
static int same_element(rocjit_dtype dt, const unsigned char *p, const unsigned char *q)
{
	return memcmp(p, q, dt_sizes[dt]) == 0 ||
	       (!is_int(dt) && isnan(get_ld(dt, p)) && isnan(get_ld(dt, q)));
}

TEST(copy2d_every_type_copies_the_rows_and_leaves_the_rest)
{
	ops_setup();
	for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++)
		for (int k = 0; k < (int)COUNT(copy2d_cases); k++) {
			const struct copy2d_case *c = &copy2d_cases[k];
			int empty = c->rows == 0 || c->cols == 0;
			int64_t ns = empty ? 0 : (c->rows - 1) * c->src_stride + c->cols;
			int64_t nd = empty ? 0 : (c->rows - 1) * c->dst_stride + c->cols;
			size_t es = dt_sizes[dt];
			void *stream = case_stream(k);
			struct tens *src, *dst;
			unsigned char *expect;

			set_case("copy2d %s, %lld rows x %lld columns, src stride %lld, dst stride "
				 "%lld", dt_names[dt], (long long)c->rows, (long long)c->cols,
				 (long long)c->src_stride, (long long)c->dst_stride);
			rng_seed(7, (uint64_t)dt, (uint64_t)k, 0);
			src = tens_new((rocjit_dtype)dt, 1, &ns, L_DENSE);
			fill_bits(src);
			dst = out_new((rocjit_dtype)dt, 1, &nd, L_DENSE);
			expect = case_alloc((size_t)dst->len * es);
			memcpy(expect, dst->host, (size_t)dst->len * es);
			for (int64_t r = 0; r < c->rows; r++)
				for (int64_t j = 0; j < c->cols; j++)
					memcpy(expect + (size_t)(dst->origin + r * c->dst_stride + j) * es,
					       at(src, r * c->src_stride + j), es);
			OPS_OK(rocjit_ops_copy2d(fx.ops, stream, (rocjit_dtype)dt, src->t.data,
						 dst->t.data, c->rows, c->cols, c->src_stride,
						 c->dst_stride));
			sync_case(stream);
			tens_down(dst);
			for (int64_t s = 0; s < dst->len; s++)
				if (!same_element((rocjit_dtype)dt, dst->host + (size_t)s * es,
						  expect + (size_t)s * es))
					rj_test_fail(__FILE__, __LINE__, "%s: dst element %lld (row "
						     "%lld, column %lld, counting from the view's "
						     "start) is wrong", case_desc,
						     (long long)(s - dst->origin),
						     c->dst_stride ? (long long)((s - dst->origin) /
									  c->dst_stride) : 0LL,
						     c->dst_stride ? (long long)((s - dst->origin) %
									  c->dst_stride) : 0LL);
			case_end();
		}
	ops_teardown();
}

/* A value of each type with distinct bytes (little-endian: the low bytes are the element). */
static const uint64_t fill_values[ROCJIT_NUM_DTYPES] = {
	0xc0b60000,         /* f32 -5.6875   */
	0xc0a0,             /* f16 -2.5      */
	0x4049,             /* bf16 3.140625 */
	0x400921fb54442d18, /* f64 pi        */
	0xa7, 0xdeadbeef, 0xfedcba9876543210,
};

/* The output layout of an elementwise case when it has no input. */
static enum layout out_layout(const struct ew_case *c)
{
	return c->out == L_INPLACE ? c->in[0] : c->out;
}

TEST(fill_every_type_and_layout_writes_the_value_bits)
{
	static const char *const names[] = { "y" };

	ops_setup();
	for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++)
		for (int k = 0; k < (int)COUNT(ew_cases); k++) {
			const struct ew_case *c = &ew_cases[k];
			void *stream = case_stream(k);
			struct tens *y;
			struct want *w;
			char shape[256];

			ew_describe(shape, sizeof shape, c, 0, names);
			set_case("fill %s, %s", dt_names[dt], shape);
			y = out_new((rocjit_dtype)dt, c->ndim, c->dims, out_layout(c));
			w = wants(y->n);
			for (int64_t i = 0; i < y->n; i++)
				memcpy(w[i].bits, &fill_values[dt], y->esize);
			OPS_OK(rocjit_ops_fill(fx.ops, stream, &y->t, &fill_values[dt]));
			finish(stream, y, w, M_BITS);
			case_end();
		}
	ops_teardown();
}

struct arange_case {
	double start, step;
	int types;  /* 0: floats, 1: integers, 2: both */
	int exact;  /* every start + i step exact in f64 */
};

static const struct arange_case arange_cases[] = {
	{ -3.25, 0.125, 0, 1 },
	{ 1e4, -0.5, 0, 1 },
	{ 1, 0.1, 0, 0 },
	{ 0, 1, 2, 1 }, /* f16 reaches 65536: infinity */
	{ 250, 3, 1, 1 },
	{ -3, 1, 1, 1 },
	{ 4294967290.0, 1, 1, 1 },
	{ -5, -7, 1, 1 },
	{ 9007199254740991.0, 1000, 1, 1 }, /* beyond 2^53: exact only in integers */
};

static void arange_case(const struct arange_case *a, int ai, rocjit_dtype dt, int k)
{
	static const char *const names[] = { "y" };
	const struct ew_case *c = &ew_cases[k];
	void *stream = case_stream(k + ai);
	struct tens *y;
	struct want *w;
	char shape[256];

	ew_describe(shape, sizeof shape, c, 0, names);
	set_case("arange %s start %.17g step %.17g, %s", dt_names[dt], a->start, a->step, shape);
	y = out_new(dt, c->ndim, c->dims, out_layout(c));
	w = wants(y->n);
	for (int64_t i = 0; i < y->n; i++) {
		if (is_int(dt)) {
			uint64_t s0 = (uint64_t)(int64_t)a->start, st = (uint64_t)(int64_t)a->step;

			w[i].v = (int64_t)(s0 + (uint64_t)i * st);
		} else {
			double d = a->start + (double)i * a->step;

			w[i].v = d;
			w[i].extra = a->exact ? 0 : ulp_of(dt, d);
		}
	}
	OPS_OK(rocjit_ops_arange(fx.ops, stream, &y->t, a->start, a->step));
	finish(stream, y, w, is_int(dt) || a->exact ? M_EXACT : M_TOL);
	case_end();
}

TEST(arange_every_type_and_layout_matches_cpu_integers_wrap)
{
	ops_setup();
	for (int ai = 0; ai < (int)COUNT(arange_cases); ai++)
		for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++) {
			if (arange_cases[ai].types != 2 &&
			    arange_cases[ai].types != is_int((rocjit_dtype)dt))
				continue;
			for (int k = 0; k < (int)COUNT(ew_cases); k++)
				arange_case(&arange_cases[ai], ai, (rocjit_dtype)dt, k);
		}
	ops_teardown();
}

/* ---- Reductions -------------------------------------------------------------------------------- */

static const char *const reduce_names[ROCJIT_NUM_REDUCE_OPS] = { "sum", "min", "max", "argmin",
								 "argmax", "mean" };

struct red_case {
	const char *what;
	int ndim;
	int64_t dims[MAXD];
	enum layout lay;
	int dim;
};

static const struct red_case red_cases[] = {
	{ "1 element", 1, { 1 }, L_DENSE, 0 },
	{ "1001", 1, { 1001 }, L_DENSE, 0 },
	{ "65537", 1, { 65537 }, L_NEG, 0 },
	{ "2^20+3", 1, { (1 << 20) + 3 }, L_DENSE, 0 },
	{ "37x53", 2, { 37, 53 }, L_DENSE, 0 },
	{ "37x53", 2, { 37, 53 }, L_DENSE, 1 },
	{ "37x53", 2, { 37, 53 }, L_TRANS, 0 },
	{ "37x53", 2, { 37, 53 }, L_TRANS, 1 },
	{ "5x129x7", 3, { 5, 129, 7 }, L_STEP, 0 },
	{ "5x129x7", 3, { 5, 129, 7 }, L_STEP, 1 },
	{ "5x129x7", 3, { 5, 129, 7 }, L_STEP, 2 },
	{ "3x4x5x6", 4, { 3, 4, 5, 6 }, L_NEG, 2 },
	{ "1000x37", 2, { 1000, 37 }, L_ROW, 0 },
	{ "1000x37", 2, { 1000, 37 }, L_COL, 1 },
	{ "9x11", 2, { 9, 11 }, L_SCALAR, 1 },
	{ "3x70001", 2, { 3, 70001 }, L_DENSE, 1 },
	{ "70001x3", 2, { 70001, 3 }, L_TRANS, 0 },
	{ "2x3x1x2x1x3 (6-D)", 6, { 2, 3, 1, 2, 1, 3 }, L_DENSE, 4 },
	{ "2x3x1x2x1x3 (6-D)", 6, { 2, 3, 1, 2, 1, 3 }, L_TRANS, 2 },
	{ "0x5 (no outputs)", 2, { 0, 5 }, L_DENSE, 1 },
	{ "4x0 (an empty dim)", 2, { 4, 0 }, L_DENSE, 1 },
};

/*
 * The data of the three passes over each case:
 *   0: small integers, many ties - sums exact in any order;
 *   1: fractions (floats), any bits (integers: the sums wrap) - sums within tolerance;
 *   2: multiples of 1/2 with NaN and +-inf (floats), small values mixed with any bits.
 * f16 fractions shrink with the length reduced so that the sums stay finite.
 */
static struct dom reduce_dom(int pass, rocjit_dtype dt, int64_t len)
{
	struct dom small = { -4, 5, 1, 0, 0, -4, 8, 0 };
	struct dom halves = { -4, 4, 0.5, 0, 1, -4, 8, 1 };
	struct dom frac = { -0.25, 1, 1.0 / 1024, 0, 0, 0, 0, 0 };

	if (pass == 0)
		return small;
	if (pass == 2)
		return halves;
	while (dt == ROCJIT_F16 && (double)len * frac.hi > 16384) {
		frac.lo /= 2;
		frac.hi /= 2;
		frac.q /= 2;
	}
	frac.specials = is_int(dt); /* integers: 0, 1, min and max among any bits */
	return frac;
}

/* Fills the want arrays of every op for x reduced over dim (y dense: outer x inner). */
static void reduce_refs(const struct tens *x, int dim, int pass, struct want *w[])
{
	rocjit_dtype dt = x->t.dtype;
	int64_t len = x->t.dims[dim], inner = 1, outer = 1;
	double u = is_int(dt) ? 0 : acc_u[dt];

	for (int d = 0; d < x->t.ndim; d++)
		if (d < dim)
			outer *= x->t.dims[d];
		else if (d > dim)
			inner *= x->t.dims[d];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t in = 0; in < inner; in++) {
			int64_t e = o * inner + in, imin = -1, imax = -1, inan = -1;
			long double s = 0, sabs = 0, vmin = 0, vmax = 0;
			uint64_t isum = 0;

			for (int64_t j = 0; j < len; j++) {
				long double v = val(x, (o * len + j) * inner + in);

				s += v;
				sabs += fabsl(v);
				isum += is_int(dt) ? (uint64_t)(int64_t)v : 0;
				if (isnan(v)) {
					inan = inan < 0 ? j : inan;
					continue;
				}
				if (imin < 0 || v < vmin) {
					vmin = v;
					imin = j;
				}
				if (imax < 0 || v > vmax) {
					vmax = v;
					imax = j;
				}
			}
			w[ROCJIT_SUM][e].v = is_int(dt) ? (long double)(int64_t)isum : s;
			w[ROCJIT_SUM][e].mag = (double)fabsl(s);
			w[ROCJIT_SUM][e].extra = (double)(pass == 1 ? 4 * u * sqrt((double)len) * sabs : 0);
			w[ROCJIT_MEAN][e].v = len ? s / len : NAN;
			w[ROCJIT_MEAN][e].mag = (double)(len ? fabsl(s / len) : 0);
			w[ROCJIT_MEAN][e].extra =
				(double)(len ? 4 * u * sqrt((double)len) * sabs / len : 0);
			w[ROCJIT_MIN_R][e].v = inan >= 0 ? NAN : vmin;
			w[ROCJIT_MAX_R][e].v = inan >= 0 ? NAN : vmax;
			w[ROCJIT_ARGMIN][e].v = inan >= 0 ? inan : imin;
			w[ROCJIT_ARGMAX][e].v = inan >= 0 ? inan : imax;
		}
}

/*
 * One reduction of x, y keeping dim as 1 or dropping it; workspace: 0 none, 1 the size
 * rocjit_ops_reduce_workspace asks for, 2 one byte less (allowed: it must not be used).
 */
static void reduce_run(rocjit_reduce_op op, const struct tens *x, const struct red_case *c,
		       int pass, int keep, int ws_mode, const struct want *w, void *stream)
{
	static const char *const ws_names[] = { "no workspace", "the workspace it asks for",
						"a workspace one byte short" };
	rocjit_dtype dt = x->t.dtype, ydt = op == ROCJIT_ARGMIN || op == ROCJIT_ARGMAX ?
						     ROCJIT_U32 : dt;
	int64_t ydims[MAXD], len = c->dims[c->dim];
	int yndim = 0;
	size_t ws = rocjit_ops_reduce_workspace(op, &x->t, c->dim), ws_size = 0;
	void *work = NULL;
	struct tens *y;

	for (int d = 0; d < c->ndim; d++)
		if (d != c->dim || keep)
			ydims[yndim++] = d == c->dim ? 1 : c->dims[d];
	set_case("reduce %s %s over dim %d of %s (x %s, y %s, data pass %d, %s: %zu bytes)",
		 reduce_names[op], dt_names[dt], c->dim, c->what, layout_names[c->lay],
		 keep ? "keeping the dim" : "dropping the dim", pass, ws_names[ws_mode], ws);
	if (ws_mode > 0 && ws > (ws_mode == 2)) {
		work = arena_take(ws);
		ws_size = ws - (ws_mode == 2);
	}
	y = out_new(ydt, yndim, ydims, L_DENSE);
	if (len == 0 && y->n > 0 && op != ROCJIT_SUM && op != ROCJIT_MEAN) {
		OPS_FAILS(rocjit_ops_reduce(fx.ops, stream, op, &x->t, c->dim, &y->t, work,
					    ws_size),
			  ROCJIT_EINVAL);
		sync_case(stream);
		tens_down(y);
		check_untouched(y);
		return;
	}
	OPS_OK(rocjit_ops_reduce(fx.ops, stream, op, &x->t, c->dim, &y->t, work, ws_size));
	finish(stream, y, w,
	       is_int(dt) || op == ROCJIT_MIN_R || op == ROCJIT_MAX_R || op == ROCJIT_ARGMIN ||
			       op == ROCJIT_ARGMAX || (op == ROCJIT_SUM && pass != 1) ?
		       M_EXACT :
		       M_TOL);
}

TEST(reduce_every_op_type_and_dim_matches_cpu_with_and_without_workspace)
{
	ops_setup();
	for (int k = 0; k < (int)COUNT(red_cases); k++)
		for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++)
			for (int pass = 0; pass < 3; pass++) {
				const struct red_case *c = &red_cases[k];
				struct dom dom = reduce_dom(pass, (rocjit_dtype)dt, c->dims[c->dim]);
				struct want *w[ROCJIT_NUM_REDUCE_OPS];
				struct tens *x;
				struct mark m;
				int64_t outs = 1, ydims[MAXD];

				set_case("reduce %s over dim %d of %s: data", dt_names[dt], c->dim,
					 c->what);
				rng_seed(8, (uint64_t)k, (uint64_t)dt, (uint64_t)pass);
				x = tens_new((rocjit_dtype)dt, c->ndim, c->dims, c->lay);
				fill(x, &dom);
				for (int d = 0; d < c->ndim; d++)
					if (d != c->dim)
						ydims[d - (d > c->dim)] = c->dims[d];
				outs = numel(c->ndim - 1, ydims);
				for (int op = 0; op < ROCJIT_NUM_REDUCE_OPS; op++)
					w[op] = wants(outs);
				reduce_refs(x, c->dim, pass, w);
				m = case_mark();
				for (int op = 0; op < ROCJIT_NUM_REDUCE_OPS; op++) {
					void *stream = case_stream(k + op + pass);

					if (op == ROCJIT_MEAN && is_int((rocjit_dtype)dt)) {
						struct tens *y = out_new((rocjit_dtype)dt, c->ndim - 1,
									 ydims, L_DENSE);

						set_case("reduce mean on %s", dt_names[dt]);
						OPS_FAILS(rocjit_ops_reduce(fx.ops, NULL, ROCJIT_MEAN,
									    &x->t, c->dim, &y->t, NULL,
									    0),
							  ROCJIT_EUNSUPPORTED);
						case_release(m);
						continue;
					}
					for (int ws = 0; ws < (pass == 0 ? 3 : 1); ws++) {
						reduce_run((rocjit_reduce_op)op, x, c, pass,
							   (k + pass + ws) % 2,
							   pass == 0 ? ws : (pass + k) % 3, w[op],
							   stream);
						case_release(m);
					}
				}
				case_end();
			}
	ops_teardown();
}

/* ---- softmax, log_softmax, layer_norm, rms_norm: row operations --------------------------- */

struct row_case {
	const char *what;
	int ndim;
	int64_t dims[MAXD];
	enum layout x, y;
	enum layout alpha, beta; /* the norms' optional operands (L_NONE: NULL) */
	double eps;
};

static const struct row_case row_cases[] = {
	{ "1x1", 2, { 1, 1 }, L_DENSE, L_DENSE, L_NONE, L_NONE, 1e-5 },
	{ "5x3", 2, { 5, 3 }, L_DENSE, L_DENSE, L_DENSE, L_DENSE, 1e-5 },
	{ "1000x7", 2, { 1000, 7 }, L_DENSE, L_DENSE, L_DENSE, L_NONE, 1e-5 },
	{ "37x127", 2, { 37, 127 }, L_TRANS, L_DENSE, L_NONE, L_DENSE, 1e-5 },
	{ "3x1001", 2, { 3, 1001 }, L_STEP, L_NEG, L_STEP, L_NEG, 1e-5 },
	{ "2x4096", 2, { 2, 4096 }, L_DENSE, L_TRANS, L_SCALAR, L_DENSE, 1e-5 },
	{ "1x65537", 2, { 1, 65537 }, L_DENSE, L_DENSE, L_DENSE, L_DENSE, 1e-5 },
	{ "1001 (1-D: one row)", 1, { 1001 }, L_DENSE, L_DENSE, L_DENSE, L_DENSE, 0.1 },
	{ "300x64", 2, { 300, 64 }, L_DENSE, L_STEP, L_NEG, L_SCALAR, 1e-5 },
	{ "2x3x50", 3, { 2, 3, 50 }, L_ROW, L_DENSE, L_DENSE, L_NONE, 1e-5 },
	/* constant rows: softmax uniform; layer_norm skips it (a zero variance makes it
	 * amplify rounding of the mean by 1/sqrt(eps)) */
	{ "37x53", 2, { 37, 53 }, L_COL, L_STEP, L_DENSE, L_DENSE, 1e-5 },
	{ "2x3x1x4x5x3 (6-D)", 6, { 2, 3, 1, 4, 5, 3 }, L_NEG, L_DENSE, L_DENSE, L_DENSE, 1e-5 },
	{ "0x5 (no rows)", 2, { 0, 5 }, L_DENSE, L_DENSE, L_DENSE, L_DENSE, 1e-5 },
	{ "5x0 (empty rows)", 2, { 5, 0 }, L_DENSE, L_DENSE, L_NONE, L_NONE, 1e-5 },
};

enum row_op { R_SOFTMAX, R_LOG_SOFTMAX, R_LAYER_NORM, R_RMS_NORM };
static const char *const row_names[] = { "softmax", "log_softmax", "layer_norm", "rms_norm" };

static int row_call(enum row_op op, void *stream, const struct tens *x, const struct tens *alpha,
		    const struct tens *beta, const struct tens *y, double eps)
{
	switch (op) {
	case R_SOFTMAX: return rocjit_ops_softmax(fx.ops, stream, &x->t, &y->t);
	case R_LOG_SOFTMAX: return rocjit_ops_log_softmax(fx.ops, stream, &x->t, &y->t);
	case R_LAYER_NORM:
		return rocjit_ops_layer_norm(fx.ops, stream, &x->t, alpha ? &alpha->t : NULL,
					     beta ? &beta->t : NULL, &y->t, eps);
	case R_RMS_NORM:
		return rocjit_ops_rms_norm(fx.ops, stream, &x->t, alpha ? &alpha->t : NULL, &y->t,
					   eps);
	}
	return ROCJIT_EINVAL;
}

/* The reference of one row (elements r * n .. r * n + n - 1 of x). */
static void row_ref(enum row_op op, const struct tens *x, const struct tens *alpha,
		    const struct tens *beta, double eps, int64_t r, int64_t n, struct want *w)
{
	double u = acc_u[x->t.dtype], grow = sqrt((double)n);
	long double mx = -INFINITY, s = 0, mean = 0, var = 0, sq = 0, rs;

	for (int64_t j = 0; j < n; j++) {
		long double v = val(x, r * n + j);

		mx = v > mx ? v : mx;
		mean += v;
		sq += v * v;
	}
	mean /= n;
	for (int64_t j = 0; j < n; j++) {
		long double v = val(x, r * n + j);

		s += expl(v - mx);
		var += (v - mean) * (v - mean);
	}
	var /= n;
	for (int64_t j = 0; j < n; j++) {
		struct want *e = &w[r * n + j];
		long double v = val(x, r * n + j), a = alpha ? val(alpha, j) : 1;
		long double b = beta ? val(beta, j) : 0;

		e->in[0] = (double)v;
		e->nin = 1;
		switch (op) {
		case R_SOFTMAX:
			e->v = expl(v - mx) / s;
			e->mag = (double)fabsl(e->v);
			e->extra = 4 * u * grow * e->mag;
			break;
		case R_LOG_SOFTMAX:
			e->v = v - mx - logl(s);
			e->mag = (double)(fabsl(v - mx) + fabsl(logl(s)));
			e->extra = 4 * u * grow;
			break;
		case R_LAYER_NORM:
			rs = 1 / sqrtl(var + eps);
			e->v = (v - mean) * rs * a + b;
			e->mag = (double)(fabsl((v - mean) * rs * a) + fabsl(b));
			e->extra = (double)(8 * u * grow * (e->mag + fabsl(a)));
			break;
		case R_RMS_NORM:
			e->v = v / sqrtl(sq / n + eps) * a;
			e->mag = (double)fabsl(e->v);
			e->extra = 8 * u * grow * e->mag;
			break;
		}
	}
}

static void row_case(enum row_op op, rocjit_dtype dt, int k)
{
	static const struct dom xs = FLT(-10, 10, 1.0 / 64, 0, 0), xn = FLT(-2, 3, 1.0 / 256, 0, 0);
	static const struct dom as = FLT(0.5, 1.5, 1.0 / 256, 0, 0), bs = FLT(-1, 1, 1.0 / 256, 0, 0);
	const struct row_case *c = &row_cases[k];
	int norm = op >= R_LAYER_NORM;
	int64_t n = c->ndim ? c->dims[c->ndim - 1] : 1, rows = numel(c->ndim, c->dims) / ext1(n);
	enum layout al = norm ? c->alpha : L_NONE, bl = op == R_LAYER_NORM ? c->beta : L_NONE;
	void *stream = case_stream(k + (int)op);
	struct tens *x, *y, *alpha = NULL, *beta = NULL;
	struct want *w;

	if (op == R_LAYER_NORM && c->x == L_COL)
		return;
	if (n == 0)
		rows = numel(c->ndim - 1, c->dims);
	set_case("%s %s, %s (x %s, y %s, alpha %s, beta %s, eps %g)", row_names[op], dt_names[dt],
		 c->what, layout_names[c->x], layout_names[c->y], layout_names[al],
		 layout_names[bl], c->eps);
	rng_seed(9, (uint64_t)op, (uint64_t)dt, (uint64_t)k);
	x = tens_new(dt, c->ndim, c->dims, c->x);
	fill(x, norm ? &xn : &xs);
	if (al != L_NONE) {
		alpha = tens_new(dt, 1, &n, al);
		fill(alpha, &as);
	}
	if (bl != L_NONE) {
		beta = tens_new(dt, 1, &n, bl);
		fill(beta, &bs);
	}
	y = out_new(dt, c->ndim, c->dims, c->y);
	w = wants(x->n);
	for (int64_t r = 0; r < rows && n > 0; r++)
		row_ref(op, x, alpha, beta, c->eps, r, n, w);
	OPS_OK(row_call(op, stream, x, alpha, beta, y, c->eps));
	finish(stream, y, w, M_TOL);
	case_end();
}

TEST(softmax_log_softmax_layer_norm_rms_norm_every_float_type_and_layout_match_cpu)
{
	ops_setup();
	for (int op = R_SOFTMAX; op <= R_RMS_NORM; op++)
		for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++) {
			if (is_int((rocjit_dtype)dt)) {
				struct tens *x = out_new((rocjit_dtype)dt, 1, three, L_DENSE);
				struct tens *y = out_new((rocjit_dtype)dt, 1, three, L_DENSE);

				set_case("%s on %s", row_names[op], dt_names[dt]);
				OPS_FAILS(row_call((enum row_op)op, NULL, x, NULL, NULL, y, 1e-5),
					  ROCJIT_EUNSUPPORTED);
				case_end();
				continue;
			}
			for (int k = 0; k < (int)COUNT(row_cases); k++)
				row_case((enum row_op)op, (rocjit_dtype)dt, k);
		}
	ops_teardown();
}

/* ---- Indexing ----------------------------------------------------------------------------- */

static const rocjit_dtype id_types[] = { ROCJIT_U8, ROCJIT_U32, ROCJIT_I64 };

/*
 * Indices into an extent of bound: mostly in range, one in eight out of it - at the bound,
 * far past it, negative (i64), and 2^32 (i64: 0 if truncated to 32 bits).
 */
static void fill_ids(struct tens *ids, int64_t bound)
{
	rocjit_dtype dt = ids->t.dtype;

	for (int64_t i = 0; i < ids->n; i++) {
		int64_t v, limit = dt == ROCJIT_U8 && bound > 256 ? 256 : bound;

		if (limit > 0 && rnd() % 8 != 0)
			v = rnd_range(0, limit - 1);
		else if (dt == ROCJIT_U8)
			v = bound < 255 ? rnd_range(bound, 255) : 255;
		else if (dt == ROCJIT_U32)
			v = rnd() % 2 ? bound : 0xffffffff;
		else
			switch (rnd() % 5) {
			case 0: v = -1; break;
			case 1: v = -bound - 1; break;
			case 2: v = bound; break;
			case 3: v = INT64_MIN; break;
			default: v = (int64_t)1 << 32; break;
			}
		put_int(dt, at(ids, i), v);
	}
	tens_up(ids);
}

/* Index i of ids, or -1 when it is out of [0, bound). */
static int64_t id_at(const struct tens *ids, int64_t i, int64_t bound)
{
	int64_t v = (int64_t)val(ids, i);

	return v >= 0 && v < bound ? v : -1;
}

/* Element i of a tensor of extents from, its coordinate dim replaced by j: its index in a
 * tensor of extents to (the same but along dim). */
static int64_t with_coord(int ndim, const int64_t *from, const int64_t *to, int64_t i, int dim,
			  int64_t j)
{
	int64_t c[MAXD], out = 0;

	for (int d = ndim - 1; d >= 0; d--) {
		c[d] = i % from[d];
		i /= from[d];
	}
	c[dim] = j;
	for (int d = 0; d < ndim; d++)
		out = out * to[d] + c[d];
	return out;
}

/* Coordinate dim of element i. */
static int64_t coord_of(int ndim, const int64_t *dims, int64_t i, int dim)
{
	for (int d = ndim - 1; d > dim; d--)
		i /= dims[d];
	return i % dims[dim];
}

/* Values for the index operations: finite (they move values, they do not compute). */
static const struct dom index_values = FLT(-100, 100, 1.0 / 8, 0, 0);
/* For the adds: small integers, exact in every type whatever the order of the sums. */
static const struct dom add_values = { -4, 5, 1, 0, 0, -4, 8, 1 };

struct index_case {
	const char *what;
	int ndim;
	int64_t dims[MAXD]; /* x (index_select, gather) or dst (scatter_add, index_add) */
	enum layout x;
	int dim;
	int64_t m;          /* the ids' extent along dim */
	enum layout ids, y; /* y: the output of select/gather, src of the adds */
};

static const struct index_case index_cases[] = {
	{ "5x7x3", 3, { 5, 7, 3 }, L_DENSE, 0, 4, L_DENSE, L_DENSE },
	{ "5x7x3", 3, { 5, 7, 3 }, L_DENSE, 1, 9, L_STEP, L_DENSE },
	{ "5x7x3", 3, { 5, 7, 3 }, L_STEP, 2, 6, L_NEG, L_STEP },
	{ "7x5", 2, { 7, 5 }, L_TRANS, 1, 11, L_DENSE, L_NEG },
	{ "9x11", 2, { 9, 11 }, L_TRANS, 0, 20, L_STEP, L_TRANS },
	{ "65537", 1, { 65537 }, L_DENSE, 0, 1001, L_DENSE, L_DENSE },
	{ "1001", 1, { 1001 }, L_NEG, 0, 5000, L_DENSE, L_DENSE },
	{ "1001x64", 2, { 1001, 64 }, L_DENSE, 0, 300, L_DENSE, L_TRANS },
	{ "2x3x1x4x5x3 (6-D)", 6, { 2, 3, 1, 4, 5, 3 }, L_NEG, 3, 7, L_DENSE, L_STEP },
	{ "5x7", 2, { 5, 7 }, L_DENSE, 1, 6, L_SCALAR, L_DENSE },
	{ "5x7", 2, { 5, 7 }, L_DENSE, 0, 0, L_DENSE, L_DENSE },
	{ "1", 1, { 1 }, L_DENSE, 0, 3, L_DENSE, L_DENSE },
};

enum index_op { I_SELECT, I_GATHER, I_SCATTER_ADD, I_INDEX_ADD };
static const char *const index_names[] = { "index_select", "gather", "scatter_add",
					   "index_add" };

static int index_call(enum index_op op, void *stream, const struct tens *x,
		      const struct tens *ids, int dim, const struct tens *y)
{
	switch (op) {
	case I_SELECT: return rocjit_ops_index_select(fx.ops, stream, &x->t, &ids->t, dim, &y->t);
	case I_GATHER: return rocjit_ops_gather(fx.ops, stream, &x->t, &ids->t, dim, &y->t);
	case I_SCATTER_ADD:
		return rocjit_ops_scatter_add(fx.ops, stream, &x->t, &ids->t, &y->t, dim);
	case I_INDEX_ADD: return rocjit_ops_index_add(fx.ops, stream, &x->t, &ids->t, &y->t, dim);
	}
	return ROCJIT_EINVAL;
}

/* Adds a value of dt to a want: integers wrap, floats sum exactly (long double). */
static void want_add(rocjit_dtype dt, struct want *w, long double v)
{
	if (is_int(dt))
		w->v = (int64_t)((uint64_t)(int64_t)w->v + (uint64_t)(int64_t)v);
	else
		w->v += v;
	w->mag += (double)fabsl(v);
}

/*
 * One case of one index op.  x is the source (select, gather) or the destination (the
 * adds, updated in place); "y" the output (select, gather) or the source of the adds.
 * frac: f32 scatter_add/index_add of fractions, run twice to prove the result does not
 * depend on scheduling (bit for bit), checked within the sum tolerance.
 */
static void index_case(enum index_op op, rocjit_dtype dt, rocjit_dtype idt, int k, int frac)
{
	const struct index_case *c = &index_cases[k];
	int adds = op >= I_SCATTER_ADD, gatherish = op == I_GATHER || op == I_SCATTER_ADD;
	int64_t ydims[MAXD], iddims[MAXD], bound = c->dims[c->dim];
	void *stream = case_stream(k + (int)op);
	struct tens *x, *ids, *y, *dst;
	struct want *w;
	unsigned char *first = NULL;
	static const struct dom fracs = FLT(-1, 1, 1.0 / 4096, 0, 0);

	for (int d = 0; d < c->ndim; d++)
		ydims[d] = d == c->dim ? c->m : c->dims[d];
	for (int d = 0; d < MAXD; d++)
		iddims[d] = gatherish ? ydims[d] : c->m;
	set_case("%s %s, ids %s, %s along dim %d, %lld ids (%s %s, ids %s, %s %s)%s",
		 index_names[op], dt_names[dt], dt_names[idt], c->what, c->dim, (long long)c->m,
		 adds ? "dst" : "x", layout_names[c->x], layout_names[c->ids],
		 adds ? "src" : "y", layout_names[c->y], frac ? ", fractions, twice" : "");
	rng_seed(10, (uint64_t)op * 16 + (uint64_t)frac, (uint64_t)(dt * 8 + idt), (uint64_t)k);
	x = tens_new(dt, c->ndim, c->dims, c->x);
	ids = tens_new(idt, gatherish ? c->ndim : 1, iddims, c->ids);
	fill_ids(ids, bound);
	if (adds) {
		y = tens_new(dt, c->ndim, ydims, c->y);
		fill(x, frac ? &fracs : &add_values);
		fill(y, frac ? &fracs : &add_values);
		dst = x;
	} else {
		fill(x, &index_values);
		y = out_new(dt, c->ndim, ydims, c->y);
		dst = y;
	}
	w = wants(dst->n);
	if (adds) {
		for (int64_t i = 0; i < x->n; i++) {
			w[i].v = val(x, i);
			w[i].mag = (double)fabsl(w[i].v);
		}
		for (int64_t i = 0; i < y->n; i++) {
			int64_t j = id_at(ids, gatherish ? i : coord_of(c->ndim, ydims, i, c->dim),
					  bound);

			if (j >= 0)
				want_add(dt, &w[with_coord(c->ndim, ydims, c->dims, i, c->dim, j)],
					 val(y, i));
		}
		for (int64_t i = 0; i < x->n; i++)
			w[i].extra = is_int(dt) ? 0 : 4 * acc_u[dt] * w[i].mag;
	} else {
		for (int64_t i = 0; i < y->n; i++) {
			int64_t j = id_at(ids, gatherish ? i : coord_of(c->ndim, ydims, i, c->dim),
					  bound);

			w[i].nin = 1;
			w[i].in[0] = (double)val(ids, gatherish ? i : coord_of(c->ndim, ydims, i,
									      c->dim));
			w[i].v = j < 0 ? 0 : val(x, with_coord(c->ndim, ydims, c->dims, i, c->dim, j));
		}
	}
	OPS_OK(index_call(op, stream, x, ids, c->dim, y));
	if (frac) {
		/* Again from the same destination: the same bits. */
		sync_case(stream);
		first = case_alloc((size_t)x->len * x->esize);
		from_dev(first, x->dev, (size_t)x->len * x->esize);
		tens_up(x);
		OPS_OK(index_call(op, stream, x, ids, c->dim, y));
	}
	finish(stream, dst, w, frac ? M_TOL : M_EXACT);
	if (first && memcmp(first, x->host, (size_t)x->len * x->esize) != 0)
		rj_test_fail(__FILE__, __LINE__, "%s: the second run gave other bits than the first",
			     case_desc);
	case_end();
}

TEST(index_select_gather_scatter_add_index_add_every_id_and_value_type_match_cpu)
{
	ops_setup();
	for (int op = I_SELECT; op <= I_INDEX_ADD; op++)
		for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++)
			for (size_t it = 0; it < COUNT(id_types); it++)
				for (int k = 0; k < (int)COUNT(index_cases); k++) {
					index_case((enum index_op)op, (rocjit_dtype)dt, id_types[it],
						   k, 0);
					if (op >= I_SCATTER_ADD && dt == ROCJIT_F32)
						index_case((enum index_op)op, (rocjit_dtype)dt,
							   id_types[it], k, 1);
				}
	ops_teardown();
}

/* ---- argsort ------------------------------------------------------------------------------ */

static const struct xy_case sort_cases[] = {
	{ "1x1", 2, { 1, 1 }, L_DENSE, L_DENSE },
	{ "5x7", 2, { 5, 7 }, L_DENSE, L_DENSE },
	{ "1x127", 2, { 1, 127 }, L_DENSE, L_DENSE },
	{ "3x1000", 2, { 3, 1000 }, L_DENSE, L_DENSE },
	{ "2x8192", 2, { 2, 8192 }, L_DENSE, L_DENSE },
	{ "1000x3", 2, { 1000, 3 }, L_DENSE, L_STEP },
	{ "2x3x50", 3, { 2, 3, 50 }, L_TRANS, L_DENSE },
	{ "7x40", 2, { 7, 40 }, L_STEP, L_TRANS },
	{ "1001 (1-D)", 1, { 1001 }, L_NEG, L_DENSE },
	{ "4x513 (equal rows)", 2, { 4, 513 }, L_ROW, L_DENSE },
	{ "37x53 (constant rows: the identity)", 2, { 37, 53 }, L_COL, L_DENSE },
	{ "0x5 (no rows)", 2, { 0, 5 }, L_DENSE, L_DENSE },
	{ "5x0 (empty rows)", 2, { 5, 0 }, L_DENSE, L_DENSE },
};

/* 1 when a sorts strictly before b: NaN after every number ascending, before descending. */
static int sorts_before(long double a, long double b, int desc)
{
	if (isnan(a) || isnan(b))
		return isnan(a) ? desc && !isnan(b) : !desc;
	return desc ? a > b : a < b;
}

/* A stable merge sort of idx[0..n) by key (bottom-up: equal keys keep their order). */
static void stable_sort(int64_t *idx, int64_t *tmp, int64_t n, const long double *key, int desc)
{
	for (int64_t width = 1; width < n; width *= 2) {
		for (int64_t lo = 0; lo < n; lo += 2 * width) {
			int64_t mid = lo + width < n ? lo + width : n;
			int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			int64_t i = lo, j = mid, o = lo;

			while (i < mid && j < hi)
				tmp[o++] = sorts_before(key[idx[j]], key[idx[i]], desc) ? idx[j++] :
											  idx[i++];
			while (i < mid)
				tmp[o++] = idx[i++];
			while (j < hi)
				tmp[o++] = idx[j++];
		}
		memcpy(idx, tmp, sizeof *idx * (size_t)n);
	}
}

/* pass 0: many ties, NaN and +-inf (floats), small values and any bits (integers);
 * pass 1: nearly distinct values. */
static void sort_case(rocjit_dtype dt, int k, int pass, int desc)
{
	static const struct dom ties = { -8, 8, 0.25, 0, 1, -3, 6, 1 };
	static const struct dom fine = { -8, 8, 1.0 / 4096, 0, 0, 0, 0, 0 };
	const struct xy_case *c = &sort_cases[k];
	int64_t n = c->dims[c->ndim - 1], rows = n ? numel(c->ndim, c->dims) / n : 0;
	void *stream = case_stream(k + desc);
	struct tens *x, *y;
	struct want *w;
	long double *key;
	int64_t *idx, *tmp;

	set_case("argsort %s %s, %s (x %s, y %s), data pass %d", desc ? "descending" : "ascending",
		 dt_names[dt], c->what, layout_names[c->x], layout_names[c->y], pass);
	rng_seed(11, (uint64_t)dt, (uint64_t)k, (uint64_t)(pass * 2 + desc));
	x = tens_new(dt, c->ndim, c->dims, c->x);
	fill(x, pass ? &fine : &ties);
	y = out_new(ROCJIT_U32, c->ndim, c->dims, c->y);
	w = wants(x->n);
	key = case_alloc(sizeof *key * (size_t)(n + 1));
	idx = case_alloc(sizeof *idx * (size_t)(n + 1));
	tmp = case_alloc(sizeof *tmp * (size_t)(n + 1));
	for (int64_t r = 0; r < rows; r++) {
		for (int64_t j = 0; j < n; j++) {
			key[j] = val(x, r * n + j);
			idx[j] = j;
		}
		stable_sort(idx, tmp, n, key, desc);
		for (int64_t j = 0; j < n; j++) {
			w[r * n + j].v = idx[j];
			w[r * n + j].in[0] = (double)key[idx[j]];
			w[r * n + j].nin = 1;
		}
	}
	OPS_OK(rocjit_ops_argsort(fx.ops, stream, &x->t, &y->t, desc));
	finish(stream, y, w, M_EXACT);
	case_end();
}

TEST(argsort_every_type_ascending_and_descending_is_stable_with_nan_last_or_first)
{
	static const int64_t too_long[2] = { 2, ROCJIT_OPS_ARGSORT_MAX + 1 };

	ops_setup();
	for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++) {
		struct tens *x, *y;

		for (int k = 0; k < (int)COUNT(sort_cases); k++)
			for (int pass = 0; pass < 2; pass++)
				for (int desc = 0; desc < 2; desc++)
					sort_case((rocjit_dtype)dt, k, pass, desc);
		set_case("argsort %s of rows of %d", dt_names[dt], ROCJIT_OPS_ARGSORT_MAX + 1);
		x = out_new((rocjit_dtype)dt, 2, too_long, L_DENSE);
		y = out_new(ROCJIT_U32, 2, too_long, L_DENSE);
		OPS_FAILS(rocjit_ops_argsort(fx.ops, NULL, &x->t, &y->t, 0), ROCJIT_EUNSUPPORTED);
		case_end();
	}
	ops_teardown();
}

/* ---- Errors ------------------------------------------------------------------------------- */

/* The whole storage, the view included, still holds the sentinel. */
static void check_all_sentinel(const struct tens *T)
{
	tens_down(T);
	for (size_t b = 0; b < (size_t)T->len * T->esize; b++)
		if (T->host[b] != SENTINEL)
			rj_test_fail(__FILE__, __LINE__, "a refused call wrote byte %zu of an "
				     "output's storage", b);
}

TEST(bad_shapes_are_einval_and_missing_types_eunsupported_with_a_message)
{
	static const int64_t d3[] = { 3 }, d4[] = { 4 }, d34[] = { 3, 4 }, d43[] = { 4, 3 };
	static const int64_t d31[] = { 3, 1 };
	static const double one = 1.0;
	struct tens *f3, *f4, *h3, *h4, *u3, *w3, *w4, *i3, *f34, *f43, *u34, *w34, *i34, *f3s, *h34;
	rocjit_tensor bad, src, out;
	rocjit_ops *none = NULL;
	static int not_null;

	ops_setup();
	set_case("dtype names and sizes");
	for (int dt = 0; dt < ROCJIT_NUM_DTYPES; dt++) {
		ASSERT_STR(rocjit_dtype_name((rocjit_dtype)dt), dt_names[dt]);
		ASSERT_INT(rocjit_dtype_size((rocjit_dtype)dt), dt_sizes[dt]);
	}
	ASSERT(rocjit_dtype_name((rocjit_dtype)ROCJIT_NUM_DTYPES) == NULL);
	ASSERT(rocjit_dtype_name((rocjit_dtype)-1) == NULL);
	ASSERT_INT(rocjit_dtype_size((rocjit_dtype)ROCJIT_NUM_DTYPES), 0);

	set_case("the handle");
	ASSERT_INT(rocjit_ops_create(NULL, fx.ctx), ROCJIT_EINVAL);
	none = (rocjit_ops *)&not_null;
	ASSERT_INT(rocjit_ops_create(&none, NULL), ROCJIT_EINVAL);
	rocjit_ops_destroy(NULL);

	set_case("rocjit_tensor_broadcast");
	src = rocjit_tensor_dense(NULL, ROCJIT_F32, 1, d3);
	ASSERT_INT(rocjit_tensor_broadcast(&out, &src, 2, d34), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_tensor_broadcast(&out, &src, 2, d43), 0);
	src = rocjit_tensor_dense(NULL, ROCJIT_F32, 2, d34);
	ASSERT_INT(rocjit_tensor_broadcast(&out, &src, 1, d4), ROCJIT_EINVAL);

	f3 = out_new(ROCJIT_F32, 1, d3, L_DENSE);
	f4 = out_new(ROCJIT_F32, 1, d4, L_DENSE);
	h3 = out_new(ROCJIT_F16, 1, d3, L_DENSE);
	h4 = out_new(ROCJIT_F16, 1, d4, L_DENSE);
	u3 = out_new(ROCJIT_U8, 1, d3, L_DENSE);
	w3 = out_new(ROCJIT_U32, 1, d3, L_DENSE);
	w4 = out_new(ROCJIT_U32, 1, d4, L_DENSE);
	i3 = out_new(ROCJIT_I64, 1, d3, L_DENSE);
	f34 = out_new(ROCJIT_F32, 2, d34, L_DENSE);
	f43 = out_new(ROCJIT_F32, 2, d43, L_DENSE);
	h34 = out_new(ROCJIT_F16, 2, d34, L_DENSE);
	u34 = out_new(ROCJIT_U8, 2, d34, L_DENSE);
	w34 = out_new(ROCJIT_U32, 2, d34, L_DENSE);
	i34 = out_new(ROCJIT_I64, 2, d34, L_DENSE);
	f3s = out_new(ROCJIT_F32, 1, d3, L_STEP);

	set_case("unary");
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &f3->t, &f4->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &f3->t, &h3->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &f34->t, &f43->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &f4->t, &f34->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_EXP, &u3->t, &u3->t),
		  ROCJIT_EUNSUPPORTED);
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &w3->t, &w3->t),
		  ROCJIT_EUNSUPPORTED);
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_SQRT, &i3->t, &i3->t),
		  ROCJIT_EUNSUPPORTED);
	OPS_FAILS(rocjit_ops_unary(NULL, NULL, ROCJIT_NEG, &f3->t, &f3->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, NULL, &f3->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &f3->t, NULL), ROCJIT_EINVAL);
	OPS_FAILS_EITHER(rocjit_ops_unary(fx.ops, NULL, (rocjit_unary_op)ROCJIT_NUM_UNARY_OPS,
					  &f3->t, &f3->t),
			 ROCJIT_EINVAL, ROCJIT_EUNSUPPORTED);
	bad = f3->t;
	bad.strides[0] = 0; /* several elements at one address */
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &f3->t, &bad), ROCJIT_EINVAL);
	bad = f3->t;
	bad.ndim = MAXD + 1;
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &bad, &bad), ROCJIT_EINVAL);
	bad.ndim = -1;
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &bad, &bad), ROCJIT_EINVAL);
	bad = f3->t;
	bad.dims[0] = -3;
	OPS_FAILS(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &bad, &bad), ROCJIT_EINVAL);
	bad = f3->t;
	bad.dtype = (rocjit_dtype)ROCJIT_NUM_DTYPES;
	OPS_FAILS_EITHER(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &bad, &bad), ROCJIT_EINVAL,
			 ROCJIT_EUNSUPPORTED);
	OPS_FAILS(rocjit_ops_elu(fx.ops, NULL, &i3->t, &i3->t, 1.0), ROCJIT_EUNSUPPORTED);
	OPS_FAILS(rocjit_ops_powf(fx.ops, NULL, &u3->t, &u3->t, 2.0), ROCJIT_EUNSUPPORTED);
	OPS_FAILS(rocjit_ops_affine(fx.ops, NULL, &f3->t, &f4->t, 1, 0), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_clamp(fx.ops, NULL, &f3->t, &h3->t, 0, 1), ROCJIT_EINVAL);

	set_case("binary");
	OPS_FAILS(rocjit_ops_binary(fx.ops, NULL, ROCJIT_ADD, &f3->t, &h3->t, &f3->t),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_binary(fx.ops, NULL, ROCJIT_EQ, &f3->t, &f3->t, &f3->t),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_binary(fx.ops, NULL, ROCJIT_ADD, &f3->t, &f3->t, &u3->t),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_binary(fx.ops, NULL, ROCJIT_ADD, &f34->t, &f34->t, &f43->t),
		  ROCJIT_EINVAL);
	/* not broadcast first: operands must have the output's ndim */
	OPS_FAILS(rocjit_ops_binary(fx.ops, NULL, ROCJIT_ADD, &f4->t, &f34->t, &f34->t),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_binary(fx.ops, NULL, ROCJIT_POW, &i3->t, &i3->t, &i3->t),
		  ROCJIT_EUNSUPPORTED);

	set_case("where");
	OPS_FAILS_EITHER(rocjit_ops_where(fx.ops, NULL, &f3->t, &f3->t, &f3->t, &f3->t),
			 ROCJIT_EINVAL, ROCJIT_EUNSUPPORTED);
	OPS_FAILS(rocjit_ops_where(fx.ops, NULL, &u3->t, &f3->t, &h3->t, &f3->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_where(fx.ops, NULL, &u34->t, &f3->t, &f3->t, &f3->t), ROCJIT_EINVAL);

	set_case("cast, copy, copy2d, fill, arange");
	OPS_FAILS(rocjit_ops_cast(fx.ops, NULL, &f3->t, &h4->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_copy(fx.ops, NULL, &f3->t, &h3->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_copy(fx.ops, NULL, &f34->t, &f43->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_copy2d(fx.ops, NULL, ROCJIT_F32, f3->t.data, f4->t.data, 2, 1, -1, 1),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_copy2d(fx.ops, NULL, ROCJIT_F32, f3->t.data, f4->t.data, 1, 1, 1, -1),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_copy2d(fx.ops, NULL, ROCJIT_F32, f3->t.data, f4->t.data, -1, 1, 1, 1),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_copy2d(fx.ops, NULL, ROCJIT_F32, f3->t.data, f4->t.data, 1, -1, 1, 1),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_fill(fx.ops, NULL, &f3->t, NULL), ROCJIT_EINVAL);
	bad = f3->t;
	bad.strides[0] = 0;
	OPS_FAILS(rocjit_ops_fill(fx.ops, NULL, &bad, &one), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_arange(fx.ops, NULL, &u3->t, 0.5, 1), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_arange(fx.ops, NULL, &i3->t, 0, 1.5), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_arange(fx.ops, NULL, &i3->t, 0x1p60, 1), ROCJIT_EINVAL);

	set_case("reduce");
	OPS_FAILS(rocjit_ops_reduce(fx.ops, NULL, ROCJIT_SUM, &f34->t, 2, &f3->t, NULL, 0),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_reduce(fx.ops, NULL, ROCJIT_SUM, &f34->t, 1, &f4->t, NULL, 0),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_reduce(fx.ops, NULL, ROCJIT_SUM, &f34->t, 1, &f3s->t, NULL, 0),
		  ROCJIT_EINVAL); /* y not dense */
	OPS_FAILS(rocjit_ops_reduce(fx.ops, NULL, ROCJIT_SUM, &f34->t, 1, &h3->t, NULL, 0),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_reduce(fx.ops, NULL, ROCJIT_ARGMAX, &f34->t, 1, &f3->t, NULL, 0),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_reduce(fx.ops, NULL, ROCJIT_MEAN, &w34->t, 1, &w3->t, NULL, 0),
		  ROCJIT_EUNSUPPORTED);
	OPS_FAILS(rocjit_ops_reduce(fx.ops, NULL, ROCJIT_SUM, &f3->t, 0, &f3->t, NULL, 0),
		  ROCJIT_EINVAL); /* y of x's extents: the dim neither kept as 1 nor dropped */
	OPS_OK(rocjit_ops_reduce(fx.ops, NULL, ROCJIT_SUM, &f34->t, 1,
				 &out_new(ROCJIT_F32, 2, d31, L_DENSE)->t, NULL, 0));

	set_case("softmax, log_softmax, layer_norm, rms_norm");
	OPS_FAILS(rocjit_ops_softmax(fx.ops, NULL, &f34->t, &f43->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_log_softmax(fx.ops, NULL, &f34->t, &h34->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_softmax(fx.ops, NULL, &u34->t, &u34->t), ROCJIT_EUNSUPPORTED);
	OPS_FAILS(rocjit_ops_layer_norm(fx.ops, NULL, &f34->t, &f3->t, NULL, &f34->t, 1e-5),
		  ROCJIT_EINVAL); /* alpha's extent is not the last dim's */
	OPS_FAILS(rocjit_ops_layer_norm(fx.ops, NULL, &f34->t, &f34->t, NULL, &f34->t, 1e-5),
		  ROCJIT_EINVAL); /* alpha 2-D */
	OPS_FAILS(rocjit_ops_layer_norm(fx.ops, NULL, &f34->t, &h4->t, NULL, &f34->t, 1e-5),
		  ROCJIT_EINVAL); /* alpha of another type */
	OPS_FAILS(rocjit_ops_layer_norm(fx.ops, NULL, &f34->t, NULL, &f3->t, &f34->t, 1e-5),
		  ROCJIT_EINVAL); /* beta */
	OPS_FAILS(rocjit_ops_rms_norm(fx.ops, NULL, &f34->t, &f3->t, &f34->t, 1e-5),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_rms_norm(fx.ops, NULL, &i34->t, NULL, &i34->t, 1e-5),
		  ROCJIT_EUNSUPPORTED);

	set_case("argsort");
	OPS_FAILS(rocjit_ops_argsort(fx.ops, NULL, &f34->t, &f34->t, 0), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_argsort(fx.ops, NULL, &f34->t, &w3->t, 0), ROCJIT_EINVAL);

	set_case("index_select, gather, scatter_add, index_add");
	OPS_FAILS_EITHER(rocjit_ops_index_select(fx.ops, NULL, &f34->t, &f3->t, 0, &f34->t),
			 ROCJIT_EINVAL, ROCJIT_EUNSUPPORTED); /* float ids */
	OPS_FAILS(rocjit_ops_index_select(fx.ops, NULL, &f34->t, &w34->t, 0, &f34->t),
		  ROCJIT_EINVAL); /* 2-D ids */
	OPS_FAILS(rocjit_ops_index_select(fx.ops, NULL, &f34->t, &w3->t, 2, &f34->t),
		  ROCJIT_EINVAL); /* no dim 2 */
	OPS_FAILS(rocjit_ops_index_select(fx.ops, NULL, &f34->t, &w4->t, 0, &f34->t),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_index_select(fx.ops, NULL, &f34->t, &w3->t, 0, &h34->t),
		  ROCJIT_EINVAL); /* y of another type */
	OPS_FAILS(rocjit_ops_gather(fx.ops, NULL, &f34->t, &w34->t, 0, &f43->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_gather(fx.ops, NULL, &f43->t, &w34->t, 1, &f34->t), ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_scatter_add(fx.ops, NULL, &f34->t, &w34->t, &f43->t, 0),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_scatter_add(fx.ops, NULL, &f34->t, &w34->t, &h34->t, 0),
		  ROCJIT_EINVAL);
	OPS_FAILS(rocjit_ops_index_add(fx.ops, NULL, &f34->t, &w4->t, &f34->t, 0),
		  ROCJIT_EINVAL); /* 4 ids, src has 3 along dim 0 */

	/* Nothing was written, and the handle still works. */
	set_case("after the refusals");
	check_all_sentinel(f4);
	check_all_sentinel(h3);
	check_all_sentinel(u3);
	check_all_sentinel(f43);
	check_all_sentinel(h34);
	{
		struct want *w = wants(3);
		float ones[3] = { 1, 2, 3 };

		for (int i = 0; i < 3; i++)
			w[i].v = -ones[i];
		to_dev(f3->t.data, ones, sizeof ones);
		OPS_OK(rocjit_ops_unary(fx.ops, NULL, ROCJIT_NEG, &f3->t, &f3->t));
		sync_case(NULL);
		tens_down(f3);
		for (int64_t i = 0; i < 3; i++)
			check_elem(f3, i, &w[i], M_EXACT);
	}
	case_end();
	ops_teardown();
}

/* ---- Threads ------------------------------------------------------------------------------ */

#define THREADS 4
#define THREAD_N 100003
#define THREAD_ROUNDS 8

/*
 * One thread's work on its own stream and buffers: add, cast f32 -> f16, a sum and neg in
 * turn (each thread starting with another, so that first uses of four files race), each
 * result checked.  The data are small integers: every result is exact.
 */
static void *ops_thread(void *arg)
{
	int t = *(const int *)arg;
	int64_t n = THREAD_N;
	float *hx = host_alloc(sizeof(float) * THREAD_N), *hy = host_alloc(sizeof(float) * THREAD_N);
	float *hz = host_alloc(sizeof(float) * THREAD_N);
	uint16_t *hh = (uint16_t *)hz, want16;
	void *stream = NULL, *dx = dev_alloc(sizeof(float) * THREAD_N);
	void *dy = dev_alloc(sizeof(float) * THREAD_N), *dz = dev_alloc(sizeof(float) * THREAD_N);
	rocjit_tensor x = rocjit_tensor_dense(dx, ROCJIT_F32, 1, &n);
	rocjit_tensor y = rocjit_tensor_dense(dy, ROCJIT_F32, 1, &n), z;
	double sum = 0;

	CUDA(rt.cudaStreamCreate(&stream));
	for (int i = 0; i < THREAD_N; i++) {
		hx[i] = (float)(i % 7 - 3 + t);
		hy[i] = (float)(i % 5);
		sum += hx[i];
	}
	to_dev(dx, hx, sizeof(float) * THREAD_N);
	to_dev(dy, hy, sizeof(float) * THREAD_N);
	for (int round = 0; round < THREAD_ROUNDS; round++) {
		int what = (t + round) % 4, rc;

		switch (what) {
		case 0:
			z = rocjit_tensor_dense(dz, ROCJIT_F32, 1, &n);
			rc = rocjit_ops_binary(fx.ops, stream, ROCJIT_ADD, &x, &y, &z);
			break;
		case 1:
			z = rocjit_tensor_dense(dz, ROCJIT_F16, 1, &n);
			rc = rocjit_ops_cast(fx.ops, stream, &x, &z);
			break;
		case 2:
			z = rocjit_tensor_dense(dz, ROCJIT_F32, 0, NULL);
			rc = rocjit_ops_reduce(fx.ops, stream, ROCJIT_SUM, &x, 0, &z, NULL, 0);
			break;
		default:
			z = rocjit_tensor_dense(dz, ROCJIT_F32, 1, &n);
			rc = rocjit_ops_unary(fx.ops, stream, ROCJIT_NEG, &x, &z);
			break;
		}
		if (rc != 0)
			rj_test_fail(__FILE__, __LINE__, "thread %d round %d (op %d): %d (%s): %s", t,
				     round, what, rc, rocjit_strerror(rc), rocjit_ops_last_error());
		CUDA(rt.cudaStreamSynchronize(stream));
		from_dev(hz, dz, sizeof(float) * THREAD_N);
		for (int i = 0; i < (what == 2 ? 1 : THREAD_N); i++) {
			double want = what == 0 ? (double)hx[i] + hy[i] :
				      what == 2 ? sum : -(double)hx[i];
			double got = what == 1 ? decode_half(hh[i], 10, 5) : hz[i];

			if (what == 1) {
				put_ld(ROCJIT_F16, &want16, hx[i]);
				want = decode_half(want16, 10, 5);
			}
			if (got != want)
				rj_test_fail(__FILE__, __LINE__, "thread %d round %d (op %d): element "
					     "%d is %.9g, expected %.9g", t, round, what, i, got,
					     want);
		}
	}
	CUDA(rt.cudaStreamDestroy(stream));
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	CUDA(rt.cudaFree(dz));
	free(hx);
	free(hy);
	free(hz);
	return NULL;
}

TEST(ops_from_four_threads_at_once_on_their_own_streams_match_cpu)
{
	pthread_t th[THREADS];
	int ids[THREADS];

	ops_setup();
	for (int t = 0; t < THREADS; t++) {
		ids[t] = t;
		ASSERT_INT(pthread_create(&th[t], NULL, ops_thread, &ids[t]), 0);
	}
	for (int t = 0; t < THREADS; t++)
		ASSERT_INT(pthread_join(th[t], NULL), 0);
	ops_teardown();
}
