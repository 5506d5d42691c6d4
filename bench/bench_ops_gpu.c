/*
 * bench_ops_gpu.c - rocjit_ops on an NVIDIA GPU: the bandwidth of the binary add and of the
 * sum reductions against the device-to-device copy measured in the same run, and the first
 * use of the whole kernel set by an application, cold against cached.
 *
 *   bench_ops_gpu [--mib N] [--reps N] [--cold N] [--hits N] [--json FILE] [--no-app]
 *
 * Bandwidth (one process, buffers of --mib MiB each, default 256; f32):
 *   copy      cudaMemcpyAsync device to device, S bytes: counts 2 S (read + write)
 *   add       rocjit_ops_binary(ROCJIT_ADD), dense a + b -> c: counts 3 S
 *   sum       rocjit_ops_reduce(ROCJIT_SUM) of the S bytes to one value, with the
 *             workspace rocjit_ops_reduce_workspace asks for: counts S
 *   rows      the same over the last dim of [S / 64 KiB, 16384] (one sum per row): S
 *   cols      the same over the first dim (one sum per column): S
 *   sum no ws the one-value sum without a workspace (allowed, said to be slower): S
 *   ops copy  rocjit_ops_copy of the dense view: 2 S
 * Each case runs twice untimed (the first compiles or loads its kernels), then its result
 * is checked against a CPU reference, the outputs poisoned first: every result must be
 * exact (the data are zeros, ones and halves, so every add and every sum below 2^24 is
 * exact in f32 whatever the order; one-value sums above 2^24: within 1e-5).  Then --reps
 * rounds (default 30); in each round every case runs once, timed by CUDA events around it
 * alone on one stream, the case order rotating from round to round so no case always
 * follows another.  Before each timed launch an untimed sum over a buffer of 4x the L2
 * size leaves none of the cases' data in L2.  GB/s uses the median; "ratio" is a case's
 * median GB/s over the copy's median GB/s.  The target: add and sum reach 0.70.
 *
 * First use of the set (--cold fresh processes on empty cache folders, default 3, then
 * --hits processes on the warm cache, default 10): a new process of this program, as an
 * application that uses every op would start.  It brings the driver up (cuInit, the
 * primary context: timed apart, every CUDA program pays it), rocjit_open with the
 * defaults ($ROCJIT_CACHE_DIR names the folder), then rocjit_kernel_get_registered_v2 for
 * every (file, kernel) of rocjit_ops_foreach_kernel, as rocjit_ops fetches it: that one
 * template instantiation, an entry of its own.  Times run from the parent's clock
 * just before fork() to the last kernel.  The bandwidth part then runs on the warm cache,
 * and rocjit's counters say whether rocjit_ops asked for anything the set did not cover.
 *
 * The in-process repeat: the same kernel fetched again HOT_CALLS times in a row, ns per
 * call, for today's registered call on an extern "C" kernel, the v2 call without and with
 * a name expression (what rocjit_ops does at every launch: the per-thread memo), and the
 * op as a program given to rocjit_kernel_get (what a memo miss costs).
 *
 * The CUDA runtime (buffers, streams, events) and the driver are loaded with dlopen:
 * building this needs no CUDA header or library.  Human tables on stdout, then JSON lines
 * (also to --json FILE).  Exit status: 0; 1 for a wrong result or a failure; 3 when the
 * results are right but a target is not met.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rocjit.h>
#include <rocjit_ops.h>

#include "bench_set.h"
#include "bench_util.h"

#define PROG "bench_ops_gpu"
const char *bench_prog = PROG;
#define TARGET_RATIO 0.70
#define COLS 16384 /* the row length of the 2-D reductions */


/* ---- The CUDA driver and runtime, loaded with dlopen: C ABI, int for enums and errors ---- */

#define MEMCPY_H2D 1 /* cudaMemcpyHostToDevice */
#define MEMCPY_D2H 2
#define MEMCPY_D2D 3
#define STREAM_BLOCKING 0u /* cudaStreamDefault */
#define ATTR_SM_COUNT 16 /* cudaDevAttrMultiProcessorCount */
#define ATTR_MEM_CLOCK 36 /* cudaDevAttrMemoryClockRate, kHz */
#define ATTR_BUS_WIDTH 37 /* cudaDevAttrGlobalMemoryBusWidth, bits */
#define ATTR_L2_BYTES 38 /* cudaDevAttrL2CacheSize */

static struct {
	void *lib;
	int (*cuInit)(unsigned int flags);
	int (*cuDeviceGet)(int *dev, int ordinal);
	int (*cuDeviceGetName)(char *name, int len, int dev);
	int (*cuDevicePrimaryCtxRetain)(void **ctx, int dev);
	int (*cuCtxSetCurrent)(void *ctx);
	int (*cuDriverGetVersion)(int *version);
} cu;

static struct {
	void *lib;
	int (*cudaSetDevice)(int device);
	int (*cudaFree)(void *ptr);
	int (*cudaMalloc)(void **ptr, size_t size);
	int (*cudaMemcpy)(void *dst, const void *src, size_t size, int kind);
	int (*cudaMemcpyAsync)(void *dst, const void *src, size_t size, int kind, void *stream);
	int (*cudaMemset)(void *ptr, int value, size_t size);
	int (*cudaStreamCreateWithFlags)(void **stream, unsigned int flags);
	int (*cudaStreamSynchronize)(void *stream);
	int (*cudaStreamDestroy)(void *stream);
	int (*cudaEventCreate)(void **event);
	int (*cudaEventRecord)(void *event, void *stream);
	int (*cudaEventSynchronize)(void *event);
	int (*cudaEventElapsedTime)(float *ms, void *start, void *end);
	int (*cudaEventDestroy)(void *event);
	int (*cudaDeviceSynchronize)(void);
	int (*cudaGetLastError)(void);
	int (*cudaDeviceGetAttribute)(int *value, int attr, int device);
	int (*cudaRuntimeGetVersion)(int *version);
	const char *(*cudaGetErrorString)(int error);
} rt;

#define LOAD(lib, s, name) (*(void **)&(s).name = dlsym((lib), #name))

static void cuda_check(int e, const char *call)
{
	if (e != 0)
		bench_die("%s: CUDA error %d (%s)", call, e,
		    rt.cudaGetErrorString ? rt.cudaGetErrorString(e) : "?");
}

#define CUDA(call) cuda_check((call), #call)

static void load_driver(void)
{
	cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cu.lib)
		bench_die("cannot load the NVIDIA driver (libcuda.so.1): %s", dlerror());
	LOAD(cu.lib, cu, cuInit);
	LOAD(cu.lib, cu, cuDeviceGet);
	LOAD(cu.lib, cu, cuDeviceGetName);
	LOAD(cu.lib, cu, cuDevicePrimaryCtxRetain);
	LOAD(cu.lib, cu, cuCtxSetCurrent);
	LOAD(cu.lib, cu, cuDriverGetVersion);
	if (!cu.cuInit || !cu.cuDeviceGet || !cu.cuDeviceGetName ||
	    !cu.cuDevicePrimaryCtxRetain || !cu.cuCtxSetCurrent || !cu.cuDriverGetVersion)
		bench_die("libcuda.so.1 lacks a driver function this benchmark uses");
}

static void load_runtime(void)
{
	static const char *const names[] = { "libcudart.so.13", "libcudart.so.12", "libcudart.so",
					     "/usr/local/cuda/lib64/libcudart.so.13",
					     "/usr/local/cuda/lib64/libcudart.so.12",
					     "/usr/local/cuda/lib64/libcudart.so", NULL };

	for (size_t i = 0; names[i] && !rt.lib; i++)
		rt.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!rt.lib)
		bench_die("cannot load the CUDA runtime (libcudart.so.13/.12): %s", dlerror());
	LOAD(rt.lib, rt, cudaSetDevice);
	LOAD(rt.lib, rt, cudaFree);
	LOAD(rt.lib, rt, cudaMalloc);
	LOAD(rt.lib, rt, cudaMemcpy);
	LOAD(rt.lib, rt, cudaMemcpyAsync);
	LOAD(rt.lib, rt, cudaMemset);
	LOAD(rt.lib, rt, cudaStreamCreateWithFlags);
	LOAD(rt.lib, rt, cudaStreamSynchronize);
	LOAD(rt.lib, rt, cudaStreamDestroy);
	LOAD(rt.lib, rt, cudaEventCreate);
	LOAD(rt.lib, rt, cudaEventRecord);
	LOAD(rt.lib, rt, cudaEventSynchronize);
	LOAD(rt.lib, rt, cudaEventElapsedTime);
	LOAD(rt.lib, rt, cudaEventDestroy);
	LOAD(rt.lib, rt, cudaDeviceSynchronize);
	LOAD(rt.lib, rt, cudaGetLastError);
	LOAD(rt.lib, rt, cudaDeviceGetAttribute);
	LOAD(rt.lib, rt, cudaRuntimeGetVersion);
	LOAD(rt.lib, rt, cudaGetErrorString);
	if (!rt.cudaSetDevice || !rt.cudaFree || !rt.cudaMalloc || !rt.cudaMemcpy ||
	    !rt.cudaMemcpyAsync || !rt.cudaMemset || !rt.cudaStreamCreateWithFlags ||
	    !rt.cudaStreamSynchronize || !rt.cudaStreamDestroy || !rt.cudaEventCreate ||
	    !rt.cudaEventRecord || !rt.cudaEventSynchronize || !rt.cudaEventElapsedTime ||
	    !rt.cudaEventDestroy || !rt.cudaDeviceSynchronize || !rt.cudaGetLastError ||
	    !rt.cudaDeviceGetAttribute || !rt.cudaRuntimeGetVersion || !rt.cudaGetErrorString)
		bench_die("the CUDA runtime lacks a function this benchmark uses");
}

static void rj_check(int rc, const char *what)
{
	if (rc != 0)
		bench_die("%s: %s: %s%s%s", what, rocjit_strerror(rc), rocjit_ops_last_error(),
		    *rocjit_ops_last_error() && *rocjit_last_error() ? "; " : "",
		    rocjit_last_error());
}

/* ---- First use by an application: the child ------------------------------------------- */

/*
 * --child app T0: the application.  T0 is the parent's CLOCK_MONOTONIC in ns just before
 * fork.  The cache folder is $ROCJIT_CACHE_DIR, as an application would be told.  Prints a
 * line per file (its gets, then untimed: its code object's compile_ms, origin, size) and
 * "app main=.. driver=.. open=.. first=.. done=.." in ms since T0, with the counters.
 */
static int child_app(const char *t0s)
{
	int64_t t0 = strtoll(t0s, NULL, 10), t_main = bench_now_ns(), t_drv, t_open, t_first = 0;
	double *ms = bench_calloc((size_t)nfiles, sizeof *ms);
	rocjit_ctx *ctx = NULL;
	rocjit_stats s;
	void *pctx;
	int dev;

	load_driver();
	cuda_check(cu.cuInit(0), "cuInit");
	cuda_check(cu.cuDeviceGet(&dev, 0), "cuDeviceGet");
	cuda_check(cu.cuDevicePrimaryCtxRetain(&pctx, dev), "cuDevicePrimaryCtxRetain");
	cuda_check(cu.cuCtxSetCurrent(pctx), "cuCtxSetCurrent");
	t_drv = bench_now_ns();
	rj_check(rocjit_open(&ctx, NULL), "rocjit_open");
	t_open = bench_now_ns();
	for (int i = 0; i < nfiles; i++) {
		int64_t t = bench_now_ns();
		for (int k = 0; k < files[i].nk; k++) {
			rocjit_kernel *kern;
			int rc = set_kernel(&kern, ctx, i, k);
			if (rc != 0)
				bench_die("child: %s from %s: %s: %s", files[i].kernels[k], files[i].name,
				    rocjit_strerror(rc), rocjit_last_error());
			if (!t_first)
				t_first = bench_now_ns();
		}
		ms[i] = bench_ms_since(t);
	}
	{
		int64_t t_done = bench_now_ns();
		memset(&s, 0, sizeof s);
		s.version = ROCJIT_STATS_VERSION;
		rj_check(rocjit_stats_get(&s, ctx), "rocjit_stats_get");
		for (int i = 0; i < nfiles; i++) {
			/* Each kernel is an entry of its own: the file's figures are their sums. */
			double compiler = 0;
			size_t bytes = 0;
			int cached = 1;
			for (int k = 0; k < files[i].nk; k++) {
				const rocjit_code *code;
				rj_check(set_compile(&code, ctx, NULL, i, k), files[i].kernels[k]);
				compiler += code->compile_ms;
				bytes += code->size;
				cached &= code->from_cache;
			}
			printf("file name=%s ms=%.6f kernels=%d cached=%d compiler=%.6f bytes=%zu\n",
			       files[i].name, ms[i], files[i].nk, cached, compiler, bytes);
		}
		printf("app main=%.6f driver=%.6f open=%.6f first=%.6f done=%.6f compiles=%llu "
		       "disk_hits=%llu misses=%llu compiler=%.6f cache=%d\n",
		       (double)(t_main - t0) / 1e6, (double)(t_drv - t0) / 1e6,
		       (double)(t_open - t0) / 1e6, (double)(t_first - t0) / 1e6,
		       (double)(t_done - t0) / 1e6, (unsigned long long)s.compiles,
		       (unsigned long long)s.disk_hits, (unsigned long long)s.misses, s.compile_ms,
		       s.cache_open);
	}
	rocjit_close(ctx);
	free(ms);
	return 0;
}

/* ---- The parent: first use ------------------------------------------------------------ */

#define OUT_MAX 65536

/* Runs "--child app T0" with T0 taken just before fork; its stdout into out[OUT_MAX]. */
static void run_app(char *out)
{
	char t0s[32];
	const char *argv[] = { PROG, "--child", "app", t0s, NULL };
	int status;

	status = bench_run_self(argv, t0s, sizeof t0s, out, OUT_MAX);
	if (status != 0)
		bench_die("an application child failed (status %d)", status);
}

/* The line of out that starts with prefix and, when name is given, has " name=NAME ". */
static const char *find_line(const char *out, const char *prefix, const char *name)
{
	size_t n = strlen(prefix), m = name ? strlen(name) : 0;

	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, prefix, n) != 0)
			continue;
		if (!name || (!strncmp(p + n, "name=", 5) && !strncmp(p + n + 5, name, m) &&
			      p[n + 5 + m] == ' '))
			return p;
	}
	bench_die("the child printed no line \"%s%s\"", prefix, name ? name : "");
}

/* Medians of the first-use runs: [0] cold, [1] cached. */
struct app_case {
	int n;
	double *done, *main_, *driver, *open, *first, *gets, *compiler;
	double **file_ms, **file_compiler; /* [file][run] */
	double compiles, disk_hits, misses; /* of the last run */
};

static struct app_case app[2];

static void app_alloc(struct app_case *a, int n)
{
	a->done = bench_calloc((size_t)n, sizeof(double));
	a->main_ = bench_calloc((size_t)n, sizeof(double));
	a->driver = bench_calloc((size_t)n, sizeof(double));
	a->open = bench_calloc((size_t)n, sizeof(double));
	a->first = bench_calloc((size_t)n, sizeof(double));
	a->gets = bench_calloc((size_t)n, sizeof(double));
	a->compiler = bench_calloc((size_t)n, sizeof(double));
	a->file_ms = bench_calloc((size_t)nfiles, sizeof(double *));
	a->file_compiler = bench_calloc((size_t)nfiles, sizeof(double *));
	for (int i = 0; i < nfiles; i++) {
		a->file_ms[i] = bench_calloc((size_t)n, sizeof(double));
		a->file_compiler[i] = bench_calloc((size_t)n, sizeof(double));
	}
}

/* One child on cache folder dir; cold (empty folder) or cached. */
static void app_run(int cold, const char *dir)
{
	static char out[OUT_MAX];
	struct app_case *a = &app[cold ? 0 : 1];
	const char *l;
	int k = a->n;

	setenv("ROCJIT_CACHE_DIR", dir, 1);
	run_app(out);
	l = find_line(out, "app ", NULL);
	if (bench_field(l, "cache") != 1)
		bench_die("the child's cache %s did not open", dir);
	a->compiles = bench_field(l, "compiles");
	a->disk_hits = bench_field(l, "disk_hits");
	a->misses = bench_field(l, "misses");
	if (cold && a->compiles < nfiles)
		bench_die("the cold child on %s compiled %.0f programs for %d files", dir, a->compiles,
		    nfiles);
	if (!cold && (a->misses != 0 || a->compiles != 0))
		bench_die("the cached child on %s missed %.0f programs", dir, a->misses);
	a->done[k] = bench_field(l, "done");
	a->main_[k] = bench_field(l, "main");
	a->driver[k] = bench_field(l, "driver") - bench_field(l, "main");
	a->open[k] = bench_field(l, "open") - bench_field(l, "driver");
	a->first[k] = bench_field(l, "first") - bench_field(l, "open");
	a->gets[k] = bench_field(l, "done") - bench_field(l, "open");
	a->compiler[k] = bench_field(l, "compiler");
	for (int i = 0; i < nfiles; i++) {
		const char *f = find_line(out, "file ", files[i].name);
		a->file_ms[i][k] = bench_field(f, "ms");
		a->file_compiler[i][k] = bench_field(f, "compiler");
		if ((bench_field(f, "cached") != 0) == cold)
			bench_die("the %s child found %s %s", cold ? "cold" : "cached", files[i].name,
			    cold ? "in the cache" : "not cached");
	}
	a->n++;
}

/* ---- The in-process repeat: a launch fetching its kernel again -------------------------- */

static const char hot_src[] =
	"extern \"C\" __global__ void hot_axpy(float a, float *x) { x[threadIdx.x] *= a; }\n";
static const rocjit_source_file hot_file = { "bench_hot.hip", hot_src, sizeof hot_src - 1 };

enum { H_REG, H_REG_V2, H_OP_V2, H_OP_PROGRAM, NHOT };
static const char *const hot_names[NHOT] = {
	"rocjit_kernel_get_registered (extern \"C\", before)",
	"rocjit_kernel_get_registered_v2, no expression",
	"rocjit_kernel_get_registered_v2, one op (rocjit_ops)",
	"rocjit_kernel_get, the op as a program (v2 memo miss)",
};
static const char *const hot_keys[NHOT] = { "registered", "registered_v2", "op_v2",
					    "op_program" };
#define HOT_ROUNDS 7
#define HOT_CALLS 200000

/* One round of case c: HOT_CALLS fetches of the same kernel, ns per fetch. */
static double hot_round(rocjit_ctx *ctx, int c, const rocjit_program *prog)
{
	static const char *expr = "unary<rj_op_neg, float>";
	rocjit_registered_options o = ROCJIT_REGISTERED_OPTIONS_INIT;
	rocjit_kernel *k;
	int64_t t0;
	int rc = 0;

	o.name_expressions = &expr;
	o.num_name_expressions = 1;
	t0 = bench_now_ns();
	for (int i = 0; i < HOT_CALLS && !rc; i++) {
		switch (c) {
		case H_REG:
			rc = rocjit_kernel_get_registered(&k, ctx, hot_file.name, "hot_axpy", NULL, 0);
			break;
		case H_REG_V2:
			rc = rocjit_kernel_get_registered_v2(&k, ctx, hot_file.name, "hot_axpy", NULL);
			break;
		case H_OP_V2:
			rc = rocjit_kernel_get_registered_v2(&k, ctx, "unary.hip", expr, &o);
			break;
		default:
			rc = rocjit_kernel_get(&k, ctx, prog, expr);
		}
	}
	rj_check(rc, hot_names[c]);
	return (double)(bench_now_ns() - t0) / HOT_CALLS;
}

/*
 * The repeat of each way of fetching a kernel, ns per call: HOT_ROUNDS rounds, each case
 * once per round in turn (after one untimed round that compiles or loads), medians.
 */
static void hot_path(rocjit_ctx *ctx, double med[NHOT])
{
	const rocjit_source_file *src, *hdr;
	rocjit_program prog = ROCJIT_PROGRAM_INIT;
	static const char *expr = "unary<rj_op_neg, float>";
	double v[NHOT][HOT_ROUNDS];
	rocjit_header h;

	rj_check(rocjit_registered_source(&src, "unary.hip"), "unary.hip");
	rj_check(rocjit_registered_source(&hdr, "rj_ops.h"), "rj_ops.h");
	h.name = hdr->name;
	h.source = hdr->text;
	h.length = hdr->length;
	prog.source = src->text;
	prog.length = src->length;
	prog.name = "unary.hip";
	prog.headers = &h;
	prog.num_headers = 1;
	prog.name_expressions = &expr;
	prog.num_name_expressions = 1;
	for (int c = 0; c < NHOT; c++)
		hot_round(ctx, c, &prog);
	for (int r = 0; r < HOT_ROUNDS; r++)
		for (int c = 0; c < NHOT; c++)
			v[c][r] = hot_round(ctx, c, &prog);
	for (int c = 0; c < NHOT; c++)
		med[c] = bench_median(v[c], HOT_ROUNDS);
}

/* ---- The parent: bandwidth -------------------------------------------------------------- */

enum { C_COPY, C_ADD, C_SUM, C_ROWS, C_COLS, C_SUM_NOWS, C_OPS_COPY, NCASES };

static const struct {
	const char *key, *what;
	int traffic;  /* bytes moved, in buffers of S */
	int required; /* the target applies */
} cases[NCASES] = {
	{ "copy_d2d", "cudaMemcpyAsync D2D", 2, 0 },
	{ "binary_add_f32", "ops_binary ADD f32", 3, 1 },
	{ "reduce_sum_all_f32", "ops_reduce SUM -> 1", 1, 1 },
	{ "reduce_sum_rows_f32", "ops_reduce SUM last dim", 1, 0 },
	{ "reduce_sum_cols_f32", "ops_reduce SUM first dim", 1, 0 },
	{ "reduce_sum_all_nows_f32", "ops_reduce SUM -> 1, no ws", 1, 0 },
	{ "ops_copy_f32", "ops_copy dense f32", 2, 0 },
};

struct bw {
	size_t bytes;         /* S */
	int64_t n, rows;      /* elements; rows of the 2-D view */
	float *a, *b, *c, *d; /* device: inputs a, b; outputs c (add), d (copies) */
	float *y1, *y1n, *yr, *yc; /* reduction outputs: one, one (no ws), rows, cols */
	void *ws;
	size_t ws_size, ws_all, ws_rows, ws_cols;
	float *ha, *hb;       /* host copies of a and b */
	float *flush, *yflush; /* read before every timed launch, to empty L2 of our data */
	size_t flush_bytes;
	void *stream;
	rocjit_ops *ops;
	rocjit_tensor ta, tb, tc, td, tx2, ty1, ty1n, tyr, tyc, tflush, tyflush;
};

/* Launches case c once on the stream (asynchronous). */
static void launch_case(struct bw *w, int c)
{
	switch (c) {
	case C_COPY:
		CUDA(rt.cudaMemcpyAsync(w->d, w->a, w->bytes, MEMCPY_D2D, w->stream));
		break;
	case C_ADD:
		rj_check(rocjit_ops_binary(w->ops, w->stream, ROCJIT_ADD, &w->ta, &w->tb, &w->tc),
			 "rocjit_ops_binary ADD");
		break;
	case C_SUM:
		rj_check(rocjit_ops_reduce(w->ops, w->stream, ROCJIT_SUM, &w->ta, 0, &w->ty1, w->ws,
					   w->ws_size), "rocjit_ops_reduce SUM (all)");
		break;
	case C_ROWS:
		rj_check(rocjit_ops_reduce(w->ops, w->stream, ROCJIT_SUM, &w->tx2, 1, &w->tyr, w->ws,
					   w->ws_size), "rocjit_ops_reduce SUM (last dim)");
		break;
	case C_COLS:
		rj_check(rocjit_ops_reduce(w->ops, w->stream, ROCJIT_SUM, &w->tx2, 0, &w->tyc, w->ws,
					   w->ws_size), "rocjit_ops_reduce SUM (first dim)");
		break;
	case C_SUM_NOWS:
		rj_check(rocjit_ops_reduce(w->ops, w->stream, ROCJIT_SUM, &w->ta, 0, &w->ty1n, NULL,
					   0), "rocjit_ops_reduce SUM (all, no workspace)");
		break;
	case C_OPS_COPY:
		rj_check(rocjit_ops_copy(w->ops, w->stream, &w->ta, &w->td), "rocjit_ops_copy");
		break;
	}
}

static void sync_all(struct bw *w)
{
	CUDA(rt.cudaStreamSynchronize(w->stream));
	CUDA(rt.cudaGetLastError());
}

/* Poisons case c's output (all bits set: a NaN), runs it once, checks it; the first
 * mismatch into msg.  Returns 1 when right. */
static int verify_case(struct bw *w, int c, char *msg, size_t size)
{
	float *host = NULL;
	int ok = 1;

	msg[0] = 0;
	switch (c) {
	case C_COPY:
	case C_ADD:
	case C_OPS_COPY: {
		float *out = c == C_ADD ? w->c : w->d;
		CUDA(rt.cudaMemset(out, 0xff, w->bytes));
		CUDA(rt.cudaDeviceSynchronize());
		launch_case(w, c);
		sync_all(w);
		host = bench_calloc((size_t)w->n, sizeof *host);
		CUDA(rt.cudaMemcpy(host, out, w->bytes, MEMCPY_D2H));
		for (int64_t i = 0; i < w->n && ok; i++) {
			float want = c == C_ADD ? w->ha[i] + w->hb[i] : w->ha[i];
			if (host[i] != want) {
				snprintf(msg, size, "element %lld: %.9g, want %.9g", (long long)i,
					 (double)host[i], (double)want);
				ok = 0;
			}
		}
		break;
	}
	case C_SUM:
	case C_SUM_NOWS: {
		float got;
		double want = 0, rel;
		float *y = c == C_SUM ? w->y1 : w->y1n;
		CUDA(rt.cudaMemset(y, 0xff, sizeof(float)));
		CUDA(rt.cudaDeviceSynchronize());
		launch_case(w, c);
		sync_all(w);
		CUDA(rt.cudaMemcpy(&got, y, sizeof got, MEMCPY_D2H));
		for (int64_t i = 0; i < w->n; i++)
			want += w->ha[i];
		/* Below 2^24 every partial sum is an integer f32 holds exactly, whatever the
		   order; above (--mib > 512), f32 accumulation may round. */
		rel = fabs((double)got - want) / want;
		if (want < 16777216.0 ? (double)got != want : !(rel <= 1e-5)) {
			snprintf(msg, size, "sum %.9g, want %.9g (relative error %.3g)", (double)got,
				 want, rel);
			ok = 0;
		} else {
			snprintf(msg, size, "sum %.9g, %s", (double)got,
				 want < 16777216.0 ? "exact" : "within 1e-5");
		}
		break;
	}
	case C_ROWS:
	case C_COLS: {
		int64_t m = c == C_ROWS ? w->rows : COLS;
		double *want = bench_calloc((size_t)m, sizeof *want);
		float *y = c == C_ROWS ? w->yr : w->yc;
		CUDA(rt.cudaMemset(y, 0xff, (size_t)m * sizeof(float)));
		CUDA(rt.cudaDeviceSynchronize());
		launch_case(w, c);
		sync_all(w);
		host = bench_calloc((size_t)m, sizeof *host);
		CUDA(rt.cudaMemcpy(host, y, (size_t)m * sizeof(float), MEMCPY_D2H));
		for (int64_t r = 0; r < w->rows; r++)
			for (int64_t k = 0; k < COLS; k++)
				want[c == C_ROWS ? r : k] += w->ha[r * COLS + k];
		/* Row and column sums are integers below 2^24: exact in f32. */
		for (int64_t i = 0; i < m && ok; i++) {
			if ((double)host[i] != want[i]) {
				snprintf(msg, size, "%s %lld: %.9g, want %.9g",
					 c == C_ROWS ? "row" : "column", (long long)i,
					 (double)host[i], want[i]);
				ok = 0;
			}
		}
		free(want);
		break;
	}
	}
	free(host);
	return ok;
}

struct result {
	double *ms;
	double med, best, gbps, best_gbps, ratio, best_ratio;
	int ok;
	char check[256];
};

/*
 * Fills L2 with clean lines of a buffer no case touches: a sum over 4x the L2 size, which
 * reads and writes almost nothing.  (A memset would leave dirty lines whose write-back
 * the next case would pay.)  Untimed, on the stream before the case's start event.
 */
static void flush_l2(struct bw *w)
{
	rj_check(rocjit_ops_reduce(w->ops, w->stream, ROCJIT_SUM, &w->tflush, 0, &w->tyflush,
				   w->ws, w->ws_size), "rocjit_ops_reduce (L2 flush)");
}

static void bw_setup(struct bw *w, rocjit_ctx *ctx, size_t mib, int l2_bytes)
{
	int64_t dims1[1], dims2[2], dr[1] = { 0 }, dc[1] = { COLS }, d1[1] = { 1 }, df[1];
	size_t ws_flush;

	w->bytes = mib << 20;
	w->n = (int64_t)(w->bytes / sizeof(float));
	if (w->n % COLS)
		bench_die("--mib must make a whole number of %d-float rows", COLS);
	w->rows = w->n / COLS;
	dr[0] = w->rows;
	dims1[0] = w->n;
	dims2[0] = w->rows;
	dims2[1] = COLS;
	/* A blocking stream: it also waits for the legacy default stream, where cudaMemcpy
	   and cudaMemset run. */
	CUDA(rt.cudaStreamCreateWithFlags(&w->stream, STREAM_BLOCKING));
	CUDA(rt.cudaMalloc((void **)&w->a, w->bytes));
	CUDA(rt.cudaMalloc((void **)&w->b, w->bytes));
	CUDA(rt.cudaMalloc((void **)&w->c, w->bytes));
	CUDA(rt.cudaMalloc((void **)&w->d, w->bytes));
	CUDA(rt.cudaMalloc((void **)&w->y1, sizeof(float)));
	CUDA(rt.cudaMalloc((void **)&w->y1n, sizeof(float)));
	CUDA(rt.cudaMalloc((void **)&w->yr, (size_t)w->rows * sizeof(float)));
	CUDA(rt.cudaMalloc((void **)&w->yc, COLS * sizeof(float)));
	w->flush_bytes = l2_bytes > 0 ? 4 * (size_t)l2_bytes : (size_t)256 << 20;
	CUDA(rt.cudaMalloc((void **)&w->flush, w->flush_bytes));
	CUDA(rt.cudaMemset(w->flush, 0, w->flush_bytes));
	CUDA(rt.cudaMalloc((void **)&w->yflush, sizeof(float)));
	df[0] = (int64_t)(w->flush_bytes / sizeof(float));

	/* a: 1 for one element in 8 (hashed, so rows and columns differ), else 0; b: halves.
	   Every add is exact in f32, and so is every sum below 2^24 (the one-value sum of
	   256 MiB is about 8.4 M) in any order of summation. */
	w->ha = bench_calloc((size_t)w->n, sizeof(float));
	w->hb = bench_calloc((size_t)w->n, sizeof(float));
	for (int64_t i = 0; i < w->n; i++) {
		w->ha[i] = ((uint32_t)i * 2654435761u) >> 29 == 0 ? 1.0f : 0.0f;
		w->hb[i] = (float)(i % 5) * 0.5f;
	}
	CUDA(rt.cudaMemcpy(w->a, w->ha, w->bytes, MEMCPY_H2D));
	CUDA(rt.cudaMemcpy(w->b, w->hb, w->bytes, MEMCPY_H2D));
	/* A pageable cudaMemcpy may return before its DMA ends, a memset before it runs. */
	CUDA(rt.cudaDeviceSynchronize());

	rj_check(rocjit_ops_create(&w->ops, ctx), "rocjit_ops_create");
	w->ta = rocjit_tensor_dense(w->a, ROCJIT_F32, 1, dims1);
	w->tb = rocjit_tensor_dense(w->b, ROCJIT_F32, 1, dims1);
	w->tc = rocjit_tensor_dense(w->c, ROCJIT_F32, 1, dims1);
	w->td = rocjit_tensor_dense(w->d, ROCJIT_F32, 1, dims1);
	w->tx2 = rocjit_tensor_dense(w->a, ROCJIT_F32, 2, dims2);
	w->ty1 = rocjit_tensor_dense(w->y1, ROCJIT_F32, 1, d1);
	w->ty1n = rocjit_tensor_dense(w->y1n, ROCJIT_F32, 1, d1);
	w->tyr = rocjit_tensor_dense(w->yr, ROCJIT_F32, 1, dr);
	w->tyc = rocjit_tensor_dense(w->yc, ROCJIT_F32, 1, dc);
	w->tflush = rocjit_tensor_dense(w->flush, ROCJIT_F32, 1, df);
	w->tyflush = rocjit_tensor_dense(w->yflush, ROCJIT_F32, 1, d1);
	w->ws_all = rocjit_ops_reduce_workspace(ROCJIT_SUM, &w->ta, 0);
	w->ws_rows = rocjit_ops_reduce_workspace(ROCJIT_SUM, &w->tx2, 1);
	w->ws_cols = rocjit_ops_reduce_workspace(ROCJIT_SUM, &w->tx2, 0);
	ws_flush = rocjit_ops_reduce_workspace(ROCJIT_SUM, &w->tflush, 0);
	w->ws_size = w->ws_all;
	if (ws_flush > w->ws_size)
		w->ws_size = ws_flush;
	if (w->ws_rows > w->ws_size)
		w->ws_size = w->ws_rows;
	if (w->ws_cols > w->ws_size)
		w->ws_size = w->ws_cols;
	if (w->ws_size)
		CUDA(rt.cudaMalloc(&w->ws, w->ws_size));
}

/* Warm-up, checks, then the timed rounds; fills res[NCASES]. */
static void bw_run(struct bw *w, int reps, struct result *res)
{
	void *ev[2];

	CUDA(rt.cudaEventCreate(&ev[0]));
	CUDA(rt.cudaEventCreate(&ev[1]));
	for (int c = 0; c < NCASES; c++) {
		int64_t t0 = bench_now_ns();
		launch_case(w, c);
		sync_all(w);
		fprintf(stderr, PROG ": %s: first run %.1f ms (wall, any compile or load "
			"included)\n", cases[c].key, bench_ms_since(t0));
		launch_case(w, c);
		sync_all(w);
		res[c].ms = bench_calloc((size_t)reps, sizeof(double));
		res[c].ok = verify_case(w, c, res[c].check, sizeof res[c].check);
		fprintf(stderr, PROG ": %s: result %s%s%s\n", cases[c].key,
			res[c].ok ? "right" : "WRONG", res[c].check[0] ? ": " : "", res[c].check);
	}
	for (int r = 0; r < reps; r++) {
		for (int j = 0; j < NCASES; j++) {
			int c = (j + r) % NCASES;
			float ms;
			flush_l2(w);
			CUDA(rt.cudaEventRecord(ev[0], w->stream));
			launch_case(w, c);
			CUDA(rt.cudaEventRecord(ev[1], w->stream));
			CUDA(rt.cudaEventSynchronize(ev[1]));
			CUDA(rt.cudaEventElapsedTime(&ms, ev[0], ev[1]));
			res[c].ms[r] = ms;
		}
	}
	CUDA(rt.cudaGetLastError());
	for (int c = 0; c < NCASES; c++) {
		double traffic = (double)cases[c].traffic * (double)w->bytes;
		res[c].med = bench_median(res[c].ms, reps);
		res[c].best = res[c].ms[0];
		res[c].gbps = traffic / (res[c].med * 1e-3) / 1e9;
		res[c].best_gbps = traffic / (res[c].best * 1e-3) / 1e9;
	}
	for (int c = 0; c < NCASES; c++) {
		res[c].ratio = res[c].gbps / res[C_COPY].gbps;
		res[c].best_ratio = res[c].best_gbps / res[C_COPY].best_gbps;
	}
	CUDA(rt.cudaEventDestroy(ev[0]));
	CUDA(rt.cudaEventDestroy(ev[1]));
}

/* ---- Scratch, report ---------------------------------------------------------------------- */

/* The scratch folder (caches): bench_scratch(). */
static const char *scratch;

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " [--mib N] [--reps N] [--cold N] [--hits N] "
			"[--json FILE] [--no-app]\n");
	exit(2);
}

struct run_info {
	char device[256];
	int driver, runtime, sms, l2;
	double peak_gbps; /* from the memory clock and bus width; 0 unknown */
	size_t mib;
	int reps;
};

static void json_lines(FILE *f, const struct run_info *ri, const struct bw *w,
		       const struct result *res, int have_bw, int have_app)
{
	fprintf(f, "{\"bench\": \"ops_gpu\", \"case\": \"device\", \"name\": \"%s\", "
		"\"driver\": %d, \"runtime\": %d, \"sms\": %d, \"l2_bytes\": %d, "
		"\"peak_gbps\": %.1f}\n", ri->device, ri->driver, ri->runtime, ri->sms, ri->l2,
		ri->peak_gbps);
	for (int c = 0; have_bw && c < NCASES; c++)
		fprintf(f, "{\"bench\": \"ops_gpu\", \"case\": \"%s\", \"bytes\": %zu, "
			"\"traffic_bytes\": %.0f, \"median_ms\": %.6f, \"best_ms\": %.6f, "
			"\"gbps\": %.2f, \"best_gbps\": %.2f, \"ratio_to_copy\": %.4f, "
			"\"best_ratio_to_copy\": %.4f, \"target\": %s, \"pass\": %s, "
			"\"verified\": %s, \"reps\": %d}\n", cases[c].key, w->bytes,
			(double)cases[c].traffic * (double)w->bytes, res[c].med, res[c].best,
			res[c].gbps, res[c].best_gbps, res[c].ratio, res[c].best_ratio,
			cases[c].required ? "0.70" : "null",
			!cases[c].required ? "null" :
			res[c].ok && res[c].ratio >= TARGET_RATIO ? "true" : "false",
			res[c].ok ? "true" : "false", ri->reps);
	for (int k = 0; have_app && k < 2; k++) {
		const struct app_case *a = &app[k];
		if (!a->n)
			continue;
		fprintf(f, "{\"bench\": \"ops_gpu\", \"case\": \"app_%s\", \"files\": %d, "
			"\"kernels\": %d, \"median_ms\": %.3f, \"to_main_ms\": %.3f, "
			"\"driver_ms\": %.3f, \"open_ms\": %.3f, \"first_kernel_ms\": %.3f, "
			"\"gets_ms\": %.3f, \"compiler_ms\": %.3f, \"compiles\": %.0f, "
			"\"disk_hits\": %.0f, \"n\": %d}\n", k ? "cached" : "cold", nfiles,
			total_kernels, bench_median(a->done, a->n), bench_median(a->main_, a->n),
			bench_median(a->driver, a->n), bench_median(a->open, a->n), bench_median(a->first, a->n),
			bench_median(a->gets, a->n), bench_median(a->compiler, a->n), a->compiles,
			a->disk_hits, a->n);
		/* compiler_ms: NVRTC's time for the file in this run; a cached run compiles
		   nothing (its entries still carry the time of the compile that made them). */
		for (int i = 0; i < nfiles; i++)
			fprintf(f, "{\"bench\": \"ops_gpu\", \"case\": \"app_%s_file\", \"file\": "
				"\"%s\", \"kernels\": %d, \"median_ms\": %.3f, \"compiler_ms\": %.3f, "
				"\"n\": %d}\n", k ? "cached" : "cold", files[i].name, files[i].nk,
				bench_median(a->file_ms[i], a->n), k ? 0.0 : bench_median(a->file_compiler[i], a->n),
				a->n);
	}
}

int main(int argc, char **argv)
{
	int reps = 30, cold = 3, hits = 10, do_app = 1, status = 0;
	size_t mib = 256;
	const char *json_file = NULL;
	char dir[1100], warm[1100];
	struct run_info ri;
	struct bw w;
	struct result res[NCASES];
	rocjit_ctx *ctx;
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_stats s;
	int dev;

	rj_check(rocjit_register_sources(&hot_file, 1), "rocjit_register_sources");
	if (argc == 4 && !strcmp(argv[1], "--child") && !strcmp(argv[2], "app")) {
		load_set();
		return child_app(argv[3]);
	}
	for (int a = 1; a < argc; a++) {
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;
		if (!strcmp(argv[a], "--no-app")) {
			do_app = 0;
			continue;
		}
		if (!v)
			usage();
		if (!strcmp(argv[a], "--mib"))
			mib = (size_t)atol(v);
		else if (!strcmp(argv[a], "--reps"))
			reps = atoi(v);
		else if (!strcmp(argv[a], "--cold"))
			cold = atoi(v);
		else if (!strcmp(argv[a], "--hits"))
			hits = atoi(v);
		else if (!strcmp(argv[a], "--json"))
			json_file = v;
		else
			usage();
		a++;
	}
	if (mib < 1 || reps < 1 || cold < 0 || hits < 0 || (do_app && cold < 1))
		bench_die("--mib and --reps must be positive, --cold at least 1 (or --no-app)");

	unsetenv("ROCJIT_DISABLE_CACHE");
	unsetenv("ROCJIT_NO_COMPILE");
	unsetenv("ROCJIT_KERNEL_PATH");
	unsetenv("ROCJIT_BUNDLE_PATH");
	unsetenv("ROCJIT_ARCH");
	unsetenv("ROCJIT_PLATFORM");
	unsetenv("ROCJIT_CACHE_MAXSIZE");
	setenv("ROCJIT_LOG", "warn", 1);
	scratch = bench_scratch("rocjit-opsgpu");
	load_set();
	memset(&ri, 0, sizeof ri);
	ri.mib = mib;
	ri.reps = reps;

	/* First use, before this process touches the GPU: the children are alone on it. */
	snprintf(warm, sizeof warm, "%s/cold-0", scratch);
	if (do_app) {
		app_alloc(&app[0], cold);
		app_alloc(&app[1], hits);
		for (int k = 0; k < cold; k++) {
			snprintf(dir, sizeof dir, "%s/cold-%d", scratch, k);
			fprintf(stderr, PROG ": first use, cold %d of %d\n", k + 1, cold);
			app_run(1, dir);
		}
		fprintf(stderr, PROG ": first use, cached, %d processes\n", hits);
		for (int k = 0; k < hits; k++)
			app_run(0, warm);
	}

	/* Bandwidth, in this process, on the warm cache. */
	load_driver();
	load_runtime();
	CUDA(rt.cudaSetDevice(0));
	CUDA(rt.cudaFree(NULL));
	cuda_check(cu.cuInit(0), "cuInit");
	cuda_check(cu.cuDeviceGet(&dev, 0), "cuDeviceGet");
	cuda_check(cu.cuDeviceGetName(ri.device, (int)sizeof ri.device, dev), "cuDeviceGetName");
	cu.cuDriverGetVersion(&ri.driver);
	rt.cudaRuntimeGetVersion(&ri.runtime);
	rt.cudaDeviceGetAttribute(&ri.sms, ATTR_SM_COUNT, 0);
	rt.cudaDeviceGetAttribute(&ri.l2, ATTR_L2_BYTES, 0);
	{
		int clock_khz = 0, bus_bits = 0;
		if (rt.cudaDeviceGetAttribute(&clock_khz, ATTR_MEM_CLOCK, 0) == 0 &&
		    rt.cudaDeviceGetAttribute(&bus_bits, ATTR_BUS_WIDTH, 0) == 0)
			ri.peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8) / 1e9;
		rt.cudaGetLastError();
	}
	o.cache_dir = warm;
	o.platform = ROCJIT_PLATFORM_NVIDIA;
	rj_check(rocjit_open(&ctx, &o), "rocjit_open");
	memset(&w, 0, sizeof w);
	memset(res, 0, sizeof res);
	bw_setup(&w, ctx, mib, ri.l2);
	bw_run(&w, reps, res);
	memset(&s, 0, sizeof s);
	s.version = ROCJIT_STATS_VERSION;
	rj_check(rocjit_stats_get(&s, ctx), "rocjit_stats_get");
	/* After the counters: its own kernels are not the set's. */
	double hot[NHOT];
	hot_path(ctx, hot);

	/* ---- Report ---- */
	printf("rocjit %s, rocjit_ops on %s (%d SMs, L2 %d MiB), driver %d, runtime %d\n",
	       ROCJIT_VERSION_STRING, ri.device, ri.sms, ri.l2 >> 20, ri.driver, ri.runtime);
	if (ri.peak_gbps > 0)
		printf("memory: %.0f GB/s theoretical (memory clock x bus width)\n", ri.peak_gbps);
	printf("\nBandwidth: f32 buffers of %zu MiB (%lld elements; 2-D views [%lld, %d]), "
	       "CUDA events,\n%d rounds, case order rotating, L2 flushed (a %zu MiB read) "
	       "before each; GB/s of the median;\nratio = GB/s over the D2D copy's GB/s\n\n",
	       mib, (long long)w.n, (long long)w.rows, COLS, reps, w.flush_bytes >> 20);
	printf("%-28s %7s %10s %10s %9s %9s %7s %7s  %s\n", "case", "traffic", "median ms",
	       "best ms", "GB/s", "best GB/s", "ratio", "best r.", "target 0.70 / result check");
	for (int c = 0; c < NCASES; c++) {
		const struct result *r = &res[c];
		char verdict[64];
		if (!cases[c].required)
			snprintf(verdict, sizeof verdict, "%s", c == C_COPY ? "(the reference)" : "-");
		else
			snprintf(verdict, sizeof verdict, "%s", !r->ok ? "FAIL (wrong result)" :
				 r->ratio >= TARGET_RATIO ? "PASS" : "FAIL");
		printf("%-28s %5dxS %10.4f %10.4f %9.1f %9.1f %7.3f %7.3f  %s; %s%s%s\n",
		       cases[c].what, cases[c].traffic, r->med, r->best, r->gbps, r->best_gbps,
		       r->ratio, r->best_ratio, verdict, r->ok ? "right" : "WRONG",
		       r->check[0] ? ": " : "", r->check);
		if (!r->ok)
			status = 1;
		else if (cases[c].required && r->ratio < TARGET_RATIO && status == 0)
			status = 3;
	}
	printf("(traffic: bytes read + written in units of S = %zu MiB; workspace: %zu bytes "
	       "for one value, %zu rows, %zu cols)\n", mib, w.ws_all, w.ws_rows, w.ws_cols);
	printf("rocjit during the bandwidth run: %llu disk hits, %llu compiles, %llu misses%s\n",
	       (unsigned long long)s.disk_hits, (unsigned long long)s.compiles,
	       (unsigned long long)s.misses,
	       !do_app ? "" : s.misses == 0 ? " (rocjit_ops asked only for what the set lists)" :
	       " - SUSPICIOUS: rocjit_ops compiled programs the first-use run did not "
	       "(its options or files differ from rocjit_ops_foreach_kernel)");

	if (do_app) {
		struct app_case *c = &app[0], *h = &app[1];
		double cm = bench_median(c->done, c->n), hm = bench_median(h->done, h->n);
		printf("\nFirst use by an application that uses every op: a new process, from the "
		       "parent's fork() to\nrocjit_kernel_get_registered of all %d kernels of %d "
		       "files; medians, ms; CUDA_MODULE_LOADING=%s\n\n", total_kernels, nfiles,
		       getenv("CUDA_MODULE_LOADING") ? getenv("CUDA_MODULE_LOADING") : "(unset)");
		printf("%-7s %5s %11s %8s %9s %8s %11s %10s %10s %9s %9s\n", "cache", "procs",
		       "first use", "to main", "driver", "open", "1st kernel", "all gets",
		       "NVRTC", "compiles", "disk hits");
		for (int k = 0; k < 2; k++) {
			struct app_case *a = &app[k];
			if (!a->n)
				continue;
			printf("%-7s %5d %11.2f %8.2f %9.2f %8.2f %11.2f %10.2f %10.2f %9.0f %9.0f\n",
			       k ? "cached" : "cold", a->n, bench_median(a->done, a->n),
			       bench_median(a->main_, a->n), bench_median(a->driver, a->n),
			       bench_median(a->open, a->n), bench_median(a->first, a->n), bench_median(a->gets, a->n),
			       bench_median(a->compiler, a->n), a->compiles, a->disk_hits);
		}
		if (h->n)
			printf("cold / cached = %.1fx; without the driver and context (paid by any "
			       "CUDA program): %.1fx\n", cm / hm,
			       (cm - bench_median(c->driver, c->n)) / (hm - bench_median(h->driver, h->n)));
		printf("(driver: cuInit + primary context; 1st kernel: the first "
		       "rocjit_kernel_get_registered, from\nafter rocjit_open; all gets: every "
		       "kernel, from after rocjit_open; NVRTC: rocjit's compile_ms)\n\n");
		printf("%-14s %7s %10s %10s %10s\n", "file", "kernels", "cold ms", "NVRTC ms",
		       "cached ms");
		for (int i = 0; i < nfiles; i++)
			printf("%-14s %7d %10.1f %10.1f %10.3f\n", files[i].name, files[i].nk,
			       bench_median(c->file_ms[i], c->n), bench_median(c->file_compiler[i], c->n),
			       h->n ? bench_median(h->file_ms[i], h->n) : -1.0);
	}

	printf("\nThe in-process repeat (a launch fetching its kernel again), one thread, "
	       "%d x %d calls,\nmedian ns per call:\n", HOT_ROUNDS, HOT_CALLS);
	for (int c = 0; c < NHOT; c++)
		printf("  %-56s %8.1f\n", hot_names[c], hot[c]);
	printf("  v2 one op / registered before = %.2f\n", hot[H_OP_V2] / hot[H_REG]);
	for (int c = 0; c < NHOT; c++)
		printf("{\"bench\": \"ops_gpu\", \"case\": \"hot_%s\", \"ns\": %.1f}\n",
		       hot_keys[c], hot[c]);

	printf("\nJSON lines:\n");
	json_lines(stdout, &ri, &w, res, 1, do_app);
	if (json_file) {
		FILE *f = fopen(json_file, "w");
		if (!f)
			bench_die("cannot write %s: %s", json_file, strerror(errno));
		json_lines(f, &ri, &w, res, 1, do_app);
		if (fclose(f) != 0)
			bench_die("cannot write %s: %s", json_file, strerror(errno));
	}
	rocjit_ops_destroy(w.ops);
	rocjit_close(ctx);
	return status;
}
