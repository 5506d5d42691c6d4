/*
 * test_process.c - rocjit across processes: fork() with an open context, callbacks that
 * call back into their context, usage records of processes that crash or never close,
 * prewarm's time limit, and the key locks' files (stale ones, shared mode, hostile ones).
 *
 * Every test that could hang on a regression runs under alarm(): it fails instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "store/cache_internal.h"
#include "base/error.h"
#include "request/context.h"
#include "store/keylock.h"

#define TARGET "gfx90a"

static char db_path[4400];

static const char *cache_db(void)
{
	snprintf(db_path, sizeof db_path, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	return db_path;
}

/* Runs one integer query on the cache file through a connection of its own. */
static long long query_int(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long v = -1;

	ASSERT_INT(sqlite3_open_v2(cache_db(), &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	ASSERT_INT(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void assert_integrity(void)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	ASSERT_INT(sqlite3_open_v2(cache_db(), &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ASSERT_INT(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	ASSERT_INT(sqlite3_step(st), SQLITE_ROW);
	ASSERT_STR((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* The stored row of the variant -D<macro>=<i> (compiled in a context of its own). */
static void key_of(char key[33], const char *macro, int i)
{
	rocjit_ctx *ctx = rj_test_open();
	snprintf(key, 33, "%s", rj_test_compile_variant(ctx, TARGET, macro, i)->key);
	rocjit_close(ctx);
}

static long long column_of(const char *key, const char *column)
{
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT %s FROM entries WHERE hex(key) = upper('%s')", column,
		 key);
	return query_int(sql);
}

struct seen {
	const char *key;
	long long hits, last_used;
};

static int seen_entry(const rocjit_entry *e, void *user)
{
	struct seen *s = user;

	if (!strcmp(e->key, s->key)) {
		s->hits = (long long)e->hits;
		s->last_used = e->last_used;
	}
	return 0;
}

/* An entry's hits and last use as rocjit reports them (rocjit list): the database's, with
 * the read index's usage board added (hits served by the index are recorded there). */
static struct seen usage_of(const char *key)
{
	struct seen s = { key, -1, -1 };
	rocjit_ctx *ctx = rj_test_open();

	ASSERT_INT(rocjit_cache_foreach(ctx, seen_entry, &s), 0);
	rocjit_close(ctx);
	return s;
}

static long long disk_hits_counted(void)
{
	rocjit_counters n = ROCJIT_COUNTERS_INIT;
	rocjit_ctx *ctx = rj_test_open();

	ASSERT_INT(rocjit_counters_get(&n, ctx), 0);
	rocjit_close(ctx);
	return (long long)n.disk_hits;
}

/* Waits for a child; its exit status, or 128+signal. */
static int wait_child(pid_t pid)
{
	int status;
	ASSERT(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* fork() for a test: the child has its own alarm (a child's hang would otherwise keep the
 * test's output open past the parent's alarm). */
static pid_t fork_bounded(void)
{
	pid_t pid = fork();
	if (pid == 0)
		alarm(60);
	return pid;
}

/* A child's check: exits with the line number that failed, 0 when all held. */
#define CHILD_CHECK(cond)              \
	do {                           \
		if (!(cond)) {         \
			fprintf(stderr, "child: %s:%d: %s (%s)\n", __FILE__, __LINE__, #cond, \
				rocjit_last_error()); \
			_exit(__LINE__ % 200 + 1); \
		}                      \
	} while (0)

/* ---- fork ------------------------------------------------------------------------------- */

/*
 * Two children use the parent's context: each compiles a key of its own, hits an entry
 * the parent compiled (memory) and one only on disk.  The parent goes on with the same
 * context; every entry is there and the file is sound.
 */
TEST(fork_children_use_the_context_and_the_parent_cache_stays_intact)
{
	rocjit_ctx *ctx;
	char disk_key[33];
	pid_t pid[2];
	uint64_t checked = 1, bad = 1;

	alarm(120);
	key_of(disk_key, "DISK", 1);
	ctx = rj_test_open();
	rj_test_compile_variant(ctx, TARGET, "PARENT", 1);
	for (int k = 0; k < 2; k++) {
		pid[k] = fork_bounded();
		ASSERT(pid[k] >= 0);
		if (pid[k] == 0) {
			/* (a failed ASSERT exits the child with 1) */
			const rocjit_code *c = rj_test_compile_variant(ctx, TARGET, "CHILD", k);
			CHILD_CHECK(!c->from_cache);
			rj_test_compile_variant(ctx, TARGET, "PARENT", 1);
			c = rj_test_compile_variant(ctx, TARGET, "DISK", 1);
			CHILD_CHECK(c->from_cache && !strcmp(c->key, disk_key));
			CHILD_CHECK(rocjit_cache_verify(ctx, 0, NULL, NULL, &checked, &bad) == 0 &&
				    bad == 0 && checked >= 3);
			rocjit_close(ctx);
			_exit(0);
		}
	}
	ASSERT_INT(wait_child(pid[0]), 0);
	ASSERT_INT(wait_child(pid[1]), 0);
	rj_test_compile_variant(ctx, TARGET, "PARENT", 2);
	ASSERT_INT(rocjit_cache_verify(ctx, 0, NULL, NULL, &checked, &bad), 0);
	ASSERT_INT(bad, 0);
	ASSERT_INT(checked, 5); /* DISK, PARENT x2, CHILD x2 */
	rocjit_close(ctx);
	assert_integrity();
	ASSERT_INT(query_int("SELECT count(*) FROM entries"), 5);
}

/*
 * The parent closes its context while a child it forked still has it: a connection the
 * child inherited would hold no lock of its own, so the parent's close, seeing itself
 * last, would checkpoint and delete the WAL under it, and what the child stored after
 * would be lost.  The child's own connection keeps it.
 */
TEST(fork_child_stores_survive_the_parent_closing_first)
{
	rocjit_ctx *ctx, *again;
	int go[2], done[2];
	char byte = 0;
	pid_t pid;

	alarm(120);
	ASSERT(pipe(go) == 0 && pipe(done) == 0);
	ctx = rj_test_open();
	rj_test_compile_variant(ctx, TARGET, "BEFORE", 1);
	pid = fork_bounded();
	ASSERT(pid >= 0);
	if (pid == 0) {
		CHILD_CHECK(read(go[0], &byte, 1) == 1);
		rj_test_compile_variant(ctx, TARGET, "CHILD", 7);
		CHILD_CHECK(write(done[1], &byte, 1) == 1);
		CHILD_CHECK(read(go[0], &byte, 1) == 1); /* stays until the parent looked */
		_exit(0);
	}
	rocjit_close(ctx);
	ASSERT(write(go[1], &byte, 1) == 1);
	ASSERT(read(done[0], &byte, 1) == 1);
	{
		rocjit_options o = ROCJIT_OPTIONS_INIT;
		o.cache_dir = rj_test_cache_dir;
		o.flags = ROCJIT_OPEN_NO_COMPILE;
		ASSERT_INT(rocjit_open(&again, &o), 0);
		/* Not ROCJIT_ENOTCACHED: the child's store is there. */
		ASSERT(rj_test_compile_variant(again, TARGET, "CHILD", 7)->from_cache);
		rocjit_close(again);
	}
	ASSERT(write(go[1], &byte, 1) == 1);
	ASSERT_INT(wait_child(pid), 0);
	assert_integrity();
}

static const char slow_source[] =
	"#include <hip/hip_runtime.h>\n"
	"constexpr long burn(long n) { long s = 0; for (long i = 0; i < 300000; i++) "
	"s += (i ^ n) & 7; return s; }\n"
	"extern \"C\" __global__ void slow(long *out) { constexpr long v = burn(3); *out = v; }\n";

static void *compile_slow(void *arg)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *c;

	p.source = slow_source;
	return (void *)(intptr_t)rocjit_compile(&c, arg, TARGET, &p);
}

/* 1 when ctx's table holds an entry still being produced. */
static int has_pending(rocjit_ctx *ctx)
{
	int pending = 0;
	pthread_rwlock_rdlock(&ctx->rw);
	for (size_t i = 0; i < ctx->nbuckets; i++)
		for (struct rj_slot *e = ctx->buckets[i]; e; e = e->next)
			pending |= e->state == RJ_PENDING;
	pthread_rwlock_unlock(&ctx->rw);
	return pending;
}

/*
 * fork() while another thread compiles: in the child no thread will ever finish that
 * entry.  The child asking for the same program must get it (from the cache, once the
 * parent stored it), not wait forever for a thread that does not exist there.
 */
TEST(fork_during_another_threads_compile_does_not_hang_the_child)
{
	rocjit_ctx *ctx = rj_test_open();
	pthread_t t;
	void *ret;
	pid_t pid;

	alarm(120);
	ASSERT_INT(pthread_create(&t, NULL, compile_slow, ctx), 0);
	for (int i = 0; i < 2000 && !has_pending(ctx); i++)
		usleep(1000);
	ASSERT(has_pending(ctx));
	pid = fork_bounded();
	ASSERT(pid >= 0);
	if (pid == 0) {
		rocjit_program p = ROCJIT_PROGRAM_INIT;
		const rocjit_code *c = NULL;
		alarm(60);
		p.source = slow_source;
		CHILD_CHECK(rocjit_compile(&c, ctx, TARGET, &p) == 0 && c->size > 0);
		_exit(0);
	}
	ASSERT_INT(wait_child(pid), 0);
	ASSERT_INT(pthread_join(t, &ret), 0);
	ASSERT_INT((intptr_t)ret, 0);
	rocjit_close(ctx);
}

/*
 * A context whose device the parent initialized: in the child, kernels are refused with a
 * message naming fork (GPU runtimes do not survive it), while compiling still works.
 * (No GPU here: the parent's device is marked as known, as device_target() would.)
 */
TEST(fork_child_gets_no_kernels_of_a_device_its_parent_initialized)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;
	pid_t pid;

	alarm(60);
	o.cache_dir = rj_test_cache_dir;
	o.platform = ROCJIT_PLATFORM_AMD;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	snprintf(ctx->device_target, sizeof ctx->device_target, "%s", TARGET);
	atomic_store(&ctx->device_state, 1);
	pid = fork_bounded();
	ASSERT(pid >= 0);
	if (pid == 0) {
		rocjit_program p = ROCJIT_PROGRAM_INIT;
		rocjit_kernel *k = NULL;
		p.source = rj_test_axpy;
		CHILD_CHECK(rocjit_kernel_get(&k, ctx, &p, "axpy") == ROCJIT_EDEVICE && !k);
		CHILD_CHECK(strstr(rocjit_last_error(), "fork") != NULL);
		rj_test_compile_variant(ctx, TARGET, "CHILD", 1);
		_exit(0);
	}
	ASSERT_INT(wait_child(pid), 0);
	rocjit_close(ctx);
}

/* ---- key locks across fork ------------------------------------------------------------- */

static rj_key test_key(void)
{
	rj_key k;
	for (int i = 0; i < 16; i++)
		k.b[i] = (uint8_t)(0xa0 + i);
	return k;
}

/*
 * A process holding a key lock forks a child that lives on, then dies without releasing
 * (as kill -9 does).  The lock must be free at once: the child's inherited descriptor
 * must not keep it for the lock timeout.
 *
 * The child closes its copy in the fork handler, which runs in the child before fork()
 * returns there, not before it returns in the parent.  So the child itself says when it
 * runs: had the holder said so right after fork(), the holder could die before the child
 * was first scheduled, and the lock would be seen held for those microseconds (this test
 * failed about one run in ten that way on a loaded 2-core machine).
 */
TEST(key_lock_of_a_dead_parent_is_free_at_once_though_its_child_lives)
{
	struct rj_keylock l;
	rj_key key = test_key();
	int ready[2];
	char byte;
	pid_t holder, child = 0;

	alarm(30);
	ASSERT(mkdir(rj_test_cache_dir, 0700) == 0);
	ASSERT(pipe(ready) == 0);
	holder = fork_bounded();
	ASSERT(holder >= 0);
	if (holder == 0) {
		pid_t c;
		CHILD_CHECK(rj_keylock_try(&l, rj_test_cache_dir, &key) == RJ_LOCK_HELD);
		c = fork_bounded();
		CHILD_CHECK(c >= 0);
		if (c == 0) {
			c = getpid();
			CHILD_CHECK(write(ready[1], &c, sizeof c) == sizeof c);
			pause(); /* lives on with what it inherited */
			_exit(0);
		}
		_exit(0); /* dies holding it */
	}
	ASSERT(read(ready[0], &child, sizeof child) == sizeof child);
	ASSERT_INT(wait_child(holder), 0);
	ASSERT_INT(rj_keylock_try(&l, rj_test_cache_dir, &key), RJ_LOCK_HELD);
	rj_keylock_release(&l);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	(void)byte;
}

/* A child releasing its copy of its parent's held lock changes nothing: the parent still
 * holds it, its file is still there, and nobody else gets it. */
TEST(fork_child_cannot_release_its_parents_key_lock)
{
	struct rj_keylock l, other;
	rj_key key = test_key();
	char path[4400], hex[33];
	pid_t pid;

	alarm(30);
	ASSERT(mkdir(rj_test_cache_dir, 0700) == 0);
	ASSERT_INT(rj_keylock_try(&l, rj_test_cache_dir, &key), RJ_LOCK_HELD);
	pid = fork_bounded();
	ASSERT(pid >= 0);
	if (pid == 0) {
		rj_keylock_release(&l);
		_exit(0);
	}
	ASSERT_INT(wait_child(pid), 0);
	rj_key_hex(&key, hex);
	snprintf(path, sizeof path, "%s/locks/%s.lock", rj_test_cache_dir, hex);
	ASSERT(access(path, F_OK) == 0);
	pid = fork_bounded();
	ASSERT(pid >= 0);
	if (pid == 0) /* another process: the lock is taken */
		_exit(rj_keylock_try(&other, rj_test_cache_dir, &key) == RJ_LOCK_BUSY ? 0 : 1);
	ASSERT_INT(wait_child(pid), 0);
	rj_keylock_release(&l);
	ASSERT(access(path, F_OK) != 0);
}

/* ---- callbacks that call back --------------------------------------------------------------- */

struct reentry {
	rocjit_ctx *ctx;
	int calls, nested, compiled;
};

static int count_fn(const rocjit_entry *e, void *user)
{
	(void)e;
	(*(int *)user)++;
	return 0;
}

static int reenter(const rocjit_entry *e, void *user)
{
	struct reentry *r = user;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_counters cn = ROCJIT_COUNTERS_INIT;
	uint64_t checked = 0;
	int n = 0;

	ASSERT(e->key[0]);
	r->calls++;
	ASSERT_INT(rocjit_stats_get(&st, r->ctx), 0);
	ASSERT(st.entries >= 3);
	ASSERT_INT(rocjit_counters_get(&cn, r->ctx), 0);
	ASSERT_INT(rocjit_cache_foreach(r->ctx, count_fn, &n), 0);
	r->nested += n;
	ASSERT_INT(rocjit_cache_verify(r->ctx, 0, NULL, NULL, &checked, NULL), 0);
	ASSERT(checked >= 3);
	if (!r->compiled++) {
		rj_test_compile_variant(r->ctx, TARGET, "INSIDE", 1);
		ASSERT_INT(rocjit_cache_compact(r->ctx), 0);
	}
	return 0;
}

static int find_fn(const rocjit_entry *e, const void *code, size_t size, void *user)
{
	struct reentry *r = user;
	int n = 0;

	ASSERT(code && size == e->size);
	ASSERT_INT(rocjit_cache_foreach(r->ctx, count_fn, &n), 0);
	ASSERT(n >= 3);
	r->calls++;
	return 0;
}

static void bad_fn(const rocjit_entry *e, int reason, const char *message, void *user)
{
	struct reentry *r = user;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	const char *keys[1] = { e->key };
	size_t removed = 0;

	(void)message;
	ASSERT_INT(reason, ROCJIT_VERIFY_CHECKSUM);
	ASSERT_INT(rocjit_stats_get(&st, r->ctx), 0);
	ASSERT_INT(rocjit_cache_remove(r->ctx, keys, 1, &removed), 0);
	ASSERT_INT(removed, 1);
	r->calls++;
}

/* Every walk's callback may call anything on the same context; before, each deadlocked
 * on the cache lock the walk held (the alarm makes that a failure). */
TEST(cache_callbacks_may_call_back_into_their_context)
{
	struct reentry r = { 0 };
	rocjit_ctx *ctx = rj_test_open();
	const rocjit_code *c;
	char sql[256], prefix[9];
	sqlite3 *db;
	uint64_t bad = 0;

	alarm(60);
	r.ctx = ctx;
	for (int i = 0; i < 3; i++)
		c = rj_test_compile_variant(ctx, TARGET, "WALK", i);
	ASSERT_INT(rocjit_cache_foreach(ctx, reenter, &r), 0);
	ASSERT(r.calls >= 3);
	ASSERT(r.nested >= 9);

	r.calls = 0;
	snprintf(prefix, sizeof prefix, "%.8s", c->key);
	ASSERT_INT(rocjit_cache_find(ctx, prefix, find_fn, &r), 0);
	ASSERT_INT(r.calls, 1);

	/* A bad entry, whose callback removes it itself. */
	ASSERT_INT(sqlite3_open(cache_db(), &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	snprintf(sql, sizeof sql, "UPDATE entries SET checksum = checksum + 1 WHERE hex(key) = "
		 "upper('%s')", c->key);
	ASSERT_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	r.calls = 0;
	ASSERT_INT(rocjit_cache_verify(ctx, 0, bad_fn, &r, NULL, &bad), 0);
	ASSERT_INT(bad, 1);
	ASSERT_INT(r.calls, 1);
	ASSERT_INT(column_of(c->key, "count(*)"), 0);
	rocjit_close(ctx);
}

/* A walk over more entries than one batch sees each exactly once, in key order. */
TEST(cache_walk_over_many_batches_sees_each_entry_once)
{
	rj_cache *c;
	struct rj_cache_meta m = { "amd", TARGET, "fake", "", "x.hip", "", "k", 1.0, { { 0 } }, NULL, NULL, RJ_ORIGIN_COMPILED, NULL };
	rocjit_ctx *ctx;
	int n = 0;

	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	for (int i = 0; i < 300; i++) {
		rj_key k;
		memset(&k, 0, sizeof k);
		k.b[0] = (uint8_t)(i >> 8);
		k.b[1] = (uint8_t)i;
		ASSERT_INT(rj_cache_put(c, &k, &m, "code", 4), 0);
	}
	rj_cache_close(c);
	ctx = rj_test_open();
	ASSERT_INT(rocjit_cache_foreach(ctx, count_fn, &n), 0);
	ASSERT_INT(n, 300);
	rocjit_close(ctx);
}

/* ---- usage records ---------------------------------------------------------------------------- */

/* Entries USED (hit by the child) and UNUSED, created a second before the child runs. */
static void two_entries(char used[33], char unused[33])
{
	key_of(used, "USED", 1);
	key_of(unused, "UNUSED", 1);
	sleep(2); /* last_used has whole seconds */
}

/* A child process that hits `used` from disk, then either waits to be killed or exits
 * without rocjit_close. */
static pid_t child_hitting(int exit_without_close, int ready_fd)
{
	pid_t pid = fork_bounded();

	ASSERT(pid >= 0);
	if (pid == 0) {
		rocjit_ctx *ctx = rj_test_open();
		CHILD_CHECK(rj_test_compile_variant(ctx, TARGET, "USED", 1)->from_cache);
		CHILD_CHECK(write(ready_fd, "x", 1) == 1);
		if (exit_without_close)
			exit(0);
		pause();
		_exit(0);
	}
	return pid;
}

/* Entries USED and UNUSED; a child process hits USED, then is killed (kill -9) a little
 * later, or exits without rocjit_close.  Either way USED is left newer than UNUSED, and
 * its hit counted: recorded on the read index's board at the hit (test_index.c has the
 * board's own tests), or written by the flusher or at exit. */
static void hits_recorded(int killed)
{
	char used[33], unused[33], byte;
	int ready[2];
	pid_t pid;

	alarm(60);
	two_entries(used, unused);
	ASSERT(pipe(ready) == 0);
	pid = child_hitting(!killed, ready[1]);
	ASSERT(read(ready[0], &byte, 1) == 1);
	if (killed) {
		usleep(3000 * 1000); /* past the batching period (2 s) */
		kill(pid, SIGKILL);
	}
	ASSERT_INT(wait_child(pid), killed ? 128 + SIGKILL : 0);
	ASSERT_INT(usage_of(used).hits, 1);
	ASSERT_INT(usage_of(unused).hits, 0);
	ASSERT(usage_of(used).last_used > usage_of(unused).last_used);
	ASSERT_INT(disk_hits_counted(), 1);
}

/* Hits are recorded within seconds (on the index at once), not at close. */
TEST(hits_of_a_killed_process_are_recorded)
{
	hits_recorded(1);
}

/* A process that exits without rocjit_close writes its pending hits at exit. */
TEST(hits_of_a_process_exiting_without_close_are_recorded)
{
	hits_recorded(0);
}

static int commits;

static int count_commit(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&commits, 1, __ATOMIC_RELAXED);
	return 0;
}

/* 1000 disk hits are a few write transactions, not one each; all are counted at close. */
TEST(a_thousand_disk_hits_are_a_few_write_transactions)
{
	struct rj_cache_meta m = { "amd", TARGET, "fake", "", "x.hip", "", "k", 1.0, { { 0 } }, NULL, NULL, RJ_ORIGIN_COMPILED, NULL };
	rj_cache *c;
	rj_key k;
	const void *code;
	void *owned;
	size_t size;
	double ms, t0;

	memset(&k, 7, sizeof k);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(rj_cache_put(c, &k, &m, "code", 4), 0);
	pthread_mutex_lock(&c->lock);
	sqlite3_commit_hook(c->db, count_commit, NULL);
	pthread_mutex_unlock(&c->lock);
	t0 = rj_now_ms();
	for (int i = 0; i < 1000; i++) {
		ASSERT_INT(rj_cache_get(c, &k, &code, &owned, &size, &ms, NULL), 1);
		free(owned);
	}
	printf("1000 disk hits: %d write transactions, %.1f us a hit\n", commits,
	       (rj_now_ms() - t0) * 1e3 / 1000);
	ASSERT(commits <= 5);
	rj_cache_close(c);
	{
		char key[33];
		rj_key_hex(&k, key);
		ASSERT_INT(column_of(key, "hits"), 1000);
	}
}

/* ---- prewarm's time limit ----------------------------------------------------------------- */

#ifdef ROCJIT_TEST_CLI
/* A compile that would run for minutes (constant evaluation on the order of 10^9 steps). */
static const char hang_source[] =
	"#include <hip/hip_runtime.h>\n"
	"constexpr long burn(long n) { long s = 0; for (long i = 0; i < 900000; i++) "
	"s += (i ^ n) & 7; return s; }\n"
	"template <int N> struct Slow { static constexpr long a = burn(N), b = burn(N + 1);\n"
	"  static constexpr long v = a + b + Slow<N - 1>::v; };\n"
	"template <> struct Slow<0> { static constexpr long v = 0; };\n"
	"extern \"C\" __global__ void hang(long *out) { *out = Slow<1000>::v; }\n";

static int run_prewarm(const char *timeout, const char *env_timeout, char **out)
{
	char dir[4300], env[64];
	const char *argv[12];
	const char *envp[2] = { NULL, NULL };
	int n = 0;

	snprintf(dir, sizeof dir, "%s/kernels", rj_test_dir);
	argv[n++] = ROCJIT_TEST_CLI;
	argv[n++] = "--cache";
	argv[n++] = rj_test_cache_dir;
	argv[n++] = "prewarm";
	argv[n++] = "--arch";
	argv[n++] = TARGET;
	argv[n++] = "--no-progress";
	if (timeout) {
		argv[n++] = "--timeout";
		argv[n++] = timeout;
	}
	argv[n++] = dir;
	argv[n] = NULL;
	if (env_timeout) {
		snprintf(env, sizeof env, "ROCJIT_COMPILE_TIMEOUT=%s", env_timeout);
		envp[0] = env;
	}
	return rj_test_run(argv, envp, out);
}

static void kernel_files(void)
{
	char dir[4300], path[4400];

	snprintf(dir, sizeof dir, "%s/kernels", rj_test_dir);
	ASSERT(mkdir(dir, 0700) == 0);
	snprintf(path, sizeof path, "%s/hang.hip", dir);
	rj_test_write_file(path, hang_source, strlen(hang_source));
	snprintf(path, sizeof path, "%s/axpy.hip", dir);
	rj_test_write_file(path, rj_test_axpy, strlen(rj_test_axpy));
}

/* A compiler that runs forever costs its job, named with the limit, and nothing else.  The
 * limit counts the compile alone (the worker loads its compiler before it takes a job).
 * 20 s leaves room for axpy in the ASan pass on a loaded 2-core machine, where every
 * allocation of the compiler takes a full stack unwind (fast_unwind_on_malloc=0): 9 s
 * was measured there with the hung compile beside it. */
TEST(prewarm_kills_a_hung_compile_at_its_time_limit_and_goes_on)
{
	char *out = NULL;
	double t0 = rj_now_ms();

	alarm(120);
	kernel_files();
	ASSERT_INT(run_prewarm("20", NULL, &out), 1);
	printf("%s", out);
	ASSERT(rj_now_ms() - t0 < 60000);
	ASSERT_CONTAINS(out, "FAILED hang.hip");
	ASSERT_CONTAINS(out, "time limit of 20 s");
	ASSERT_CONTAINS(out, "1 compiled");
	ASSERT_CONTAINS(out, "1 failed");
	free(out);
}

/* The same limit from the environment; a malformed --timeout is a usage error. */
TEST(prewarm_takes_its_time_limit_from_rocjit_compile_timeout)
{
	char *out = NULL;

	alarm(120);
	kernel_files();
	ASSERT_INT(run_prewarm(NULL, "20", &out), 1);
	ASSERT_CONTAINS(out, "time limit of 20 s");
	ASSERT_CONTAINS(out, "1 compiled");
	free(out);
	ASSERT_INT(run_prewarm("soon", NULL, &out), 2);
	ASSERT_CONTAINS(out, "--timeout soon");
	free(out);
}
#endif

/* ---- lock files --------------------------------------------------------------------------- */

static void make_old_lock(const char *name, int age_s)
{
	char path[4400];
	struct timespec t[2];
	int fd;

	snprintf(path, sizeof path, "%s/locks/%s", rj_test_cache_dir, name);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	ASSERT(fd >= 0);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age_s;
	t[1] = t[0];
	ASSERT(futimens(fd, t) == 0);
	close(fd);
}

static int lock_exists(const char *name)
{
	char path[4400];
	snprintf(path, sizeof path, "%s/locks/%s", rj_test_cache_dir, name);
	return access(path, F_OK) == 0;
}

/* Lock files killed processes left (old, held by nobody) go at the first lock a process
 * takes; a held one, a young one and other names stay. */
TEST(stale_lock_files_are_removed_and_held_ones_kept)
{
	char locks[4300], name[64], held_path[4400];
	rocjit_ctx *ctx = rj_test_open();
	int held;

	alarm(60);
	snprintf(locks, sizeof locks, "%s/locks", rj_test_cache_dir);
	mkdir(locks, 0700);
	for (int i = 0; i < 50; i++) {
		snprintf(name, sizeof name, "%032x.lock", i + 1);
		make_old_lock(name, 120);
	}
	make_old_lock("ffffffffffffffffffffffffffffff01.lock", 120); /* held */
	make_old_lock("ffffffffffffffffffffffffffffff02.lock", 0);   /* young */
	make_old_lock("notes.txt", 120);
	snprintf(held_path, sizeof held_path, "%s/ffffffffffffffffffffffffffffff01.lock", locks);
	held = open(held_path, O_RDONLY);
	ASSERT(held >= 0 && flock(held, LOCK_EX) == 0);
	rj_test_compile_variant(ctx, TARGET, "SWEEP", 1); /* a miss: takes a key lock */
	for (int i = 0; i < 50; i++) {
		snprintf(name, sizeof name, "%032x.lock", i + 1);
		ASSERT(!lock_exists(name));
	}
	ASSERT(lock_exists("ffffffffffffffffffffffffffffff01.lock"));
	ASSERT(lock_exists("ffffffffffffffffffffffffffffff02.lock"));
	ASSERT(lock_exists("notes.txt"));
	close(held);
	rocjit_close(ctx);
}

/* `rocjit purge` (rocjit_cache_remove) sweeps too, even in a process that took no lock. */
TEST(removing_entries_sweeps_stale_lock_files)
{
	char locks[4300];
	rocjit_ctx *ctx = rj_test_open();
	const char *none[1] = { "00000000000000000000000000000000" };

	snprintf(locks, sizeof locks, "%s/locks", rj_test_cache_dir);
	mkdir(locks, 0700);
	make_old_lock("0123456789abcdef0123456789abcdef.lock", 3600);
	ASSERT_INT(rocjit_cache_remove(ctx, none, 1, NULL), 0);
	ASSERT(!lock_exists("0123456789abcdef0123456789abcdef.lock"));
	rocjit_close(ctx);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	ASSERT(lstat(path, &st) == 0);
	return st.st_mode & 07777;
}

/* In a group-shared cache every member can take every key lock (folder 0770, files 0660,
 * whatever the umask); a private cache keeps 0700 and 0600, and is never widened. */
TEST(shared_cache_key_locks_are_group_usable_and_private_ones_stay_private)
{
	struct rj_keylock l;
	rj_key key = test_key();
	char locks[4300], file[4400], hex[33];

	umask(077);
	ASSERT(mkdir(rj_test_cache_dir, 0700) == 0);
	snprintf(locks, sizeof locks, "%s/locks", rj_test_cache_dir);
	ASSERT_INT(rj_keylock_try(&l, rj_test_cache_dir, &key), RJ_LOCK_HELD);
	rj_key_hex(&key, hex);
	snprintf(file, sizeof file, "%s/%s.lock", locks, hex);
	ASSERT_INT(mode_of(locks), 0700);
	ASSERT_INT(mode_of(file), 0600);
	rj_keylock_release(&l);

	setenv("ROCJIT_CACHE_SHARED", "1", 1);
	ASSERT_INT(rj_keylock_try(&l, rj_test_cache_dir, &key), RJ_LOCK_HELD);
	ASSERT_INT(mode_of(locks), 0770); /* the private folder of before, widened: opted in */
	ASSERT_INT(mode_of(file), 0660);
	rj_keylock_release(&l);
	ASSERT(rmdir(locks) == 0);
	ASSERT_INT(rj_keylock_try(&l, rj_test_cache_dir, &key), RJ_LOCK_HELD);
	ASSERT_INT(mode_of(locks), 0770); /* made: 0770 despite umask 077 */
	rj_keylock_release(&l);

	setenv("ROCJIT_CACHE_SHARED", "", 1); /* set but empty: off */
	ASSERT(rmdir(locks) == 0);
	ASSERT_INT(rj_keylock_try(&l, rj_test_cache_dir, &key), RJ_LOCK_HELD);
	ASSERT_INT(mode_of(locks), 0700);
	ASSERT_INT(mode_of(file), 0600);
	rj_keylock_release(&l);
}

/* Another member's lock file made 0640 by its umask: a lock needs no write access. */
TEST(shared_cache_lock_file_of_another_member_can_be_taken)
{
	struct rj_keylock l;
	rj_key key = test_key();
	char file[4400], hex[33];
	pid_t pid;

	if (geteuid() != 0)
		exit(77);
	setenv("ROCJIT_CACHE_SHARED", "1", 1);
	ASSERT(mkdir(rj_test_cache_dir, 0770) == 0);
	ASSERT_INT(rj_keylock_try(&l, rj_test_cache_dir, &key), RJ_LOCK_HELD);
	rj_keylock_release(&l);
	rj_key_hex(&key, hex);
	snprintf(file, sizeof file, "%s/locks/%s.lock", rj_test_cache_dir, hex);
	rj_test_write_file(file, "", 0);
	ASSERT(chmod(file, 0640) == 0 && chown(file, 4242, getegid()) == 0);
	ASSERT(chown(rj_test_dir, 4242, getegid()) == 0 && chmod(rj_test_dir, 0770) == 0);
	ASSERT(chown(rj_test_cache_dir, 4242, getegid()) == 0);
	{
		char locks[4300];
		snprintf(locks, sizeof locks, "%s/locks", rj_test_cache_dir);
		ASSERT(chown(locks, 4242, getegid()) == 0);
	}
	pid = fork_bounded();
	ASSERT(pid >= 0);
	if (pid == 0) {
		CHILD_CHECK(setegid(getegid()) == 0 && seteuid(4243) == 0);
		CHILD_CHECK(rj_keylock_try(&l, rj_test_cache_dir, &key) == RJ_LOCK_HELD);
		_exit(0);
	}
	ASSERT_INT(wait_child(pid), 0);
}

/* A locks/ planted as a link, or a lock file that is a link or a FIFO: refused (the
 * compile goes on without a lock), nothing created where a link points, no blocking. */
TEST(hostile_lock_files_are_refused_without_following_or_blocking)
{
	struct rj_keylock l;
	rj_key key = test_key();
	char locks[4300], elsewhere[4300], file[4400], hex[33];

	alarm(10);
	ASSERT(mkdir(rj_test_cache_dir, 0700) == 0);
	snprintf(locks, sizeof locks, "%s/locks", rj_test_cache_dir);
	snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", rj_test_dir);
	ASSERT(mkdir(elsewhere, 0700) == 0);
	ASSERT(symlink(elsewhere, locks) == 0);
	ASSERT_INT(rj_keylock_try(&l, rj_test_cache_dir, &key), RJ_LOCK_UNAVAILABLE);
	ASSERT(rmdir(elsewhere) == 0); /* still empty */

	ASSERT(unlink(locks) == 0 && mkdir(locks, 0700) == 0);
	rj_key_hex(&key, hex);
	snprintf(file, sizeof file, "%s/%s.lock", locks, hex);
	ASSERT(mkfifo(file, 0600) == 0);
	ASSERT_INT(rj_keylock_try(&l, rj_test_cache_dir, &key), RJ_LOCK_UNAVAILABLE);
	ASSERT(unlink(file) == 0);
	snprintf(elsewhere, sizeof elsewhere, "%s/planted", rj_test_dir);
	ASSERT(symlink(elsewhere, file) == 0);
	ASSERT_INT(rj_keylock_try(&l, rj_test_cache_dir, &key), RJ_LOCK_UNAVAILABLE);
	ASSERT(access(elsewhere, F_OK) != 0);
	ASSERT(chmod(locks, 0777) == 0 && unlink(file) == 0);
	ASSERT_INT(rj_keylock_try(&l, rj_test_cache_dir, &key), RJ_LOCK_UNAVAILABLE);
}
