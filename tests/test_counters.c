/*
 * test_counters.c - the failure counters kept in the cache across processes (issue 31):
 * compile errors, evictions, signature rejects and remote errors, each caused by a real
 * event in a real process (the rocjit tool, a real compiler, a real redis-server), read
 * back by `rocjit stats --json` in another, and zeroed by `rocjit stats --zero`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "redis_server.h"

static const char broken_undeclared[] =
	"extern \"C\" __global__ void k(float *x) { x[0] = not_declared_anywhere; }\n";
static const char broken_syntax[] = "extern \"C\" __global__ void k(float *x) { x[0] = ; }\n";
static const char good[] =
	"extern \"C\" __global__ void k(float *x) { x[threadIdx.x] = RJ_VALUE; }\n";

/* A file in the test's folder holding text; its path (static storage, one per slot). */
static const char *kernel_file(int slot, const char *name, const char *text)
{
	static char path[4][4200];

	snprintf(path[slot], sizeof path[slot], "%s/%s", rj_test_dir, name);
	rj_test_write_file(path[slot], text, strlen(text));
	return path[slot];
}

/* Runs the tool on the test's cache with env's extra "K=V" entries (NULL-terminated, may
 * be NULL) and args (NULL-terminated): its exit status; its output in *out (may be NULL). */
static int tool(char **out, const char *const *env, const char *const *args)
{
	const char *argv[24];
	int n = 0, rc;
	char *o = NULL;

	argv[n++] = ROCJIT_TEST_CLI;
	argv[n++] = "--cache";
	argv[n++] = rj_test_cache_dir;
	for (; *args && n < 23; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	rc = rj_test_run(argv, env, &o);
	printf("$ rocjit");
	for (int i = 3; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("   (exit %d)\n%s", rc, o ? o : "");
	if (out)
		*out = o;
	else
		free(o);
	return rc;
}

/* Compiles file for target in a process of its own: its exit status. */
static int compile_in_process(const char *const *env, const char *file, const char *target,
			      const char *define)
{
	char out[4300];
	const char *args[] = { "compile", file, "--arch", target, "-o", out, "--", define, NULL };

	snprintf(out, sizeof out, "%s/out.co", rj_test_dir);
	if (!define)
		args[6] = NULL;
	return tool(NULL, env, args);
}

/* One number of `rocjit stats --json`, read in a process of its own: the field name of
 * the object section ("counters", or NULL for the top level). */
static uint64_t stat_of(const char *section, const char *name)
{
	const char *args[] = { "stats", "--json", NULL };
	char key[128], *out, *p;
	uint64_t v;

	ASSERT_INT(tool(&out, NULL, args), 0);
	p = out;
	if (section) {
		snprintf(key, sizeof key, "\"%s\": {", section);
		p = strstr(out, key);
		ASSERT(p);
	}
	snprintf(key, sizeof key, "\"%s\": ", name);
	p = strstr(p, key);
	if (!p)
		rj_test_fail(__FILE__, __LINE__, "no \"%s\" in the JSON", name);
	v = strtoull(p + strlen(key), NULL, 10);
	free(out);
	return v;
}

static uint64_t counter(const char *name)
{
	return stat_of("counters", name);
}

/* Every failure counter is 0 after `rocjit stats --zero` (the hits and misses too). */
static void assert_zeroed(void)
{
	static const char *const names[] = { "compile_errors", "evictions", "signature_rejects",
					     "remote_errors", "misses", "compiles", NULL };
	const char *args[] = { "stats", "--zero", NULL };

	ASSERT_INT(tool(NULL, NULL, args), 0);
	for (int i = 0; names[i]; i++)
		ASSERT_INT(counter(names[i]), 0);
}

TEST(compile_errors_are_counted_once_by_each_process_and_zeroed)
{
	const char *a = kernel_file(0, "undeclared.hip", broken_undeclared);
	const char *b = kernel_file(1, "syntax.hip", broken_syntax);
	int nvrtc = rj_test_have_nvrtc();

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC compiles the broken kernels");
	ASSERT_INT(compile_in_process(NULL, a, "gfx90a", NULL), 1);
	ASSERT_INT(counter("compile_errors"), 1);
	/* Another error, another target, another process; and the same failure again (a
	   failure is not cached: each attempt is one event). */
	ASSERT_INT(compile_in_process(NULL, b, "gfx906", NULL), 1);
	ASSERT_INT(compile_in_process(NULL, a, "gfx90a", NULL), 1);
	ASSERT_INT(counter("compile_errors"), 3);
	if (nvrtc) { /* NVRTC's failures are counted alike */
		const char *c = kernel_file(2, "undeclared.cu", broken_undeclared);
		ASSERT_INT(compile_in_process(NULL, c, "sm_90", NULL), 1);
		ASSERT_INT(counter("compile_errors"), 4);
	}
	/* A target the compiler refuses before compiling is no compile error. */
	ASSERT(compile_in_process(NULL, a, "gfx9999", NULL) != 0);
	ASSERT_INT(counter("compile_errors"), nvrtc ? 4 : 3);
	ASSERT_INT(counter("compiles"), 0);
	assert_zeroed();
}

TEST(evictions_by_the_size_limit_are_counted_and_zeroed)
{
	const char *f = kernel_file(0, "good.hip", good);
	char limit[64], env_limit[96];
	const char *env[] = { env_limit, NULL };
	uint64_t one, entries, evicted;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC compiles the kernels");
	ASSERT_INT(compile_in_process(NULL, f, "gfx90a", "-DRJ_VALUE=0"), 0);
	one = stat_of(NULL, "bytes");
	ASSERT(one > 0);
	ASSERT_INT(counter("evictions"), 0);
	/* Room for two entries and a half: each later store past it evicts (down to 90%). */
	snprintf(limit, sizeof limit, "%llu", (unsigned long long)(one * 5 / 2));
	snprintf(env_limit, sizeof env_limit, "ROCJIT_CACHE_MAXSIZE=%s", limit);
	for (int i = 1; i <= 4; i++) {
		char d[32];
		snprintf(d, sizeof d, "-DRJ_VALUE=%d", i);
		ASSERT_INT(compile_in_process(env, f, "gfx90a", d), 0);
	}
	entries = stat_of(NULL, "entries");
	evicted = counter("evictions");
	printf("entries %llu, evicted %llu\n", (unsigned long long)entries,
	       (unsigned long long)evicted);
	/* Five stored, each entry evicted counted once. */
	ASSERT(evicted >= 1);
	ASSERT_INT(entries + evicted, 5);
	assert_zeroed();
}

TEST(signature_rejects_are_counted_across_processes_and_zeroed)
{
	const char *f = kernel_file(0, "good.hip", good);
	const char *all[] = { "ROCJIT_REQUIRE_SIGNED=all", NULL };

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC compiles the kernels");
	/* Unsigned entries, stored by a process that asks for no signature. */
	ASSERT_INT(compile_in_process(NULL, f, "gfx90a", "-DRJ_VALUE=1"), 0);
	ASSERT_INT(compile_in_process(NULL, f, "gfx906", "-DRJ_VALUE=1"), 0);
	ASSERT_INT(counter("signature_rejects"), 0);
	/* Each process that requires signed code refuses the unsigned entry it finds (and
	   compiles instead). */
	ASSERT_INT(compile_in_process(all, f, "gfx90a", "-DRJ_VALUE=1"), 0);
	ASSERT_INT(counter("signature_rejects"), 1);
	ASSERT_INT(compile_in_process(all, f, "gfx906", "-DRJ_VALUE=1"), 0);
	ASSERT_INT(counter("signature_rejects"), 2);
	assert_zeroed();
}

TEST(remote_errors_are_counted_across_processes_and_zeroed)
{
	const char *f = kernel_file(0, "good.hip", good);
	struct rj_redis_server dead, full;
	char url[128], url_full[128];
	const char *env_dead[] = { url, "ROCJIT_REQUIRE_SIGNED=none", NULL };
	const char *env_full[] = { url_full, "ROCJIT_REQUIRE_SIGNED=none", NULL };
	const char *full_args[] = { "--maxmemory", "1", "--maxmemory-policy", "noeviction",
				    NULL };
	uint64_t after_dead;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC compiles the kernels");
	/* A real server the test stops: nothing listens on its port any more. */
	rj_redis_start(&dead, "dead", NULL);
	snprintf(url, sizeof url, "ROCJIT_REMOTE=redis://127.0.0.1:%d", dead.port);
	rj_redis_stop(&dead);
	ASSERT_INT(compile_in_process(env_dead, f, "gfx90a", "-DRJ_VALUE=1"), 0);
	after_dead = counter("remote_errors");
	ASSERT(after_dead >= 1);
	/* The same count as the remote tier's own counters. */
	ASSERT_INT(stat_of("remote", "errors"), after_dead);
	/* A server that answers but refuses every write (out of memory, noeviction): the
	   lock and the put fail, in another process. */
	rj_redis_start(&full, "full", full_args);
	snprintf(url_full, sizeof url_full, "ROCJIT_REMOTE=redis://127.0.0.1:%d", full.port);
	ASSERT_INT(compile_in_process(env_full, f, "gfx90a", "-DRJ_VALUE=2"), 0);
	ASSERT(counter("remote_errors") > after_dead);
	rj_redis_stop(&full);
	assert_zeroed();
}

/* A caller built with version 1 of rocjit_counters has a shorter struct: nothing past it
 * is written; version 2 reads the failures.  A cache written before them reads 0. */
TEST(counters_version_1_callers_get_no_new_fields)
{
	union {
		rocjit_counters c;
		unsigned char bytes[sizeof(rocjit_counters)];
	} u;
	size_t v1 = offsetof(rocjit_counters, compile_errors);
	rocjit_ctx *ctx = rj_test_open();
	rocjit_counters c2;

	memset(&u, 0xa5, sizeof u);
	u.c.version = 1;
	ASSERT_INT(rocjit_counters_get(&u.c, ctx), 0);
	for (size_t i = v1; i < sizeof u; i++)
		ASSERT_INT(u.bytes[i], 0xa5);
	ASSERT_INT(rocjit_counters_init(&c2, 2), 0);
	ASSERT_INT(rocjit_counters_get(&c2, ctx), 0);
	ASSERT_INT(c2.version, 2);
	ASSERT_INT(c2.compile_errors + c2.evictions + c2.signature_rejects + c2.remote_errors, 0);
	rocjit_close(ctx);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A process that keeps running: its failures are seen by others while it lives (written
 * by its flusher, not only at close or exit), and it is killed without closing. */
TEST(failures_of_a_running_process_are_seen_before_it_exits)
{
	int ready[2];
	pid_t pid;
	char c;
	double t0, waited;
	uint64_t seen = 0;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC compiles the broken kernel");
	rocjit_close(rj_test_open()); /* the cache exists */
	ASSERT_INT(counter("compile_errors"), 0);
	ASSERT_INT(pipe(ready), 0);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		rocjit_ctx *ctx = rj_test_open();
		const rocjit_code *code;
		int rc = rj_test_compile(&code, ctx, "gfx90a", "undeclared.hip", broken_undeclared,
					 NULL, 0, NULL, 0, NULL, 0);
		c = rc == ROCJIT_ECOMPILE ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause(); /* never closes: killed */
	}
	close(ready[1]);
	ASSERT_INT(read(ready[0], &c, 1), 1);
	ASSERT(c == 'y');
	/* Written within the flusher's delay (2 s); waited for with a wide bound, since a
	   loaded machine is slow to schedule it, and the time it took printed. */
	t0 = now_s();
	while ((seen = counter("compile_errors")) == 0 && now_s() - t0 < 60)
		usleep(200000);
	waited = now_s() - t0;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	printf("seen after %.2f s\n", waited);
	ASSERT_INT(seen, 1);
	ASSERT_INT(counter("compile_errors"), 1); /* once: nothing more at its death */
}
