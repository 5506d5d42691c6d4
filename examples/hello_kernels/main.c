/*
 * hello_kernels - the kernels in kernels-src/, embedded with rocjit_add_kernels(), used
 * through the public rocjit API only.
 *
 *   hello_kernels [target]
 *
 * With a GPU: gets axpy_f32, binary_add_f32 (with a broadcast) and reduce_sum_f32, runs
 * them and checks each against a CPU reference (PASS/FAIL per kernel, exit 1 on a
 * mismatch).
 *
 * Without a GPU: compiles every embedded kernel file for a target - argv[1], else
 * $ROCJIT_ARCH, else gfx90a - and prints per file whether it was compiled or served by the
 * cache, how long that took, the code object size and the cache key.  Run it twice: the
 * second run is served from the on-disk cache.
 *
 * rocjit has no memory API (it compiles and launches; buffers are the application's), so
 * the GPU path takes malloc/memcpy/free/synchronize from the GPU's runtime with dlopen, to
 * build without vendor headers: the HIP runtime on AMD, the CUDA runtime on NVIDIA (the
 * two take the same arguments).  Which one follows from the target rocjit compiled for.
 * The NVIDIA path runs on the H100; the AMD one has never run (no AMD GPU exists on the
 * machines this was written on) and is kept thin on purpose.
 */
#define _POSIX_C_SOURCE 200809L
#include <rocjit.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The embedded files this example knows; the names are paths relative to kernels-src/. */
static const char *const kernel_files[] = { "axpy.hip", "binary_strided.hip", "reduce.hip" };
#define NUM_KERNEL_FILES (sizeof kernel_files / sizeof kernel_files[0])

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Says what went wrong and what to do about it.  log: a compiler log, or NULL. */
static void report_failure(const char *what, int rc, const char *log)
{
	fprintf(stderr, "hello_kernels: %s: %s (%d): %s\n", what, rocjit_strerror(rc), rc,
		rocjit_last_error());
	if (log && log[0])
		fprintf(stderr, "---- compiler log ----\n%s\n----------------------\n", log);
	switch (rc) {
	case ROCJIT_ENOCOMPILER:
		fprintf(stderr, "hint: hipRTC could not be loaded; install the HIP runtime "
				"(Debian: apt-get install libamdhip64-dev) or ROCm\n");
		break;
	case ROCJIT_EUNSUPPORTED:
		fprintf(stderr, "hint: this hipRTC cannot compile for that target; pass another "
				"one (e.g. hello_kernels gfx90a) or upgrade ROCm\n");
		break;
	case ROCJIT_ECOMPILE:
		fprintf(stderr, "hint: fix the kernel source (the log above names the line); "
				"set ROCJIT_KERNEL_PATH=<kernels-src> to try edits without "
				"rebuilding\n");
		break;
	case ROCJIT_ENOTCACHED:
		fprintf(stderr, "hint: ROCJIT_NO_COMPILE is set and the cache misses; unset it "
				"once to fill the cache\n");
		break;
	default:
		break;
	}
}

/* ---- Without a GPU: compile (or hit the cache) for an explicit target ------------------ */

static int compile_all(rocjit_ctx *ctx, const char *target)
{
	rocjit_stats stats;
	size_t i;
	int rc;

	printf("no GPU: compiling the embedded kernels for %s\n", target);
	for (i = 0; i < NUM_KERNEL_FILES; i++) {
		const rocjit_source_file *file;
		rocjit_program prog = ROCJIT_PROGRAM_INIT;
		const rocjit_code *code;
		const char *log;
		double t0, ms;

		rc = rocjit_registered_source(&file, kernel_files[i]);
		if (rc) {
			report_failure(kernel_files[i], rc, NULL);
			fprintf(stderr, "hint: is kernels-src/%s embedded (rocjit_add_kernels)?\n",
				kernel_files[i]);
			return 1;
		}
		prog.source = file->text;
		prog.length = file->length;
		prog.name = file->name;

		t0 = now_ms();
		rc = rocjit_compile(&code, ctx, target, &prog);
		ms = now_ms() - t0;
		/* The compiler's log of this thread's last compile ("" for a cache hit). */
		log = rocjit_last_log();
		if (rc) {
			report_failure(file->name, rc, log);
			return 1;
		}
		printf("%-20s %-9s %9.2f ms %8zu bytes  %s  %s\n", file->name,
		       code->from_cache ? "cache hit" : "compiled", ms, code->size, code->key,
		       code->target);
		if (log[0])
			printf("%s: compiler warnings:\n%s\n", file->name, log);
	}

	rocjit_stats_init(&stats, ROCJIT_STATS_VERSION);
	rc = rocjit_stats_get(&stats, ctx);
	if (rc) {
		report_failure("stats", rc, NULL);
		return 1;
	}
	printf("compiles %llu (%.0f ms), disk hits %llu, memory hits %llu\n",
	       (unsigned long long)stats.compiles, stats.compile_ms,
	       (unsigned long long)stats.disk_hits, (unsigned long long)stats.memory_hits);
	if (stats.cache_open)
		printf("cache %s (%llu entries, %llu bytes)\n", stats.cache_path,
		       (unsigned long long)stats.entries, (unsigned long long)stats.bytes);
	else
		printf("cache: none (memory only; see ROCJIT_CACHE_DIR, ROCJIT_DISABLE_CACHE)\n");
	return 0;
}

/* ---- With a GPU: run and check ---------------------------------------------------------- */

/* The few HIP runtime calls the GPU path needs (hipError_t is an int enum, 0 = success). */
#define HIP_MEMCPY_HOST_TO_DEVICE 1
#define HIP_MEMCPY_DEVICE_TO_HOST 2

struct hip_api {
	void *lib;
	int (*malloc_)(void **ptr, size_t size);
	int (*free_)(void *ptr);
	int (*memcpy_)(void *dst, const void *src, size_t size, int kind);
	int (*synchronize)(void);
};

/* Copies a symbol into a function pointer (memcpy: ISO C has no object-to-function cast). */
static int load_symbol(void *lib, const char *name, void *fn, size_t fn_size)
{
	void *sym = dlsym(lib, name);

	if (!sym) {
		fprintf(stderr, "hello_kernels: %s missing from the HIP runtime\n", name);
		return -1;
	}
	memcpy(fn, &sym, fn_size);
	return 0;
}

/* The GPU runtime of the platform whose target rocjit compiled for ("sm_*": NVIDIA). */
static int hip_load(struct hip_api *hip, int nvidia)
{
	static const char *const amd[] = { "libamdhip64.so.6", "libamdhip64.so.5",
					   "libamdhip64.so", NULL };
	static const char *const cuda[] = { "libcudart.so.13", "libcudart.so.12", "libcudart.so",
					    "/usr/local/cuda/lib64/libcudart.so", NULL };
	const char *const *names = nvidia ? cuda : amd;
	const char *prefix = nvidia ? "cuda" : "hip";
	char name[64];

	memset(hip, 0, sizeof *hip);
	for (; *names && !hip->lib; names++)
		hip->lib = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
	if (!hip->lib) {
		fprintf(stderr, "hello_kernels: cannot load the %s runtime: %s\n",
			nvidia ? "CUDA" : "HIP", dlerror());
		return -1;
	}
#define SYMBOL(field, suffix)                                                    \
	(snprintf(name, sizeof name, "%s%s", prefix, suffix),                     \
	 load_symbol(hip->lib, name, &hip->field, sizeof hip->field))
	if (SYMBOL(malloc_, "Malloc") || SYMBOL(free_, "Free") || SYMBOL(memcpy_, "Memcpy") ||
	    SYMBOL(synchronize, "DeviceSynchronize"))
		return -1;
#undef SYMBOL
	return 0;
}

/* A device buffer of size bytes holding a copy of host (uninitialized when host is NULL);
 * NULL on failure. */
static void *to_device(struct hip_api *hip, const void *host, size_t size)
{
	void *dev = NULL;

	if (hip->malloc_(&dev, size) != 0)
		return NULL;
	if (host && hip->memcpy_(dev, host, size, HIP_MEMCPY_HOST_TO_DEVICE) != 0) {
		hip->free_(dev);
		return NULL;
	}
	return dev;
}

static int to_host(struct hip_api *hip, void *host, const void *dev, size_t size)
{
	if (hip->synchronize() != 0)
		return -1;
	return hip->memcpy_(host, dev, size, HIP_MEMCPY_DEVICE_TO_HOST) != 0 ? -1 : 0;
}

static int verdict(const char *kernel, int ok)
{
	printf("%-16s %s\n", kernel, ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}

static int close_enough(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fmax(1.0, fabs(want));
}

static unsigned int blocks_for(int n, unsigned int block)
{
	unsigned int blocks = ((unsigned int)n + block - 1) / block;

	return blocks < 1 ? 1 : (blocks > 1024 ? 1024 : blocks);
}

/* y = a*x + y.  The GPU may fuse the multiply-add, so compare with a tolerance. */
static int run_axpy(struct hip_api *hip, const rocjit_kernel *k)
{
	enum { N = 100000 };
	static float x[N], y[N], out[N];
	rocjit_dim3 block = { 256, 1, 1 }, grid = { blocks_for(N, 256), 1, 1 };
	float a = 2.5f;
	int n = N, i, ok = 1;
	void *dx, *dy;
	void *args[] = { &n, &a, &dx, &dy };

	for (i = 0; i < N; i++) {
		x[i] = (float)i * 0.001f;
		y[i] = 1.0f - (float)i * 0.002f;
	}
	dx = to_device(hip, x, sizeof x);
	dy = to_device(hip, y, sizeof y);
	if (!dx || !dy || rocjit_kernel_launch(k, grid, block, 0, NULL, args) ||
	    to_host(hip, out, dy, sizeof out))
		ok = 0;
	for (i = 0; ok && i < N; i++)
		ok = close_enough(out[i], (double)a * x[i] + y[i], 1e-5);
	hip->free_(dx);
	hip->free_(dy);
	return verdict("axpy_f32", ok);
}

/* Must match struct binary_shape in kernels-src/binary_strided.hip (passed by value). */
struct binary_shape {
	int ndim;
	int dims[4];
	int out_strides[4];
	int lhs_strides[4];
	int rhs_strides[4];
};

/* out[r][c] = lhs[r][c] + rhs[c]: a row vector broadcast over the rows (stride 0). */
static int run_binary_add(struct hip_api *hip, const rocjit_kernel *k)
{
	enum { ROWS = 300, COLS = 257 };
	static float lhs[ROWS * COLS], rhs[COLS], out[ROWS * COLS];
	struct binary_shape s = { 2, { ROWS, COLS }, { COLS, 1 }, { COLS, 1 }, { 0, 1 } };
	rocjit_dim3 block = { 256, 1, 1 }, grid = { blocks_for(ROWS * COLS, 256), 1, 1 };
	int i, ok = 1;
	void *dl, *dr, *dout;
	void *args[] = { &s, &dl, &dr, &dout };

	for (i = 0; i < ROWS * COLS; i++)
		lhs[i] = (float)(i % 1000) * 0.25f;
	for (i = 0; i < COLS; i++)
		rhs[i] = (float)i - 100.0f;
	dl = to_device(hip, lhs, sizeof lhs);
	dr = to_device(hip, rhs, sizeof rhs);
	dout = to_device(hip, NULL, sizeof out);
	if (!dl || !dr || !dout || rocjit_kernel_launch(k, grid, block, 0, NULL, args) ||
	    to_host(hip, out, dout, sizeof out))
		ok = 0;
	for (i = 0; ok && i < ROWS * COLS; i++)
		ok = out[i] == lhs[i] + rhs[i % COLS]; /* one rounding either side: exact */
	hip->free_(dl);
	hip->free_(dr);
	hip->free_(dout);
	return verdict("binary_add_f32", ok);
}

/* Two passes as reduce.hip documents: G partials, then one block folds them. */
static int run_reduce_sum(struct hip_api *hip, const rocjit_kernel *k)
{
	enum { N = 1 << 20, BLOCK = 256, GRID = 120 };
	static float x[N];
	rocjit_dim3 block = { BLOCK, 1, 1 }, grid = { GRID, 1, 1 }, one = { 1, 1, 1 };
	double want = 0.0;
	float got = 0.0f;
	int n = N, g = GRID, i, ok = 1;
	void *dx, *dpartial, *dsum;
	void *pass1[] = { &n, &dx, &dpartial };
	void *pass2[] = { &g, &dpartial, &dsum };

	for (i = 0; i < N; i++) {
		x[i] = (float)((unsigned int)i * 7919u % 1000u) / 512.0f;
		want += x[i];
	}
	dx = to_device(hip, x, sizeof x);
	dpartial = to_device(hip, NULL, GRID * sizeof(float));
	dsum = to_device(hip, NULL, sizeof(float));
	if (!dx || !dpartial || !dsum || rocjit_kernel_launch(k, grid, block, 0, NULL, pass1) ||
	    rocjit_kernel_launch(k, one, block, 0, NULL, pass2) ||
	    to_host(hip, &got, dsum, sizeof got))
		ok = 0;
	if (ok)
		ok = close_enough(got, want, 1e-5);
	printf("reduce_sum_f32: %.6f (CPU, double: %.6f)\n", got, want);
	hip->free_(dx);
	hip->free_(dpartial);
	hip->free_(dsum);
	return verdict("reduce_sum_f32", ok);
}

static int run_all(rocjit_ctx *ctx, const rocjit_kernel *axpy)
{
	static const struct {
		const char *file, *kernel;
	} more[] = { { "binary_strided.hip", "binary_add_f32" },
		     { "reduce.hip", "reduce_sum_f32" } };
	rocjit_kernel *k[2];
	struct hip_api hip;
	size_t i;
	int rc, failed = 0;

	for (i = 0; i < 2; i++) {
		rc = rocjit_kernel_get_registered(&k[i], ctx, more[i].file, more[i].kernel, NULL,
						  0);
		if (rc) {
			report_failure(more[i].kernel, rc, NULL);
			return 1;
		}
	}
	{
		/* The device's own target says whose runtime holds the buffers. */
		const rocjit_code *code;
		const rocjit_source_file *f;
		rocjit_program p = ROCJIT_PROGRAM_INIT;

		if (rocjit_registered_source(&f, "axpy.hip") != 0)
			return 1;
		p.source = f->text;
		p.length = f->length;
		rc = rocjit_compile(&code, ctx, NULL, &p);
		if (rc) {
			report_failure("axpy.hip", rc, NULL);
			return 1;
		}
		printf("GPU: %s\n", code->target);
		if (hip_load(&hip, strncmp(code->target, "sm_", 3) == 0))
			return 1;
	}
	failed |= run_axpy(&hip, axpy);
	failed |= run_binary_add(&hip, k[0]);
	failed |= run_reduce_sum(&hip, k[1]);
	/* The HIP runtime stays loaded: rocjit still holds modules in it until rocjit_close. */
	return failed;
}

int main(int argc, char **argv)
{
	rocjit_ctx *ctx;
	rocjit_kernel *axpy;
	const char *target;
	int rc, status;

	rc = rocjit_open(&ctx, NULL);
	if (rc) {
		report_failure("rocjit_open", rc, NULL);
		return 1;
	}

	/* The first request tells whether there is a GPU: ROCJIT_ENODEV means there is none. */
	rc = rocjit_kernel_get_registered(&axpy, ctx, "axpy.hip", "axpy_f32", NULL, 0);
	if (rc == 0) {
		status = run_all(ctx, axpy);
	} else if (rc == ROCJIT_ENODEV) {
		target = argc > 1 ? argv[1] : getenv("ROCJIT_ARCH");
		if (!target || !target[0])
			target = "gfx90a";
		status = compile_all(ctx, target);
	} else {
		report_failure("axpy_f32", rc, NULL);
		status = 1;
	}
	rocjit_close(ctx);
	return status;
}
