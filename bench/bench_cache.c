/*
 * bench_cache.c - what rocjit costs on the CPU box, per kernel file, in one run:
 *
 *   raw hipRTC compile (the baseline: direct hiprtcCreateProgram/CompileProgram/GetCode)
 *   rocjit cold      (empty cache: key, target check, compile, code-object check, store)
 *   rocjit disk hit  (a new process: rocjit_compile on a warm cache, open excluded)
 *   rocjit memory hit (the same context again)
 *   rocjit miss      (a new process: a key the cache lacks, compiling forbidden - the
 *                    lookups a miss makes before it would compile)
 *
 *   bench_cache [--reps N] [--procs N] [--target T] [--served-by S] FILE.hip...
 *
 * --served-by S: the entries are compiled for target S and the hits ask for T, a more
 * specific id of the same processor that S's code runs on (issue 31: a cache prewarmed
 * for gfx90a serves gfx90a:sramecc+:xnack- after a miss on each more specific id).
 *
 * Prints medians and ratios.  No GPU needed.
 */
#define _GNU_SOURCE
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hiprtc.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rocjit.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		exit(1);
	fclose(f);
	return buf;
}

/* The baseline: hipRTC called directly, as an application without rocjit would. */
static double raw_hiprtc_ms(const char *src, const char *name, const char *target)
{
	static void *lib;
	static __typeof__(&hiprtcCreateProgram) create;
	static __typeof__(&hiprtcCompileProgram) compile;
	static __typeof__(&hiprtcGetCodeSize) code_size;
	static __typeof__(&hiprtcGetCode) get_code;
	static __typeof__(&hiprtcDestroyProgram) destroy;
	char arch[128];
	const char *opts[2] = { "-O3", arch };
	hiprtcProgram prog;
	size_t n;
	void *code;
	double t0;

	if (!lib) {
		lib = dlopen("libamdhip64.so.5", RTLD_NOW);
		if (!lib) {
			fprintf(stderr, "cannot load libamdhip64.so.5\n");
			exit(1);
		}
		*(void **)&create = dlsym(lib, "hiprtcCreateProgram");
		*(void **)&compile = dlsym(lib, "hiprtcCompileProgram");
		*(void **)&code_size = dlsym(lib, "hiprtcGetCodeSize");
		*(void **)&get_code = dlsym(lib, "hiprtcGetCode");
		*(void **)&destroy = dlsym(lib, "hiprtcDestroyProgram");
	}
	snprintf(arch, sizeof arch, "--offload-arch=%s", target);
	t0 = now_ms();
	create(&prog, src, name, 0, NULL, NULL);
	if (compile(prog, 2, opts) != HIPRTC_SUCCESS) {
		fprintf(stderr, "raw hipRTC compile of %s failed\n", name);
		exit(1);
	}
	code_size(prog, &n);
	code = malloc(n);
	get_code(prog, code);
	destroy(&prog);
	free(code);
	return now_ms() - t0;
}

static rocjit_ctx *open_ctx_flags(const char *dir, unsigned flags)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;
	o.cache_dir = dir;
	o.flags = flags;
	if (rocjit_open(&ctx, &o) != 0) {
		fprintf(stderr, "rocjit_open: %s\n", rocjit_last_error());
		exit(1);
	}
	return ctx;
}

static rocjit_ctx *open_ctx(const char *dir)
{
	return open_ctx_flags(dir, 0);
}

/* variant 0: the program as is; variant 1: the same with one more -D (another key);
 * variant 2: with two (a key never stored: the child's miss). */
static int try_variant(const rocjit_code **c, rocjit_ctx *ctx, const char *src,
		       const char *name, const char *target, int variant)
{
	static const char *const opts[] = { "-DROCJIT_BENCH_VARIANT=1",
					    "-DROCJIT_BENCH_MISS=1" };
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	p.source = src;
	p.name = name;
	p.options = opts;
	p.num_options = (size_t)variant;
	return rocjit_compile(c, ctx, target, &p);
}

static const rocjit_code *get_variant(rocjit_ctx *ctx, const char *src, const char *name,
				      const char *target, int variant)
{
	const rocjit_code *c;
	if (try_variant(&c, ctx, src, name, target, variant) != 0) {
		fprintf(stderr, "rocjit_compile %s: %s\n", name, rocjit_last_error());
		exit(1);
	}
	return c;
}

static const rocjit_code *get(rocjit_ctx *ctx, const char *src, const char *name,
			      const char *target)
{
	return get_variant(ctx, src, name, target, 0);
}

/*
 * Child mode: a fresh process.  rocjit_open, then its first request, which also learns the
 * compiler's identity (part of the key: from the cache's memo, or by loading the vendor
 * libraries); the second, for another cached program, is rocjit's own disk hit: key,
 * SQLite read, checksum.  The third, for a program the cache lacks, is a miss: compiling
 * is forbidden (ROCJIT_OPEN_NO_COMPILE), so it times the lookups alone (the on-disk cache
 * and the bundles, for each compatible target) up to ROCJIT_ENOTCACHED.  Prints own,
 * first and whether both hit, the open's time, then the miss's.
 */
static int child(const char *file, const char *target, const char *dir)
{
	char *src = read_file(file);
	double t0 = now_ms(), opened, first, own, miss;
	rocjit_ctx *ctx = open_ctx_flags(dir, ROCJIT_OPEN_NO_COMPILE);
	const rocjit_code *a, *b, *m;
	rocjit_stats st;
	int rc;
	opened = now_ms() - t0;
	t0 = now_ms();
	a = get_variant(ctx, src, file, target, 0);
	first = now_ms() - t0;
	t0 = now_ms();
	b = get_variant(ctx, src, file, target, 1);
	own = now_ms() - t0;
	t0 = now_ms();
	rc = try_variant(&m, ctx, src, file, target, 2);
	miss = now_ms() - t0;
	if (rc != ROCJIT_ENOTCACHED)
		miss = -1; /* not the miss it was to time */
	if (rocjit_stats_init(&st, ROCJIT_STATS_VERSION) != 0 || rocjit_stats_get(&st, ctx) != 0)
		st.index_hits = 99;
	printf("%.6f %.6f %d %.6f %.6f %d\n", own, first, a->from_cache && b->from_cache, opened,
	       miss, (int)st.index_hits);
	rocjit_close(ctx);
	return 0;
}

static double run_child(const char *self, const char *file, const char *target,
			const char *dir, double *first, double *opened, double *miss,
			int *index_hits)
{
	char cmd[8192], line[256];
	FILE *p;
	double ms = -1;
	int hit = 0;

	snprintf(cmd, sizeof cmd, "'%s' --child '%s' '%s' '%s'", self, file, target, dir);
	p = popen(cmd, "r");
	if (p && fgets(line, sizeof line, p))
		sscanf(line, "%lf %lf %d %lf %lf %d", &ms, first, &hit, opened, miss, index_hits);
	if (p)
		pclose(p);
	if (ms < 0 || !hit || *miss < 0) {
		fprintf(stderr, "child run did not hit the cache, or its miss was not one\n");
		exit(1);
	}
	return ms;
}

int main(int argc, char **argv)
{
	const char *target = "gfx90a", *served_by = NULL, *built;
	int reps = 5, procs = 20, arg = 1;
	char base[] = "/tmp/rocjit-bench-XXXXXX";

	if (argc == 5 && !strcmp(argv[1], "--child"))
		return child(argv[2], argv[3], argv[4]);
	while (arg < argc && argv[arg][0] == '-') {
		if (!strcmp(argv[arg], "--reps") && arg + 1 < argc)
			reps = atoi(argv[++arg]);
		else if (!strcmp(argv[arg], "--procs") && arg + 1 < argc)
			procs = atoi(argv[++arg]);
		else if (!strcmp(argv[arg], "--target") && arg + 1 < argc)
			target = argv[++arg];
		else if (!strcmp(argv[arg], "--served-by") && arg + 1 < argc)
			served_by = argv[++arg];
		else
			break;
		arg++;
	}
	if (arg >= argc || reps < 1 || procs < 1) {
		fprintf(stderr, "usage: bench_cache [--reps N] [--procs N] [--target T] "
			"[--served-by S] FILE...\n");
		return 2;
	}
	/* What the entries are compiled for; the hits ask for target. */
	built = served_by ? served_by : target;
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("ROCJIT_LOG", "off", 1);
	printf("target %s (entries compiled for %s), %d cold reps, %d hit processes, "
	       "medians\n\n", target, built, reps, procs);
	printf("%-20s %9s %9s %8s %8s %8s %11s %9s %10s %9s %9s %8s %8s\n", "file",
	       "hipRTC ms", "cold ms", "cold/raw", "own ms", "own/raw", "disk hit ms",
	       "raw/disk", "mem hit us", "raw/mem", "1st req ms", "open ms", "miss ms");
	for (int f = arg; f < argc; f++) {
		char *src = read_file(argv[f]);
		const char *name = strrchr(argv[f], '/') ? strrchr(argv[f], '/') + 1 : argv[f];
		double *raw = calloc((size_t)reps, sizeof *raw);
		double *cold = calloc((size_t)reps, sizeof *cold);
		double *own = calloc((size_t)reps, sizeof *own);
		double *disk = calloc((size_t)procs, sizeof *disk);
		double *first = calloc((size_t)procs, sizeof *first);
		double *opened = calloc((size_t)procs, sizeof *opened);
		double *miss = calloc((size_t)procs, sizeof *miss);
		int index_hits = 0, fewest = 2;
		char dir[512];
		double raw_m, cold_m, disk_m, mem_us;
		rocjit_ctx *ctx;
		int iters = 1000000;

		/* Warm the vendor libraries once, outside the timings. */
		raw_hiprtc_ms(src, name, built);
		for (int r = 0; r < reps; r++) {
			/* Alternate so drift on the noisy box hits both alike. */
			raw[r] = raw_hiprtc_ms(src, name, built);
			snprintf(dir, sizeof dir, "%s/cold-%d-%d", base, f, r);
			ctx = open_ctx(dir);
			{
				double t0 = now_ms();
				const rocjit_code *c = get(ctx, src, argv[f], built);
				cold[r] = now_ms() - t0;
				/* compile_ms times the hipRTC calls alone: the rest is rocjit's. */
				own[r] = cold[r] - c->compile_ms;
			}
			rocjit_close(ctx);
		}
		ctx = open_ctx(dir);
		get_variant(ctx, src, argv[f], built, 1); /* the child's second program */
		rocjit_close(ctx);
		for (int p = 0; p < procs; p++) {
			disk[p] = run_child(argv[0], argv[f], target, dir, &first[p], &opened[p],
					    &miss[p], &index_hits);
			fewest = index_hits < fewest ? index_hits : fewest;
		}
		ctx = open_ctx(dir);
		get(ctx, src, argv[f], target);
		{
			double t0 = now_ms();
			for (int i = 0; i < iters; i++)
				get(ctx, src, argv[f], target);
			mem_us = (now_ms() - t0) * 1e3 / iters;
		}
		rocjit_close(ctx);
		raw_m = median(raw, reps);
		cold_m = median(cold, reps);
		disk_m = median(disk, procs);
		printf("%-20s %9.1f %9.1f %8.3f %8.2f %7.4f%% %11.4f %9.0f %10.3f %9.0f %9.3f "
		       "%8.3f %8.4f\n",
		       name, raw_m, cold_m, cold_m / raw_m, median(own, reps),
		       100 * median(own, reps) / raw_m, disk_m, raw_m / disk_m, mem_us,
		       raw_m * 1e3 / mem_us, median(first, procs), median(opened, procs),
		       median(miss, procs));
		printf("%-20s of each process's two hits, %d at least came from the read index\n",
		       "", fewest);
		free(miss);
		free(opened);
		free(own);
		free(first);
		free(raw);
		free(cold);
		free(disk);
		free(src);
	}
	printf("\ncold/raw: rocjit's cold request over a direct hipRTC compile (1.00 = no "
	       "overhead; noisy).\nown: rocjit's own part of the cold request (all but the "
	       "hipRTC calls: key, target check,\ncode-object check, SQLite store); own/raw "
	       "relative to the direct compile.\nraw/disk, raw/mem: how many times faster than compiling a "
	       "hit is.\ndisk hit: rocjit's own time in a new process (key, SQLite read, "
	       "checksum);\n1st req: the first request of a new process (rocjit_open excluded), "
	       "which also learns the\ncompiler's identity (the cache's memo, or loading "
	       "libamdhip64 and comgr);\nopen: rocjit_open in that process, the cache's "
	       "database opened (bench/RESULTS.md, issue 14);\nmiss: that process's request for a "
	       "program the cache lacks, compiling forbidden: the\nlookups alone (cache and "
	       "bundles, for each compatible target), up to ROCJIT_ENOTCACHED.\n");
	{
		char cmd[600];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
		if (system(cmd) != 0)
			return 1;
	}
	return 0;
}
