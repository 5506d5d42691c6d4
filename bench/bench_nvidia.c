/*
 * bench_nvidia.c - rocjit on an NVIDIA GPU against the CUDA driver's floor and CuPy: the
 * time from "get kernel" to a launchable function, and the cost of a launch.
 *
 *   bench_nvidia [--procs N] [--iters N] [--rounds N] [--launches N] [--batch N]
 *                [--axpy FILE] [--templated FILE] [--cupy FILE.json] [--json FILE]
 *
 * Every case that has "new process" in its meaning runs in --procs fresh child processes
 * of this program (default 20) and reports the median.  Each child first loads the driver
 * and makes the primary context current (dlopen libcuda.so.1; cuInit +
 * cuDevicePrimaryCtxRetain + cuCtxSetCurrent), times that, and only then starts the timed
 * section, so no time below includes driver or context creation.
 *
 *   cold      an empty cache folder per child: rocjit_open + rocjit_kernel_get of the
 *             file's kernels (axpy: axpy_f32; templated: all its extern "C" entries).
 *             NVRTC's own time is the rocjit_code.compile_ms of the same program;
 *             loading NVRTC (which the cold request also pays) is timed apart, in
 *             --procs fresh processes that only load it as rocjit does.
 *   disk hit  a warm cache, a new process: rocjit_open + the first rocjit_kernel_get(s)
 *             (this also settles the compiler identity for the key: the cache's memo
 *             when the NVRTC files are unchanged, else loading NVRTC); then rocjit's
 *             own disk hit: the same for another cached program (the source with one
 *             more -D), which pays the key, the SQLite read, cuModuleLoadData and
 *             cuModuleGetFunction.  Beside it the raw floor, in the same child:
 *             cuModuleLoadData + cuModuleGetFunction of the same CUBIN already in memory.
 *             Children alternate which of the two goes first.
 *   repeat    one process: rocjit_kernel_get of the same program and name, in a loop.
 *   launch    one process: a kernel that does nothing (axpy_f32 with n = 0) enqueued
 *             --launches times per round by rocjit_kernel_launch and by cuLaunchKernel
 *             on the same stream, alternating in batches of --batch launches; only the
 *             enqueue loops are timed (cuStreamSynchronize after each batch, untimed).
 *
 * --cupy reads the JSON lines of bench/cupy_baseline.py and adds rocjit/CuPy ratios;
 * --json writes this run's medians as JSON lines.  Needs an NVIDIA GPU and driver; run
 * from the repository root (the default kernel paths are relative to it).  Without a
 * driver it says so and exits 1.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

const char *bench_prog = "bench_nvidia";

#include "rocjit.h"

/* ---- The CUDA driver API, loaded with dlopen: the few entry points used, C ABI only. ---- */

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

#define CU_STREAM_NON_BLOCKING 0x1u
#define CU_ATTR_CC_MAJOR 75
#define CU_ATTR_CC_MINOR 76

static struct {
	void *lib;
	CUresult (*cuInit)(unsigned int);
	CUresult (*cuDriverGetVersion)(int *);
	CUresult (*cuDeviceGet)(CUdevice *, int);
	CUresult (*cuDeviceGetName)(char *, int, CUdevice);
	CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*cuCtxSetCurrent)(CUcontext);
	CUresult (*cuModuleLoadData)(CUmodule *, const void *);
	CUresult (*cuModuleUnload)(CUmodule);
	CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int,
				   unsigned int, unsigned int, unsigned int, unsigned int,
				   CUstream, void **, void **);
	CUresult (*cuStreamCreate)(CUstream *, unsigned int);
	CUresult (*cuStreamSynchronize)(CUstream);
	CUresult (*cuGetErrorName)(CUresult, const char **);
	CUresult (*cuGetErrorString)(CUresult, const char **);
	CUdevice dev;
} cu;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;
	fputs("bench_nvidia: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void cu_check(CUresult r, const char *call)
{
	const char *name = NULL, *text = NULL;

	if (r == 0)
		return;
	if (cu.cuGetErrorName && cu.cuGetErrorName(r, &name) != 0)
		name = NULL;
	if (cu.cuGetErrorString && cu.cuGetErrorString(r, &text) != 0)
		text = NULL;
	if (!name && r == 34)
		name = "CUDA_ERROR_STUB_LIBRARY";
	if (!text && r == 34)
		text = "this libcuda.so.1 is the toolkit's stub, not a driver";
	if (!name && r == 100)
		name = "CUDA_ERROR_NO_DEVICE";
	die("%s failed: %d %s%s%s%s%s", call, r, name ? name : "CUDA error", text ? " (" : "",
	    text ? text : "", text ? ")" : "",
	    strncmp(call, "cuInit", 6) == 0 ? ": no usable NVIDIA driver or GPU here" : "");
}

/* CU(cu.cuInit(0)) reports "cuInit(0) failed: ...". */
#define CU(call) cu_check((call), &(#call)[3])

static void rj_check(int rc, const char *what)
{
	if (rc == 0)
		return;
	if (rc == ROCJIT_ECOMPILE && rocjit_last_log()[0])
		fprintf(stderr, "%s\n", rocjit_last_log());
	die("%s: %s: %s", what, rocjit_strerror(rc), rocjit_last_error());
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}


static char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		die("cannot read %s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		die("cannot read %s", path);
	buf = calloc(1, (size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		die("cannot read %s", path);
	fclose(f);
	if (size)
		*size = (size_t)n;
	return buf;
}

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		die("cannot write %s", path);
}

/*
 * Loads the driver (timed as *dlopen_ms) and makes device 0's primary context current
 * on this thread (timed as *ctx_ms: cuInit + cuDevicePrimaryCtxRetain + cuCtxSetCurrent).
 */
static void cuda_up(double *dlopen_ms, double *ctx_ms)
{
	CUcontext ctx;
	double t0 = now_ms();

	cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cu.lib)
		die("cannot load the NVIDIA driver (libcuda.so.1): %s", dlerror());
#define SYM(name, sym) (*(void **)&cu.name = dlsym(cu.lib, sym))
	SYM(cuInit, "cuInit");
	SYM(cuDriverGetVersion, "cuDriverGetVersion");
	SYM(cuDeviceGet, "cuDeviceGet");
	SYM(cuDeviceGetName, "cuDeviceGetName");
	SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute");
	SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	SYM(cuCtxSetCurrent, "cuCtxSetCurrent");
	SYM(cuModuleLoadData, "cuModuleLoadData");
	SYM(cuModuleUnload, "cuModuleUnload");
	SYM(cuModuleGetFunction, "cuModuleGetFunction");
	SYM(cuLaunchKernel, "cuLaunchKernel");
	SYM(cuStreamCreate, "cuStreamCreate");
	SYM(cuStreamSynchronize, "cuStreamSynchronize");
	SYM(cuGetErrorName, "cuGetErrorName");
	SYM(cuGetErrorString, "cuGetErrorString");
#undef SYM
	if (!cu.cuInit || !cu.cuDriverGetVersion || !cu.cuDeviceGet || !cu.cuDeviceGetName ||
	    !cu.cuDeviceGetAttribute || !cu.cuDevicePrimaryCtxRetain || !cu.cuCtxSetCurrent ||
	    !cu.cuModuleLoadData || !cu.cuModuleUnload || !cu.cuModuleGetFunction ||
	    !cu.cuLaunchKernel || !cu.cuStreamCreate || !cu.cuStreamSynchronize)
		die("libcuda.so.1 lacks a driver API function this benchmark needs");
	*dlopen_ms = now_ms() - t0;
	t0 = now_ms();
	CU(cu.cuInit(0));
	CU(cu.cuDeviceGet(&cu.dev, 0));
	CU(cu.cuDevicePrimaryCtxRetain(&ctx, cu.dev));
	CU(cu.cuCtxSetCurrent(ctx));
	*ctx_ms = now_ms() - t0;
}

/* ---- Kernels and programs ---------------------------------------------------------------- */

#define MAX_NAMES 64
#define NAME_MAX_LEN 128

struct names {
	int n;
	char v[MAX_NAMES][NAME_MAX_LEN];
};

/*
 * The extern "C" __global__ kernels of src, in file order: every "__global__" on a line
 * that also says extern "C", followed by "void NAME(".  bench/cupy_baseline.py finds the
 * same names with a regular expression.
 */
static void find_kernels(struct names *out, const char *src, int max)
{
	const char *p = src;

	out->n = 0;
	while (out->n < max && (p = strstr(p, "__global__")) != NULL) {
		const char *line = p, *q = p + strlen("__global__");
		size_t len = 0;

		while (line > src && line[-1] != '\n')
			line--;
		p = q;
		if (!memmem(line, (size_t)(q - line), "extern \"C\"", 10))
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, "void", 4) != 0)
			continue;
		q += 4;
		while (*q == ' ' || *q == '\t')
			q++;
		while ((q[len] >= 'a' && q[len] <= 'z') || (q[len] >= 'A' && q[len] <= 'Z') ||
		       (q[len] >= '0' && q[len] <= '9') || q[len] == '_')
			len++;
		if (len && len < NAME_MAX_LEN && out->n < MAX_NAMES) {
			memcpy(out->v[out->n], q, len);
			out->v[out->n][len] = 0;
			out->n++;
		}
	}
}

static void split_names(struct names *out, const char *list)
{
	const char *p = list;

	out->n = 0;
	while (*p && out->n < MAX_NAMES) {
		size_t len = strcspn(p, ",");
		if (len == 0 || len >= NAME_MAX_LEN)
			die("bad kernel name list \"%s\"", list);
		memcpy(out->v[out->n], p, len);
		out->v[out->n][len] = 0;
		out->n++;
		p += len;
		if (*p == ',')
			p++;
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* variant 0: the file as is; variant 1: one more -D, another key for the same code. */
static void program(rocjit_program *p, const char *src, const char *file, int variant)
{
	static const char *const opts[] = { "-DROCJIT_BENCH_VARIANT=1" };
	rocjit_program init = ROCJIT_PROGRAM_INIT;

	*p = init;
	p->source = src;
	p->name = base_name(file);
	p->options = opts;
	p->num_options = (size_t)variant;
}

static rocjit_ctx *open_ctx(const char *dir)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx = NULL;

	o.cache_dir = dir;
	o.platform = ROCJIT_PLATFORM_NVIDIA;
	o.device = 0;
	rj_check(rocjit_open(&ctx, &o), "rocjit_open");
	return ctx;
}

static void get_all(rocjit_ctx *ctx, const rocjit_program *p, const struct names *nm)
{
	for (int i = 0; i < nm->n; i++) {
		rocjit_kernel *k;
		rj_check(rocjit_kernel_get(&k, ctx, p, nm->v[i]), nm->v[i]);
	}
}

static void stats(rocjit_ctx *ctx, rocjit_stats *s)
{
	memset(s, 0, sizeof *s);
	/* Version 1's fields are all this reads: any build of the library answers, so that
	   first_hit_ab.sh can run this program against an older one. */
	s->version = 1;
	rj_check(rocjit_stats_get(s, ctx), "rocjit_stats_get");
	if (!s->cache_open)
		die("the on-disk cache did not open (see the warning above): the benchmark "
		    "needs it");
}

/* The raw floor: cuModuleLoadData + cuModuleGetFunction of a CUBIN already in memory. */
static double raw_floor_ms(const void *cubin, const struct names *nm)
{
	CUmodule m;
	CUfunction f;
	double t0 = now_ms(), ms;

	CU(cu.cuModuleLoadData(&m, cubin));
	for (int i = 0; i < nm->n; i++)
		CU(cu.cuModuleGetFunction(&f, m, nm->v[i]));
	ms = now_ms() - t0;
	return ms;
}

/* ---- Child modes: one fresh process each; one line "key=value ..." on stdout. ---------- */

/* --child ctx: driver and context creation alone, plus what the device is. */
static int child_ctx(void)
{
	char name[256] = "?";
	int version = 0, major = 0, minor = 0;
	double dl, ctx;

	cuda_up(&dl, &ctx);
	cu.cuDriverGetVersion(&version);
	cu.cuDeviceGetName(name, (int)sizeof name, cu.dev);
	cu.cuDeviceGetAttribute(&major, CU_ATTR_CC_MAJOR, cu.dev);
	cu.cuDeviceGetAttribute(&minor, CU_ATTR_CC_MINOR, cu.dev);
	for (char *c = name; *c; c++)
		if (*c == ' ')
			*c = '_';
	printf("dlopen=%.6f ctx=%.6f driver=%d cc=%d%d name=%s\n", dl, ctx, version, major,
	       minor, name);
	return 0;
}

/*
 * --child nvrtc-load: what loading NVRTC costs a new process whose driver is up, found as
 * rocjit's NVIDIA platform finds it ($ROCJIT_NVRTC_LIBRARY, the loader's search for
 * libnvrtc.so.13/.12/.so, then $CUDA_PATH, $CUDA_HOME, /usr/local/cuda lib64) plus one
 * nvrtcVersion call.  The cold request pays this once (the compiler identity); rocjit's
 * compile_ms does not include it.
 */
static int child_nvrtc_load(void)
{
	static const char *const names[] = { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so" };
	const char *env = getenv("ROCJIT_NVRTC_LIBRARY");
	const char *dirs[] = { getenv("CUDA_PATH"), getenv("CUDA_HOME"), "/usr/local/cuda" };
	int (*version)(int *, int *) = NULL;
	int major = 0, minor = 0;
	char path[4200];
	void *h = NULL;
	double dl, cms, t0, ms;

	cuda_up(&dl, &cms);
	t0 = now_ms();
	if (env && *env)
		h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
	for (size_t i = 0; !h && i < 3; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	for (size_t d = 0; !h && d < 3; d++) {
		for (size_t i = 0; !h && i < 3 && dirs[d] && *dirs[d]; i++) {
			snprintf(path, sizeof path, "%s/lib64/%s", dirs[d], names[i]);
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		}
	}
	if (h)
		*(void **)&version = dlsym(h, "nvrtcVersion");
	if (!version || version(&major, &minor) != 0)
		die("cannot load NVRTC (libnvrtc.so) the way rocjit does");
	ms = now_ms() - t0;
	printf("load=%.6f version=%d.%d\n", ms, major, minor);
	return 0;
}

/*
 * --child cold FILE NAMES DIR [CUBIN_OUT]: the cold request on an empty cache.  With
 * CUBIN_OUT (the warm-up run) it also caches variant 1 and writes variant 1's CUBIN there
 * for the disk-hit children's raw floor.
 */
static int child_cold(const char *file, const char *list, const char *dir, const char *cubin_out)
{
	char *src = read_file(file, NULL);
	struct names nm;
	rocjit_program p;
	rocjit_ctx *ctx;
	const rocjit_code *code;
	rocjit_stats s;
	rocjit_kernel *k;
	double dl, cms, t0, t1, t2, t3, raw;

	split_names(&nm, list);
	cuda_up(&dl, &cms);
	program(&p, src, file, 0);

	t0 = now_ms();
	ctx = open_ctx(dir);
	t1 = now_ms();
	rj_check(rocjit_kernel_get(&k, ctx, &p, nm.v[0]), nm.v[0]);
	t2 = now_ms();
	for (int i = 1; i < nm.n; i++)
		rj_check(rocjit_kernel_get(&k, ctx, &p, nm.v[i]), nm.v[i]);
	t3 = now_ms();

	/* Untimed from here.  The same program again is a memory hit: its compile_ms is
	   the time of the NVRTC calls (create, compile, log, get CUBIN) of the request. */
	rj_check(rocjit_compile(&code, ctx, NULL, &p), "rocjit_compile");
	stats(ctx, &s);
	if (s.misses != 1 || s.compiles != 1 || s.disk_hits != 0)
		die("the cold child found %s not cold: %llu misses, %llu compiles, %llu disk hits",
		    dir, (unsigned long long)s.misses, (unsigned long long)s.compiles,
		    (unsigned long long)s.disk_hits);
	raw = raw_floor_ms(code->data, &nm);
	if (cubin_out) {
		rocjit_program p1;
		const rocjit_code *c1;
		program(&p1, src, file, 1);
		get_all(ctx, &p1, &nm);
		rj_check(rocjit_compile(&c1, ctx, NULL, &p1), "rocjit_compile");
		write_file(cubin_out, c1->data, c1->size);
	}
	printf("dlopen=%.6f ctx=%.6f total=%.6f open=%.6f first=%.6f rest=%.6f nvrtc=%.6f "
	       "raw=%.6f bytes=%zu target=%s\n", dl, cms, t3 - t0, t1 - t0, t2 - t1, t3 - t2,
	       code->compile_ms, raw, code->size, code->target);
	rocjit_close(ctx);
	free(src);
	return 0;
}

/*
 * --child hit FILE NAMES DIR CUBIN ORDER: a new process on a warm cache.  first: open +
 * the first request(s), variant 0; own: variant 1, rocjit's own disk hit; raw: the CUBIN
 * file's bytes (read before timing) loaded by the driver directly.  ORDER 0 times own
 * before raw, 1 raw before own, so the parent can alternate them across children.
 */
static int child_hit(const char *file, const char *list, const char *dir, const char *cubin_file,
		     int order)
{
	char *src = read_file(file, NULL), *cubin = read_file(cubin_file, NULL);
	struct names nm;
	rocjit_program p0, p1;
	rocjit_ctx *ctx;
	rocjit_stats s;
	double dl, cms, t0, t1, t2, own = 0, raw = 0;

	split_names(&nm, list);
	cuda_up(&dl, &cms);
	program(&p0, src, file, 0);
	program(&p1, src, file, 1);

	t0 = now_ms();
	ctx = open_ctx(dir);
	t1 = now_ms();
	get_all(ctx, &p0, &nm);
	t2 = now_ms();
	for (int pass = 0; pass < 2; pass++) {
		if (pass == order) {
			double t = now_ms();
			get_all(ctx, &p1, &nm);
			own = now_ms() - t;
		} else {
			raw = raw_floor_ms(cubin, &nm);
		}
	}
	stats(ctx, &s);
	if (s.disk_hits != 2 || s.misses != 0)
		die("the disk-hit child missed the warm cache %s: %llu disk hits, %llu misses",
		    dir, (unsigned long long)s.disk_hits, (unsigned long long)s.misses);
	printf("dlopen=%.6f ctx=%.6f first=%.6f open=%.6f own=%.6f raw=%.6f\n", dl, cms, t2 - t0,
	       t1 - t0, own, raw);
	rocjit_close(ctx);
	free(cubin);
	free(src);
	return 0;
}

/* --child repeat FILE NAME DIR ITERS ROUNDS: rocjit_kernel_get again, same context. */
static int child_repeat(const char *file, const char *name, const char *dir, int iters,
			int rounds)
{
	char *src = read_file(file, NULL);
	rocjit_program p;
	rocjit_ctx *ctx;
	rocjit_kernel *k;
	double dl, cms, *ns = calloc((size_t)rounds, sizeof *ns), lo;
	int bad = 0;

	cuda_up(&dl, &cms);
	program(&p, src, file, 0);
	ctx = open_ctx(dir);
	rj_check(rocjit_kernel_get(&k, ctx, &p, name), name);
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ms();
		for (int i = 0; i < iters; i++)
			bad |= rocjit_kernel_get(&k, ctx, &p, name);
		ns[r] = (now_ms() - t0) * 1e6 / iters;
	}
	if (bad)
		die("a repeated rocjit_kernel_get failed: %s", rocjit_last_error());
	double med = bench_median(ns, rounds); /* sorts ns */
	lo = ns[0];
	printf("ns=%.6f min=%.6f\n", med, lo);
	rocjit_close(ctx);
	free(ns);
	free(src);
	return 0;
}

/*
 * --child launch FILE NAME DIR LAUNCHES ROUNDS BATCH: enqueue cost of rocjit_kernel_launch
 * against cuLaunchKernel of the same CUBIN's function, same stream, same arguments.  NAME
 * must take (int n, float a, const float *x, float *y) and do nothing for n = 0.
 */
static int child_launch(const char *file, const char *name, const char *dir, int launches,
			int rounds, int batch)
{
	char *src = read_file(file, NULL);
	rocjit_program p;
	rocjit_ctx *ctx;
	rocjit_kernel *k;
	const rocjit_code *code;
	CUmodule m;
	CUfunction f;
	CUstream stream;
	int n = 0, bad = 0, nbatch;
	float a = 2.0f;
	CUdeviceptr x = 0, y = 0;
	void *args[] = { &n, &a, &x, &y };
	rocjit_dim3 grid = { 1, 1, 1 }, block = { 32, 1, 1 };
	double dl, cms, *rj = calloc((size_t)rounds, sizeof *rj);
	double *raw = calloc((size_t)rounds, sizeof *raw), rj_med, raw_med;

	if (batch <= 0 || batch > launches)
		batch = launches;
	nbatch = launches / batch;
	cuda_up(&dl, &cms);
	program(&p, src, file, 0);
	ctx = open_ctx(dir);
	rj_check(rocjit_kernel_get(&k, ctx, &p, name), name);
	rj_check(rocjit_compile(&code, ctx, NULL, &p), "rocjit_compile");
	CU(cu.cuModuleLoadData(&m, code->data));
	CU(cu.cuModuleGetFunction(&f, m, name));
	CU(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

	/* Warm-up: first launches of each function, untimed. */
	for (int i = 0; i < 1000; i++) {
		bad |= rocjit_kernel_launch(k, grid, block, 0, stream, args);
		bad |= cu.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, stream, args, NULL);
	}
	CU(cu.cuStreamSynchronize(stream));
	for (int r = 0; r < rounds; r++) {
		double acc_rj = 0, acc_raw = 0;
		for (int b = 0; b < nbatch; b++) {
			for (int pass = 0; pass < 2; pass++) {
				double t0;
				/* Alternate which goes first, so neither always follows a sync. */
				if (pass == (b + r) % 2) {
					t0 = now_ms();
					for (int i = 0; i < batch; i++)
						bad |= rocjit_kernel_launch(k, grid, block, 0,
									    stream, args);
					acc_rj += now_ms() - t0;
				} else {
					t0 = now_ms();
					for (int i = 0; i < batch; i++)
						bad |= cu.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0,
									 stream, args, NULL);
					acc_raw += now_ms() - t0;
				}
				CU(cu.cuStreamSynchronize(stream));
			}
		}
		rj[r] = acc_rj * 1e6 / ((double)nbatch * batch);
		raw[r] = acc_raw * 1e6 / ((double)nbatch * batch);
	}
	if (bad)
		die("a launch failed: %s", rocjit_last_error());
	rj_med = bench_median(rj, rounds);
	raw_med = bench_median(raw, rounds);
	printf("rocjit=%.6f raw=%.6f rocjit_min=%.6f raw_min=%.6f launches=%d\n", rj_med,
	       raw_med, rj[0], raw[0], nbatch * batch);
	CU(cu.cuModuleUnload(m));
	rocjit_close(ctx);
	free(rj);
	free(raw);
	free(src);
	return 0;
}

static int child_main(int argc, char **argv)
{
	const char *mode = argv[2];

	if (!strcmp(mode, "ctx") && argc == 3)
		return child_ctx();
	if (!strcmp(mode, "nvrtc-load") && argc == 3)
		return child_nvrtc_load();
	if (!strcmp(mode, "cold") && (argc == 6 || argc == 7))
		return child_cold(argv[3], argv[4], argv[5], argc == 7 ? argv[6] : NULL);
	if (!strcmp(mode, "hit") && argc == 8)
		return child_hit(argv[3], argv[4], argv[5], argv[6], atoi(argv[7]));
	if (!strcmp(mode, "repeat") && argc == 8)
		return child_repeat(argv[3], argv[4], argv[5], atoi(argv[6]), atoi(argv[7]));
	if (!strcmp(mode, "launch") && argc == 9)
		return child_launch(argv[3], argv[4], argv[5], atoi(argv[6]), atoi(argv[7]),
				    atoi(argv[8]));
	die("bad child arguments (mode %s, %d arguments)", mode, argc);
}

/* ---- The parent ----------------------------------------------------------------------- */

#define LINE_MAX_LEN 4096

/*
 * Runs this program again with args (NULL-terminated, after argv[0]) and returns its
 * first stdout line in line.  The child's stderr is ours.  A failed child fails the run.
 */
static void run_child(char *line, const char *const *args)
{
	const char *argv[16] = { "bench_nvidia" };
	char t0s[32];
	int status, n = 1;

	for (const char *const *a = args; *a && n < 15; a++)
		argv[n++] = *a;
	argv[n] = NULL;
	status = bench_run_self(argv, t0s, sizeof t0s, line, LINE_MAX_LEN);
	if (status != 0)
		die("the child \"%s %s\" failed (exit status %d, -1 for a signal); its error is "
		    "above", args[0], args[1], status);
	line[strcspn(line, "\n")] = 0;
}

/* The value of key in a child's "key=value ..." line; dies when it is missing. */
static const char *field_str(const char *line, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);
	const char *p = line;

	while (*p) {
		size_t len = strcspn(p, " ");
		if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
			snprintf(out, size, "%.*s", (int)(len - klen - 1), p + klen + 1);
			return out;
		}
		p += len;
		while (*p == ' ')
			p++;
	}
	die("the child's output \"%s\" has no %s", line, key);
}

static double field(const char *line, const char *key)
{
	char buf[64];
	return strtod(field_str(line, key, buf, sizeof buf), NULL);
}

/*
 * bench/cupy_baseline.py's JSON lines (json.dumps' default spacing): the line of case
 * kase (and file, unless NULL), or NULL; *len receives its length.
 */
static const char *cupy_line(const char *json, const char *kase, const char *file, size_t *len)
{
	char want_case[128], want_file[512];
	const char *line = json;

	snprintf(want_case, sizeof want_case, "\"case\": \"%s\"", kase);
	snprintf(want_file, sizeof want_file, "\"file\": \"%s\"", file ? file : "");
	while (line && *line) {
		const char *end = strchr(line, '\n');
		*len = end ? (size_t)(end - line) : strlen(line);
		if (memmem(line, *len, want_case, strlen(want_case)) &&
		    (!file || memmem(line, *len, want_file, strlen(want_file))))
			return line;
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

/* A number of that line ("median_ms"); -1 when absent. */
static double cupy_number(const char *json, const char *kase, const char *file, const char *key)
{
	char want[128];
	size_t len = 0;
	const char *line = json ? cupy_line(json, kase, file, &len) : NULL, *m;

	snprintf(want, sizeof want, "\"%s\": ", key);
	if (!line || !(m = memmem(line, len, want, strlen(want))))
		return -1;
	return strtod(m + strlen(want), NULL);
}

/* A string of that line, or "?". */
static const char *cupy_string(char *out, size_t size, const char *json, const char *kase,
			       const char *key)
{
	char want[128];
	size_t len = 0;
	const char *line = json ? cupy_line(json, kase, NULL, &len) : NULL, *m;

	snprintf(want, sizeof want, "\"%s\": \"", key);
	snprintf(out, size, "?");
	if (line && (m = memmem(line, len, want, strlen(want)))) {
		m += strlen(want);
		snprintf(out, size, "%.*s", (int)strcspn(m, "\"\n"), m);
	}
	return out;
}

static double cupy_median(const char *json, const char *kase, const char *file)
{
	return cupy_number(json, kase, file, "median_ms");
}

struct file_case {
	const char *path;
	const char *label; /* base name */
	int all;           /* every extern "C" kernel, else the first */
	struct names nm;
	char list[MAX_NAMES * NAME_MAX_LEN];
	char target[64];
	size_t bytes;
	/* medians */
	double cold, open, first, rest, nvrtc, own_cold, raw_cold;
	double cold_db, own_cold_db, nvrtc_db; /* cold with the cache database present */
	double hit_first, hit_open, hit_get, hit_own, hit_raw;
	double repeat_ns, repeat_min_ns;
};

static double *ctx_samples, *dlopen_samples;
static int nctx;

static void note_ctx(const char *line)
{
	dlopen_samples[nctx] = field(line, "dlopen");
	ctx_samples[nctx++] = field(line, "ctx");
}

static void run_file(struct file_case *fc, const char *base, int index, int procs, int iters,
		     int rounds)
{
	double *v[8];
	char line[LINE_MAX_LEN], dir[1024], warm[1024], cubin[1024], order[8], si[32], sr[32];

	for (int i = 0; i < 8; i++)
		v[i] = calloc((size_t)procs, sizeof(double));
	fprintf(stderr, "bench_nvidia: %s: %d cold processes\n", fc->label, procs);
	for (int p = 0; p < procs; p++) {
		snprintf(dir, sizeof dir, "%s/cold-%d-%d", base, index, p);
		run_child(line, (const char *const[]){ "--child", "cold", fc->path, fc->list, dir,
						       NULL });
		note_ctx(line);
		v[0][p] = field(line, "total");
		v[1][p] = field(line, "open");
		v[2][p] = field(line, "first");
		v[3][p] = field(line, "rest");
		v[4][p] = field(line, "nvrtc");
		v[5][p] = v[0][p] - v[4][p];
		v[6][p] = field(line, "raw");
		if (p == 0) {
			field_str(line, "target", fc->target, sizeof fc->target);
			char b[32];
			fc->bytes = (size_t)strtoull(field_str(line, "bytes", b, sizeof b), NULL, 10);
		}
	}
	fc->cold = bench_median(v[0], procs);
	fc->open = bench_median(v[1], procs);
	fc->first = bench_median(v[2], procs);
	fc->rest = bench_median(v[3], procs);
	fc->nvrtc = bench_median(v[4], procs);
	fc->own_cold = bench_median(v[5], procs);
	fc->raw_cold = bench_median(v[6], procs);

	/* The same cold request where the cache database already exists (any later miss on
	   a machine: the database is created once per cache folder). */
	fprintf(stderr, "bench_nvidia: %s: %d cold processes, database present\n", fc->label,
		procs);
	for (int p = 0; p < procs; p++) {
		rocjit_options o = ROCJIT_OPTIONS_INIT;
		rocjit_ctx *ctx;
		snprintf(dir, sizeof dir, "%s/colddb-%d-%d", base, index, p);
		o.cache_dir = dir;
		if (rocjit_open(&ctx, &o) != 0)
			die("rocjit_open: %s", rocjit_last_error());
		rocjit_close(ctx);
		run_child(line, (const char *const[]){ "--child", "cold", fc->path, fc->list, dir,
						       NULL });
		v[0][p] = field(line, "total");
		v[5][p] = field(line, "total") - field(line, "nvrtc");
		v[4][p] = field(line, "nvrtc");
	}
	fc->cold_db = bench_median(v[0], procs);
	fc->own_cold_db = bench_median(v[5], procs);
	fc->nvrtc_db = bench_median(v[4], procs);

	snprintf(warm, sizeof warm, "%s/warm-%d", base, index);
	snprintf(cubin, sizeof cubin, "%s/variant1-%d.cubin", base, index);
	run_child(line, (const char *const[]){ "--child", "cold", fc->path, fc->list, warm, cubin,
					       NULL });
	fprintf(stderr, "bench_nvidia: %s: %d disk-hit processes\n", fc->label, procs);
	for (int p = 0; p < procs; p++) {
		snprintf(order, sizeof order, "%d", p % 2);
		run_child(line, (const char *const[]){ "--child", "hit", fc->path, fc->list, warm,
						       cubin, order, NULL });
		note_ctx(line);
		v[0][p] = field(line, "first");
		v[1][p] = field(line, "open");
		v[2][p] = field(line, "own");
		v[3][p] = field(line, "raw");
		v[4][p] = v[0][p] - v[1][p]; /* the first request less rocjit_open */
	}
	fc->hit_first = bench_median(v[0], procs);
	fc->hit_open = bench_median(v[1], procs);
	fc->hit_get = bench_median(v[4], procs);
	fc->hit_own = bench_median(v[2], procs);
	fc->hit_raw = bench_median(v[3], procs);

	snprintf(si, sizeof si, "%d", iters);
	snprintf(sr, sizeof sr, "%d", rounds);
	fprintf(stderr, "bench_nvidia: %s: repeat, %d rounds of %d\n", fc->label, rounds, iters);
	run_child(line, (const char *const[]){ "--child", "repeat", fc->path, fc->nm.v[0], warm,
					       si, sr, NULL });
	fc->repeat_ns = field(line, "ns");
	fc->repeat_min_ns = field(line, "min");
	for (int i = 0; i < 8; i++)
		free(v[i]);
}

/* The parent's scratch folder (caches, CUBIN files), removed at exit, failed runs too. */
static char scratch[1024];

static void remove_scratch(void)
{
	char cmd[1100];

	if (scratch[0]) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
		if (system(cmd) != 0)
			fprintf(stderr, "bench_nvidia: could not remove %s\n", scratch);
	}
}

/*
 * One row of the summary: rocjit's and CuPy's medians in ms (CuPy's < 0: absent), shown
 * in ms or, with in_us, in us; the ratio both ways; the target text.
 */
static void summary_row(const char *what, double rj_ms, double cupy_ms, int in_us,
			const char *target)
{
	double k = in_us ? 1e3 : 1;
	const char *unit = in_us ? "us" : "ms";
	char c[32], r1[32], r2[32];

	if (cupy_ms > 0) {
		snprintf(c, sizeof c, "%9.3f %s", cupy_ms * k, unit);
		snprintf(r1, sizeof r1, "%.4g", rj_ms / cupy_ms);
		snprintf(r2, sizeof r2, "%.3gx", cupy_ms / rj_ms);
	} else {
		snprintf(c, sizeof c, "n/a");
		snprintf(r1, sizeof r1, "n/a");
		snprintf(r2, sizeof r2, "n/a");
	}
	printf("%-39s %9.4g %s %12s %11s %11s  %s\n", what, rj_ms * k, unit, c, r1, r2, target);
}

static const char *met(int ok)
{
	return ok ? "met" : "NOT met";
}

int main(int argc, char **argv)
{
	int procs = 20, iters = 1000000, rounds = 7, launches = 100000, batch = 250;
	const char *cupy_file = NULL, *json_file = NULL;
	struct file_case fc[2];
	char base[900], line[LINE_MAX_LEN], dev_name[256];
	char *cupy = NULL;
	double launch_rj, launch_raw, nvrtc_load;
	char nvrtc_version[32];
	FILE *json = NULL;

	if (argc >= 3 && !strcmp(argv[1], "--child"))
		return child_main(argc, argv);

	memset(fc, 0, sizeof fc);
	fc[0].path = "kernels-src/axpy.hip";
	fc[1].path = "bench/kernels/templated.hip";
	fc[1].all = 1;
	for (int a = 1; a < argc; a += 2) {
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;
		if (!strcmp(argv[a], "--procs") && v)
			procs = atoi(v);
		else if (!strcmp(argv[a], "--iters") && v)
			iters = atoi(v);
		else if (!strcmp(argv[a], "--rounds") && v)
			rounds = atoi(v);
		else if (!strcmp(argv[a], "--launches") && v)
			launches = atoi(v);
		else if (!strcmp(argv[a], "--batch") && v)
			batch = atoi(v);
		else if (!strcmp(argv[a], "--axpy") && v)
			fc[0].path = v;
		else if (!strcmp(argv[a], "--templated") && v)
			fc[1].path = v;
		else if (!strcmp(argv[a], "--cupy") && v)
			cupy_file = v;
		else if (!strcmp(argv[a], "--json") && v)
			json_file = v;
		else {
			fprintf(stderr,
				"usage: bench_nvidia [--procs N] [--iters N] [--rounds N] "
				"[--launches N] [--batch N]\n"
				"                    [--axpy FILE] [--templated FILE] "
				"[--cupy FILE.json] [--json FILE]\n");
			return 2;
		}
	}
	if (procs < 1 || iters < 1 || rounds < 1 || launches < 1 || batch < 0)
		die("--procs, --iters, --rounds and --launches must be positive");
	if (batch == 0 || batch > launches)
		batch = launches; /* --batch 0: one loop of all launches, one sync after it */
	launches = launches / batch * batch;
	for (int i = 0; i < 2; i++) {
		char *src = read_file(fc[i].path, NULL);
		fc[i].label = base_name(fc[i].path);
		find_kernels(&fc[i].nm, src, fc[i].all ? MAX_NAMES : 1);
		free(src);
		if (fc[i].nm.n == 0)
			die("%s has no extern \"C\" __global__ kernel", fc[i].path);
		for (int k = 0; k < fc[i].nm.n; k++) {
			if (k)
				strcat(fc[i].list, ",");
			strcat(fc[i].list, fc[i].nm.v[k]);
		}
	}
	if (strcmp(fc[0].nm.v[0], "axpy_f32") != 0)
		die("%s: the first kernel is %s; the launch case needs axpy_f32 first", fc[0].path,
		    fc[0].nm.v[0]);
	if (cupy_file)
		cupy = read_file(cupy_file, NULL);
	/* The cases must see the cache and the device as they are, whatever the caller set. */
	unsetenv("ROCJIT_DISABLE_CACHE");
	unsetenv("ROCJIT_NO_COMPILE");
	unsetenv("ROCJIT_ARCH");
	unsetenv("ROCJIT_KERNEL_PATH");
	setenv("ROCJIT_LOG", "warn", 1);
	snprintf(base, sizeof base, "%s/rocjit-nvbench-XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(base))
		die("mkdtemp: %s", strerror(errno));
	snprintf(scratch, sizeof scratch, "%s", base);
	atexit(remove_scratch);
	ctx_samples = calloc((size_t)(4 * procs + 1), sizeof(double));
	dlopen_samples = calloc((size_t)(4 * procs + 1), sizeof(double));

	/* A first child that only creates the context: fails fast on a box without a GPU. */
	run_child(line, (const char *const[]){ "--child", "ctx", NULL });
	field_str(line, "name", dev_name, sizeof dev_name);
	for (char *c = dev_name; *c; c++)
		if (*c == '_')
			*c = ' ';
	printf("rocjit %s on %s (cc %.0f), driver API %.0f, CUDA_MODULE_LOADING=%s\n"
	       "%d fresh processes per case, medians; first ctx creation %.1f ms\n\n",
	       ROCJIT_VERSION_STRING, dev_name, field(line, "cc"), field(line, "driver"),
	       getenv("CUDA_MODULE_LOADING") ? getenv("CUDA_MODULE_LOADING") : "(unset)", procs,
	       field(line, "ctx"));
	fflush(stdout);

	{
		double *v = calloc((size_t)procs, sizeof *v);
		fprintf(stderr, "bench_nvidia: NVRTC library load, %d processes\n", procs);
		for (int p = 0; p < procs; p++) {
			run_child(line, (const char *const[]){ "--child", "nvrtc-load", NULL });
			v[p] = field(line, "load");
		}
		nvrtc_load = bench_median(v, procs);
		field_str(line, "version", nvrtc_version, sizeof nvrtc_version);
		free(v);
	}
	for (int i = 0; i < 2; i++)
		run_file(&fc[i], base, i, procs, iters, rounds);
	{
		char warm[1024], sl[32], sr[32], sb[32];
		snprintf(warm, sizeof warm, "%s/warm-0", base);
		snprintf(sl, sizeof sl, "%d", launches);
		snprintf(sr, sizeof sr, "%d", rounds);
		snprintf(sb, sizeof sb, "%d", batch);
		fprintf(stderr, "bench_nvidia: launch overhead, %d rounds of %d launches\n", rounds,
			launches);
		run_child(line, (const char *const[]){ "--child", "launch", fc[0].path, "axpy_f32",
						       warm, sl, sr, sb, NULL });
		launch_rj = field(line, "rocjit");
		launch_raw = field(line, "raw");
	}

	/* ---- Report ---- */
	{
		double ctx_m, dl_m;
		int n = nctx;
		ctx_m = bench_median(ctx_samples, n);
		dl_m = bench_median(dlopen_samples, n);
		printf("Driver and context creation (before every timed section, not in any time "
		       "below; %d processes):\n"
		       "  dlopen libcuda.so.1                                   %9.2f ms\n"
		       "  cuInit + cuDevicePrimaryCtxRetain + cuCtxSetCurrent   %9.2f ms\n",
		       n, dl_m, ctx_m);
		if (cupy) {
			char v[64], nv[64];
			printf("  CuPy %s (NVRTC %s): Device(0).use() + runtime.free(0) %9.2f ms "
			       "(import cupy %.0f ms, untimed too)\n",
			       cupy_string(v, sizeof v, cupy, "meta", "cupy"),
			       cupy_string(nv, sizeof nv, cupy, "meta", "nvrtc"),
			       cupy_median(cupy, "ctx", NULL),
			       cupy_number(cupy, "ctx", NULL, "import_median_ms"));
		}
		printf("\n");
	}
	printf("Cold: empty cache, new process (ms); NVRTC %s, loading it %.2f ms (median of %d "
	       "processes)\n", nvrtc_version, nvrtc_load, procs);
	printf("%-15s %4s %6s %8s %8s %10s %7s %7s %9s %7s %8s %9s %8s\n", "file", "gets",
	       "target", "cold", "NVRTC", "cold/NVRTC", "other", "own", "own/NVRTC", "open",
	       "1st get", "rest gets", "ld floor");
	for (int i = 0; i < 2; i++) {
		const struct file_case *f = &fc[i];
		double own = f->own_cold - nvrtc_load;
		printf("%-15s %4d %6s %8.2f %8.2f %10.4f %7.2f %7.2f %8.2f%% %7.3f %8.2f %9.3f "
		       "%8.3f\n", f->label, f->nm.n, f->target, f->cold, f->nvrtc,
		       f->cold / f->nvrtc, f->own_cold, own, 100 * own / f->nvrtc, f->open,
		       f->first, f->rest, f->raw_cold);
	}
	printf("\nCold with the cache database already present (ms): the usual miss\n");
	printf("%-15s %8s %8s %8s %10s %9s\n", "file", "cold", "NVRTC", "other", "own",
	       "own/NVRTC");
	for (int i = 0; i < 2; i++) {
		const struct file_case *f = &fc[i];
		double own = f->own_cold_db - nvrtc_load;
		printf("%-15s %8.2f %8.2f %8.2f %10.2f %8.2f%%   (own: other less loading NVRTC)\n",
		       f->label, f->cold_db, f->nvrtc_db, f->own_cold_db, own,
		       100 * own / f->nvrtc_db);
	}
	printf("\nDisk hit: warm cache, new process (ms)\n");
	printf("%-15s %4s %10s %8s %8s %10s %10s %9s %10s\n", "file", "gets", "1st req", "open",
	       "1st get", "own hit", "raw floor", "own/raw", "own-raw");
	for (int i = 0; i < 2; i++)
		printf("%-15s %4d %10.3f %8.3f %8.3f %10.4f %10.4f %9.3f %10.4f\n", fc[i].label,
		       fc[i].nm.n, fc[i].hit_first, fc[i].hit_open, fc[i].hit_get, fc[i].hit_own,
		       fc[i].hit_raw, fc[i].hit_own / fc[i].hit_raw, fc[i].hit_own - fc[i].hit_raw);
	printf("\nRepeat in the same process: rocjit_kernel_get of the same program and name\n");
	for (int i = 0; i < 2; i++)
		printf("  %-15s %9.1f ns per call (fastest round %.1f ns); a held handle: 0 ns, "
		       "no call\n", fc[i].label, fc[i].repeat_ns, fc[i].repeat_min_ns);
	printf("\nLaunch: enqueue of an empty kernel (axpy_f32, n = 0) onto one stream, %d per "
	       "round, in batches\nof %d (a sync after each, untimed), median of %d rounds, "
	       "ns per launch\n"
	       "  rocjit_kernel_launch %8.1f ns   cuLaunchKernel %8.1f ns   ratio %.4f "
	       "(%+.2f%%)   target <= 3%%: %s\n",
	       launches, batch, rounds, launch_rj, launch_raw, launch_rj / launch_raw,
	       100 * (launch_rj / launch_raw - 1), met(launch_rj <= 1.03 * launch_raw));

	/* ---- Against the targets and CuPy ---- */
	printf("\nSummary: time from \"get kernel\" to a launchable function, rocjit vs CuPy "
	       "RawModule%s\n", cupy ? "" : " (no --cupy file: CuPy columns n/a)");
	printf("%-39s %12s %12s %11s %11s  %s\n", "case", "rocjit", "CuPy", "rocjit/CuPy",
	       "CuPy/rocjit", "issue target for rocjit");
	for (int i = 0; i < 2; i++) {
		const struct file_case *f = &fc[i];
		char what[64], tgt[160];

		snprintf(what, sizeof what, "cold %s", f->label);
		snprintf(tgt, sizeof tgt, "<= NVRTC + 2%%: NVRTC + %.2f%%, %s; less loading "
			 "NVRTC: + %.2f%%, %s", 100 * f->own_cold / f->nvrtc,
			 met(f->own_cold <= 0.02 * f->nvrtc),
			 100 * (f->own_cold - nvrtc_load) / f->nvrtc,
			 met(f->own_cold - nvrtc_load <= 0.02 * f->nvrtc));
		summary_row(what, f->cold, cupy_median(cupy, "cold", f->label), 0, tgt);

		snprintf(what, sizeof what, "disk hit, 1st req %s", f->label);
		snprintf(tgt, sizeof tgt, "<= 0.3 ms (issue 14): %s; open %.3f + 1st get %.3f ms",
			 met(f->hit_first <= 0.3), f->hit_open, f->hit_get);
		summary_row(what, f->hit_first, cupy_median(cupy, "disk_hit", f->label), 0, tgt);
		snprintf(what, sizeof what, "disk hit, own (2nd prog) %s", f->label);
		snprintf(tgt, sizeof tgt, "<= 0.1 ms: %s; raw floor %.4f ms, own/raw %.2f",
			 met(f->hit_own <= 0.1), f->hit_raw, f->hit_own / f->hit_raw);
		summary_row(what, f->hit_own, cupy_median(cupy, "disk_hit_own", f->label), 0, tgt);

		snprintf(what, sizeof what, "repeat in process %s", f->label);
		snprintf(tgt, sizeof tgt, "<= 0.2 us: %s", met(f->repeat_ns <= 200));
		summary_row(what, f->repeat_ns / 1e6, cupy_median(cupy, "repeat", f->label), 1, tgt);
	}
	printf("%-39s %9.1f ns %12s %11s %11s  <= cuLaunchKernel + 3%%: %+.2f%%, %s\n",
	       "launch enqueue (axpy_f32, n=0)", launch_rj, "", "", "",
	       100 * (launch_rj / launch_raw - 1), met(launch_rj <= 1.03 * launch_raw));
	printf("\ncold: rocjit_open + rocjit_kernel_get of every kernel listed (gets), empty "
	       "cache; NVRTC: rocjit's\n  compile_ms (nvrtcCreateProgram .. nvrtcGetCUBIN "
	       "alone); other = cold - NVRTC: loading NVRTC,\n  rocjit_open, key, SQLite "
	       "store, cuModuleLoadData, cuModuleGetFunction; own = other - loading\n  NVRTC "
	       "(measured apart, in fresh processes); ld floor: the two driver calls again "
	       "for the\n  same CUBIN in the same process, untimed in cold.\n"
	       "disk hit 1st req: rocjit_open (open) + the first request(s) of a new process "
	       "(1st get: compiler\n  identity from the cache's memo, key, SQLite read, "
	       "checksum, the process's first cuModuleLoadData);\n  own hit: a second cached program "
	       "in that process (key, SQLite read, checksum, cuModuleLoadData,\n  "
	       "cuModuleGetFunction); raw floor: cuModuleLoadData + cuModuleGetFunction of "
	       "the same CUBIN\n  already in memory, same process (own and raw alternate "
	       "order across processes).\n"
	       "CuPy: RawModule(code=...) + get_function of the same kernels, source without "
	       "the #include line;\n  disk hit own: a second cached program in the same "
	       "process, as rocjit's; repeat: RawModule\n  with the same code again + "
	       "get_function (bench/cupy_baseline.py).\n");

	if (json_file) {
		json = fopen(json_file, "w");
		if (!json)
			die("cannot write %s: %s", json_file, strerror(errno));
		for (int i = 0; i < 2; i++) {
			const struct file_case *f = &fc[i];
			fprintf(json, "{\"impl\": \"rocjit\", \"case\": \"cold\", \"file\": \"%s\", "
				"\"entries\": %d, \"median_ms\": %.6f, \"nvrtc_ms\": %.6f, "
				"\"other_ms\": %.6f, \"open_ms\": %.6f, \"first_get_ms\": %.6f, "
				"\"rest_gets_ms\": %.6f, \"load_floor_ms\": %.6f, \"cubin_bytes\": %zu, "
				"\"target\": \"%s\", \"nvrtc_load_ms\": %.6f, \"n\": %d}\n",
				f->label, f->nm.n, f->cold, f->nvrtc, f->own_cold, f->open,
				f->first, f->rest, f->raw_cold, f->bytes, f->target, nvrtc_load,
				procs);
			fprintf(json, "{\"impl\": \"rocjit\", \"case\": \"disk_hit\", \"file\": "
				"\"%s\", \"entries\": %d, \"median_ms\": %.6f, \"open_ms\": %.6f, "
				"\"first_get_ms\": %.6f, \"own_ms\": %.6f, \"raw_floor_ms\": %.6f, "
				"\"n\": %d}\n", f->label, f->nm.n, f->hit_first, f->hit_open,
				f->hit_get, f->hit_own, f->hit_raw, procs);
			fprintf(json, "{\"impl\": \"rocjit\", \"case\": \"repeat\", \"file\": \"%s\", "
				"\"entries\": 1, \"median_ms\": %.9f, \"min_ms\": %.9f, "
				"\"iters\": %d, \"rounds\": %d}\n", f->label, f->repeat_ns / 1e6,
				f->repeat_min_ns / 1e6, iters, rounds);
		}
		fprintf(json, "{\"impl\": \"rocjit\", \"case\": \"launch\", \"file\": \"%s\", "
			"\"rocjit_ns\": %.3f, \"cuLaunchKernel_ns\": %.3f, \"ratio\": %.6f}\n",
			fc[0].label, launch_rj, launch_raw, launch_rj / launch_raw);
		fprintf(json, "{\"impl\": \"rocjit\", \"case\": \"ctx\", \"median_ms\": %.6f, "
			"\"dlopen_ms\": %.6f, \"n\": %d}\n", bench_median(ctx_samples, nctx),
			bench_median(dlopen_samples, nctx), nctx);
		fclose(json);
	}
	free(cupy);
	return 0;
}
