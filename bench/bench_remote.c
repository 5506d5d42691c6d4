/*
 * bench_remote.c - a new process's first request served by the remote tier, beside the
 * same request served by the local disk cache and by the compiler (issue 15).
 *
 *   bench_remote --url URL [-n N] [--target T] [--cold N] FILE [-- OPTIONS...]
 *
 * URL is a running Redis (bench/remote_bench.sh starts one on loopback).  FILE is compiled
 * for T (default gfx90a; no GPU: rocjit_compile for an explicit target is the request a
 * launch would make, less the module load) with OPTIONS and -DRJ_BENCH_VARIANT=i, a
 * distinct key for each i.  Each measurement is a new process of this program (--child)
 * that opens a context and makes the one request:
 *   cold     --cold processes (default 1), each on an empty cache folder, no remote tier:
 *            the compile (for sm_* targets set CUDA_CACHE_DISABLE=1 where a driver is);
 *   disk     a cache folder that holds variant 0 (filled and settled by untimed runs), no
 *            remote tier: the local disk hit (the read index serves it);
 *   remote   the remote tier, whose server holds variant i (put there beforehand by
 *            compiles in another folder), and the cache folder of a node that has served
 *            before (its database holds other entries and the compiler's identity) but
 *            not variant i: the remote hit, whose copy into the folder is stored later;
 *   new      the same on an empty cache folder: a node's very first request, which also
 *            creates the database and learns the compiler's identity (loading the
 *            compiler: the key names it).
 *   bare     no rocjit: a client of its own (hiredis, the same library rocjit uses)
 *            connects and GETRANGEs a value of the remote case's size, in a new process:
 *            the floor the server and the machine set for the remote hit.
 * disk, remote, bare and new take turns, N rounds (default 30; new every third round).
 *
 *   bench_remote --dead URL [-n N] [--target T] FILE [-- OPTIONS...]
 *
 * URL names a server that does not answer (bench/remote_bench.sh makes one).  N processes
 * of one node (one cache folder) in turn each compile a new variant: what talking to the
 * dead server cost each (remote=), and its whole request (own=).  Each
 * child prints open= (rocjit_open), first= (the request), own= (their sum: rocjit's own
 * time), remote= (the time spent talking to the server, rocjit_stats.remote_ms) and how
 * it was served.  The summary: min, quartiles and median of each, ratios of medians.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "rocjit.h"

#ifdef BENCH_HAVE_HIREDIS
#include <hiredis/hiredis.h>
#endif

const char *bench_prog = "bench_remote";

#define MAX_OPTS 32

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		bench_die("cannot read %s", path);
	buf = bench_calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		bench_die("cannot read %s", path);
	fclose(f);
	return buf;
}

/* One request in a new process: prints the times and how it was served. */
static int child(const char *dir, const char *url, const char *file, const char *target,
		 const char *const *opts, size_t nopts)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	const char *all[MAX_OPTS + 1];
	const rocjit_code *c;
	rocjit_ctx *ctx;
	char *src = read_text(file);
	int64_t t0;
	double open_ms, first_ms;

	o.cache_dir = dir;
	o.remote = url;
	p.source = src;
	p.name = file;
	/* opts[0] is the variant: "-DRJ_BENCH_VARIANT=i". */
	for (size_t i = 0; i < nopts; i++)
		all[i] = opts[i];
	p.options = all;
	p.num_options = nopts;
	t0 = bench_now_ns();
	if (rocjit_open(&ctx, &o) != 0)
		bench_die("rocjit_open: %s", rocjit_last_error());
	open_ms = bench_ms_since(t0);
	t0 = bench_now_ns();
	if (rocjit_compile(&c, ctx, target, &p) != 0)
		bench_die("rocjit_compile: %s", rocjit_last_error());
	first_ms = bench_ms_since(t0);
	rocjit_stats_get(&st, ctx);
	printf("open=%.4f first=%.4f own=%.4f remote=%.4f size=%zu compiles=%llu disk=%llu "
	       "remotehits=%llu\n", open_ms, first_ms, open_ms + first_ms, st.remote_ms, c->size,
	       (unsigned long long)st.compiles, (unsigned long long)st.disk_hits,
	       (unsigned long long)st.remote_hits);
	rocjit_close(ctx);
	free(src);
	return 0;
}

#ifdef BENCH_HAVE_HIREDIS
/* A client of url (redis://HOST:PORT or unix://PATH, nothing else), connected. */
static redisContext *bare_connect(const char *url)
{
	char host[256];
	int port = 6379;

	if (!strncmp(url, "unix://", 7))
		return redisConnectUnix(url + 7);
	if (sscanf(url, "redis://%255[^:/]:%d", host, &port) < 1)
		bench_die("a bare client takes redis://HOST:PORT or unix://PATH, not %s", url);
	return redisConnect(host, port);
}

/* --bare-child URL KEY: the bare client's connect and GETRANGE, as open= and first=. */
static int bare_child(const char *url, const char *key)
{
	int64_t t0 = bench_now_ns();
	redisContext *c = bare_connect(url);
	double open_ms = bench_ms_since(t0), first_ms;
	redisReply *r;

	if (!c || c->err)
		bench_die("connecting to %s: %s", url, c ? c->errstr : "out of memory");
	t0 = bench_now_ns();
	r = redisCommand(c, "GETRANGE %s 0 -1", key);
	first_ms = bench_ms_since(t0);
	if (!r || r->type != REDIS_REPLY_STRING || r->len == 0)
		bench_die("GETRANGE %s: no value", key);
	printf("open=%.4f first=%.4f own=%.4f remote=%.4f size=%zu bare=1\n", open_ms, first_ms,
	       open_ms + first_ms, open_ms + first_ms, r->len);
	freeReplyObject(r);
	redisFree(c);
	return 0;
}

/* The key of a value on the server, copied into out; bench_die when there is none. */
static void any_value_key(const char *url, char *out, size_t size)
{
	redisContext *c = bare_connect(url);
	redisReply *r = c && !c->err ? redisCommand(c, "KEYS %s", "rocjit:*") : NULL;

	if (!r || r->type != REDIS_REPLY_ARRAY)
		bench_die("cannot list the values on %s", url);
	for (size_t i = 0; i < r->elements; i++)
		if (!strstr(r->element[i]->str, ":lock")) {
			snprintf(out, size, "%s", r->element[i]->str);
			freeReplyObject(r);
			redisFree(c);
			return;
		}
	bench_die("no value on %s", url);
}
#endif

struct series {
	const char *name;
	double own[1024], first[1024], open[1024], remote[1024];
	int n;
};

/* Runs a child; checks it was served as want ("compiles", "disk", "remotehits"). */
static void run(struct series *s, const char *dir, const char *url, const char *file,
		const char *target, int variant, const char *const *opts, size_t nopts,
		const char *want, int keep)
{
	const char *argv[9 + MAX_OPTS];
	char t0s[32], out[512], var[48];
	size_t a = 0;

	argv[a++] = bench_prog;
	argv[a++] = "--child";
	argv[a++] = dir;
	argv[a++] = url;
	argv[a++] = file;
	argv[a++] = target;
	snprintf(var, sizeof var, "-DRJ_BENCH_VARIANT=%d", variant);
	argv[a++] = var;
	for (size_t i = 0; i < nopts; i++)
		argv[a++] = opts[i];
	argv[a] = NULL;
	if (bench_run_self(argv, t0s, sizeof t0s, out, sizeof out) != 0)
		bench_die("a child failed (%s)", s ? s->name : "set-up");
	if (want && bench_field(out, want) != 1)
		bench_die("a child was not served as %s: %s", want, out);
	if (s && keep) {
		printf("%-7s %s", s->name, out);
		s->open[s->n] = bench_field(out, "open");
		s->first[s->n] = bench_field(out, "first");
		s->own[s->n] = bench_field(out, "own");
		s->remote[s->n] = bench_field(out, "remote");
		s->n++;
	}
}

/* The bare client's round trip in a new process (--bare-child). */
static void run_bare(struct series *s, const char *url, const char *key)
{
	const char *argv[] = { bench_prog, "--bare-child", url, key, NULL };
	char t0s[32], out[512];

	if (bench_run_self(argv, t0s, sizeof t0s, out, sizeof out) != 0)
		bench_die("a bare client failed");
	printf("%-7s %s", s->name, out);
	s->open[s->n] = bench_field(out, "open");
	s->first[s->n] = bench_field(out, "first");
	s->own[s->n] = bench_field(out, "own");
	s->remote[s->n] = bench_field(out, "remote");
	s->n++;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double quartile(double *v, int n, int q)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return v[(n - 1) * q / 4];
}

static double summary(struct series *s)
{
	double med;

	printf("%-7s n=%d own: min %.3f p25 %.3f median %.3f p75 %.3f ms; open %.3f, first "
	       "%.3f, remote %.3f (medians)\n", s->name, s->n, quartile(s->own, s->n, 0),
	       quartile(s->own, s->n, 1), med = bench_median(s->own, s->n),
	       quartile(s->own, s->n, 3), bench_median(s->open, s->n),
	       bench_median(s->first, s->n), bench_median(s->remote, s->n));
	return med;
}

/* --dead: n processes of one node, each a new key, against a server that never answers. */
static int dead_server(const char *url, int n, const char *file, const char *target,
		       const char *const *opts, size_t nopts)
{
	static struct series s = { .name = "dead" };
	char node[4400];

	setenv("ROCJIT_LOG", "off", 1);
	snprintf(node, sizeof node, "%s/node", bench_scratch("rocjit-bench-dead"));
	for (int i = 0; i < n; i++)
		run(&s, node, url, file, target, 3000 + i, opts, nopts, "compiles", 1);
	printf("dead    remote ms per process, in order:");
	for (int i = 0; i < s.n; i++)
		printf(" %.3f", s.remote[i]);
	printf("\n");
	summary(&s);
	return 0;
}

int main(int argc, char **argv)
{
	static struct series cold = { .name = "cold" }, disk = { .name = "disk" },
			     remote = { .name = "remote" }, fresh_node = { .name = "new" },
			     bare = { .name = "bare" };
	char bare_key[512] = "";
	const char *url = NULL, *dead = NULL, *target = "gfx90a", *file = NULL, *opts[MAX_OPTS];
	size_t nopts = 0;
	int n = 30, ncold = 1, a = 1;
	const char *work;
	char dir[4300], cold_dir[4400], disk_dir[4400], fresh[4400], used[4400], prod[4400];
	double c, d, r, b = 0;

#ifdef BENCH_HAVE_HIREDIS
	if (argc == 4 && !strcmp(argv[1], "--bare-child"))
		return bare_child(argv[2], argv[3]);
#endif
	if (argc > 5 && !strcmp(argv[1], "--child"))
		return child(argv[2], argv[3], argv[4], argv[5], (const char *const *)argv + 6,
			     (size_t)(argc - 6));
	for (; a < argc && argv[a][0] == '-' && strcmp(argv[a], "--"); a++) {
		if (!strcmp(argv[a], "--url") && a + 1 < argc)
			url = argv[++a];
		else if (!strcmp(argv[a], "--dead") && a + 1 < argc)
			dead = argv[++a];
		else if (!strcmp(argv[a], "-n") && a + 1 < argc)
			n = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--cold") && a + 1 < argc)
			ncold = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--target") && a + 1 < argc)
			target = argv[++a];
		else
			bench_die("usage: bench_remote --url URL [-n N] [--target T] [--cold N] FILE "
				  "[-- OPTIONS...]");
	}
	if (a < argc && strcmp(argv[a], "--"))
		file = argv[a++];
	if (a < argc && !strcmp(argv[a], "--"))
		for (a++; a < argc && nopts < MAX_OPTS; a++)
			opts[nopts++] = argv[a];
	if (dead && file && n >= 1 && n <= 1024)
		return dead_server(dead, n, file, target, opts, nopts);
	if (!url || !file || n < 1 || n > 1024 || ncold < 0 || ncold > 1024)
		bench_die("usage: bench_remote --url URL [-n N] [--target T] [--cold N] FILE "
			  "[-- OPTIONS...]");
	setenv("ROCJIT_LOG", "off", 1);
	work = bench_scratch("rocjit-bench-remote");
	snprintf(dir, sizeof dir, "%s", work);
	for (int i = 0; i < ncold; i++) {
		snprintf(cold_dir, sizeof cold_dir, "%s/cold%d", dir, i);
		run(&cold, cold_dir, "", file, target, 1000 + i, opts, nopts, "compiles", 1);
	}
	/* Variants 0..n on the server, compiled by a producer node (untimed). */
	snprintf(prod, sizeof prod, "%s/producer", dir);
	for (int i = 0; i <= n; i++)
		run(NULL, prod, url, file, target, i, opts, nopts, NULL, 0);
	snprintf(disk_dir, sizeof disk_dir, "%s/disk", dir);
	for (int i = 0; i < 4; i++) /* a remote hit, then the index written and settled */
		run(NULL, disk_dir, i ? "" : url, file, target, 0, opts, nopts, NULL, 0);
	/* A node that served before: another program compiled into it, no remote tier. */
	snprintf(used, sizeof used, "%s/used", dir);
	run(NULL, used, "", file, target, 5000, opts, nopts, "compiles", 0);
	run(NULL, used, "", file, target, 5000, opts, nopts, "disk", 0);
#ifdef BENCH_HAVE_HIREDIS
	any_value_key(url, bare_key, sizeof bare_key);
#endif
	for (int i = 1; i <= n; i++) {
		char cmd[9000];
		run(&disk, disk_dir, "", file, target, 0, opts, nopts, "disk", 1);
		run(&remote, used, url, file, target, i, opts, nopts, "remotehits", 1);
		if (bare_key[0])
			run_bare(&bare, url, bare_key);
		if (i % 3 == 1) { /* fewer of these: each loads the compiler */
			snprintf(fresh, sizeof fresh, "%s/new%d", dir, i);
			run(&fresh_node, fresh, url, file, target, i, opts, nopts, "remotehits", 1);
			snprintf(cmd, sizeof cmd, "rm -rf '%s'", fresh);
			if (system(cmd) != 0)
				bench_die("cannot remove %s", fresh);
		}
	}
	c = ncold ? summary(&cold) : 0;
	d = summary(&disk);
	r = summary(&remote);
	summary(&fresh_node);
	if (bare.n)
		b = summary(&bare);
	printf("ratios of medians (own): remote/disk %.2f", r / d);
	if (bare.n)
		printf(", remote/bare %.2f (rocjit's own share %.3f ms)", r / b, r - b);
	if (ncold)
		printf(", cold/remote %.0f", c / r);
	printf("\n");
	return 0;
}
