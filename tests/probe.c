/*
 * probe.c - "another process" for the tests: compiles one source through the public API
 * and prints what happened as key=value pairs on one line.
 *
 *   rocjit_probe [--cache DIR] [--target T] (--registered NAME | --file PATH)
 *                [--option OPT]... [--name-expr EXPR]... [--repeat N] [--threads N]
 *                [--start-at EPOCH_MS]
 *   rocjit_probe [--cache DIR] [--target T] --programs MANIFEST
 *
 * --threads N: N threads make the request at once (one context); --start-at: wait until
 * that wall-clock time first, so that many probes start together.  --name-expr: the
 * program's name expressions (rocjit_registered_options / rocjit_program).
 * --programs: every expr= line of a kernel manifest (format 3) requested as its own
 * program of the registered sources, as an application asks for each kernel; prints
 * "programs=N" and the counters; each code object must hold the lowered name of each
 * expression.
 *
 * Exit 0 on success; else 1 and the error on stderr.
 */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rocjit.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

struct shared {
	rocjit_ctx *ctx;
	const char *target, *registered;
	const char **options;
	size_t nopt;
	rocjit_program *p;
	pthread_barrier_t barrier;
};

static void *request(void *arg)
{
	struct shared *sh = arg;
	const rocjit_code *code;
	const rocjit_program *p = sh->p; /* shared: nothing in it is written */

	pthread_barrier_wait(&sh->barrier);
	if ((sh->registered ? rocjit_compile_registered(&code, sh->ctx, sh->target, sh->registered,
							 sh->options, sh->nopt)
			    : rocjit_compile(&code, sh->ctx, sh->target, p)) != 0)
		fprintf(stderr, "thread: %s\n", rocjit_last_error());
	return NULL;
}

/* A registered source with name expressions, as rocjit_ops' launches ask for it. */
static int compile_registered(const rocjit_code **code, rocjit_ctx *ctx, const char *target,
			      const char *name, const char **options, size_t nopt,
			      const char *const *exprs, size_t nexprs)
{
	rocjit_registered_options ro = ROCJIT_REGISTERED_OPTIONS_INIT;

	ro.options = options;
	ro.num_options = nopt;
	ro.name_expressions = nexprs ? exprs : NULL;
	ro.num_name_expressions = nexprs;
	return rocjit_compile_registered_v2(code, ctx, target, name, &ro);
}

/* --programs: each "expr=<name>\t<expr>[\t<expr>...]" line of the manifest at path. */
static int serve_programs(rocjit_ctx *ctx, const char *target, const char *path,
			  size_t *served)
{
	size_t len;
	char *text = read_file(path, &len), *line, *save = NULL;

	*served = 0;
	if (!text) {
		fprintf(stderr, "cannot read %s\n", path);
		return 1;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *exprs[64];
		const rocjit_code *code;
		size_t n = 0;
		char *tab, *e;
		if (strncmp(line, "expr=", 5) != 0 || !(tab = strchr(line, '\t')))
			continue;
		*tab = 0;
		for (e = strtok(tab + 1, "\t"); e && n < 64; e = strtok(NULL, "\t"))
			exprs[n++] = e;
		if (compile_registered(&code, ctx, target, line + 5, NULL, 0, exprs, n) != 0) {
			fprintf(stderr, "%s '%s': %s\n", line + 5, exprs[0], rocjit_last_error());
			free(text);
			return 1;
		}
		for (size_t i = 0; i < n; i++) {
			const char *lowered;
			rocjit_kernel_resources res = { .version = ROCJIT_KERNEL_RESOURCES_VERSION };
			if (rocjit_code_lowered_name(&lowered, code, exprs[i]) != 0 ||
			    rocjit_codeobj_resources_get(&res, code->data, code->size,
							 lowered) != 0) {
				fprintf(stderr, "%s '%s': the code object lacks its kernel: %s\n",
					line + 5, exprs[i], rocjit_last_error());
				free(text);
				return 1;
			}
		}
		(*served)++;
	}
	free(text);
	return 0;
}

static void wait_until(long long epoch_ms)
{
	struct timespec ts;

	for (;;) {
		long long now;
		clock_gettime(CLOCK_REALTIME, &ts);
		now = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		if (now >= epoch_ms)
			return;
		struct timespec nap = { 0, (long)((epoch_ms - now) > 5 ? 5 : (epoch_ms - now)) * 1000000L };
		nanosleep(&nap, NULL);
	}
}

/* How many of this process's descriptors are open on a cache database (the read index
 * serves a hit without opening one: issue 31's fallback must not open it either). */
static int databases_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char link[300], to[4096];
	int n = 0;
	ssize_t len;

	while (d && (e = readdir(d)) != NULL) {
		snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
		if ((len = readlink(link, to, sizeof to - 1)) > 0) {
			to[len] = 0;
			n += strstr(to, "rocjit-cache.sqlite") != NULL &&
			     !strstr(to, "sqlite-"); /* not its -wal or -shm */
		}
	}
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	int dbs;
	const char *options[32], *registered = NULL, *file = NULL, *target = NULL;
	const char *exprs[32], *programs = NULL;
	const rocjit_code *code = NULL;
	size_t nopt = 0, nexprs = 0, served = 0;
	int repeat = 1, rc = 0, threads = 0;
	long long start_at = 0;
	char *text = NULL;
	rocjit_ctx *ctx;
	double t0, ms;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cache") && i + 1 < argc)
			o.cache_dir = argv[++i];
		else if (!strcmp(argv[i], "--target") && i + 1 < argc)
			target = argv[++i];
		else if (!strcmp(argv[i], "--registered") && i + 1 < argc)
			registered = argv[++i];
		else if (!strcmp(argv[i], "--file") && i + 1 < argc)
			file = argv[++i];
		else if (!strcmp(argv[i], "--option") && i + 1 < argc && nopt < 32)
			options[nopt++] = argv[++i];
		else if (!strcmp(argv[i], "--name-expr") && i + 1 < argc && nexprs < 32)
			exprs[nexprs++] = argv[++i];
		else if (!strcmp(argv[i], "--programs") && i + 1 < argc)
			programs = argv[++i];
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--start-at") && i + 1 < argc)
			start_at = atoll(argv[++i]);
		else {
			fprintf(stderr, "usage: rocjit_probe [--cache DIR] [--target T] "
					"(--registered NAME | --file PATH | --programs MANIFEST) "
					"[--option O]... [--name-expr E]... [--repeat N]\n");
			return 2;
		}
	}
	if (rocjit_open(&ctx, &o) != 0) {
		fprintf(stderr, "rocjit_open: %s\n", rocjit_last_error());
		return 1;
	}
	if (file) {
		text = read_file(file, &p.length);
		if (!text) {
			fprintf(stderr, "cannot read %s\n", file);
			return 1;
		}
		p.source = text;
		p.name = file;
		p.options = options;
		p.num_options = nopt;
		p.name_expressions = nexprs ? exprs : NULL;
		p.num_name_expressions = nexprs;
	}
	if (programs) {
		rc = serve_programs(ctx, target, programs, &served);
		rocjit_stats_get(&st, ctx);
		if (rc == 0)
			printf("programs=%zu compiles=%llu disk_hits=%llu misses=%llu\n", served,
			       (unsigned long long)st.compiles,
			       (unsigned long long)st.disk_hits, (unsigned long long)st.misses);
		rocjit_close(ctx);
		return rc;
	}
	if (start_at)
		wait_until(start_at);
	if (threads > 0) {
		struct shared sh;
		sh.ctx = ctx;
		sh.target = target;
		sh.registered = registered;
		sh.options = options;
		sh.nopt = nopt;
		sh.p = &p;
		pthread_t t[64];
		if (threads > 64)
			threads = 64;
		pthread_barrier_init(&sh.barrier, NULL, (unsigned)threads);
		for (int i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, request, &sh);
		for (int i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
	}
	t0 = now_ms();
	for (int i = 0; i < repeat && rc == 0; i++)
		rc = registered ? compile_registered(&code, ctx, target, registered, options,
						     nopt, exprs, nexprs)
				: rocjit_compile(&code, ctx, target, &p);
	ms = now_ms() - t0;
	if (rc != 0) {
		fprintf(stderr, "error %d (%s): %s\n", rc, rocjit_strerror(rc), rocjit_last_error());
		if (file && rocjit_last_log()[0])
			fprintf(stderr, "%s", rocjit_last_log());
		rocjit_close(ctx);
		free(text);
		return 1;
	}
	dbs = databases_open(); /* before rocjit_stats_get, which reads the database */
	rocjit_stats_get(&st, ctx);
	printf("compiles=%llu disk_hits=%llu memory_hits=%llu misses=%llu from_cache=%d "
	       "key=%s target=%s size=%zu ms=%.3f worker_compiles=%llu workers_started=%llu "
	       "index_hits=%llu remote_hits=%llu databases_open=%d cache=%s\n",
	       (unsigned long long)st.compiles, (unsigned long long)st.disk_hits,
	       (unsigned long long)st.memory_hits, (unsigned long long)st.misses,
	       code->from_cache, code->key, code->target, code->size, ms,
	       (unsigned long long)st.worker_compiles, (unsigned long long)st.workers_started,
	       (unsigned long long)st.index_hits, (unsigned long long)st.remote_hits,
	       dbs, st.cache_open ? st.cache_path : "-");
	rocjit_close(ctx);
	free(text);
	return 0;
}
