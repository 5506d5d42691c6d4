/*
 * bench_reach.c - the hit path of a source with registered headers (issue 31: the key
 * covers only the headers the source reaches through its includes).
 *
 *   bench_reach [--reps N] [--headers N] [--target T] [--continued]
 *
 * A kernel folder of its own: k.hip includes h0.h, which includes h1.h; h2.h .. h<N-1>.h
 * are headers of the folder it does not include (each ~4 KB, as a kernel library's are).
 * Compiled once (the first request), then asked for again in the same context, as:
 *   program     rocjit_compile with every header of the folder in rocjit_program.headers
 *               (what `rocjit prewarm FOLDER` hands the library)
 *   registered  rocjit_compile_registered on the folder registered as an application's
 *               embedded kernels (rocjit_add_kernels)
 * and prints the median of N timed hits (ns per call) and the first request's time.  No
 * GPU needed.
 *
 * --continued: every header ends with a macro continued by a backslash onto a second
 * line.  The include scanner scans a plain text in place; a text holding a backslash (or a
 * trigraph, digraph, raw string, digit separator, CR or BOM) is read through its lexing
 * copy (phases 1-2) first, the slower path this times.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "rocjit.h"

const char *bench_prog = "bench_reach";

static const char source[] = "#include <hip/hip_runtime.h>\n"
			     "#include \"h0.h\"\n"
			     "extern \"C\" __global__ void k(int n, float *y)\n"
			     "{\n"
			     "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
			     "    if (i < n) y[i] = h0_f(y[i]);\n"
			     "}\n";

/* Header i: a few device functions (~4 KB of text); h0.h includes h1.h.  continued: it
 * ends with a line continued by a backslash (the scanner's lexing path). */
static char *header_text(int i, int continued)
{
	size_t cap = 8192, n = 0;
	char *t = bench_calloc(1, cap);

	n += (size_t)snprintf(t + n, cap - n, "/* h%d.h - a header of the bench's folder. */\n"
			      "#pragma once\n%s", i, i == 0 ? "#include \"h1.h\"\n" : "");
	for (int f = 0; f < 40; f++)
		n += (size_t)snprintf(t + n, cap - n, "__device__ static inline float h%d_g%d("
				      "float v) { return v * %d.0f + %d.0f; }\n", i, f, f + 1, i);
	n += (size_t)snprintf(t + n, cap - n, "__device__ static inline float h%d_f(float v) "
			      "{ return %s; }\n", i, i == 0 ? "h1_f(v) + 1.0f" : "v");
	if (continued)
		snprintf(t + n, cap - n, "#define H%d_CONTINUED \\\n\t%d\n", i, i);
	return t;
}

/* The median ns of reps calls of fn. */
static double time_hits(int reps, int (*fn)(void *), void *arg)
{
	double *v = bench_calloc((size_t)reps, sizeof *v);
	double m;

	for (int r = 0; r < reps; r++) {
		int64_t t0 = bench_now_ns();
		if (fn(arg) != 0)
			bench_die("a hit failed: %s", rocjit_last_error());
		v[r] = (double)(bench_now_ns() - t0);
	}
	m = bench_median(v, reps);
	free(v);
	return m;
}

struct call {
	rocjit_ctx *ctx;
	const char *target;
	rocjit_program *p;
};

static int program_hit(void *arg)
{
	const struct call *c = arg;
	const rocjit_code *code;
	return rocjit_compile(&code, c->ctx, c->target, c->p);
}

static int registered_hit(void *arg)
{
	const struct call *c = arg;
	const rocjit_code *code;
	return rocjit_compile_registered(&code, c->ctx, c->target, "k.hip", NULL, 0);
}

int main(int argc, char **argv)
{
	int reps = 20000, nh = 20, continued = 0;
	const char *target = "gfx90a";
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_header *h;
	rocjit_source_file *files;
	struct call c;
	const rocjit_code *code;
	char key[33];
	int64_t t0;
	double first_p, first_r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--headers") && i + 1 < argc)
			nh = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--target") && i + 1 < argc)
			target = argv[++i];
		else if (!strcmp(argv[i], "--continued"))
			continued = 1;
		else
			bench_die("usage: bench_reach [--reps N] [--headers N>=2] [--target T] "
				  "[--continued]");
	}
	if (nh < 2 || reps < 1)
		bench_die("--headers takes 2 or more, --reps 1 or more");
	h = bench_calloc((size_t)nh, sizeof *h);
	files = bench_calloc((size_t)nh + 1, sizeof *files);
	for (int i = 0; i < nh; i++) {
		char name[32];
		snprintf(name, sizeof name, "h%d.h", i);
		h[i].name = bench_strdup(name);
		h[i].source = header_text(i, continued);
		files[i].name = h[i].name;
		files[i].text = h[i].source;
		files[i].length = strlen(h[i].source);
	}
	files[nh].name = "k.hip";
	files[nh].text = source;
	files[nh].length = sizeof source - 1;
	if (rocjit_register_sources(files, (size_t)nh + 1) != 0)
		bench_die("register: %s", rocjit_last_error());
	o.cache_dir = bench_scratch("bench-reach");
	if (rocjit_open(&c.ctx, &o) != 0)
		bench_die("open: %s", rocjit_last_error());
	p.source = source;
	p.name = "k.hip";
	p.headers = h;
	p.num_headers = (size_t)nh;
	c.p = &p;
	c.target = target;
	t0 = bench_now_ns();
	if (rocjit_compile(&code, c.ctx, target, &p) != 0)
		bench_die("compile: %s", rocjit_last_error());
	first_p = bench_ms_since(t0);
	memcpy(key, code->key, sizeof key);
	t0 = bench_now_ns();
	if (rocjit_compile_registered(&code, c.ctx, target, "k.hip", NULL, 0) != 0)
		bench_die("compile registered: %s", rocjit_last_error());
	first_r = bench_ms_since(t0);
	printf("bench_reach: %d headers (%zu bytes each%s), target %s, %d hits each, "
	       "in-process\n", nh, strlen(h[nh - 1].source),
	       continued ? ", each with a backslash-continued line" : "", target, reps);
	printf("  first request: program %.1f ms (compile), registered %.3f ms (%s)\n", first_p,
	       first_r, strcmp(code->key, key) == 0 ? "the same key: a hit" : "another key");
	printf("  program hit     %8.0f ns\n", time_hits(reps, program_hit, &c));
	printf("  registered hit  %8.0f ns\n", time_hits(reps, registered_hit, &c));
	rocjit_close(c.ctx);
	return 0;
}
