/*
 * test_gpu.c - the NVIDIA platform on a real GPU: every kernel of kernels-src launched on
 * real data and checked against a CPU reference, interop with the CUDA runtime (its
 * buffers, its streams, its default stream), the on-disk cache across processes, errors
 * that must not crash, target detection, several threads and several devices.
 *
 * Every test first looks for a GPU through the driver (libcuda.so.1: cuInit,
 * cuDeviceGetCount) and exits 77 without one, which ctest reports as skipped: on the
 * CPU-only CI machines the whole program is a list of skips.  With
 * ROCJIT_TEST_REQUIRE_GPU=1 (tests/gpu/run.sh sets it when nvidia-smi lists a GPU) a
 * missing GPU is a failure instead, so a broken driver cannot pass as a skip.
 *
 * Device buffers and streams come from the CUDA runtime, loaded with dlopen like the
 * driver (cuda_rt.c, shared with test_ops.c): building this file needs no CUDA header or
 * library.  The kernels are the embedded kernels-src (rocjit_add_kernels in
 * CMakeLists.txt), fetched by registered name.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "cuda_rt.h"
#include "redis_server.h"

/* ---- Helpers ----------------------------------------------------------------------------- */

/* The embedded kernel name of source (kernels-src), failing the test when it cannot. */
static rocjit_kernel *kernel(rocjit_ctx *ctx, const char *source, const char *name)
{
	rocjit_kernel *k = NULL;
	int rc = rocjit_kernel_get_registered(&k, ctx, source, name, NULL, 0);

	if (rc != 0 || !k)
		rj_test_fail(__FILE__, __LINE__, "%s from %s: error %d (%s): %s", name, source, rc,
			     rocjit_strerror(rc), rocjit_last_error());
	return k;
}

static rocjit_dim3 dim1(unsigned int x)
{
	rocjit_dim3 d = { x, 1, 1 };
	return d;
}

static void launch(const rocjit_kernel *k, unsigned int grid, unsigned int block, void *stream,
		   void **args)
{
	int rc = rocjit_kernel_launch(k, dim1(grid), dim1(block), 0, stream, args);

	if (rc != 0)
		rj_test_fail(__FILE__, __LINE__, "launch %s grid %u block %u: error %d (%s): %s",
			     rocjit_kernel_name(k), grid, block, rc, rocjit_strerror(rc),
			     rocjit_last_error());
}

/* A grid covering n with block threads, capped so that large n also walks the kernels'
 * grid-stride loops. */
static unsigned int grid_for(long n, unsigned int block, unsigned int cap)
{
	long g = (n + (long)block - 1) / (long)block;

	if (g < 1)
		g = 1;
	return g > (long)cap ? cap : (unsigned int)g;
}

/* Deterministic data: every run checks the same numbers. */
static uint32_t rng_state = 12345u;

static uint32_t rand_u32(void)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return rng_state >> 8;
}

/* A float in [lo, hi) on a grid of (hi - lo) / 65536: no denormals, no surprises. */
static float rand_float(float lo, float hi)
{
	return lo + (hi - lo) * (float)(rand_u32() % 65536u) / 65536.0f;
}

static double absd(double v)
{
	return v < 0 ? -v : v;
}

/* The same value, NaN matching NaN (the GPU need not keep the payload). */
static int same_float(float a, float b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* fmaxf as the kernels use it: a NaN loses to a number. */
static float max_ref(float a, float b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a > b ? a : b;
}

#define GUARD 5              /* elements past the end that a kernel must not touch */
#define SENTINEL (-7777.25f) /* what untouched output holds */

/* ---- axpy -------------------------------------------------------------------------------- */

static const int axpy_sizes[] = { 0, 1, 31, 1000, 4099, (1 << 20) + 3 };
static const unsigned int axpy_blocks[] = { 32, 256, 1024, 1, 100 };

/* One axpy_f32 launch on n elements (x aliasing y when in_place), checked element by
 * element, including GUARD elements past n that must keep their sentinel. */
static void axpy_f32_check(const rocjit_kernel *k, int n, unsigned int block,
			   unsigned int grid, void *stream, int in_place)
{
	size_t len = (size_t)(n > 0 ? n : 0) + GUARD;
	float *x = host_alloc(len * sizeof *x), *y = host_alloc(len * sizeof *y);
	float *got = host_alloc(len * sizeof *got), *dx, *dy;
	float a = 1.75f;
	void *args[4];

	for (size_t i = 0; i < len; i++) {
		y[i] = i < (size_t)n ? rand_float(-4, 4) : SENTINEL;
		x[i] = in_place ? y[i] : rand_float(-4, 4);
	}
	dx = dev_alloc(len * sizeof *x);
	dy = dev_alloc(len * sizeof *y);
	to_dev(dx, x, len * sizeof *x);
	to_dev(dy, y, len * sizeof *y);
	args[0] = &n;
	args[1] = &a;
	args[2] = in_place ? &dy : &dx;
	args[3] = &dy;
	launch(k, grid, block, stream, args);
	sync_stream(stream);
	from_dev(got, dy, len * sizeof *got);
	for (size_t i = 0; i < len; i++) {
		int inside = i < (size_t)n;
		double want = inside ? (double)a * x[i] + y[i] : y[i];
		double tol = inside ? 1e-6 * (absd((double)a * x[i]) + absd(y[i])) : 0;

		if (!(absd(got[i] - want) <= tol))
			rj_test_fail(__FILE__, __LINE__, "axpy_f32 n=%d block=%u grid=%u%s: "
				     "y[%zu] = %.9g, expected %.9g (x %.9g, y %.9g)", n, block,
				     grid, in_place ? " in place" : "", i, got[i], want, x[i],
				     y[i]);
	}
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	free(x);
	free(y);
	free(got);
}

TEST(axpy_f32_matches_cpu_for_odd_sizes_and_blocks)
{
	rocjit_ctx *ctx;
	const rocjit_kernel *k;

	gpu_require();
	ctx = gpu_open();
	k = kernel(ctx, "axpy.hip", "axpy_f32");
	for (size_t s = 0; s < COUNT(axpy_sizes); s++)
		for (size_t b = 0; b < COUNT(axpy_blocks); b++) {
			int n = axpy_sizes[s];
			unsigned int block = axpy_blocks[b];

			if (block < 32 && n > 5000)
				continue; /* a thread per block over a million elements: slow */
			/* A grid covering n, and a small one that loops. */
			axpy_f32_check(k, n, block, grid_for(n, block, 65535), NULL, 0);
			axpy_f32_check(k, n, block, 3, NULL, 0);
		}
	rocjit_close(ctx);
}

TEST(axpy_f32_in_place_when_x_is_y)
{
	rocjit_ctx *ctx;
	const rocjit_kernel *k;

	gpu_require();
	ctx = gpu_open();
	k = kernel(ctx, "axpy.hip", "axpy_f32");
	axpy_f32_check(k, 1, 32, 1, NULL, 1);
	axpy_f32_check(k, 1000, 256, 2, NULL, 1);
	axpy_f32_check(k, (1 << 20) + 3, 1024, 1025, NULL, 1);
	rocjit_close(ctx);
}

static void axpy_f64_check(const rocjit_kernel *k, int n, unsigned int block,
			   unsigned int grid)
{
	size_t len = (size_t)(n > 0 ? n : 0) + GUARD;
	double *x = host_alloc(len * sizeof *x), *y = host_alloc(len * sizeof *y);
	double *got = host_alloc(len * sizeof *got), *dx, *dy;
	double a = -0.6180339887498949;
	void *args[4] = { &n, &a, &dx, &dy };

	for (size_t i = 0; i < len; i++) {
		x[i] = (double)rand_u32() / 16777216.0 * 8 - 4;
		y[i] = i < (size_t)n ? (double)rand_u32() / 16777216.0 * 8 - 4 : SENTINEL;
	}
	dx = dev_alloc(len * sizeof *x);
	dy = dev_alloc(len * sizeof *y);
	to_dev(dx, x, len * sizeof *x);
	to_dev(dy, y, len * sizeof *y);
	launch(k, grid, block, NULL, args);
	sync_stream(NULL);
	from_dev(got, dy, len * sizeof *got);
	for (size_t i = 0; i < len; i++) {
		int inside = i < (size_t)n;
		double want = inside ? a * x[i] + y[i] : y[i];
		double tol = inside ? 1e-14 * (absd(a * x[i]) + absd(y[i])) : 0;

		if (!(absd(got[i] - want) <= tol))
			rj_test_fail(__FILE__, __LINE__, "axpy_f64 n=%d block=%u grid=%u: y[%zu] "
				     "= %.17g, expected %.17g", n, block, grid, i, got[i], want);
	}
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	free(x);
	free(y);
	free(got);
}

TEST(axpy_f64_matches_cpu_for_odd_sizes_and_blocks)
{
	rocjit_ctx *ctx;
	const rocjit_kernel *k;

	gpu_require();
	ctx = gpu_open();
	k = kernel(ctx, "axpy.hip", "axpy_f64");
	for (size_t s = 0; s < COUNT(axpy_sizes); s++)
		for (size_t b = 0; b < COUNT(axpy_blocks); b++) {
			int n = axpy_sizes[s];
			unsigned int block = axpy_blocks[b];

			if (block < 32 && n > 5000)
				continue;
			axpy_f64_check(k, n, block, grid_for(n, block, 65535));
			axpy_f64_check(k, n, block, 3);
		}
	rocjit_close(ctx);
}

/* ---- binary_strided ---------------------------------------------------------------------- */

/* The host side of kernels-src/binary_strided.hip's struct: same layout, passed by value. */
#define BINARY_MAX_DIMS 4

struct binary_shape {
	int ndim;
	int dims[BINARY_MAX_DIMS];
	int out_strides[BINARY_MAX_DIMS];
	int lhs_strides[BINARY_MAX_DIMS];
	int rhs_strides[BINARY_MAX_DIMS];
};

_Static_assert(sizeof(struct binary_shape) == 68, "binary_shape is 68 bytes of arguments");

enum { OP_ADD, OP_SUB, OP_MUL, OP_MAX };
static const char *const binary_names[] = { "binary_add_f32", "binary_sub_f32",
					    "binary_mul_f32", "binary_max_f32" };

struct binary_case {
	const char *what;
	struct binary_shape s;
};

#define BIG ((1 << 20) + 3)

/* { ndim, dims, out_strides, lhs_strides, rhs_strides }; strides in elements. */
static const struct binary_case binary_cases[] = {
	{ "ndim 0: a scalar; dims and strides past ndim ignored",
	  { 0, { 9, 9, 9, 9 }, { 5, 5, 5, 5 }, { 7, 7, 7, 7 }, { 3, 3, 3, 3 } } },
	{ "ndim -2 is clamped to a scalar", { -2, { 4, 4, 0, 0 }, { 1 }, { 1 }, { 1 } } },
	{ "1-D, one element", { 1, { 1 }, { 1 }, { 1 }, { 1 } } },
	{ "1-D contiguous, 1000", { 1, { 1000 }, { 1 }, { 1 }, { 1 } } },
	{ "1-D contiguous, 2^20+3", { 1, { BIG }, { 1 }, { 1 }, { 1 } } },
	{ "1-D lhs reversed (stride -1)", { 1, { 1000 }, { 1 }, { -1 }, { 1 } } },
	{ "1-D rhs broadcast (stride 0)", { 1, { 1000 }, { 1 }, { 1 }, { 0 } } },
	{ "1-D every operand strided, 2^20+3", { 1, { BIG }, { 2 }, { 3 }, { -2 } } },
	{ "2-D contiguous 37x53", { 2, { 37, 53 }, { 53, 1 }, { 53, 1 }, { 53, 1 } } },
	{ "2-D lhs column / rhs row broadcast",
	  { 2, { 37, 53 }, { 53, 1 }, { 1, 0 }, { 0, 1 } } },
	{ "2-D lhs transposed", { 2, { 37, 53 }, { 53, 1 }, { 1, 37 }, { 53, 1 } } },
	{ "2-D out transposed", { 2, { 37, 53 }, { 1, 37 }, { 53, 1 }, { 53, 1 } } },
	{ "2-D lhs every 3rd column, rhs transposed, out rows padded",
	  { 2, { 37, 53 }, { 64, 1 }, { 159, 3 }, { 1, 37 } } },
	{ "2-D a zero extent writes nothing", { 2, { 0, 5 }, { 5, 1 }, { 5, 1 }, { 5, 1 } } },
	{ "3-D lhs permuted, rhs broadcast in the middle, out padded",
	  { 3, { 5, 6, 7 }, { 48, 8, 1 }, { 6, 1, 30 }, { 7, 0, 1 } } },
	{ "3-D extent-1 dims with odd strides are still dense",
	  { 3, { 1, 100, 1 }, { 0, 1, 5 }, { 12345, 1, 777 }, { -3, 1, 99 } } },
	{ "4-D contiguous 3x4x5x7",
	  { 4, { 3, 4, 5, 7 }, { 140, 35, 7, 1 }, { 140, 35, 7, 1 }, { 140, 35, 7, 1 } } },
	{ "4-D lhs negative stride, rhs a broadcast scalar, out column-major",
	  { 4, { 3, 4, 5, 6 }, { 1, 3, 12, 60 }, { 120, -30, 6, 1 }, { 0, 0, 0, 0 } } },
	{ "4-D 2x3x171x1023 contiguous (fast path)",
	  { 4, { 2, 3, 171, 1023 }, { 524799, 174933, 1023, 1 }, { 524799, 174933, 1023, 1 },
	    { 524799, 174933, 1023, 1 } } },
	{ "4-D 2x3x171x1023 lhs inner dims transposed, rhs row broadcast",
	  { 4, { 2, 3, 171, 1023 }, { 524799, 174933, 1023, 1 }, { 524799, 174933, 1, 171 },
	    { 0, 0, 0, 1 } } },
	{ "ndim 9 is clamped to 4",
	  { 9, { 2, 3, 4, 5 }, { 60, 20, 5, 1 }, { 60, 20, 5, 1 }, { 1, 2, 6, 24 } } },
};

static int clamp_ndim(int ndim)
{
	return ndim < 0 ? 0 : (ndim > BINARY_MAX_DIMS ? BINARY_MAX_DIMS : ndim);
}

static long shape_count(const struct binary_shape *s)
{
	long n = 1;

	for (int d = 0; d < clamp_ndim(s->ndim); d++)
		n *= s->dims[d];
	return n;
}

/* The elements a view spans; *base gets the offset of element (0, .., 0) in that span (a
 * negative stride puts it past the start). */
static size_t view_span(const struct binary_shape *s, const int *strides, long *base)
{
	long lo = 0, hi = 0;

	*base = 0;
	if (shape_count(s) == 0)
		return 1;
	for (int d = 0; d < clamp_ndim(s->ndim); d++) {
		long step = (long)(s->dims[d] - 1) * strides[d];

		if (step < 0)
			lo += step;
		else
			hi += step;
	}
	*base = -lo;
	return (size_t)(hi - lo + 1);
}

static float binary_apply(int op, float a, float b)
{
	switch (op) {
	case OP_ADD: return a + b;
	case OP_SUB: return a - b;
	case OP_MUL: return a * b;
	default: return max_ref(a, b);
	}
}

/* The CPU reference: element by element, coordinates peeled as the contract says.  l, r
 * and o point at element (0, .., 0) of each view. */
static void binary_ref(int op, const struct binary_shape *s, const float *l, const float *r,
		       float *o)
{
	int nd = clamp_ndim(s->ndim);
	long n = shape_count(s);

	for (long i = 0; i < n; i++) {
		long rest = i, lo = 0, ro = 0, oo = 0;

		for (int d = nd - 1; d >= 0; d--) {
			long c = rest % s->dims[d];

			rest /= s->dims[d];
			oo += c * s->out_strides[d];
			lo += c * s->lhs_strides[d];
			ro += c * s->rhs_strides[d];
		}
		o[oo] = binary_apply(op, l[lo], r[ro]);
	}
}

/* One case of one op at one launch shape; every element of the output buffer is compared,
 * the gaps a strided out leaves included (they must keep the sentinel). */
static void binary_check(const rocjit_kernel *k, int op, const struct binary_case *c,
			 unsigned int block, unsigned int grid)
{
	struct binary_shape s = c->s;
	long lb, rb, ob;
	size_t ln = view_span(&s, s.lhs_strides, &lb), rn = view_span(&s, s.rhs_strides, &rb);
	size_t on = view_span(&s, s.out_strides, &ob);
	float *lhs = host_alloc(ln * sizeof(float)), *rhs = host_alloc(rn * sizeof(float));
	float *want = host_alloc(on * sizeof(float)), *got = host_alloc(on * sizeof(float));
	float *dl = dev_alloc(ln * sizeof(float)), *dr = dev_alloc(rn * sizeof(float));
	float *dout = dev_alloc(on * sizeof(float)), *pl, *pr, *po;
	void *args[4] = { &s, &pl, &pr, &po };

	/* NaNs sprinkled in: add/sub/mul propagate them, max lets the number win. */
	for (size_t i = 0; i < ln; i++)
		lhs[i] = i % 101 == 50 ? NAN : rand_float(-8, 8);
	for (size_t i = 0; i < rn; i++)
		rhs[i] = i % 103 == 7 ? NAN : rand_float(-8, 8);
	for (size_t i = 0; i < on; i++)
		want[i] = SENTINEL;
	to_dev(dl, lhs, ln * sizeof(float));
	to_dev(dr, rhs, rn * sizeof(float));
	to_dev(dout, want, on * sizeof(float));
	pl = dl + lb;
	pr = dr + rb;
	po = dout + ob;
	launch(k, grid, block, NULL, args);
	sync_stream(NULL);
	from_dev(got, dout, on * sizeof(float));
	binary_ref(op, &s, lhs + lb, rhs + rb, want + ob);
	for (size_t i = 0; i < on; i++)
		if (!same_float(got[i], want[i]))
			rj_test_fail(__FILE__, __LINE__, "%s, %s, block %u grid %u: out buffer "
				     "[%zu] (view origin at %ld) = %.9g, expected %.9g",
				     binary_names[op], c->what, block, grid, i, ob, got[i],
				     want[i]);
	CUDA(rt.cudaFree(dl));
	CUDA(rt.cudaFree(dr));
	CUDA(rt.cudaFree(dout));
	free(lhs);
	free(rhs);
	free(want);
	free(got);
}

/* Every case of op, each at a covering grid of 256 threads and at a small looping grid of
 * one of the block sizes the contract allows (any size). */
static void binary_op_test(int op)
{
	static const unsigned int blocks[] = { 32, 1024, 1, 100, 64, 256, 1000 };
	rocjit_ctx *ctx;
	const rocjit_kernel *k;

	gpu_require();
	ctx = gpu_open();
	k = kernel(ctx, "binary_strided.hip", binary_names[op]);
	for (size_t i = 0; i < COUNT(binary_cases); i++) {
		long n = shape_count(&binary_cases[i].s);
		unsigned int block = blocks[i % COUNT(blocks)];

		if (n > 100000 && block < 32)
			block = 128;
		binary_check(k, op, &binary_cases[i], 256, grid_for(n, 256, 4096));
		binary_check(k, op, &binary_cases[i], block, n > 100000 ? 61 : 3);
	}
	rocjit_close(ctx);
}

TEST(binary_add_f32_matches_cpu_on_contiguous_broadcast_and_strided_views)
{
	binary_op_test(OP_ADD);
}

TEST(binary_sub_f32_matches_cpu_on_contiguous_broadcast_and_strided_views)
{
	binary_op_test(OP_SUB);
}

TEST(binary_mul_f32_matches_cpu_on_contiguous_broadcast_and_strided_views)
{
	binary_op_test(OP_MUL);
}

TEST(binary_max_f32_matches_cpu_and_a_nan_loses_to_a_number)
{
	binary_op_test(OP_MAX);
}

TEST(binary_kernels_share_one_module_and_get_distinct_handles)
{
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	const rocjit_kernel *k[4];
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	for (int op = 0; op < 4; op++) {
		k[op] = kernel(ctx, "binary_strided.hip", binary_names[op]);
		ASSERT_STR(rocjit_kernel_name(k[op]), binary_names[op]);
		for (int j = 0; j < op; j++)
			ASSERT(k[j] != k[op]);
	}
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compiles, 1);
	ASSERT_INT(st.memory_hits, 3);
	rocjit_close(ctx);
}

/* ---- reduce ------------------------------------------------------------------------------ */

enum { RED_SUM, RED_MAX };

/*
 * Two passes as the contract describes: grid blocks write partial[grid], then one block
 * folds the partials into final (in place: into partial[0]).  Each partial is checked
 * against its block's share (the elements i with (i / block) % grid == b), and the final
 * value against the whole vector: sums to 1e-4 relative, maxima exactly.
 */
static void reduce_check(const rocjit_kernel *k, int op, int n, unsigned int block,
			 unsigned int grid, unsigned int block2, int in_place)
{
	size_t xn = n > 0 ? (size_t)n : 1;
	float *x = host_alloc(xn * sizeof *x), *part = host_alloc(grid * sizeof *part), fin;
	double *want = host_alloc(grid * sizeof *want), *mag = host_alloc(grid * sizeof *mag);
	double total = op == RED_SUM ? 0 : -INFINITY, total_mag = 0;
	float *dx = dev_alloc(xn * sizeof *x), *dpart = dev_alloc(grid * sizeof *part);
	float *dfin = dev_alloc(sizeof fin), *dout2 = in_place ? dpart : dfin;
	int g = (int)grid;
	void *args1[3] = { &n, &dx, &dpart }, *args2[3] = { &g, &dpart, &dout2 };
	const char *name = op == RED_SUM ? "reduce_sum_f32" : "reduce_max_f32";

	for (size_t i = 0; i < xn; i++)
		x[i] = op == RED_SUM ? rand_float(-0.25f, 1.0f)
				     : (i % 61 == 30 ? NAN : rand_float(-1000, -1));
	if (op == RED_MAX && n > 0)
		x[n - 1] = -0.5f; /* the maximum, at the very end */
	for (unsigned int b = 0; b < grid; b++) {
		want[b] = op == RED_SUM ? 0 : -INFINITY;
		mag[b] = 0;
	}
	for (int i = 0; i < n; i++) {
		unsigned int b = (unsigned int)(i / (int)block) % grid;

		if (op == RED_SUM) {
			want[b] += x[i];
			mag[b] += absd(x[i]);
			total += x[i];
			total_mag += absd(x[i]);
		} else if (!isnan(x[i])) {
			want[b] = want[b] > x[i] ? want[b] : x[i];
			total = total > x[i] ? total : x[i];
		}
	}
	to_dev(dx, x, xn * sizeof *x);
	CUDA(rt.cudaMemset(dpart, 0x7f, grid * sizeof *part)); /* not the identity */
	launch(k, grid, block, NULL, args1);
	sync_stream(NULL);
	from_dev(part, dpart, grid * sizeof *part);
	for (unsigned int b = 0; b < grid; b++) {
		int ok = op == RED_SUM ? absd(part[b] - want[b]) <= 1e-5 * mag[b]
				       : (double)part[b] == want[b];
		if (!ok)
			rj_test_fail(__FILE__, __LINE__, "%s n=%d block=%u grid=%u: partial[%u] = "
				     "%.9g, expected %.9g", name, n, block, grid, b, part[b],
				     want[b]);
	}
	launch(k, 1, block2, NULL, args2);
	sync_stream(NULL);
	from_dev(&fin, dout2, sizeof fin);
	if (op == RED_SUM ? !(absd(fin - total) <= 1e-4 * absd(total) + 1e-6 * total_mag)
			  : (double)fin != total)
		rj_test_fail(__FILE__, __LINE__, "%s n=%d block=%u grid=%u then block %u%s: "
			     "%.9g, expected %.9g", name, n, block, grid, block2,
			     in_place ? " in place" : "", fin, total);
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dpart));
	CUDA(rt.cudaFree(dfin));
	free(x);
	free(part);
	free(want);
	free(mag);
}

/* Sizes x block sizes (multiples of 32 up to 1024, as the contract requires), each at a
 * covering grid, a single block and an oversized grid whose last blocks get nothing. */
static void reduce_test(int op)
{
	static const int sizes[] = { 1, 31, 1000, 4097, (1 << 20) + 3 };
	static const unsigned int blocks[] = { 32, 64, 256, 1024 };
	rocjit_ctx *ctx;
	const rocjit_kernel *k;
	int turn = 0;

	gpu_require();
	ctx = gpu_open();
	k = kernel(ctx, "reduce.hip", op == RED_SUM ? "reduce_sum_f32" : "reduce_max_f32");
	for (size_t s = 0; s < COUNT(sizes); s++)
		for (size_t b = 0; b < COUNT(blocks); b++) {
			int n = sizes[s];
			unsigned int block = blocks[b], covering = grid_for(n, block, 2048);
			unsigned int block2 = blocks[(b + s + 1) % COUNT(blocks)];

			reduce_check(k, op, n, block, covering, block2, turn++ % 2);
			if (n <= 4097) {
				reduce_check(k, op, n, block, 1, block2, turn++ % 2);
				reduce_check(k, op, n, block, covering + 3, block2, turn++ % 2);
			}
		}
	rocjit_close(ctx);
}

TEST(reduce_sum_f32_two_pass_matches_cpu)
{
	reduce_test(RED_SUM);
}

TEST(reduce_max_f32_two_pass_matches_cpu_and_ignores_nan)
{
	reduce_test(RED_MAX);
}

TEST(reduce_blocks_without_elements_write_the_identity)
{
	rocjit_ctx *ctx;
	const rocjit_kernel *k[2];
	float x = 2.5f, part[4], *dx, *dpart;
	int n;
	void *args[3] = { &n, &dx, &dpart };

	gpu_require();
	ctx = gpu_open();
	k[RED_SUM] = kernel(ctx, "reduce.hip", "reduce_sum_f32");
	k[RED_MAX] = kernel(ctx, "reduce.hip", "reduce_max_f32");
	dx = dev_alloc(sizeof x);
	dpart = dev_alloc(sizeof part);
	to_dev(dx, &x, sizeof x);
	for (int op = RED_SUM; op <= RED_MAX; op++) {
		float id = op == RED_SUM ? 0.0f : -INFINITY;

		for (n = 0; n <= 1; n++) {
			CUDA(rt.cudaMemset(dpart, 0x7f, sizeof part));
			launch(k[op], 4, 32, NULL, args);
			sync_stream(NULL);
			from_dev(part, dpart, sizeof part);
			for (int b = 0; b < 4; b++)
				if (!same_float(part[b], b == 0 && n == 1 ? x : id))
					rj_test_fail(__FILE__, __LINE__, "%s n=%d grid 4: "
						     "partial[%d] = %g", rocjit_kernel_name(k[op]),
						     n, b, part[b]);
		}
	}
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dpart));
	rocjit_close(ctx);
}

/* ---- The runtime's buffers and streams --------------------------------------------------- */

/* Fills x and y (n floats each) with small integers: any number of axpy steps with a = 1
 * stays exact. */
static void small_ints(float *x, float *y, int n)
{
	for (int i = 0; i < n; i++) {
		x[i] = (float)(i % 7 + 1);
		y[i] = (float)(i % 5);
	}
}

/* Checks y == y0 + times * x exactly (a = 1). */
static void check_accumulated(const char *what, const float *x, const float *y0,
			      const float *got, int n, int times)
{
	for (int i = 0; i < n; i++)
		if (got[i] != y0[i] + (float)times * x[i])
			rj_test_fail(__FILE__, __LINE__, "%s: y[%d] = %.9g, expected %.9g "
				     "(%d launches)", what, i, got[i], y0[i] + (float)times * x[i],
				     times);
}

TEST(launch_on_a_runtime_stream_with_cudamalloc_buffers)
{
	enum { N = 100003 };
	float *x = host_alloc(N * sizeof *x), *y = host_alloc(N * sizeof *y);
	float *got = host_alloc(N * sizeof *got), *dx, *dy, a = 1.0f;
	int n = N;
	void *stream = NULL, *args[4] = { &n, &a, &dx, &dy };
	rocjit_ctx *ctx;
	const rocjit_kernel *k;

	gpu_require();
	/* The runtime first: it creates the primary context rocjit must then share. */
	CUDA(rt.cudaStreamCreate(&stream));
	dx = dev_alloc(N * sizeof *x);
	dy = dev_alloc(N * sizeof *y);
	small_ints(x, y, N);
	to_dev(dx, x, N * sizeof *x);
	to_dev(dy, y, N * sizeof *y);
	ctx = gpu_open();
	k = kernel(ctx, "axpy.hip", "axpy_f32");
	launch(k, grid_for(N, 256, 65535), 256, stream, args);
	launch(k, 7, 128, stream, args); /* ordered after the first on the same stream */
	CUDA(rt.cudaStreamSynchronize(stream));
	CUDA(rt.cudaGetLastError());
	from_dev(got, dy, N * sizeof *got);
	check_accumulated("two launches on a cudaStreamCreate stream", x, y, got, N, 2);
	CUDA(rt.cudaStreamDestroy(stream));
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	rocjit_close(ctx);
	free(x);
	free(y);
	free(got);
}

static atomic_int gate_open, gate_timed_out;

/* A host function on the stream: holds back everything enqueued behind it until the test
 * opens the gate (10 s at most, so that a broken launch fails instead of hanging). */
static void gate(void *unused)
{
	struct timespec ms = { 0, 1000000 };

	(void)unused;
	for (int i = 0; i < 10000 && !atomic_load(&gate_open); i++)
		nanosleep(&ms, NULL);
	if (!atomic_load(&gate_open))
		atomic_store(&gate_timed_out, 1);
}

/*
 * Proves the launch went to the caller's stream, not merely that it gave the right result:
 * a non-blocking stream is held shut by a host function; a kernel launched on it must not
 * have run (a copy on the default stream, which does not wait for that stream, still sees
 * the old y) until the gate opens.
 */
TEST(launch_waits_behind_earlier_work_on_the_callers_stream)
{
	enum { N = 4099 };
	float x[N], y[N], got[N], *dx, *dy, a = 1.0f;
	int n = N;
	void *stream = NULL, *args[4] = { &n, &a, &dx, &dy };
	rocjit_ctx *ctx;
	const rocjit_kernel *k;

	gpu_require();
	ctx = gpu_open();
	k = kernel(ctx, "axpy.hip", "axpy_f32");
	CUDA(rt.cudaStreamCreateWithFlags(&stream, STREAM_NON_BLOCKING));
	dx = dev_alloc(sizeof x);
	dy = dev_alloc(sizeof y);
	small_ints(x, y, N);
	to_dev(dx, x, sizeof x);
	to_dev(dy, y, sizeof y);
	CUDA(rt.cudaLaunchHostFunc(stream, gate, NULL));
	launch(k, grid_for(N, 256, 65535), 256, stream, args);
	ASSERT_INT(rt.cudaStreamQuery(stream), CUDA_NOT_READY);
	from_dev(got, dy, sizeof got);
	if (atomic_load(&gate_timed_out))
		rj_test_fail(__FILE__, __LINE__, "rocjit_kernel_launch did not return while the "
			     "stream was held: does it synchronize?");
	if (memcmp(got, y, sizeof y) != 0)
		rj_test_fail(__FILE__, __LINE__, "the kernel ran before the work queued ahead of "
			     "it on the caller's stream: was it launched on another stream?");
	atomic_store(&gate_open, 1);
	CUDA(rt.cudaStreamSynchronize(stream));
	CUDA(rt.cudaGetLastError());
	ASSERT(!atomic_load(&gate_timed_out));
	from_dev(got, dy, sizeof got);
	check_accumulated("launch behind a host function on the caller's stream", x, y, got, N,
			  1);
	CUDA(rt.cudaStreamDestroy(stream));
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	rocjit_close(ctx);
}

/*
 * NULL is the legacy default stream of the primary context: a cudaMemcpy right after the
 * launches, with no synchronization, is ordered after them.  rocjit comes first here (the
 * runtime then finds the primary context rocjit retained).
 */
TEST(launch_on_the_default_stream_is_ordered_with_runtime_copies)
{
	enum { N = 1 << 22, TIMES = 20 };
	float *x = host_alloc(N * sizeof *x), *y = host_alloc(N * sizeof *y);
	float *got = host_alloc(N * sizeof *got), *dx, *dy, a = 1.0f;
	int n = N;
	void *args[4] = { &n, &a, &dx, &dy };
	rocjit_ctx *ctx;
	const rocjit_kernel *k;

	gpu_require();
	ctx = gpu_open();
	k = kernel(ctx, "axpy.hip", "axpy_f32");
	dx = dev_alloc(N * sizeof *x);
	dy = dev_alloc(N * sizeof *y);
	small_ints(x, y, N);
	to_dev(dx, x, N * sizeof *x);
	to_dev(dy, y, N * sizeof *y);
	for (int i = 0; i < TIMES; i++)
		launch(k, grid_for(N, 256, 65535), 256, NULL, args);
	from_dev(got, dy, N * sizeof *got); /* no synchronization before it */
	check_accumulated("launches on the default stream, then cudaMemcpy", x, y, got, N,
			  TIMES);
	sync_stream(NULL);
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	rocjit_close(ctx);
	free(x);
	free(y);
	free(got);
}

TEST(held_kernel_relaunched_1000_times_accumulates)
{
	enum { N = 4099, TIMES = 1000 };
	float x[N], y[N], got[N], *dx, *dy, a = 1.0f;
	int n = N;
	void *args[4] = { &n, &a, &dx, &dy };
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_kernel *again = NULL;
	rocjit_ctx *ctx;
	const rocjit_kernel *k;

	gpu_require();
	ctx = gpu_open();
	k = kernel(ctx, "axpy.hip", "axpy_f32");
	dx = dev_alloc(sizeof x);
	dy = dev_alloc(sizeof y);
	small_ints(x, y, N);
	to_dev(dx, x, sizeof x);
	to_dev(dy, y, sizeof y);
	for (int i = 0; i < TIMES; i++)
		launch(k, i % 2 ? 5 : grid_for(N, 256, 65535), i % 3 ? 256 : 64, NULL, args);
	sync_stream(NULL);
	from_dev(got, dy, sizeof got);
	check_accumulated("one held kernel launched 1000 times", x, y, got, N, TIMES);
	/* Asking again is a memory hit giving the same handle; launches touched no cache. */
	ASSERT_INT(rocjit_kernel_get_registered(&again, ctx, "axpy.hip", "axpy_f32", NULL, 0), 0);
	ASSERT(again == k);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compiles, 1);
	ASSERT_INT(st.memory_hits, 1);
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	rocjit_close(ctx);
}

/*
 * rocjit_kernel_get remembers, per thread, the programs it served and compares their
 * bytes instead of hashing them again.  A source edited in place (same address, same
 * length) must still get its own kernel.
 */
TEST(source_edited_at_the_same_address_gets_its_own_kernel)
{
	char src[] = "extern \"C\" __global__ void k(int *x) { x[0] = 1; }\n";
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_kernel *k1, *k1again, *k2;
	int *dx, got = 0;
	void *args[1] = { &dx };
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	p.source = src;
	p.name = "edit.hip";
	ASSERT_INT(rocjit_kernel_get(&k1, ctx, &p, "k"), 0);
	ASSERT_INT(rocjit_kernel_get(&k1again, ctx, &p, "k"), 0);
	ASSERT(k1again == k1);
	*strchr(src, '1') = '2';
	ASSERT_INT(rocjit_kernel_get(&k2, ctx, &p, "k"), 0);
	ASSERT(k2 != k1);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compiles, 2);
	ASSERT_INT(st.memory_hits, 1);
	dx = dev_alloc(sizeof got);
	launch(k2, 1, 1, NULL, args);
	sync_stream(NULL);
	from_dev(&got, dx, sizeof got);
	ASSERT_INT(got, 2);
	/* Another option, same bytes: another program. */
	{
		static const char *const opts[] = { "-DUNUSED=1" };
		rocjit_kernel *k3;
		p.options = opts;
		p.num_options = 1;
		ASSERT_INT(rocjit_kernel_get(&k3, ctx, &p, "k"), 0);
		ASSERT(k3 != k2);
	}
	CUDA(rt.cudaFree(dx));
	rocjit_close(ctx);
}

/*
 * One const program shared by two threads (issue 17): nothing in it is written, and each
 * thread reads its own compiler log with rocjit_last_log(): the thread that compiled
 * has the warning, the other (it waited, or hit the table) "", and each one's second
 * request, answered by its per-thread memo without hashing, "".
 */
static char shared_ignored_log[32] = "untouched";
static const rocjit_program shared_warning_program = {
	ROCJIT_PROGRAM_VERSION,
	"#warning built once for both threads\n"
	"extern \"C\" __global__ void k(int *x) { x[0] = 7; }\n",
	0, "shared_gpu.hip", NULL, 0, NULL, 0, shared_ignored_log, sizeof shared_ignored_log,
	ROCJIT_LANG_AUTO, NULL, 0, sizeof(rocjit_header)
};

struct log_sharer {
	rocjit_ctx *ctx;
	pthread_barrier_t *barrier;
	rocjit_kernel *k, *again;
	int compiled, own_log, memo_clears;
};

static void *get_shared_program(void *arg)
{
	struct log_sharer *s = arg;

	pthread_barrier_wait(s->barrier);
	ASSERT_INT(rocjit_kernel_get(&s->k, s->ctx, &shared_warning_program, "k"), 0);
	s->compiled = rocjit_last_log()[0] != 0;
	s->own_log = !s->compiled || strstr(rocjit_last_log(), "built once for both threads");
	pthread_barrier_wait(s->barrier); /* the other thread's request is done too */
	if (s->compiled)
		s->own_log = s->own_log && strstr(rocjit_last_log(), "built once for both threads");
	ASSERT_INT(rocjit_kernel_get(&s->again, s->ctx, &shared_warning_program, "k"), 0);
	s->memo_clears = rocjit_last_log()[0] == 0;
	return NULL;
}

TEST(threads_sharing_one_const_program_get_their_own_logs_and_memo_hits)
{
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	pthread_barrier_t barrier;
	struct log_sharer s[2];
	pthread_t t[2];
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	pthread_barrier_init(&barrier, NULL, 2);
	memset(s, 0, sizeof s);
	for (int i = 0; i < 2; i++) {
		s[i].ctx = ctx;
		s[i].barrier = &barrier;
		ASSERT(pthread_create(&t[i], NULL, get_shared_program, &s[i]) == 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&barrier);
	ASSERT_INT(s[0].compiled + s[1].compiled, 1);
	for (int i = 0; i < 2; i++) {
		ASSERT_INT(s[i].own_log, 1);
		ASSERT_INT(s[i].memo_clears, 1);
		ASSERT(s[i].k == s[0].k && s[i].again == s[i].k);
	}
	ASSERT_STR(shared_ignored_log, "untouched");
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compiles, 1);
	ASSERT(st.memory_hits >= 2); /* the memo hits (and a table hit for a late thread) */
	rocjit_close(ctx);
}

/* ---- Threads ----------------------------------------------------------------------------- */

#define THREADS 4
#define THREAD_N 20011
#define THREAD_LAUNCHES 50

struct worker {
	rocjit_ctx *ctx;
	float *dx, *dy; /* this worker's slice */
	void *stream;   /* NULL for some workers */
};

/* A fresh thread that never touched CUDA: its first rocjit call races the others for the
 * compile and the module load, then it launches on its slice. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const rocjit_kernel *k = kernel(w->ctx, "axpy.hip", "axpy_f32");
	int n = THREAD_N;
	float a = 1.0f;
	void *args[4] = { &n, &a, &w->dx, &w->dy };

	for (int i = 0; i < THREAD_LAUNCHES; i++)
		launch(k, grid_for(n, 128, 65535), 128, w->stream, args);
	return NULL;
}

TEST(launch_from_threads_without_a_current_context)
{
	enum { N = THREADS * THREAD_N };
	float *x = host_alloc(N * sizeof *x), *y = host_alloc(N * sizeof *y);
	float *got = host_alloc(N * sizeof *got), *dx, *dy;
	struct worker w[THREADS];
	pthread_t th[THREADS];
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	dx = dev_alloc(N * sizeof *x);
	dy = dev_alloc(N * sizeof *y);
	small_ints(x, y, N);
	to_dev(dx, x, N * sizeof *x);
	to_dev(dy, y, N * sizeof *y);
	for (int t = 0; t < THREADS; t++) {
		w[t].ctx = ctx;
		w[t].dx = dx + t * THREAD_N;
		w[t].dy = dy + t * THREAD_N;
		w[t].stream = NULL;
		if (t % 2)
			CUDA(rt.cudaStreamCreate(&w[t].stream));
	}
	for (int t = 0; t < THREADS; t++)
		ASSERT_INT(pthread_create(&th[t], NULL, worker_main, &w[t]), 0);
	for (int t = 0; t < THREADS; t++)
		ASSERT_INT(pthread_join(th[t], NULL), 0);
	sync_stream(NULL);
	from_dev(got, dy, N * sizeof *got);
	check_accumulated("4 threads, 50 launches each", x, y, got, N, THREAD_LAUNCHES);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compiles, 1);
	for (int t = 0; t < THREADS; t++)
		if (w[t].stream)
			CUDA(rt.cudaStreamDestroy(w[t].stream));
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	rocjit_close(ctx);
	free(x);
	free(y);
	free(got);
}

/* ---- The on-disk cache across processes -------------------------------------------------- */

/* Child entries: run by a test in a child process, never by ctest (CMake registers only
 * lines that begin with "TEST("). */
#define CHILD(name) TEST(name)

/*
 * Opens a context on $RJ_GPU_CACHE, gets axpy_f32, checks a launch, and prints its
 * counters for the parent: "compiles=C disk_hits=D misses=M cache_open=O".
 */
CHILD(child_axpy_from_shared_cache)
{
	const char *dir = getenv("RJ_GPU_CACHE");
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_ctx *ctx;
	const rocjit_kernel *k;

	if (!dir || !*dir)
		rj_test_fail(__FILE__, __LINE__, "RJ_GPU_CACHE is not set: this entry is run by "
			     "cache_hit_in_a_new_process_launches_correctly");
	gpu_require();
	ctx = gpu_open_at(dir, 0);
	k = kernel(ctx, "axpy.hip", "axpy_f32");
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	axpy_f32_check(k, 1000, 256, 4, NULL, 0);
	axpy_f32_check(k, (1 << 20) + 3, 256, 1024, NULL, 0);
	printf("compiles=%llu disk_hits=%llu misses=%llu cache_open=%d remote_hits=%llu\n",
	       (unsigned long long)st.compiles, (unsigned long long)st.disk_hits,
	       (unsigned long long)st.misses, st.cache_open, (unsigned long long)st.remote_hits);
	rocjit_close(ctx);
}

static char *run_child(const char *entry, const char *cache_dir)
{
	char exe[] = "/proc/self/exe", name[128], env0[4400];
	const char *argv[] = { exe, name, NULL }, *env[] = { env0, NULL };
	char *out = NULL;
	int rc;

	snprintf(name, sizeof name, "%s", entry);
	snprintf(env0, sizeof env0, "RJ_GPU_CACHE=%s", cache_dir);
	rc = rj_test_run(argv, env, &out);
	if (rc != 0)
		rj_test_fail(__FILE__, __LINE__, "child %s exited %d:\n%s", entry, rc,
			     out ? out : "");
	return out;
}

TEST(cache_hit_in_a_new_process_launches_correctly)
{
	char dir[4300], *out;

	gpu_require();
	snprintf(dir, sizeof dir, "%s/shared-cache", rj_test_dir);
	out = run_child("child_axpy_from_shared_cache", dir);
	ASSERT_CONTAINS(out, "compiles=1 disk_hits=0 misses=1 cache_open=1");
	free(out);
	out = run_child("child_axpy_from_shared_cache", dir);
	ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 misses=0 cache_open=1");
	free(out);
}

/* A node of a fleet whose cache is empty takes axpy from the remote tier (a real
 * redis-server, which another node's compile filled) and launches it correctly. */
TEST(remote_hit_on_a_fresh_node_launches_correctly)
{
	struct rj_redis_server server;
	char a[4300], b[4300], url[128], *out;

	gpu_require();
	rj_redis_start(&server, "redis", NULL);
	snprintf(url, sizeof url, "redis://127.0.0.1:%d", server.port);
	setenv("ROCJIT_REMOTE", url, 1);
	snprintf(a, sizeof a, "%s/node-a", rj_test_dir);
	snprintf(b, sizeof b, "%s/node-b", rj_test_dir);
	out = run_child("child_axpy_from_shared_cache", a);
	ASSERT_CONTAINS(out, "compiles=1 disk_hits=0");
	free(out);
	out = run_child("child_axpy_from_shared_cache", b);
	ASSERT_CONTAINS(out, "compiles=0 disk_hits=0 misses=0 cache_open=1 remote_hits=1");
	free(out);
	/* Its copy went into node b's cache: the next process there is a disk hit. */
	out = run_child("child_axpy_from_shared_cache", b);
	ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 misses=0 cache_open=1 remote_hits=0");
	free(out);
	unsetenv("ROCJIT_REMOTE");
	rj_redis_stop(&server);
}

/* ---- Errors, not crashes ----------------------------------------------------------------- */

TEST(missing_kernel_name_is_enotfound_naming_it)
{
	static int not_null;
	rocjit_kernel *k = (rocjit_kernel *)&not_null;
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	ASSERT_INT(rocjit_kernel_get_registered(&k, ctx, "axpy.hip", "axpy_f16_missing", NULL,
						0),
		   ROCJIT_ENOTFOUND);
	ASSERT(k == NULL);
	ASSERT_CONTAINS(rocjit_last_error(), "axpy_f16_missing");
	/* The module is fine: its real kernels still load and run. */
	axpy_f32_check(kernel(ctx, "axpy.hip", "axpy_f32"), 1000, 256, 4, NULL, 0);
	rocjit_close(ctx);
}

TEST(zero_block_or_grid_dimension_is_einval)
{
	static const rocjit_dim3 zeros[] = { { 0, 1, 1 }, { 256, 0, 1 }, { 256, 1, 0 } };
	float *dx, *dy, a = 1.0f;
	int n = 1000;
	void *args[4] = { &n, &a, &dx, &dy };
	rocjit_ctx *ctx;
	const rocjit_kernel *k;

	gpu_require();
	ctx = gpu_open();
	k = kernel(ctx, "axpy.hip", "axpy_f32");
	dx = dev_alloc(1000 * sizeof *dx);
	dy = dev_alloc(1000 * sizeof *dy);
	for (size_t i = 0; i < COUNT(zeros); i++) {
		ASSERT_INT(rocjit_kernel_launch(k, dim1(4), zeros[i], 0, NULL, args),
			   ROCJIT_EINVAL);
		ASSERT_CONTAINS(rocjit_last_error(), "axpy_f32");
		ASSERT_INT(rocjit_kernel_launch(k, zeros[i], dim1(256), 0, NULL, args),
			   ROCJIT_EINVAL);
	}
	sync_stream(NULL);
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	axpy_f32_check(k, 1000, 256, 4, NULL, 0);
	rocjit_close(ctx);
}

TEST(block_of_2048_threads_is_einval_naming_the_limit_and_the_kernel_still_works)
{
	float *dx, *dy, a = 1.0f;
	int n = 4096;
	void *args[4] = { &n, &a, &dx, &dy };
	rocjit_ctx *ctx;
	const rocjit_kernel *k;

	gpu_require();
	ctx = gpu_open();
	k = kernel(ctx, "axpy.hip", "axpy_f32");
	dx = dev_alloc(4096 * sizeof *dx);
	dy = dev_alloc(4096 * sizeof *dy);
	/* The driver refuses; rocjit says why, in the kernel's terms (launch.c). */
	ASSERT_INT(rocjit_kernel_launch(k, dim1(2), dim1(2048), 0, NULL, args), ROCJIT_EINVAL);
	printf("block 2048: %s\n", rocjit_last_error());
	ASSERT_CONTAINS(rocjit_last_error(), "axpy_f32 takes at most 1024 threads per block");
	/* Dynamic shared memory beyond any GPU's: refused the same way. */
	ASSERT_INT(rocjit_kernel_launch(k, dim1(2), dim1(256), 1u << 30, NULL, args),
		   ROCJIT_EINVAL);
	printf("1 GiB of shared memory: %s\n", rocjit_last_error());
	ASSERT_CONTAINS(rocjit_last_error(), "1073741824 bytes of dynamic shared memory");
	/* Neither poisoned the context. */
	sync_stream(NULL);
	CUDA(rt.cudaFree(dx));
	CUDA(rt.cudaFree(dy));
	axpy_f32_check(k, 4096, 1024, 4, NULL, 0);
	rocjit_close(ctx);
}

TEST(syntax_error_is_ecompile_with_file_line_col_in_the_log)
{
	/* The error is at the ';' of line 4 for every compiler (nothing on line 3 is
	 * incomplete): column 19, and 26 where a tab counts as one column. */
	static const char spaces[] = "#include <hip/hip_runtime.h>\n"
				     "extern \"C\" __global__ void broken(float *y)\n"
				     "{\n"
				     "    y[0] = 1.0f + ;\n"
				     "}\n";
	static const char tabs[] = "#include <hip/hip_runtime.h>\n"
				   "extern \"C\" __global__ void broken(float *y)\n"
				   "{\n"
				   "\ty[threadIdx.x] = 2.0f * ;\n"
				   "}\n";
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_kernel *k = NULL;
	char log[8192];
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	p.source = spaces;
	p.name = "broken.hip";
	ASSERT_INT(rocjit_kernel_get(&k, ctx, &p, "broken"), ROCJIT_ECOMPILE);
	ASSERT(k == NULL);
	snprintf(log, sizeof log, "%s", rocjit_last_log());
	printf("log:\n%s\nlast error: %s\n", log, rocjit_last_error());
	ASSERT_CONTAINS(log, "broken.hip:4:19: error");
	ASSERT_CONTAINS(rocjit_last_error(), "broken.hip:4:19: error");
	/* Tab-indented, as kernels-src is: the column still counts characters. */
	p.source = tabs;
	p.name = "broken_tabs.hip";
	ASSERT_INT(rocjit_kernel_get(&k, ctx, &p, "broken"), ROCJIT_ECOMPILE);
	snprintf(log, sizeof log, "%s", rocjit_last_log());
	printf("log:\n%s\n", log);
	ASSERT_CONTAINS(log, "broken_tabs.hip:4:26: error");
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compile_errors, 2);
	ASSERT_INT(st.compiles, 0);
	rocjit_close(ctx);
}

/* ---- Targets ----------------------------------------------------------------------------- */

/* "sm_XY" of the device with this ordinal, read from the driver. */
static void device_sm(char *out, size_t size, int ordinal)
{
	int device = 0, major = 0, minor = 0;

	ASSERT_INT(cu.cuDeviceGet(&device, ordinal), 0);
	ASSERT_INT(cu.cuDeviceGetAttribute(&major, CU_ATTR_CC_MAJOR, device), 0);
	ASSERT_INT(cu.cuDeviceGetAttribute(&minor, CU_ATTR_CC_MINOR, device), 0);
	snprintf(out, size, "sm_%d%d", major, minor);
}

TEST(device_target_is_detected_as_sm_and_inspect_agrees)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_source_file *src;
	const rocjit_code *code = NULL, *again = NULL;
	rocjit_codeobj_info *info = NULL;
	rocjit_kernel *k = NULL;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	int f32 = 0, f64 = 0;
	char sm[32];
	rocjit_ctx *ctx;

	gpu_require();
	device_sm(sm, sizeof sm, 0);
	ctx = gpu_open();
	ASSERT_INT(rocjit_registered_source(&src, "axpy.hip"), 0);
	p.source = src->text;
	p.length = src->length;
	p.name = src->name;
	ASSERT_INT(rocjit_compile(&code, ctx, NULL, &p), 0);
	printf("device 0: %s; code target %s, %zu bytes, key %s\n", sm, code->target,
	       code->size, code->key);
	ASSERT(strncmp(code->target, "sm_", 3) == 0);
	if (strncmp(code->target, sm, strlen(sm)) != 0)
		rj_test_fail(__FILE__, __LINE__, "target %s is not the device's %s", code->target,
			     sm);
	ASSERT(code->size > 0);
	ASSERT_INT(code->from_cache, 0);

	ASSERT_INT(rocjit_codeobj_inspect(&info, code->data, code->size), 0);
	ASSERT_INT(info->platform, ROCJIT_PLATFORM_NVIDIA);
	ASSERT_STR(info->target, code->target);
	for (size_t i = 0; i < info->num_kernels; i++) {
		f32 += strcmp(info->kernels[i], "axpy_f32") == 0;
		f64 += strcmp(info->kernels[i], "axpy_f64") == 0;
	}
	ASSERT_INT(info->num_kernels, 2);
	ASSERT_INT(f32, 1);
	ASSERT_INT(f64, 1);
	rocjit_codeobj_info_free(info);

	/* The same program again is the same code object; its kernels load from it. */
	ASSERT_INT(rocjit_compile(&again, ctx, NULL, &p), 0);
	ASSERT(again == code);
	ASSERT_INT(rocjit_kernel_get(&k, ctx, &p, "axpy_f32"), 0);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compiles, 1);
	axpy_f32_check(k, 1000, 256, 4, NULL, 0);
	rocjit_close(ctx);
}

TEST(auto_platform_picks_nvidia_when_an_nvidia_gpu_is_present)
{
	static const char *const platforms[] = { "", "nvidia" };
	const rocjit_code *code = NULL;

	gpu_require();
	for (size_t i = 0; i < COUNT(platforms); i++) {
		rocjit_options o = ROCJIT_OPTIONS_INIT;
		rocjit_ctx *ctx = NULL;

		/* AUTO alone, then AUTO with $ROCJIT_PLATFORM=nvidia */
		if (*platforms[i])
			setenv("ROCJIT_PLATFORM", platforms[i], 1);
		o.cache_dir = rj_test_cache_dir;
		ASSERT_INT(rocjit_open(&ctx, &o), 0);
		ASSERT_INT(rocjit_compile_registered(&code, ctx, NULL, "axpy.hip", NULL, 0), 0);
		if (strncmp(code->target, "sm_", 3) != 0)
			rj_test_fail(__FILE__, __LINE__, "ROCJIT_PLATFORM_AUTO%s%s chose target %s",
				     *platforms[i] ? ", ROCJIT_PLATFORM=" : "", platforms[i],
				     code->target);
		axpy_f32_check(kernel(ctx, "axpy.hip", "axpy_f32"), 1000, 256, 4, NULL, 0);
		rocjit_close(ctx);
	}
	unsetenv("ROCJIT_PLATFORM");
}

/* ---- Several GPUs ------------------------------------------------------------------------ */

/*
 * One context per device, each with its own module and handle; launches on both devices
 * in flight at once; and rocjit leaves the calling thread's current device alone (the
 * kernel of device 1 is fetched and launched while the caller's device is 0).
 */
TEST(two_gpus_each_context_launches_on_its_own_device)
{
	enum { N = 100003 };
	float *x = host_alloc(N * sizeof *x), *y = host_alloc(N * sizeof *y);
	float *got = host_alloc(N * sizeof *got), *dx[2], *dy[2], a = 1.0f;
	int n = N, count = 0, cur = -1;
	void *stream[2], *args[2][4];
	rocjit_ctx *ctx[2];
	const rocjit_kernel *k[2];
	char sm[2][32];

	gpu_require();
	CUDA(rt.cudaGetDeviceCount(&count));
	if (count < 2)
		skip("one GPU");
	small_ints(x, y, N);
	for (int d = 0; d < 2; d++) {
		CUDA(rt.cudaSetDevice(d));
		CUDA(rt.cudaStreamCreate(&stream[d]));
		dx[d] = dev_alloc(N * sizeof *x);
		dy[d] = dev_alloc(N * sizeof *y);
		to_dev(dx[d], x, N * sizeof *x);
		to_dev(dy[d], y, N * sizeof *y);
		args[d][0] = &n;
		args[d][1] = &a;
		args[d][2] = &dx[d];
		args[d][3] = &dy[d];
		device_sm(sm[d], sizeof sm[d], d);
	}
	CUDA(rt.cudaSetDevice(0));
	for (int d = 0; d < 2; d++) {
		ctx[d] = gpu_open_at(rj_test_cache_dir, d);
		k[d] = kernel(ctx[d], "axpy.hip", "axpy_f32");
		CUDA(rt.cudaGetDevice(&cur));
		if (cur != 0)
			rj_test_fail(__FILE__, __LINE__, "getting a kernel for device %d changed "
				     "the caller's current device to %d", d, cur);
	}
	ASSERT(k[0] != k[1]);
	for (int i = 0; i < 3; i++)
		for (int d = 0; d < 2; d++)
			launch(k[d], grid_for(N, 256, 65535), 256, stream[d], args[d]);
	CUDA(rt.cudaGetDevice(&cur));
	ASSERT_INT(cur, 0);
	for (int d = 0; d < 2; d++) {
		CUDA(rt.cudaSetDevice(d));
		sync_stream(stream[d]);
		from_dev(got, dy[d], N * sizeof *got);
		check_accumulated(d ? "device 1" : "device 0", x, y, got, N, 3);
		CUDA(rt.cudaStreamDestroy(stream[d]));
		CUDA(rt.cudaFree(dx[d]));
		CUDA(rt.cudaFree(dy[d]));
	}
	for (int d = 0; d < 2; d++)
		rocjit_close(ctx[d]);
	printf("devices %s and %s\n", sm[0], sm[1]);
	free(x);
	free(y);
	free(got);
}

/* ---- Name expressions ---------------------------------------------------------------------- */

static const char ne_source[] =
	"template <typename T, int N> __global__ void fill_n(T *y) { y[threadIdx.x] = (T)N; }\n"
	"namespace ns { template <typename T> __global__ void twice(T *y)\n"
	"{ y[threadIdx.x] = 2 * y[threadIdx.x]; } }\n";

/* fill_n<float, 7> then ns::twice<float> on 32 floats: every one is 14. */
static void name_expressions_run(rocjit_ctx *ctx, int want_from_cache)
{
	static const char *const exprs[] = { "fill_n<float, 7>", "ns::twice<float>" };
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_kernel *fill = NULL, *twice = NULL;
	const rocjit_code *c;
	float host[32], *dev = NULL;
	void *args[] = { &dev };

	p.source = ne_source;
	p.name = "ne.hip";
	p.name_expressions = exprs;
	p.num_name_expressions = 2;
	ASSERT_INT(rocjit_kernel_get(&fill, ctx, &p, "fill_n<float, 7>"), 0);
	ASSERT_INT(rocjit_kernel_get(&twice, ctx, &p, "ns::twice<float>"), 0);
	ASSERT_STR(rocjit_kernel_name(fill), "_Z6fill_nIfLi7EEvPT_");
	ASSERT_STR(rocjit_kernel_name(twice), "_ZN2ns5twiceIfEEvPT_");
	/* The mangled name finds the same kernel. */
	{
		rocjit_kernel *k = NULL;
		ASSERT_INT(rocjit_kernel_get(&k, ctx, &p, "_Z6fill_nIfLi7EEvPT_"), 0);
		ASSERT(k == fill);
	}
	ASSERT_INT(rocjit_compile(&c, ctx, NULL, &p), 0);
	ASSERT_INT(c->from_cache, want_from_cache);
	CUDA(rt.cudaMalloc((void **)&dev, sizeof host));
	launch(fill, 1, 32, NULL, args);
	launch(twice, 1, 32, NULL, args);
	CUDA(rt.cudaMemcpy(host, dev, sizeof host, MEMCPY_D2H));
	CUDA(rt.cudaFree(dev));
	for (int i = 0; i < 32; i++)
		ASSERT(host[i] == 14.0f);
}

TEST(kernels_by_name_expression_launch_and_resolve_from_the_cache)
{
	rocjit_ctx *ctx;

	gpu_require();
	ctx = gpu_open();
	name_expressions_run(ctx, 0);
	rocjit_close(ctx);
	/* A new context: a disk hit, the lowered names read back with the code object. */
	ctx = gpu_open();
	name_expressions_run(ctx, 1);
	rocjit_close(ctx);
}
