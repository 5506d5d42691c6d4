/*
 * bench_ops_compile.c - what compiling the rocjit_ops kernel set costs, on a machine without
 * a GPU: hipRTC and NVRTC time per file, and the first use of the whole set by an
 * application, cold (an empty cache) against cached.
 *
 *   bench_ops_compile [--reps N] [--cold N] [--hits N] [--first N] [--series 0|1]
 *                     [--amd TARGET|none] [--nvidia TARGET|none] [--json FILE]
 *
 * The set is what rocjit_ops_foreach_kernel lists: its files, in its order, and the
 * kernels each must hold, each a template instantiation named by a name expression.  The
 * sources are the ones the rocjit_ops objects linked into this program registered
 * (rocjit_registered_source); nothing else of the repository is read.
 *
 *   per file   --reps times (default 3; 0: not run, nor the "every file" runs below):
 *              a context on a fresh cache folder, then
 *              rocjit_compile_registered_v2 of every file with all its kernels' name
 *              expressions (the whole file in one compile, as the kernels were before
 *              each was compiled alone), one file after the other, each timed.  "ms" is the whole request (key, compile, code-object
 *              check, SQLite insert); "compiler" is rocjit's compile_ms, the vendor calls
 *              alone.  Before the first repetition the compiler is loaded
 *              (rocjit_compiler_identity) and warmed up with a one-line kernel, both timed
 *              apart, so no file pays for loading the library.  The first repetition's code
 *              objects are read back (rocjit_codeobj_inspect) and every kernel the set
 *              lists for the file must be in them.
 *   series     (--series 1, the default) one context on a fresh cache folder compiles
 *              every kernel of the set alone, one after the other, as an application
 *              that uses every op does at first use (rocjit_ops asks for one name
 *              expression at a time): the whole set cold, in series.
 *   first use  a new process of this program (--child app), as an application starts:
 *              rocjit_open on a cache folder with the target set (no GPU here: its
 *              result is the code object a launch would load), then its requests.  Its
 *              time runs from the parent's clock just before fork() to the last code
 *              object in the child: fork, exec, the dynamic loader, the sources'
 *              registration, rocjit_open, the requests.  Three kinds:
 *              one op, cold: the first kernel of the set alone, on a fresh folder
 *                  (--first processes, default 3): the time to the first op's result;
 *              every op, cached: a request per kernel, as rocjit_ops makes them, on the
 *                  cache the series filled (--hits processes, default 10);
 *              every file, cold and cached: a request per file with all its
 *                  expressions, on a fresh folder (--cold processes, default 1) and on
 *                  the cache of the first per-file repetition (--hits processes), the
 *                  same sources in 7 large entries instead of 436 small ones.  The
 *                  cached kinds take turns process by process, so that noise falls on
 *                  both alike.
 *
 * Targets: gfx90a for hipRTC and sm_90 for NVRTC unless given; "none" skips a platform,
 * and a platform whose compiler cannot be loaded is skipped with a note.  Medians
 * throughout.  The report goes to stdout, then the same figures as JSON lines (also to
 * --json FILE).  Exit status 1 when a file fails to compile or lacks a listed kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
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

#define PROG "bench_ops_compile"
const char *bench_prog = PROG;


/* ---- Platforms ------------------------------------------------------------------------ */

/* The kinds of first use by an application (see the top of this file). */
enum app_kind { APP_FILES_COLD, APP_FILES_CACHED, APP_OPS_CACHED, APP_FIRST_COLD, NAPP };
static const char *const app_modes[NAPP] = { "files", "files", "ops", "first" };
static const char *const app_labels[NAPP] = { "every file, cold", "every file, cached",
					      "every op, cached", "one op, cold" };

/* The first-use runs of one platform, of one kind: one sample per process. */
struct app_runs {
	int n;
	double *done, *to_main, *open, *compiler;
	double **file_ms; /* [file][run] */
};

struct platform {
	const char *label;    /* "hipRTC" */
	const char *key;      /* "amd", for the JSON lines and the child */
	int id;               /* ROCJIT_PLATFORM_* */
	const char *target;
	int on;               /* measured */
	char note[512];       /* why not */
	const char *identity;
	double load_ms, warm_ms;
	/* per file, [file * reps + rep] */
	double *wall, *compiler;
	size_t *bytes;        /* first repetition */
	int *rc;              /* first failure of the file, 0 none */
	char **fail;          /* its message */
	int *in_obj, *missing;
	char **first_missing;
	char warm_dir[1100];  /* the cache the first repetition filled */
	struct app_runs app[NAPP]; /* first use by an application, by enum app_kind */
	/* the series: every kernel alone, one after the other, on a fresh cache */
	int series_on, series_failed;
	double series_ms, series_compiler, *series_file_ms;
	size_t series_bytes;
	char series_dir[1100];
};

static struct platform plats[2] = {
	{ .label = "hipRTC", .key = "amd", .id = ROCJIT_PLATFORM_AMD, .target = "gfx90a" },
	{ .label = "NVRTC", .key = "nvidia", .id = ROCJIT_PLATFORM_NVIDIA, .target = "sm_90" },
};

static int platform_by_key(const char *key)
{
	for (int i = 0; i < 2; i++)
		if (!strcmp(plats[i].key, key))
			return plats[i].id;
	bench_die("unknown platform %s", key);
}

static rocjit_ctx *open_ctx(const char *dir, int platform, const char *target, unsigned flags)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx = NULL;
	int rc;

	o.cache_dir = dir;
	o.platform = platform;
	o.target = target;
	o.flags = flags;
	rc = rocjit_open(&ctx, &o);
	if (rc != 0)
		bench_die("rocjit_open(%s): %s: %s", dir ? dir : "no cache", rocjit_strerror(rc),
		    rocjit_last_error());
	return ctx;
}

static void get_stats(rocjit_ctx *ctx, rocjit_stats *s)
{
	memset(s, 0, sizeof *s);
	s->version = ROCJIT_STATS_VERSION;
	if (rocjit_stats_get(s, ctx) != 0)
		bench_die("rocjit_stats_get: %s", rocjit_last_error());
}

/*
 * Loads the platform's compiler and compiles a one-line kernel in a memory-only context,
 * both timed; switches the platform off, with the reason, when it cannot.
 */
static void platform_up(struct platform *p)
{
	static const char warm_src[] =
		"extern \"C\" __global__ void rj_warm(float *x) { x[threadIdx.x] = 1.0f; }\n";
	rocjit_program prog = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;
	rocjit_ctx *ctx;
	int64_t t0 = bench_now_ns();
	int rc = rocjit_compiler_identity(&p->identity, p->id);

	p->load_ms = bench_ms_since(t0);
	if (rc != 0) {
		snprintf(p->note, sizeof p->note, "%s not available (%s: %s): skipped", p->label,
			 rocjit_strerror(rc), rocjit_last_error());
		p->on = 0;
		return;
	}
	ctx = open_ctx(NULL, p->id, p->target, ROCJIT_OPEN_NO_CACHE);
	prog.source = warm_src;
	prog.name = "warm.hip";
	t0 = bench_now_ns();
	rc = rocjit_compile(&code, ctx, NULL, &prog);
	p->warm_ms = bench_ms_since(t0);
	if (rc != 0) {
		snprintf(p->note, sizeof p->note, "%s cannot compile for %s (%s: %s): skipped",
			 p->label, p->target, rocjit_strerror(rc), rocjit_last_error());
		p->on = 0;
	}
	rocjit_close(ctx);
}

/* Whether the code object's kernel list holds name. */
static int has_kernel(const rocjit_codeobj_info *info, const char *name)
{
	for (size_t i = 0; i < info->num_kernels; i++)
		if (!strcmp(info->kernels[i], name))
			return 1;
	return 0;
}

/*
 * One repetition of the per-file cold compile: a fresh cache folder dir, every file in
 * turn.  The first repetition (rep 0) also checks the code objects against the set and
 * keeps its folder as the warm cache of the first-use runs.
 */
static void compile_rep(struct platform *p, const char *dir, int rep, int reps)
{
	rocjit_ctx *ctx = open_ctx(dir, p->id, p->target, 0);
	rocjit_stats s;
	int compiled = 0;

	for (int i = 0; i < nfiles; i++) {
		const rocjit_code *code = NULL;
		int64_t t0 = bench_now_ns();
		int rc = set_compile(&code, ctx, NULL, i, -1);
		double ms = bench_ms_since(t0);
		size_t at = (size_t)i * (size_t)reps + (size_t)rep;

		fprintf(stderr, PROG ": %s %s rep %d: %s %.0f ms%s\n", p->label, p->target,
			rep + 1, files[i].name, ms, rc ? " FAILED" : "");
		if (rc != 0) {
			if (!p->rc[i]) {
				p->rc[i] = rc;
				p->fail[i] = bench_strdup(rocjit_last_error());
			}
			p->wall[at] = p->compiler[at] = -1;
			continue;
		}
		if (code->from_cache)
			bench_die("%s was served from the cache %s, which should be empty", files[i].name,
			    dir);
		compiled++;
		p->wall[at] = ms;
		p->compiler[at] = code->compile_ms;
		if (rep == 0) {
			rocjit_codeobj_info *info = NULL;
			p->bytes[i] = code->size;
			rc = rocjit_codeobj_inspect(&info, code->data, code->size);
			if (rc != 0)
				bench_die("%s: the %s code object does not read back: %s", files[i].name,
				    p->target, rocjit_last_error());
			p->in_obj[i] = (int)info->num_kernels;
			for (int k = 0; k < files[i].nk; k++) {
				const char *lowered = NULL;
				if (rocjit_code_lowered_name(&lowered, code, files[i].kernels[k]) == 0 &&
				    has_kernel(info, lowered))
					continue;
				if (!p->missing[i]++)
					p->first_missing[i] = bench_strdup(files[i].kernels[k]);
			}
			rocjit_codeobj_info_free(info);
		}
	}
	get_stats(ctx, &s);
	if (s.compiles != (uint64_t)compiled || !s.cache_open)
		bench_die("%s: %llu compiles for %d files, cache %s", dir,
		    (unsigned long long)s.compiles, compiled, s.cache_open ? "open" : "NOT open");
	rocjit_close(ctx);
}

/*
 * The whole set cold in series: a fresh cache folder, every kernel of the set compiled
 * alone, one after the other, as rocjit_ops asks for them; each object must hold its one
 * kernel.  The folder is then the cache of the "every op, cached" runs.
 */
static void series(struct platform *p)
{
	rocjit_ctx *ctx = open_ctx(p->series_dir, p->id, p->target, 0);
	int64_t t_all = bench_now_ns();
	rocjit_stats s;

	for (int i = 0; i < nfiles; i++) {
		int64_t t_file = bench_now_ns();
		for (int k = 0; k < files[i].nk; k++) {
			const rocjit_code *code = NULL;
			rocjit_codeobj_info *info = NULL;
			int rc = set_compile(&code, ctx, NULL, i, k);
			if (rc != 0 || code->from_cache ||
			    rocjit_codeobj_inspect(&info, code->data, code->size) != 0 ||
			    info->num_kernels != 1) {
				fprintf(stderr, PROG ": %s %s: %s alone: %s\n", p->label, p->target,
					files[i].kernels[k], rc ? rocjit_last_error() :
					"not one kernel compiled now");
				p->series_failed++;
			} else {
				p->series_compiler += code->compile_ms;
				p->series_bytes += code->size;
			}
			rocjit_codeobj_info_free(info);
		}
		p->series_file_ms[i] = bench_ms_since(t_file);
		fprintf(stderr, PROG ": %s %s series: %s, %d kernels alone, %.0f ms\n", p->label,
			p->target, files[i].name, files[i].nk, p->series_file_ms[i]);
	}
	p->series_ms = bench_ms_since(t_all);
	get_stats(ctx, &s);
	if (!p->series_failed && s.compiles != (uint64_t)total_kernels)
		bench_die("%s: %llu compiles for %d kernels", p->series_dir,
		    (unsigned long long)s.compiles, total_kernels);
	rocjit_close(ctx);
}

/* ---- First use by an application: the child ------------------------------------------- */

/*
 * --child app PLATFORM TARGET DIR T0 MODE: the application.  T0 is the parent's
 * CLOCK_MONOTONIC in ns just before fork (one clock for every process of the machine).
 * MODE: files (a request per file, all its expressions), ops (a request per kernel,
 * alone), first (the set's first kernel alone).  Prints one line per file (its
 * requests' time, and of its code objects: cached when all were, compile time and bytes
 * summed), then "app main=.. open=.. done=.." in ms since T0 and the context's counters.
 */
static int child_app(const char *platform, const char *target, const char *dir,
		     const char *t0s, const char *mode)
{
	int per_kernel = !strcmp(mode, "ops") || !strcmp(mode, "first");
	int only_first = !strcmp(mode, "first");
	int64_t t0 = strtoll(t0s, NULL, 10), t_main = bench_now_ns(), t_open, t_done;
	double *ms = bench_calloc((size_t)nfiles, sizeof *ms);
	double *compiler = bench_calloc((size_t)nfiles, sizeof *compiler);
	size_t *bytes = bench_calloc((size_t)nfiles, sizeof *bytes);
	int *cached = bench_calloc((size_t)nfiles, sizeof *cached);
	int nf = only_first ? 1 : nfiles;
	rocjit_ctx *ctx;
	rocjit_stats s;

	ctx = open_ctx(dir, platform_by_key(platform), target, 0);
	t_open = bench_now_ns();
	for (int i = 0; i < nf; i++) {
		int64_t t = bench_now_ns();
		int nk = only_first ? 1 : per_kernel ? files[i].nk : 1;
		cached[i] = 1;
		for (int k = 0; k < nk; k++) {
			const rocjit_code *code;
			/* NULL target: the context's, as an application's request has it. */
			int rc = set_compile(&code, ctx, NULL, i, per_kernel ? k : -1);
			if (rc != 0)
				bench_die("child: %s for %s: %s: %s", files[i].name, target,
				    rocjit_strerror(rc), rocjit_last_error());
			compiler[i] += code->compile_ms;
			bytes[i] += code->size;
			cached[i] &= code->from_cache;
		}
		ms[i] = bench_ms_since(t);
	}
	t_done = bench_now_ns();
	get_stats(ctx, &s);
	for (int i = 0; i < nf; i++)
		printf("file name=%s ms=%.6f cached=%d compiler=%.6f bytes=%zu\n", files[i].name,
		       ms[i], cached[i], compiler[i], bytes[i]);
	printf("app main=%.6f open=%.6f done=%.6f compiles=%llu disk_hits=%llu misses=%llu "
	       "compiler=%.6f\n", (double)(t_main - t0) / 1e6, (double)(t_open - t0) / 1e6,
	       (double)(t_done - t0) / 1e6, (unsigned long long)s.compiles,
	       (unsigned long long)s.disk_hits, (unsigned long long)s.misses, s.compile_ms);
	rocjit_close(ctx);
	free(cached);
	free(bytes);
	free(compiler);
	free(ms);
	return 0;
}

/* ---- The parent ----------------------------------------------------------------------- */

#define OUT_MAX 65536

/*
 * Runs this program again as "--child app PLATFORM TARGET DIR T0 MODE" with T0 taken
 * just before fork, and returns its whole stdout in out[OUT_MAX].  The child's stderr is
 * ours; a failed child fails the run.
 */
static void run_app(char *out, const char *platform, const char *target, const char *dir,
		    const char *mode)
{
	char t0s[32];
	const char *argv[] = { PROG, "--child", "app", platform, target, dir, t0s, mode, NULL };
	int status;

	status = bench_run_self(argv, t0s, sizeof t0s, out, OUT_MAX);
	if (status != 0)
		bench_die("the %s child on %s failed (status %d)", target, dir, status);
}

/* The line of out starting with prefix. */
static const char *find_line(const char *out, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, n))
			return p;
	bench_die("the child printed no line starting with \"%s\"", prefix);
}

static void app_alloc(struct app_runs *a, int n)
{
	a->done = bench_calloc((size_t)n, sizeof(double));
	a->to_main = bench_calloc((size_t)n, sizeof(double));
	a->open = bench_calloc((size_t)n, sizeof(double));
	a->compiler = bench_calloc((size_t)n, sizeof(double));
	a->file_ms = bench_calloc((size_t)nfiles, sizeof(double *));
	for (int i = 0; i < nfiles; i++)
		a->file_ms[i] = bench_calloc((size_t)n, sizeof(double));
}

/* One first-use run of platform p of kind on dir (cold: an empty folder). */
static void app_run(struct platform *p, const char *dir, enum app_kind kind)
{
	static char out[OUT_MAX];
	struct app_runs *a = &p->app[kind];
	int cold = kind == APP_FILES_COLD || kind == APP_FIRST_COLD;
	int want = kind == APP_FIRST_COLD ? 1 : nfiles, nf = want;
	const char *app;

	run_app(out, p->key, p->target, dir, app_modes[kind]);
	app = find_line(out, "app ");
	if (cold && (bench_field(app, "compiles") != want || bench_field(app, "disk_hits") != 0))
		bench_die("the cold child on %s compiled %.0f of %d programs", dir,
		    bench_field(app, "compiles"), want);
	if (!cold && (bench_field(app, "misses") != 0 || bench_field(app, "compiles") != 0))
		bench_die("the cached child on %s missed %.0f files", dir, bench_field(app, "misses"));
	a->done[a->n] = bench_field(app, "done");
	a->to_main[a->n] = bench_field(app, "main");
	a->open[a->n] = bench_field(app, "open") - bench_field(app, "main");
	a->compiler[a->n] = bench_field(app, "compiler");
	for (int i = 0; i < nf; i++) {
		char prefix[300];
		snprintf(prefix, sizeof prefix, "file name=%s ", files[i].name);
		a->file_ms[i][a->n] = bench_field(find_line(out, prefix), "ms");
	}
	a->n++;
}

/* The scratch folder (caches): bench_scratch(). */
static const char *scratch;

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " [--reps N] [--cold N] [--hits N] [--amd TARGET|none]\n"
			"       %*s [--nvidia TARGET|none] [--json FILE]\n",
		(int)strlen(PROG), "");
	exit(2);
}

/* The file's median over the repetitions of v ([file * reps + rep]); -1 if one failed. */
static double file_median(const double *v, int i, int reps)
{
	double tmp[64];

	for (int r = 0; r < reps; r++) {
		if (v[(size_t)i * (size_t)reps + (size_t)r] < 0)
			return -1;
		tmp[r] = v[(size_t)i * (size_t)reps + (size_t)r];
	}
	return bench_median(tmp, reps);
}

/* The median over the repetitions of the sum over files of v; -1 if a file failed. */
static double total_median(const double *v, int reps)
{
	double tmp[64];

	for (int r = 0; r < reps; r++) {
		tmp[r] = 0;
		for (int i = 0; i < nfiles; i++) {
			double x = v[(size_t)i * (size_t)reps + (size_t)r];
			if (x < 0)
				return -1;
			tmp[r] += x;
		}
	}
	return bench_median(tmp, reps);
}

static void print_ms(char *buf, size_t size, double ms)
{
	if (ms < 0)
		snprintf(buf, size, "FAILED");
	else
		snprintf(buf, size, "%.1f", ms);
}

/* Writes the JSON lines to f. */
static void json_lines(FILE *f, int reps)
{
	for (int pi = 0; pi < 2; pi++) {
		struct platform *p = &plats[pi];
		if (!p->on) {
			fprintf(f, "{\"bench\": \"ops_compile\", \"case\": \"skipped\", "
				"\"platform\": \"%s\", \"target\": \"%s\"}\n", p->key, p->target);
			continue;
		}
		fprintf(f, "{\"bench\": \"ops_compile\", \"case\": \"compiler\", \"platform\": "
			"\"%s\", \"target\": \"%s\", \"identity\": \"%s\", \"load_ms\": %.3f, "
			"\"warm_compile_ms\": %.3f}\n", p->key, p->target, p->identity, p->load_ms,
			p->warm_ms);
		for (int i = 0; i < nfiles; i++)
			fprintf(f, "{\"bench\": \"ops_compile\", \"case\": \"file\", \"platform\": "
				"\"%s\", \"target\": \"%s\", \"file\": \"%s\", \"kernels\": %d, "
				"\"kernels_in_object\": %d, \"missing\": %d, \"median_ms\": %.3f, "
				"\"compiler_ms\": %.3f, \"bytes\": %zu, \"source_bytes\": %zu, "
				"\"rc\": %d, \"reps\": %d}\n", p->key, p->target, files[i].name,
				files[i].nk, p->in_obj[i], p->missing[i],
				file_median(p->wall, i, reps), file_median(p->compiler, i, reps),
				p->bytes[i], files[i].src_bytes, p->rc[i], reps);
		fprintf(f, "{\"bench\": \"ops_compile\", \"case\": \"total\", \"platform\": \"%s\", "
			"\"target\": \"%s\", \"files\": %d, \"kernels\": %d, \"median_ms\": %.3f, "
			"\"compiler_ms\": %.3f, \"reps\": %d}\n", p->key, p->target, nfiles,
			total_kernels, total_median(p->wall, reps), total_median(p->compiler, reps),
			reps);
		if (p->series_on)
			fprintf(f, "{\"bench\": \"ops_compile\", \"case\": \"series\", \"platform\": "
				"\"%s\", \"target\": \"%s\", \"kernels\": %d, \"failed\": %d, "
				"\"ms\": %.3f, \"compiler_ms\": %.3f, \"bytes\": %zu}\n", p->key,
				p->target, total_kernels, p->series_failed, p->series_ms,
				p->series_compiler, p->series_bytes);
		for (int k = 0; k < NAPP; k++) {
			static const char *const keys[NAPP] = { "cold", "cached", "ops_cached",
								"first_cold" };
			struct app_runs *a = &p->app[k];
			const char *which = keys[k];
			int nf = k == APP_FIRST_COLD ? 1 : nfiles;
			if (!a->n)
				continue;
			fprintf(f, "{\"bench\": \"ops_compile\", \"case\": \"app_%s\", "
				"\"platform\": \"%s\", \"target\": \"%s\", \"median_ms\": %.3f, "
				"\"to_main_ms\": %.3f, \"open_ms\": %.3f, \"compiler_ms\": %.3f, "
				"\"n\": %d}\n", which, p->key, p->target, bench_median(a->done, a->n),
				bench_median(a->to_main, a->n), bench_median(a->open, a->n),
				bench_median(a->compiler, a->n), a->n);
			for (int i = 0; i < nf; i++)
				fprintf(f, "{\"bench\": \"ops_compile\", \"case\": \"app_%s_file\", "
					"\"platform\": \"%s\", \"target\": \"%s\", \"file\": \"%s\", "
					"\"median_ms\": %.3f, \"n\": %d}\n", which, p->key, p->target,
					files[i].name, bench_median(a->file_ms[i], a->n), a->n);
		}
	}
}

int main(int argc, char **argv)
{
	int reps = 3, cold = 1, hits = 10, first = 3, do_series = 1, bad = 0;
	const char *json_file = NULL;
	char dir[1100];

	if (argc >= 3 && !strcmp(argv[1], "--child")) {
		if (argc != 8 || strcmp(argv[2], "app") != 0)
			bench_die("bad child arguments");
		load_set();
		return child_app(argv[3], argv[4], argv[5], argv[6], argv[7]);
	}
	for (int a = 1; a < argc; a += 2) {
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;
		if (!v)
			usage();
		if (!strcmp(argv[a], "--reps"))
			reps = atoi(v);
		else if (!strcmp(argv[a], "--cold"))
			cold = atoi(v);
		else if (!strcmp(argv[a], "--hits"))
			hits = atoi(v);
		else if (!strcmp(argv[a], "--first"))
			first = atoi(v);
		else if (!strcmp(argv[a], "--series"))
			do_series = atoi(v);
		else if (!strcmp(argv[a], "--amd"))
			plats[0].target = v;
		else if (!strcmp(argv[a], "--nvidia"))
			plats[1].target = v;
		else if (!strcmp(argv[a], "--json"))
			json_file = v;
		else
			usage();
	}
	if (reps < 0 || reps > 64 || cold < 0 || hits < 0 || first < 0)
		bench_die("--reps must be 0..64, --cold, --hits and --first >= 0");
	if (reps == 0)
		cold = 0; /* nor every file, cached: no per-file cache to run on */

	/* Every case must see the cache and the sources as they are, whatever the caller set. */
	unsetenv("ROCJIT_DISABLE_CACHE");
	unsetenv("ROCJIT_NO_COMPILE");
	unsetenv("ROCJIT_KERNEL_PATH");
	unsetenv("ROCJIT_BUNDLE_PATH");
	unsetenv("ROCJIT_CACHE_MAXSIZE");
	setenv("ROCJIT_LOG", "warn", 1);
	scratch = bench_scratch("rocjit-opsbench");

	load_set();
	for (int pi = 0; pi < 2; pi++) {
		struct platform *p = &plats[pi];
		size_t n = (size_t)nfiles * (size_t)reps;

		p->on = strcmp(p->target, "none") != 0;
		if (!p->on) {
			snprintf(p->note, sizeof p->note, "%s: not asked for (none)", p->label);
			continue;
		}
		p->wall = bench_calloc(n, sizeof *p->wall);
		p->compiler = bench_calloc(n, sizeof *p->compiler);
		p->bytes = bench_calloc((size_t)nfiles, sizeof *p->bytes);
		p->rc = bench_calloc((size_t)nfiles, sizeof *p->rc);
		p->fail = bench_calloc((size_t)nfiles, sizeof *p->fail);
		p->in_obj = bench_calloc((size_t)nfiles, sizeof *p->in_obj);
		p->missing = bench_calloc((size_t)nfiles, sizeof *p->missing);
		p->first_missing = bench_calloc((size_t)nfiles, sizeof *p->first_missing);
		app_alloc(&p->app[APP_FILES_COLD], cold);
		app_alloc(&p->app[APP_FILES_CACHED], hits);
		app_alloc(&p->app[APP_OPS_CACHED], do_series ? hits : 0);
		app_alloc(&p->app[APP_FIRST_COLD], first);
		p->series_file_ms = bench_calloc((size_t)nfiles, sizeof *p->series_file_ms);
		platform_up(p);
		fprintf(stderr, PROG ": %s: %s\n", p->label, p->on ? p->identity : p->note);
	}

	/* Per file: the platforms take turns, repetition by repetition. */
	for (int r = 0; r < reps; r++) {
		for (int pi = 0; pi < 2; pi++) {
			struct platform *p = &plats[pi];
			if (!p->on)
				continue;
			snprintf(dir, sizeof dir, "%s/%s-rep%d", scratch, p->key, r);
			if (r == 0)
				snprintf(p->warm_dir, sizeof p->warm_dir, "%s", dir);
			compile_rep(p, dir, r, reps);
		}
	}

	/* The whole set cold in series, each kernel alone. */
	for (int pi = 0; pi < 2 && do_series; pi++) {
		struct platform *p = &plats[pi];
		if (!p->on)
			continue;
		snprintf(p->series_dir, sizeof p->series_dir, "%s/%s-series", scratch, p->key);
		p->series_on = 1;
		series(p);
		bad |= p->series_failed != 0;
	}

	/* First use by an application, where every file compiled. */
	for (int pi = 0; pi < 2; pi++) {
		struct platform *p = &plats[pi];
		int failed = 0;
		if (!p->on)
			continue;
		for (int i = 0; i < nfiles; i++)
			failed |= p->rc[i] != 0;
		if (failed)
			continue;
		for (int k = 0; k < first; k++) {
			snprintf(dir, sizeof dir, "%s/%s-app-first%d", scratch, p->key, k);
			fprintf(stderr, PROG ": %s first use of one op, cold %d of %d\n", p->label,
				k + 1, first);
			app_run(p, dir, APP_FIRST_COLD);
		}
		for (int k = 0; k < cold; k++) {
			snprintf(dir, sizeof dir, "%s/%s-app-cold%d", scratch, p->key, k);
			fprintf(stderr, PROG ": %s first use of every file, cold %d of %d\n", p->label,
				k + 1, cold);
			app_run(p, dir, APP_FILES_COLD);
		}
		fprintf(stderr, PROG ": %s first use, cached, %d processes of each kind\n", p->label,
			hits);
		for (int k = 0; k < hits; k++) {
			if (reps > 0)
				app_run(p, p->warm_dir, APP_FILES_CACHED);
			if (p->series_on && !p->series_failed)
				app_run(p, p->series_dir, APP_OPS_CACHED);
		}
	}

	/* ---- Report ---- */
	printf("rocjit %s: the rocjit_ops kernel set, %d files, %d kernels "
	       "(rocjit_ops_foreach_kernel)\n", ROCJIT_VERSION_STRING, nfiles, total_kernels);
	for (int pi = 0; pi < 2; pi++) {
		struct platform *p = &plats[pi];
		if (p->on)
			printf("%-6s %-8s %s; loading it %.1f ms, then a one-line kernel %.1f ms "
			       "(both before the timed compiles)\n", p->label, p->target,
			       p->identity, p->load_ms, p->warm_ms);
		else
			printf("%-6s %-8s %s\n", p->label, p->target, p->note);
	}
	if (reps > 0) { /* --reps 0: the per-file compiles were not run */
		printf("\nCold compile per file: a fresh cache, the compiler loaded; median of %d; "
		       "ms = the whole\nrocjit_compile_registered request, compiler = its compile_ms "
		       "(the vendor calls alone)\n\n", reps);
		printf("%-14s %7s %7s %6s", "", "", "", "");
		for (int pi = 0; pi < 2; pi++) {
			char head[64];
			snprintf(head, sizeof head, "%s %s", plats[pi].label, plats[pi].target);
			if (plats[pi].on)
				printf(" | %-39s", head);
		}
		printf("\n%-14s %7s %7s %6s", "file", "kernels", "src KB", "lines");
		for (int pi = 0; pi < 2; pi++)
			if (plats[pi].on)
				printf(" | %9s %11s %8s %7s", "ms", "compiler ms", "code KB", "in obj");
		printf("\n");
		for (int i = 0; i < nfiles; i++) {
			printf("%-14s %7d %7.1f %6d", files[i].name, files[i].nk,
			       (double)files[i].src_bytes / 1024, files[i].src_lines);
			for (int pi = 0; pi < 2; pi++) {
				struct platform *p = &plats[pi];
				char a[32], b[32];
				if (!p->on)
					continue;
				print_ms(a, sizeof a, file_median(p->wall, i, reps));
				print_ms(b, sizeof b, file_median(p->compiler, i, reps));
				printf(" | %9s %11s %8.1f %7d", a, b, (double)p->bytes[i] / 1024,
				       p->in_obj[i]);
			}
			printf("\n");
		}
		{
			size_t src = 0;
			for (int i = 0; i < nfiles; i++)
				src += files[i].src_bytes;
			printf("%-14s %7d %7.1f %6s", "total", total_kernels, (double)src / 1024, "");
			for (int pi = 0; pi < 2; pi++) {
				struct platform *p = &plats[pi];
				char a[32], b[32];
				size_t bytes = 0;
				int in_obj = 0;
				if (!p->on)
					continue;
				for (int i = 0; i < nfiles; i++) {
					bytes += p->bytes[i];
					in_obj += p->in_obj[i];
				}
				print_ms(a, sizeof a, total_median(p->wall, reps));
				print_ms(b, sizeof b, total_median(p->compiler, reps));
				printf(" | %9s %11s %8.1f %7d", a, b, (double)bytes / 1024, in_obj);
			}
			printf("\n");
		}
		printf("(in obj: kernels the code object holds, rocjit_codeobj_inspect; the set's "
		       "kernels must all be there)\n");
	}
	for (int pi = 0; pi < 2; pi++) {
		struct platform *p = &plats[pi];
		if (!p->on)
			continue;
		for (int i = 0; i < nfiles; i++) {
			if (p->rc[i]) {
				printf("FAILED: %s for %s: %s: %s\n", files[i].name, p->target,
				       rocjit_strerror(p->rc[i]), p->fail[i]);
				bad = 1;
			} else if (p->missing[i]) {
				printf("MISSING: %s for %s lacks %d of its %d listed kernels "
				       "(first: %s)\n", files[i].name, p->target, p->missing[i],
				       files[i].nk, p->first_missing[i]);
				bad = 1;
			}
		}
	}

	printf("\nThe whole set cold in series: every kernel compiled alone, one after the "
	       "other, on a fresh\ncache (as an application that uses every op compiles them "
	       "at first use); ms\n\n");
	printf("%-8s %8s %12s %12s %10s %8s\n", "target", "kernels", "ms", "compiler ms",
	       "code KB", "failed");
	for (int pi = 0; pi < 2; pi++) {
		struct platform *p = &plats[pi];
		if (p->on && p->series_on)
			printf("%-8s %8d %12.1f %12.1f %10.1f %8d\n", p->target, total_kernels,
			       p->series_ms, p->series_compiler, (double)p->series_bytes / 1024,
			       p->series_failed);
	}
	printf("%-14s", "per file, ms");
	for (int pi = 0; pi < 2; pi++)
		if (plats[pi].on && plats[pi].series_on)
			printf(" | %-8s %9s %9s", plats[pi].target, "alone", "whole");
	printf("\n");
	for (int i = 0; i < nfiles; i++) {
		printf("%-14s", files[i].name);
		for (int pi = 0; pi < 2; pi++) {
			struct platform *p = &plats[pi];
			if (p->on && p->series_on)
				printf(" | %-8s %9.1f %9.1f", "", p->series_file_ms[i],
				       file_median(p->wall, i, reps));
		}
		printf("\n");
	}
	printf("(alone: the file's kernels one compile each; whole: one compile with all of "
	       "them, the median above)\n");

	printf("\nFirst use by an application: a new process, from the parent's fork() to the "
	       "last code object\n(rocjit_open with the target, then rocjit_compile_registered_v2 "
	       "as below); medians, ms\n\n");
	printf("%-8s %-20s %9s %5s %11s %8s %8s %10s %10s\n", "target", "uses", "entries", "procs",
	       "first use", "to main", "open", "min", "max");
	for (int pi = 0; pi < 2; pi++) {
		struct platform *p = &plats[pi];
		static const enum app_kind order[NAPP] = { APP_FIRST_COLD, APP_OPS_CACHED,
							   APP_FILES_CACHED, APP_FILES_COLD };
		if (!p->on)
			continue;
		for (int o = 0; o < NAPP; o++) {
			struct app_runs *a = &p->app[order[o]];
			double m;
			if (!a->n)
				continue;
			m = bench_median(a->done, a->n); /* sorts: the minimum and maximum follow */
			printf("%-8s %-20s %9d %5d %11.2f %8.2f %8.2f %10.2f %10.2f\n", p->target,
			       app_labels[order[o]], order[o] == APP_FIRST_COLD ? 1 :
			       order[o] == APP_OPS_CACHED ? total_kernels : nfiles, a->n, m,
			       bench_median(a->to_main, a->n), bench_median(a->open, a->n), a->done[0],
			       a->done[a->n - 1]);
		}
		if (p->app[APP_OPS_CACHED].n && p->app[APP_FILES_CACHED].n)
			printf("%-8s every op / every file, cached = %.3f (one process each, taking "
			       "turns)\n", p->target,
			       bench_median(p->app[APP_OPS_CACHED].done, p->app[APP_OPS_CACHED].n) /
			       bench_median(p->app[APP_FILES_CACHED].done,
					    p->app[APP_FILES_CACHED].n));
		if (p->app[APP_FIRST_COLD].n)
			printf("%-8s one op, cold: %.1f ms of it in the compiler\n", p->target,
			       bench_median(p->app[APP_FIRST_COLD].compiler, p->app[APP_FIRST_COLD].n));
	}
	printf("(to main: fork + exec + dynamic loader + registration; open: rocjit_open; "
	       "cached: every op on\nthe cache the series filled, every file on the cache of "
	       "the first per-file repetition,\nso the keys are the ones an application "
	       "computes)\n\n");
	printf("%-14s", "cached, ms");
	for (int pi = 0; pi < 2; pi++)
		if (plats[pi].on && plats[pi].app[APP_OPS_CACHED].n && plats[pi].app[APP_FILES_CACHED].n)
			printf(" | %-8s %9s %9s", plats[pi].target, "every op", "every file");
	printf("\n");
	for (int i = 0; i < nfiles; i++) {
		printf("%-14s", files[i].name);
		for (int pi = 0; pi < 2; pi++) {
			struct app_runs *o = &plats[pi].app[APP_OPS_CACHED];
			struct app_runs *f = &plats[pi].app[APP_FILES_CACHED];
			if (!plats[pi].on || !o->n || !f->n)
				continue;
			printf(" | %-8s %9.3f %9.3f", "", bench_median(o->file_ms[i], o->n),
			       bench_median(f->file_ms[i], f->n));
		}
		printf("\n");
	}
	printf("(the first file of a cached run also pays what the first request of a "
	       "process pays: the\ncompiler's identity for the key, the first SQLite read)\n");

	printf("\nJSON lines:\n");
	json_lines(stdout, reps);
	if (json_file) {
		FILE *f = fopen(json_file, "w");
		if (!f)
			bench_die("cannot write %s: %s", json_file, strerror(errno));
		json_lines(f, reps);
		if (fclose(f) != 0)
			bench_die("cannot write %s: %s", json_file, strerror(errno));
	}
	return bad;
}
