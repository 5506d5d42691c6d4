/*
 * test_remote.c - the remote tier against real redis-server processes (tests/redis_server.c):
 * a hit fills the local cache, eight nodes that start at once compile a key once, a server
 * killed or stopped mid-run costs every job at most one timeout, planted values are never
 * loaded, wrong credentials, eviction, read-only nodes, the fleet's compile locks.
 *
 * Each "node" is its own process with its own cache folder (tests/remote_nodes.h);
 * compiles are real hipRTC compiles for gfx90a.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "remote_nodes.h"
#include "remote/client.h"
#include "remote/record.h"
#include "remote/remote.h"
#include "remote/url.h"

/* A build without hiredis has no remote tier: every test here skips, saying so. */
__attribute__((constructor)) static void need_the_tier(void)
{
	if (!rj_conn_available()) {
		printf("SKIP: this rocjit was built without hiredis (libhiredis-dev): no remote "
		       "tier to test\n");
		exit(77);
	}
}

#define TARGET "gfx90a"
#define MACRO "RJ_REMOTE_TEST"

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Compiles variant i without asserting: rocjit_compile's result. */
static int compile_variant(rocjit_ctx *ctx, int i, const rocjit_code **c)
{
	return rj_test_try_variant(c, ctx, TARGET, MACRO, i);
}

/* The server's answer to one command (words NULL-terminated), asserting one came. */
static void call(const struct rj_redis_server *s, char *reply, size_t size,
		 const char *const *words)
{
	ASSERT_INT(rj_redis_call(s, 5000, reply, size, words), 0);
}

static long long dbsize(const struct rj_redis_server *s)
{
	static const char *const w[] = { "DBSIZE", NULL };
	char r[64];

	call(s, r, sizeof r, w);
	ASSERT(r[0] == ':');
	return atoll(r + 1);
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; p && (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* ---- A hit fills the local cache ------------------------------------------------------------- */

static struct rj_redis_server server;
static char url[4400];

/* A second process: a fresh cache, served by the remote tier without compiling. */
static int node_b_is_served(int unused)
{
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *ctx = rj_node_open("b", url);

	(void)unused;
	RJ_CHILD_CHECK(compile_variant(ctx, 1, &c) == 0);
	st = rj_test_stats(ctx);
	RJ_CHILD_CHECK(c->from_cache == 1);
	RJ_CHILD_CHECK(st.compiles == 0);
	RJ_CHILD_CHECK(st.remote_hits == 1);
	RJ_CHILD_CHECK(st.disk_hits == 0);
	rocjit_close(ctx);
	/* The next process of node b finds it on its disk: no remote request. */
	ctx = rj_node_open("b", url);
	RJ_CHILD_CHECK(compile_variant(ctx, 1, &c) == 0);
	st = rj_test_stats(ctx);
	RJ_CHILD_CHECK(st.disk_hits == 1);
	RJ_CHILD_CHECK(st.remote_hits == 0 && st.remote_misses == 0);
	RJ_CHILD_CHECK(st.compiles == 0);
	rocjit_close(ctx);
	return 0;
}

TEST(remote_hit_fills_the_local_cache)
{
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *a;
	char key[33];
	rocjit_remote_counters rc = { .version = ROCJIT_REMOTE_COUNTERS_VERSION };

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	a = rj_node_open("a", url);
	ASSERT_INT(compile_variant(a, 1, &c), 0);
	memcpy(key, c->key, 33);
	st = rj_test_stats(a);
	ASSERT_INT(st.compiles, 1);
	ASSERT_INT(st.remote_puts, 1);
	ASSERT_INT(st.remote_misses, 1);
	ASSERT_INT(st.remote_state, ROCJIT_REMOTE_UP);
	ASSERT_STR(st.remote_url, url);
	rocjit_close(a);
	ASSERT_INT(dbsize(&server), 1); /* the value; the lock is gone */
	ASSERT_INT(rj_test_in_child(node_b_is_served, 0), 0);
	/* Node b's counters went into its cache at close. */
	a = rj_node_open("b", url);
	ASSERT_INT(rocjit_remote_counters_get(&rc, a), 0);
	ASSERT_INT(rc.hits, 1);
	ASSERT(rc.saved_ms > 0);
	ASSERT(rc.bytes_read > 0);
	rocjit_close(a);
	rj_redis_stop(&server);
}

/* A value whose name expressions lower a variable ("&ns::table", CuPy's spelling for
 * get_global) passes a consumer's checks like one naming kernels only. */
static const char *const variable_exprs[] = { "&ns::table", "k<float>" };

static int compile_variables(rocjit_ctx *ctx, const rocjit_code **c)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;

	p.source = "namespace ns { __constant__ float table[16]; }\n"
		   "template <typename T> __global__ void k(T *y) { y[0] = ns::table[1]; }\n";
	p.name = "variables.hip";
	p.name_expressions = variable_exprs;
	p.num_name_expressions = 2;
	return rocjit_compile(c, ctx, TARGET, &p);
}

static int node_b_gets_the_variables(int unused)
{
	const rocjit_code *c;
	const char *lowered = NULL;
	rocjit_ctx *ctx = rj_node_open("b", url);

	(void)unused;
	RJ_CHILD_CHECK(compile_variables(ctx, &c) == 0);
	RJ_CHILD_CHECK(c->from_cache == 1);
	RJ_CHILD_CHECK(rj_test_stats(ctx).remote_hits == 1);
	RJ_CHILD_CHECK(rocjit_code_lowered_name(&lowered, c, "&ns::table") == 0);
	RJ_CHILD_CHECK(strcmp(lowered, "_ZN2ns5tableE") == 0);
	rocjit_close(ctx);
	return 0;
}

TEST(remote_value_whose_name_expressions_lower_a_variable_is_served)
{
	const rocjit_code *c;
	rocjit_ctx *a;

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	a = rj_node_open("a", url);
	ASSERT_INT(compile_variables(a, &c), 0);
	ASSERT_INT(rj_test_stats(a).remote_puts, 1);
	rocjit_close(a);
	ASSERT_INT(rj_test_in_child(node_b_gets_the_variables, 0), 0);
	rj_redis_stop(&server);
}

/* ---- Eight nodes at once: one compile --------------------------------------------------------- */

#define NODES 8

/* One node: waits for the start signal on fd, compiles variant 7, reports what it did. */
static int fleet_node(int i, int start_fd, const char *fleet_url)
{
	char name[32], buf;
	const rocjit_code *c = NULL;
	rocjit_ctx *ctx;
	int rc;

	snprintf(name, sizeof name, "node%d", i);
	ctx = rj_node_open(name, fleet_url);
	if (read(start_fd, &buf, 1) < 0)
		return 3;
	rc = compile_variant(ctx, 7, &c);
	rc = rj_node_report_write(name, rc, c, ctx);
	rocjit_close(ctx);
	return rc;
}

TEST(eight_nodes_starting_at_once_compile_a_key_once)
{
	int start[2], compiles = 0, served = 0, waited = 0;
	pid_t pids[NODES];

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	ASSERT(pipe(start) == 0);
	for (int i = 0; i < NODES; i++) {
		pids[i] = fork();
		ASSERT(pids[i] >= 0);
		if (pids[i] == 0) {
			close(start[1]);
			_exit(fleet_node(i, start[0], url));
		}
	}
	close(start[0]);
	usleep(200000); /* every node opened its context */
	close(start[1]); /* all read EOF at once: go */
	for (int i = 0; i < NODES; i++) {
		int status;
		char name[32];
		struct rj_node_report r;
		ASSERT(waitpid(pids[i], &status, 0) == pids[i]);
		ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		snprintf(name, sizeof name, "node%d", i);
		r = rj_node_report_read(name);
		ASSERT_INT(r.rc, 0);
		compiles += (int)r.stats.compiles;
		served += (int)r.stats.remote_hits;
		waited += (int)r.stats.remote_waits;
	}
	/* Exactly one compile fleet-wide; every other node got its value. */
	ASSERT_INT(compiles, 1);
	ASSERT_INT(served, NODES - 1);
	ASSERT(waited >= 1);
	ASSERT_INT(dbsize(&server), 1); /* one value, no lock left behind */
	rj_redis_stop(&server);
}

/* ---- A server that dies or stops mid-run ------------------------------------------------------- */

TEST(server_killed_mid_run_every_job_finishes)
{
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *ctx;
	double t0, worst = 0;

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, "retry=60000");
	ctx = rj_node_open("a", url);
	ASSERT_INT(compile_variant(ctx, 1, &c), 0);
	ASSERT_INT(rj_test_stats(ctx).remote_puts, 1);
	rj_redis_kill9(&server);
	for (int i = 2; i <= 4; i++) {
		t0 = now_ms();
		ASSERT_INT(compile_variant(ctx, i, &c), 0); /* compiled here */
		ASSERT_INT(c->from_cache, 0);
		if (now_ms() - t0 > worst)
			worst = now_ms() - t0;
	}
	st = rj_test_stats(ctx);
	ASSERT_INT(st.compiles, 4);
	/* A refused connection fails at once; the breaker keeps the rest off the network. */
	ASSERT_INT(st.remote_errors, 1);
	ASSERT_INT(st.remote_state, ROCJIT_REMOTE_OFF);
	ASSERT_CONTAINS(st.remote_off_reason, "127.0.0.1"); /* closed, then refused */
	ASSERT(st.remote_ms < 100);
	rocjit_close(ctx);
	rj_redis_stop(&server);
}

TEST(stopped_server_costs_one_timeout_then_is_left_alone)
{
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *ctx;

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, "timeout=300&connect_timeout=200&retry=60000");
	ctx = rj_node_open("a", url);
	ASSERT_INT(compile_variant(ctx, 1, &c), 0); /* connected, put */
	rj_redis_pause(&server);
	for (int i = 2; i <= 4; i++)
		ASSERT_INT(compile_variant(ctx, i, &c), 0);
	st = rj_test_stats(ctx);
	ASSERT_INT(st.compiles, 4);
	ASSERT_INT(st.remote_errors, 1);
	/* One operation timeout (300 ms) in all, not one per request: less than two of them,
	   whatever the load on the machine. */
	ASSERT(st.remote_ms >= 250);
	ASSERT(st.remote_ms < 2 * 300);
	ASSERT_CONTAINS(st.remote_off_reason, "did not answer within 300 ms");
	rocjit_close(ctx);
	rj_redis_resume(&server);
	rj_redis_stop(&server);
}

TEST(stopped_server_is_asked_again_after_the_breaker_period)
{
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *ctx;

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, "timeout=200&retry=400");
	ctx = rj_node_open("a", url);
	rj_redis_pause(&server);
	ASSERT_INT(compile_variant(ctx, 1, &c), 0);
	ASSERT_INT(rj_test_stats(ctx).remote_state, ROCJIT_REMOTE_OFF);
	rj_redis_resume(&server);
	usleep(500000);
	ASSERT_INT(compile_variant(ctx, 2, &c), 0);
	st = rj_test_stats(ctx);
	ASSERT_INT(st.remote_state, ROCJIT_REMOTE_UP);
	ASSERT_INT(st.remote_puts, 1); /* variant 2 went there */
	rocjit_close(ctx);
	rj_redis_stop(&server);
}

TEST(unanswered_connect_costs_one_connect_timeout_per_breaker_period)
{
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *ctx;
	int port, fd = rj_blackhole_listen(&port);
	char hole[256];

	ASSERT(fd >= 0);
	snprintf(hole, sizeof hole, "redis://127.0.0.1:%d?connect_timeout=250&retry=60000", port);
	ctx = rj_node_open("a", hole);
	for (int i = 1; i <= 3; i++)
		ASSERT_INT(compile_variant(ctx, i, &c), 0);
	st = rj_test_stats(ctx);
	ASSERT_INT(st.compiles, 3);
	ASSERT_INT(st.remote_errors, 1);
	ASSERT(st.remote_ms >= 200 && st.remote_ms < 2 * 250); /* one timeout, not two */
	ASSERT_CONTAINS(st.remote_off_reason, "no answer within 250 ms");
	rocjit_close(ctx);
	close(fd);
}

/* ---- Values nobody should load ------------------------------------------------------------------- */

/* Node b asks for variant i, whose value was planted: it must compile it itself, count
 * one refused value, say why (its one warning holds why), and leave a good value in its
 * place. */
static void refused_then_mended(int i, const char *name, const char *why)
{
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *b = rj_node_open(name, url);
	char key[128], path[4400], *err;
	struct rj_record rec;
	size_t size = 0;
	void *v;
	int saved = dup(2), fd;

	snprintf(path, sizeof path, "%s/%s.err", rj_test_dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT(saved >= 0 && fd >= 0 && dup2(fd, 2) == 2);
	close(fd);
	ASSERT_INT(compile_variant(b, i, &c), 0);
	fflush(stderr);
	ASSERT(dup2(saved, 2) == 2);
	close(saved);
	err = rj_test_read_file(path, NULL);
	ASSERT_CONTAINS(err, "is not used");
	ASSERT_CONTAINS(err, why);
	free(err);
	st = rj_test_stats(b);
	ASSERT_INT(c->from_cache, 0);
	ASSERT_INT(st.compiles, 1);
	ASSERT_INT(st.remote_hits, 0);
	ASSERT_INT(st.remote_rejected, 1);
	ASSERT_INT(st.remote_puts, 1);
	rj_node_value_key(key, sizeof key, c->key);
	v = rj_node_fetch(url, key, &size);
	ASSERT(v != NULL);
	ASSERT_INT(rj_record_decode(&rec, v, size), 0);
	ASSERT_INT(rec.code_size, c->size);
	ASSERT(memcmp(rec.code, c->data, c->size) == 0);
	free(v);
	rocjit_close(b);
}

/* Compiles variant i in node a (putting it) and returns its value, malloc'ed. */
static void *good_value(int i, size_t *size, char key[128])
{
	const rocjit_code *c;
	rocjit_ctx *a = rj_node_open("a", url);
	void *v;

	ASSERT_INT(compile_variant(a, i, &c), 0);
	rj_node_value_key(key, 128, c->key);
	rocjit_close(a);
	v = rj_node_fetch(url, key, size);
	ASSERT(v != NULL);
	return v;
}

TEST(planted_corrupt_foreign_and_oversized_values_are_never_loaded)
{
	char key[128], key2[128];
	size_t size = 0, size2 = 0;
	unsigned char *v, *v2;

	/* The oversized value below is 64 MiB on the wire: an operation's deadline that
	   allows for it under the sanitizers. */
	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, "timeout=30000");

	/* A byte of the code changed (the value's checksums no longer hold). */
	v = good_value(1, &size, key);
	v[size / 2] ^= 0x40;
	rj_node_plant(url, key, v, size);
	refused_then_mended(1, "b1", "checksum");
	free(v);

	/* Another key's value, intact, under this key: a foreign value. */
	v = good_value(2, &size, key);
	v2 = good_value(3, &size2, key2);
	rj_node_plant(url, key, v2, size2);
	refused_then_mended(2, "b2", "another key");
	free(v);

	/* This key's fields, with another target's code object, re-encoded so that every
	   checksum holds: the code is not what the key names. */
	v = good_value(4, &size, key);
	{
		const rocjit_code *c;
		rocjit_ctx *a = rj_node_open("a1030", NULL);
		rocjit_program p = ROCJIT_PROGRAM_INIT;
		const char *o[1] = { "-D" MACRO "=4" };
		p.source = rj_test_axpy;
		p.options = o;
		p.num_options = 1;
		ASSERT_INT(rocjit_compile(&c, a, "gfx1030", &p), 0);
		rj_node_plant_swapped(url, key, v, size, c->data, c->size);
		rocjit_close(a);
	}
	refused_then_mended(4, "b4", "gfx1030");
	free(v);

	/* Garbage, and a value larger than the tier reads (64 MiB), and no string at all. */
	v = good_value(5, &size, key);
	rj_node_plant(url, key, "not a rocjit value", 18);
	refused_then_mended(5, "b5", "not a rocjit value");
	free(v);
	v = good_value(6, &size, key);
	{
		static const char *const w[] = { "SETRANGE", NULL, "67108864", "x", NULL };
		const char *words[5] = { w[0], key, w[2], w[3], NULL };
		char r[64];
		call(&server, r, sizeof r, words);
		ASSERT_CONTAINS(r, ":67108865");
	}
	refused_then_mended(6, "b6", "larger");
	free(v);
	v = good_value(8, &size, key);
	{
		const char *del[3] = { "DEL", key, NULL }, *push[4] = { "RPUSH", key, "x", NULL };
		char r[64];
		call(&server, r, sizeof r, del);
		call(&server, r, sizeof r, push);
	}
	refused_then_mended(8, "b8", "WRONGTYPE");
	free(v);
	free(v2);
	rj_redis_stop(&server);
}

/* ---- Credentials ------------------------------------------------------------------------------- */

#define PASSWORD "s3cr3t-fleet-pw"

/* Compiles variants first and first + 1 (arg % 1000) in a node of url; with arg >= 1000
 * both must have been put on the server. */
static int compile_two(int arg)
{
	const rocjit_code *c;
	int first = arg % 1000;
	rocjit_ctx *ctx = rj_node_open("pw", url);
	rocjit_stats st;

	RJ_CHILD_CHECK(compile_variant(ctx, first, &c) == 0);
	RJ_CHILD_CHECK(compile_variant(ctx, first + 1, &c) == 0);
	st = rj_test_stats(ctx);
	RJ_CHILD_CHECK(st.compiles == 2);
	RJ_CHILD_CHECK(arg < 1000 || st.remote_puts == 2);
	RJ_CHILD_CHECK(strstr(st.remote_url, PASSWORD) == NULL);
	RJ_CHILD_CHECK(strstr(st.remote_off_reason, PASSWORD) == NULL);
	rocjit_close(ctx);
	return 0;
}

TEST(wrong_password_warns_once_and_the_jobs_go_on)
{
	static const char *const extra[] = { "--requirepass", PASSWORD, NULL };
	char *err = NULL;

	rj_redis_start(&server, "redis", extra);
	snprintf(url, sizeof url, "redis://:wrong-%s@127.0.0.1:%d", PASSWORD, server.port);
	ASSERT_INT(rj_node_process(compile_two, 1, "wrong", &err), 0);
	ASSERT_INT(count_of(err, "warning"), 1);
	ASSERT_CONTAINS(err, "refused the credentials");
	ASSERT(strstr(err, PASSWORD) == NULL);
	free(err);
	/* No password at all: the server wants one. */
	snprintf(url, sizeof url, "redis://127.0.0.1:%d", server.port);
	ASSERT_INT(rj_node_process(compile_two, 3, "none", &err), 0);
	ASSERT_INT(count_of(err, "warning"), 1);
	ASSERT_CONTAINS(err, "credentials");
	free(err);
	rj_redis_stop(&server);
}

TEST(password_file_gives_the_password)
{
	static const char *const extra[] = { "--requirepass", PASSWORD, NULL };
	char file[4400], *err = NULL;

	rj_redis_start(&server, "redis", extra);
	snprintf(file, sizeof file, "%s/password.txt", rj_test_dir);
	rj_test_write_file(file, PASSWORD "\n", strlen(PASSWORD) + 1);
	ASSERT(chmod(file, 0600) == 0); /* a secret: readable by nobody else (base/trust.h) */
	setenv("ROCJIT_REMOTE_PASSWORD_FILE", file, 1);
	snprintf(url, sizeof url, "redis://127.0.0.1:%d", server.port);
	ASSERT_INT(rj_node_process(compile_two, 1001, "file", &err), 0);
	ASSERT_INT(count_of(err, "warning"), 0);
	free(err);
	unsetenv("ROCJIT_REMOTE_PASSWORD_FILE");
	rj_redis_stop(&server);
}

/* ---- Eviction --------------------------------------------------------------------------------- */

TEST(full_server_refuses_puts_and_the_jobs_go_on)
{
	static const char *const extra[] = { "--maxmemory", "1", "--maxmemory-policy",
					     "noeviction", NULL };
	char *err = NULL;

	rj_redis_start(&server, "redis", extra);
	rj_node_url(url, sizeof url, &server, NULL);
	ASSERT_INT(rj_node_process(compile_two, 1, "oom", &err), 0);
	ASSERT_INT(count_of(err, "warning"), 1);
	ASSERT_CONTAINS(err, "OOM");
	ASSERT_CONTAINS(err, "allkeys-lru");
	free(err);
	ASSERT_INT(dbsize(&server), 0);
	rj_redis_stop(&server);
}

TEST(evicted_values_are_compiled_again)
{
	static const char *const extra[] = { "--maxmemory", "2mb", "--maxmemory-policy",
					     "allkeys-lru", NULL };
	const rocjit_code *c;
	rocjit_ctx *a, *b;
	char r[128];

	rj_redis_start(&server, "redis", extra);
	rj_node_url(url, sizeof url, &server, NULL);
	a = rj_node_open("a", url);
	ASSERT_INT(compile_variant(a, 1, &c), 0);
	ASSERT_INT(rj_test_stats(a).remote_puts, 1);
	rocjit_close(a);
	/* 10 MB through a 2 MB server: allkeys-lru evicts, the least recent value first. */
	{
		char *big = malloc(50001), name[32];
		const char *w[4] = { "SET", name, big, NULL };
		memset(big, 'x', 50000);
		big[50000] = 0;
		for (int i = 0; i < 200; i++) {
			snprintf(name, sizeof name, "filler%d", i);
			call(&server, r, sizeof r, w);
		}
		free(big);
	}
	b = rj_node_open("b", url);
	ASSERT_INT(compile_variant(b, 1, &c), 0);
	if (rj_test_stats(b).remote_hits == 1)
		rj_test_skip("the server kept the value (its eviction sampled other keys)");
	ASSERT_INT(rj_test_stats(b).compiles, 1);
	rocjit_close(b);
	rj_redis_stop(&server);
}

/* ---- Read-only nodes, and the fleet's locks ---------------------------------------------------------- */

TEST(readonly_node_reads_and_never_writes)
{
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *a, *ro;
	char rurl[600];

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	rj_node_url(rurl, sizeof rurl, &server, "readonly");
	ro = rj_node_open("ro", rurl);
	ASSERT_INT(compile_variant(ro, 1, &c), 0);
	st = rj_test_stats(ro);
	ASSERT_INT(st.compiles, 1);
	ASSERT_INT(st.remote_puts, 0);
	ASSERT_INT(dbsize(&server), 0); /* no value, no lock */
	a = rj_node_open("a", url);
	ASSERT_INT(compile_variant(a, 2, &c), 0);
	rocjit_close(a);
	ASSERT_INT(compile_variant(ro, 2, &c), 0);
	ASSERT_INT(rj_test_stats(ro).remote_hits, 1);
	rocjit_close(ro);
	/* The environment's switch does the same. */
	setenv("ROCJIT_REMOTE_READONLY", "1", 1);
	ro = rj_node_open("ro2", url);
	ASSERT_INT(compile_variant(ro, 3, &c), 0);
	ASSERT_INT(rj_test_stats(ro).remote_puts, 0);
	rocjit_close(ro);
	unsetenv("ROCJIT_REMOTE_READONLY");
	ASSERT_INT(dbsize(&server), 1);
	rj_redis_stop(&server);
}

/* The key variant i has for TARGET, from a context without the remote tier. */
static void key_of_variant(int i, char key[33])
{
	const rocjit_code *c;
	rocjit_ctx *ctx = rj_node_open("keys", "");

	ASSERT_INT(compile_variant(ctx, i, &c), 0);
	memcpy(key, c->key, 33);
	rocjit_close(ctx);
}

TEST(lock_of_a_dead_holder_is_taken_over_when_its_lease_ends)
{
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *ctx;
	char key[33], lock[128];
	double t0;

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	key_of_variant(1, key);
	snprintf(lock, sizeof lock, "rocjit:%d:%s:lock", RJ_RECORD_VERSION, key);
	{
		/* A holder that died: its lock lives 1.5 s more, never renewed. */
		const char *w[] = { "SET", lock, "dead-node:1:x", "PX", "1500", NULL };
		char r[64];
		call(&server, r, sizeof r, w);
		ASSERT_STR(r, "+OK");
	}
	ctx = rj_node_open("a", url);
	t0 = now_ms();
	ASSERT_INT(compile_variant(ctx, 1, &c), 0);
	st = rj_test_stats(ctx);
	ASSERT_INT(st.compiles, 1);
	ASSERT_INT(st.remote_waits, 1);
	ASSERT(now_ms() - t0 >= 1300);   /* waited for the lease */
	ASSERT(now_ms() - t0 < 1500 + 5000);
	ASSERT_INT(st.remote_puts, 1);
	rocjit_close(ctx);
	ASSERT_INT(dbsize(&server), 1); /* its value; its own lock released */
	rj_redis_stop(&server);
}

TEST(failed_holder_sends_the_waiters_to_compile_at_once)
{
	const rocjit_code *c;
	rocjit_ctx *ctx;
	char key[33], lock[128];
	double t0, alone;

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	key_of_variant(1, key);
	t0 = now_ms();
	key_of_variant(2, lock); /* a compile's time here, for the bound below */
	alone = now_ms() - t0;
	snprintf(lock, sizeof lock, "rocjit:%d:%s:lock", RJ_RECORD_VERSION, key);
	{
		const char *w[] = { "SET", lock, "!other-node:1:x", "PX", "30000", NULL };
		char r[64];
		call(&server, r, sizeof r, w);
	}
	ctx = rj_node_open("a", url);
	t0 = now_ms();
	ASSERT_INT(compile_variant(ctx, 1, &c), 0);
	ASSERT_INT(rj_test_stats(ctx).compiles, 1);
	/* No wait for the 30 s mark: within three times a compile's time measured here, plus
	   5 s for a loaded box (a fixed 1 s of slack failed under ASan with two tests
	   compiling at once), and never near 30 s. */
	ASSERT(now_ms() - t0 < (3 * alone + 5000 < 25000 ? 3 * alone + 5000 : 25000));
	rocjit_close(ctx);
	rj_redis_stop(&server);
}

TEST(lease_is_renewed_while_the_holder_compiles)
{
	struct rj_remote *t;
	struct rj_remote_lease *lease = NULL;
	struct rj_remote_value v;
	struct rj_remote_want w;
	char lock[128], hex[33], r[64];
	const char *pttl[3] = { "PTTL", lock, NULL };

	/* A lease of 600 ms, renewed every 200 ms by the tier's lease thread: the lock lives
	   as long as it is held (2 s here), and goes when it is given back. */
	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, "lease=600");
	ASSERT_INT(rj_remote_open(&t, url, "test"), 0);
	memset(&w, 0, sizeof w);
	for (int i = 0; i < 16; i++)
		w.key.b[i] = (uint8_t)(0xa0 + i);
	w.platform = "amd", w.target = TARGET, w.compiler = "none";
	ASSERT_INT(rj_remote_claim(t, &w, 1000, 0, &lease, &v), 0);
	ASSERT(lease != NULL);
	rj_key_hex(&w.key, hex);
	snprintf(lock, sizeof lock, "rocjit:%d:%s:lock", RJ_RECORD_VERSION, hex);
	for (int i = 0; i < 20; i++) {
		usleep(100000);
		call(&server, r, sizeof r, pttl);
		ASSERT(r[0] == ':' && atoi(r + 1) > 0);
	}
	rj_remote_release(t, lease, 1);
	call(&server, r, sizeof r, pttl);
	ASSERT_STR(r, ":-2");
	rj_remote_close(t);
	rj_redis_stop(&server);
}

/* The race the fleet lock must close: a node misses, another node puts the value and
 * gives its lock back, and only then does the first take the lock.  It must take the
 * value, not compile the key a second time, whether it waits or not (a prefetch does
 * not). */
TEST(claim_after_a_miss_takes_the_value_put_meanwhile)
{
	struct rj_remote *t;
	struct rj_remote_lease *lease;
	struct rj_remote_value v;
	struct rj_remote_want w;
	struct rj_record rec;
	char key[128], r[64], *platform, *target, *compiler;
	const char *del[3] = { "DEL", key, NULL };
	size_t size = 0;
	void *bytes;

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	bytes = good_value(1, &size, key);
	ASSERT_INT(rj_record_decode(&rec, bytes, size), 0);
	memset(&w, 0, sizeof w);
	w.key = rec.key;
	w.pkey = rec.pkey;
	w.platform = platform = strndup(rec.platform, rec.platform_len);
	w.target = target = strndup(rec.target, rec.target_len);
	w.compiler = compiler = strndup(rec.compiler, rec.compiler_len);
	ASSERT(platform && target && compiler);
	ASSERT_INT(rj_remote_open(&t, url, "test"), 0);
	for (int nowait = 0; nowait < 2; nowait++) {
		call(&server, r, sizeof r, del);
		ASSERT_INT(rj_remote_get(t, &w, &v), 0);
		ASSERT_INT(v.refused, 0);
		rj_node_plant(url, key, bytes, size); /* the other node's put; no lock held */
		lease = NULL;
		ASSERT_INT(rj_remote_claim(t, &w, 1000, RJ_CLAIM_ABSENT |
					   (nowait ? RJ_CLAIM_NOWAIT : 0), &lease, &v), 1);
		ASSERT(lease == NULL);
		ASSERT_INT(v.rec.code_size, rec.code_size);
		ASSERT(memcmp(v.rec.code, rec.code, rec.code_size) == 0);
		rj_remote_value_free(&v);
		ASSERT_INT(dbsize(&server), 1); /* the value; no lock left behind */
	}
	rj_remote_close(t);
	free(platform), free(target), free(compiler), free(bytes);
	rj_redis_stop(&server);
}

/* ---- The URL and the password in messages ---------------------------------------------------------- */

TEST(malformed_url_fails_the_open_from_options_and_warns_from_the_environment)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx = NULL;

	char fresh[4200];
	struct stat st;

	/* The open fails before it makes anything: no cache folder appears. */
	snprintf(fresh, sizeof fresh, "%s/never-made", rj_test_dir);
	o.cache_dir = fresh;
	o.remote = "redis://user:" PASSWORD "@host:99999";
	ASSERT_INT(rocjit_open(&ctx, &o), ROCJIT_EINVAL);
	ASSERT(strstr(rocjit_last_error(), PASSWORD) == NULL);
	ASSERT_CONTAINS(rocjit_last_error(), "redis://user:***@host:99999");
	ASSERT(stat(fresh, &st) != 0 && errno == ENOENT);
	o.cache_dir = rj_test_cache_dir;
	o.remote = NULL;
	setenv("ROCJIT_REMOTE", "redis://user:" PASSWORD "@host:99999", 1);
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(rj_test_stats(ctx).remote_state, ROCJIT_REMOTE_NONE);
	rocjit_close(ctx);
	/* "" in the options turns the environment's tier off. */
	setenv("ROCJIT_REMOTE", "redis://127.0.0.1:1", 1);
	o.remote = "";
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(rj_test_stats(ctx).remote_state, ROCJIT_REMOTE_NONE);
	rocjit_close(ctx);
	unsetenv("ROCJIT_REMOTE");
}

/* ---- fork ---------------------------------------------------------------------------------------- */

static rocjit_ctx *shared_ctx;

static int child_uses_its_own_connection(int unused)
{
	const rocjit_code *c;
	rocjit_stats st;

	(void)unused;
	RJ_CHILD_CHECK(compile_variant(shared_ctx, 1, &c) == 0); /* the parent's: memory */
	RJ_CHILD_CHECK(compile_variant(shared_ctx, 3, &c) == 0); /* a hit of the parent's put */
	st = rj_test_stats(shared_ctx);
	RJ_CHILD_CHECK(st.remote_errors == 0);
	RJ_CHILD_CHECK(st.compiles == 0);
	RJ_CHILD_CHECK(st.disk_hits + st.remote_hits == 1);
	return 0;
}

TEST(fork_child_talks_to_the_server_on_its_own_connection)
{
	const rocjit_code *c;
	rocjit_ctx *other;

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	shared_ctx = rj_node_open("a", url);
	ASSERT_INT(compile_variant(shared_ctx, 1, &c), 0); /* connected */
	other = rj_node_open("other", url);
	ASSERT_INT(compile_variant(other, 3, &c), 0);      /* on the server only */
	rocjit_close(other);
	ASSERT_INT(rj_test_in_child(child_uses_its_own_connection, 0), 0);
	/* The parent's connection is still good. */
	ASSERT_INT(compile_variant(shared_ctx, 4, &c), 0);
	ASSERT_INT(rj_test_stats(shared_ctx).remote_errors, 0);
	ASSERT_INT(rj_test_stats(shared_ctx).remote_puts, 2);
	rocjit_close(shared_ctx);
	rj_redis_stop(&server);
}

/* ---- unix sockets and databases --------------------------------------------------------------------- */

TEST(unix_socket_and_database_number_are_used)
{
	const rocjit_code *c;
	rocjit_ctx *a, *b;
	char r[64];
	static const char *const sel_size[] = { "DBSIZE", NULL };

	rj_redis_start(&server, "redis", NULL);
	snprintf(url, sizeof url, "unix://%s?db=3", server.sock);
	a = rj_node_open("a", url);
	ASSERT_INT(compile_variant(a, 1, &c), 0);
	ASSERT_INT(rj_test_stats(a).remote_puts, 1);
	rocjit_close(a);
	call(&server, r, sizeof r, sel_size);
	ASSERT_STR(r, ":0"); /* not in database 0 */
	b = rj_node_open("b", url);
	ASSERT_INT(compile_variant(b, 1, &c), 0);
	ASSERT_INT(rj_test_stats(b).remote_hits, 1);
	rocjit_close(b);
	rj_redis_stop(&server);
}

/* ---- Redis Cluster ------------------------------------------------------------------------------ */

static struct rj_redis_cluster cluster;

/* A client of the cluster given only node 0 as its seed. */
static struct rj_redis *cluster_client(void)
{
	struct rj_remote_url u;
	struct rj_redis *r;

	snprintf(url, sizeof url, "redis-cluster://%s127.0.0.1:%d",
		 cluster.password[0] ? ":" PASSWORD "@" : "", cluster.node[0].port);
	ASSERT_INT(rj_remote_url_parse(url, &u), 0);
	ASSERT_INT(rj_redis_open(&r, &u, NULL, 1000), 0);
	return r;
}

static void client_set(struct rj_redis *r, const char *key, const char *value)
{
	const char *argv[3] = { "SET", key, value };
	size_t len[3] = { 3, strlen(key), strlen(value) };
	struct rj_reply *reply = NULL;

	ASSERT_INT(rj_redis_command(r, key, 3, argv, len, &reply), 0);
	ASSERT(rj_reply_is(reply, RJ_REPLY_STATUS, "OK"));
	rj_reply_free(reply);
}

static void client_get_is(struct rj_redis *r, const char *key, const char *want)
{
	const char *argv[2] = { "GET", key };
	size_t len[2] = { 3, strlen(key) };
	struct rj_reply *reply = NULL;

	ASSERT_INT(rj_redis_command(r, key, 2, argv, len, &reply), 0);
	ASSERT_INT(reply->type, RJ_REPLY_STRING);
	ASSERT_INT(reply->len, strlen(want));
	ASSERT(memcmp(reply->str, want, reply->len) == 0);
	rj_reply_free(reply);
}

TEST(cluster_key_slot_is_redis_clusters)
{
	/* The slots Redis computes (CLUSTER KEYSLOT), hash tags included. */
	rj_redis_cluster_start(&cluster, "cluster", NULL);
	{
		static const char *const keys[] = { "foo", "rocjit:1:0123456789abcdef0123456789abcdef",
						     "{user1000}.following", "a{}b", "{}x", "x{y}z{w}",
						     "{", "}", "" };
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			ASSERT_INT(rj_redis_key_slot(keys[i], strlen(keys[i])),
				   rj_redis_cluster_slot_of(&cluster, keys[i]));
	}
	rj_redis_cluster_stop(&cluster);
}

TEST(cluster_moved_and_ask_redirections_are_followed)
{
	struct rj_redis *r;
	char k1[32], k2[32];
	int owner, to, slot;

	rj_redis_cluster_start(&cluster, "cluster", NULL);
	r = cluster_client();
	/* Keys on every node: the slot map sends each to its owner. */
	for (int i = 0; i < 30; i++) {
		char k[32], v[32];
		snprintf(k, sizeof k, "key%d", i);
		snprintf(v, sizeof v, "value%d", i);
		client_set(r, k, v);
		client_get_is(r, k, v);
	}
	ASSERT_INT(rj_redis_servers(r), 3);
	/* The slot of key1 moves to another node after this client read the map: MOVED. */
	snprintf(k1, sizeof k1, "key1");
	owner = rj_redis_cluster_node_of_key(&cluster, k1);
	to = (owner + 1) % 3;
	rj_redis_cluster_move_slot(&cluster, rj_redis_cluster_slot_of(&cluster, k1), to);
	client_get_is(r, k1, "value1");
	client_set(r, k1, "moved");
	client_get_is(r, k1, "moved");
	/* key2's slot is half-migrated, key2 already moved: its old owner answers ASK. */
	snprintf(k2, sizeof k2, "key2");
	slot = rj_redis_cluster_slot_of(&cluster, k2);
	owner = rj_redis_cluster_node_of_slot(&cluster, slot);
	to = (owner + 2) % 3;
	{
		const char *keys[] = { k2, NULL };
		rj_redis_cluster_migrate_start(&cluster, slot, to, keys);
	}
	client_get_is(r, k2, "value2");
	rj_redis_cluster_migrate_finish(&cluster, slot, to);
	client_get_is(r, k2, "value2");
	rj_redis_close(r);
	rj_redis_cluster_stop(&cluster);
}

TEST(cluster_serves_a_fleet_with_keys_on_every_node)
{
	static const char *const extra[] = { "--requirepass", PASSWORD, NULL };
	const rocjit_code *c;
	rocjit_ctx *a, *b;
	rocjit_stats st;
	int on[3] = { 0, 0, 0 };
	char key[128];

	rj_redis_cluster_start(&cluster, "cluster", extra);
	snprintf(url, sizeof url, "redis-cluster://:%s@127.0.0.1:%d", PASSWORD,
		 cluster.node[0].port);
	a = rj_node_open("a", url);
	for (int i = 1; i <= 8; i++) {
		ASSERT_INT(compile_variant(a, i, &c), 0);
		rj_node_value_key(key, sizeof key, c->key);
		on[rj_redis_cluster_node_of_key(&cluster, key)]++;
	}
	st = rj_test_stats(a);
	ASSERT_INT(st.remote_puts, 8);
	ASSERT_INT(st.remote_errors, 0);
	rocjit_close(a);
	ASSERT((on[0] != 0) + (on[1] != 0) + (on[2] != 0) >= 2);
	/* A node whose seed is node 2 finds them all. */
	snprintf(url, sizeof url, "redis-cluster://:%s@127.0.0.1:%d", PASSWORD,
		 cluster.node[2].port);
	b = rj_node_open("b", url);
	for (int i = 1; i <= 8; i++)
		ASSERT_INT(compile_variant(b, i, &c), 0);
	st = rj_test_stats(b);
	ASSERT_INT(st.remote_hits, 8);
	ASSERT_INT(st.compiles, 0);
	rocjit_close(b);
	rj_redis_cluster_stop(&cluster);
}

TEST(cluster_url_on_a_plain_server_says_so)
{
	struct rj_remote_url u;
	struct rj_redis *r;
	struct rj_reply *reply = NULL;
	const char *argv[2] = { "GET", "k" };
	size_t len[2] = { 3, 1 };

	rj_redis_start(&server, "redis", NULL);
	snprintf(url, sizeof url, "redis-cluster://127.0.0.1:%d", server.port);
	ASSERT_INT(rj_remote_url_parse(url, &u), 0);
	ASSERT_INT(rj_redis_open(&r, &u, NULL, 1000), 0);
	rj_redis_set_quiet(r, 1);
	ASSERT(rj_redis_command(r, "k", 2, argv, len, &reply) < 0);
	ASSERT_CONTAINS(rocjit_last_error(), "use redis:// instead of redis-cluster://");
	rj_redis_close(r);
	rj_redis_stop(&server);
}

/* ---- The breaker shared by a node's processes ----------------------------------------------------- */

/* One process of node "shared": compiles variant arg; exits with its remote time in
 * tens of ms (capped), 250 + errors when something else went wrong. */
static int node_process(int arg)
{
	const rocjit_code *c;
	rocjit_stats st;
	rocjit_ctx *ctx = rj_node_open("shared", url);

	if (compile_variant(ctx, arg, &c) != 0)
		return 250;
	st = rj_test_stats(ctx);
	rocjit_close(ctx);
	if (st.remote_errors > 1)
		return 251;
	return st.remote_ms / 10 > 200 ? 200 : (int)(st.remote_ms / 10);
}

/* Whether the node's cache folder holds the breaker's file. */
static int breaker_file_exists(void)
{
	char dir[4400];
	DIR *d;
	struct dirent *e;
	int found = 0;

	snprintf(dir, sizeof dir, "%s/shared", rj_test_dir);
	d = opendir(dir);
	while (d && (e = readdir(d)) != NULL)
		found |= strncmp(e->d_name, "rocjit-remote-", 14) == 0;
	if (d)
		closedir(d);
	return found;
}

/* Moves the breaker file's time seconds into the past. */
static void age_breaker_file(int seconds)
{
	char dir[4400];
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof dir, "%s/shared", rj_test_dir);
	d = opendir(dir);
	ASSERT(d != NULL);
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "rocjit-remote-", 14) == 0) {
			struct timespec t[2];
			clock_gettime(CLOCK_REALTIME, &t[0]);
			t[0].tv_sec -= seconds;
			t[1] = t[0];
			ASSERT(utimensat(dirfd(d), e->d_name, t, 0) == 0);
		}
	closedir(d);
}

TEST(dead_server_costs_a_node_one_timeout_not_one_per_process)
{
	int port, fd = rj_blackhole_listen(&port), rc;
	char *err = NULL;

	ASSERT(fd >= 0);
	snprintf(url, sizeof url, "redis://127.0.0.1:%d?connect_timeout=300&retry=60000", port);
	/* The first process pays the connect timeout and tells the others. */
	rc = rj_node_process(node_process, 1, "first", &err);
	ASSERT(rc >= 30 && rc < 60); /* one timeout of 300 ms (not two), in tens of ms */
	ASSERT_CONTAINS(err, "no answer within 300 ms");
	free(err);
	ASSERT(breaker_file_exists());
	/* The next processes of the node do not wait at all. */
	for (int i = 2; i <= 4; i++) {
		char name[16];
		snprintf(name, sizeof name, "next%d", i);
		rc = rj_node_process(node_process, i, name, &err);
		ASSERT(rc < 10); /* no timeout of 300 ms paid */
		ASSERT_CONTAINS(err, "another process of this node found it failing");
		ASSERT_INT(count_of(err, "warning"), 1);
		free(err);
	}
	rj_blackhole_close(fd);
}

TEST(shared_breaker_lets_go_once_the_server_answers_again)
{
	char *err = NULL;
	int rc;

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, "timeout=200&retry=30000");
	ASSERT(rj_node_process(node_process, 1, "up", &err) < 250); /* connects once */
	free(err);
	rj_redis_pause(&server);
	rc = rj_node_process(node_process, 2, "paused", &err);
	ASSERT(rc >= 20 && rc < 40); /* one timeout of 200 ms (not two), in tens of ms */
	free(err);
	ASSERT(breaker_file_exists());
	rc = rj_node_process(node_process, 3, "skipped", &err);
	ASSERT(rc < 10); /* no timeout of 200 ms paid */
	ASSERT_CONTAINS(err, "another process of this node");
	free(err);
	rj_redis_resume(&server);
	/* The period is over (the file's time moved back past it, as waiting would): the next
	   process connects, and a working connection lets the others go too. */
	age_breaker_file(31);
	/* The same deployment (the URL shown, which names the file, has no options) with a
	   deadline that a server just woken, on a loaded machine, keeps. */
	rj_node_url(url, sizeof url, &server, "timeout=10000&retry=30000");
	rc = rj_node_process(node_process, 4, "back", &err);
	ASSERT(rc < 250); /* it compiled, talking to the server */
	ASSERT_INT(count_of(err, "warning"), 0);
	free(err);
	ASSERT(!breaker_file_exists());
	rj_redis_stop(&server);
}

/* ---- Prefetching nodes share the work ------------------------------------------------------------- */

#define PF_NODES 3
#define PF_ITEMS 6

/* n prefetch items: axpy for TARGET, each with its own -DMACRO=base+k (a key of its
 * own); progs, opts and o hold what the items point to. */
static void pf_items(rocjit_prefetch_item *items, rocjit_program *progs, char (*opts)[48],
		     const char *(*o)[1], int n, int base)
{
	for (int k = 0; k < n; k++) {
		rocjit_program p = ROCJIT_PROGRAM_INIT;
		snprintf(opts[k], sizeof opts[k], "-D" MACRO "=%d", base + k);
		o[k][0] = opts[k];
		p.source = rj_test_axpy;
		p.options = o[k];
		p.num_options = 1;
		progs[k] = p;
		memset(&items[k], 0, sizeof items[k]);
		items[k].program = &progs[k];
		items[k].target = TARGET;
	}
}

/* A node prefetching variants 100.. with one thread once start_fd reads end-of-file (all
 * nodes start together); exits with its compile count. */
static int prefetch_node(int i, int start_fd)
{
	rocjit_program progs[PF_ITEMS];
	rocjit_prefetch_item items[PF_ITEMS];
	char opts[PF_ITEMS][48], name[16];
	const char *o[PF_ITEMS][1];
	rocjit_prefetch_options po = ROCJIT_PREFETCH_OPTIONS_INIT;
	rocjit_prefetch_status ps = ROCJIT_PREFETCH_STATUS_INIT;
	rocjit_prefetch *pf;
	rocjit_ctx *ctx;
	int compiles;

	snprintf(name, sizeof name, "pf%d", i);
	ctx = rj_node_open(name, url);
	pf_items(items, progs, opts, o, PF_ITEMS, 100);
	po.threads = 1;
	{
		char buf;
		if (read(start_fd, &buf, 1) < 0)
			return 252;
	}
	if (rocjit_prefetch_start(&pf, ctx, items, PF_ITEMS, &po) != 0)
		return 250;
	rocjit_prefetch_wait(pf, -1);
	if (rocjit_prefetch_status_get(&ps, pf) != 0)
		return 253;
	rocjit_prefetch_free(pf);
	compiles = (int)rj_test_stats(ctx).compiles;
	rocjit_close(ctx);
	return ps.failed || ps.done != PF_ITEMS ? 251 : compiles;
}

TEST(prefetching_nodes_compile_each_key_once)
{
	pid_t pids[PF_NODES];
	int total = 0, start[2];

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	ASSERT(pipe(start) == 0);
	for (int i = 0; i < PF_NODES; i++) {
		pids[i] = fork();
		ASSERT(pids[i] >= 0);
		if (pids[i] == 0) {
			close(start[1]);
			_exit(prefetch_node(i, start[0]));
		}
	}
	close(start[0]);
	usleep(300000); /* every node opened its context (under sanitizers too) */
	close(start[1]);
	for (int i = 0; i < PF_NODES; i++) {
		int status, n;
		ASSERT(waitpid(pids[i], &status, 0) == pids[i]);
		ASSERT(WIFEXITED(status));
		n = WEXITSTATUS(status);
		printf("node %d: %d compiles (exit status)\n", i, n);
		ASSERT(n <= PF_ITEMS);
		total += n;
	}
	/* Each key once across the nodes (which of them compiles what depends on how they
	   are scheduled: remote.prefetch_puts_aside_a_kernel_another_node_compiles checks
	   the putting aside itself). */
	ASSERT_INT(total, PF_ITEMS);
	ASSERT_INT(dbsize(&server), PF_ITEMS);
	rj_redis_stop(&server);
}

static size_t pf_order[PF_ITEMS], pf_done;

static void pf_progress(void *user, const rocjit_prefetch_status *st, size_t index, int rc,
			const char *message)
{
	(void)user, (void)st, (void)rc, (void)message;
	pf_order[pf_done++] = index; /* one thread: no race */
}

TEST(prefetch_puts_aside_a_kernel_another_node_compiles)
{
	rocjit_program progs[4];
	rocjit_prefetch_item items[4];
	char opts[4][48], key[33], lock[128];
	const char *o[4][1];
	rocjit_prefetch_options po = ROCJIT_PREFETCH_OPTIONS_INIT;
	rocjit_prefetch_status ps = ROCJIT_PREFETCH_STATUS_INIT;
	rocjit_prefetch *pf;
	rocjit_ctx *ctx;

	/* Another node holds item 0's lock (its lease ends in 3 s): the prefetch compiles
	   items 1-3 first, then takes item 0 up, waits for what is left of the lease (if
	   anything: compiles may be slower than 3 s here), and compiles it. */
	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	key_of_variant(200, key);
	snprintf(lock, sizeof lock, "rocjit:%d:%s:lock", RJ_RECORD_VERSION, key);
	{
		const char *w[] = { "SET", lock, "other-node:1:x", "PX", "3000", NULL };
		char r[64];
		call(&server, r, sizeof r, w);
	}
	ctx = rj_node_open("a", url);
	pf_items(items, progs, opts, o, 4, 200);
	po.threads = 1;
	po.progress = pf_progress;
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, items, 4, &po), 0);
	rocjit_prefetch_wait(pf, -1);
	ASSERT_INT(rocjit_prefetch_status_get(&ps, pf), 0);
	rocjit_prefetch_free(pf);
	ASSERT_INT(ps.failed, 0);
	ASSERT_INT(pf_done, 4);
	ASSERT_INT(pf_order[0], 1);
	ASSERT_INT(pf_order[3], 0); /* put aside, then done last */
	ASSERT_INT(rj_test_stats(ctx).compiles, 4); /* item 0 too, once its lease ran out */
	rocjit_close(ctx);
	rj_redis_stop(&server);
}

TEST(ttl_gives_values_a_lifetime_and_a_prefix_its_namespace)
{
	const rocjit_code *c;
	rocjit_ctx *a;
	char key[128], r[64];
	const char *ttl[3] = { "TTL", key, NULL };

	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, "ttl=100&prefix=team-a");
	a = rj_node_open("a", url);
	ASSERT_INT(compile_variant(a, 1, &c), 0);
	snprintf(key, sizeof key, "team-a:%d:%s", RJ_RECORD_VERSION, c->key);
	rocjit_close(a);
	call(&server, r, sizeof r, ttl);
	ASSERT(r[0] == ':' && atoi(r + 1) > 0 && atoi(r + 1) <= 100);
	ASSERT_INT(dbsize(&server), 1);
	/* Another prefix is another namespace: nothing there for it. */
	rj_node_url(url, sizeof url, &server, "prefix=team-b");
	a = rj_node_open("b", url);
	ASSERT_INT(compile_variant(a, 1, &c), 0);
	ASSERT_INT(rj_test_stats(a).remote_hits, 0);
	ASSERT_INT(rj_test_stats(a).compiles, 1);
	rocjit_close(a);
	ASSERT_INT(dbsize(&server), 2);
	rj_redis_stop(&server);
}

TEST(no_wait_setting_compiles_at_once_and_never_returns_an_internal_code)
{
	const rocjit_code *c;
	rocjit_ctx *ctx;
	char key[33], lock[128];

	/* ROCJIT_LOCK_TIMEOUT_MS=0: no waiting for another node's compile.  A lock another
	   node holds (for a minute) is then no reason to fail or to wait: compile here. */
	rj_redis_start(&server, "redis", NULL);
	rj_node_url(url, sizeof url, &server, NULL);
	key_of_variant(1, key);
	snprintf(lock, sizeof lock, "rocjit:%d:%s:lock", RJ_RECORD_VERSION, key);
	{
		const char *w[] = { "SET", lock, "other-node:1:x", "PX", "60000", NULL };
		char r[64];
		call(&server, r, sizeof r, w);
	}
	setenv("ROCJIT_LOCK_TIMEOUT_MS", "0", 1);
	ctx = rj_node_open("a", url);
	ASSERT_INT(compile_variant(ctx, 1, &c), 0);
	ASSERT_INT(c->from_cache, 0);
	ASSERT_INT(rj_test_stats(ctx).compiles, 1);
	rocjit_close(ctx);
	unsetenv("ROCJIT_LOCK_TIMEOUT_MS");
	rj_redis_stop(&server);
}
