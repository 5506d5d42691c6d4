/*
 * test_stress.c - many processes and threads against one cache: one compile per key
 * across processes, a holder killed or stopped mid-compile, and kill -9 during writes.
 * Bounded to a few tens of seconds; ctest label "stress" (CI runs it).
 */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define PROCS 16

static long long epoch_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Starts a probe with stdout+stderr to a file; returns its pid. */
static pid_t spawn_probe(const char *const argv[], const char *out, const char *const env[])
{
	pid_t pid;

	fflush(stdout); /* else the child's copy of the buffer is written again */
	pid = fork();

	if (pid == 0) {
		FILE *f = freopen(out, "w", stdout);
		(void)f;
		dup2(1, 2);
		rj_test_exec(argv, env);
	}
	return pid;
}

static long count_field(const char *text, const char *field)
{
	const char *p = strstr(text, field);
	return p ? strtol(p + strlen(field), NULL, 10) : -1;
}

/*
 * Rounds of PROCS processes (half of them with 4 threads) that start at the same
 * millisecond on an empty cache folder and all need the same kernel: the database is
 * created under them, one of them compiles, and every other one gets a disk hit.  No
 * process may fall back to memory (an escaped SQLITE_BUSY) or compile a second time.
 */
TEST(stampede_of_processes_and_threads_compiles_each_key_once)
{
	enum { ROUNDS = 3 };
	char start[32], out[PROCS][4300], src[4300], cache[4300];
	pid_t pid[PROCS];

	snprintf(src, sizeof src, "%s/axpy.hip", ROCJIT_TEST_KERNELS);
	for (int round = 0; round < ROUNDS; round++) {
		long compiles = 0, hits = 0;

		snprintf(cache, sizeof cache, "%s/round-%d", rj_test_dir, round);
		snprintf(start, sizeof start, "%lld", epoch_ms() + 1000);
		for (int i = 0; i < PROCS; i++) {
			const char *argv[] = { ROCJIT_TEST_PROBE, "--cache", cache, "--target", "gfx90a",
					 "--file", src, "--threads", i % 2 ? "4" : "1",
					 "--start-at", start, NULL };
			snprintf(out[i], sizeof out[i], "%s/probe-%d-%d.out", rj_test_dir, round, i);
			pid[i] = spawn_probe(argv, out[i], NULL);
		}
		for (int i = 0; i < PROCS; i++) {
			int status;
			char *text;
			ASSERT(waitpid(pid[i], &status, 0) == pid[i]);
			text = rj_test_read_file(out[i], NULL);
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || strstr(text, "warning"))
				rj_test_fail(__FILE__, __LINE__, "probe %d: %s", i, text);
			compiles += count_field(text, "compiles=");
			hits += count_field(text, "disk_hits=");
			free(text);
		}
		printf("round %d: %d processes (%d threads): %ld compile(s), %ld disk hits\n",
		       round, PROCS, PROCS / 2 * 4 + PROCS / 2, compiles, hits);
		ASSERT_INT(compiles, 1);
		ASSERT_INT(hits, PROCS - 1);
	}
}

/* A source slow to compile (seconds), so that a holder can be caught in the act. */
static void write_slow_source(const char *path)
{
	FILE *f = fopen(path, "w");

	ASSERT(f != NULL);
	fprintf(f, "template <int N> __device__ float f(float x) { return f<N - 1>(x) * 1.0001f + N; }\n"
		   "template <> __device__ float f<0>(float x) { return x; }\n");
	for (int i = 0; i < 60; i++)
		fprintf(f, "extern \"C\" __global__ void k%d(float *x) { x[threadIdx.x] = "
			   "f<%d>(x[threadIdx.x]); }\n", i, 150 + i);
	fclose(f);
}

static int lock_files(void)
{
	char cmd[4400];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof cmd, "ls %s/locks 2>/dev/null | wc -l", rj_test_cache_dir);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = 0;
	if (p)
		pclose(p);
	return n;
}

/* The waiter's wait, its own compile excluded, stays under max_wait_ms. */
static void holder_then_waiter(int sig, const char *timeout_env, double max_wait_ms)
{
	char src[4300], out_a[4300], out_b[4300];
	const char *env[] = { timeout_env, NULL };
	pid_t a, b;
	int status;
	double t0;
	char *text;

	snprintf(src, sizeof src, "%s/slow.hip", rj_test_dir);
	write_slow_source(src);
	snprintf(out_a, sizeof out_a, "%s/a.out", rj_test_dir);
	snprintf(out_b, sizeof out_b, "%s/b.out", rj_test_dir);
	{
		const char *argv[] = { ROCJIT_TEST_PROBE, "--cache", rj_test_cache_dir, "--target",
				 "gfx1030", "--file", src, NULL };
		a = spawn_probe(argv, out_a, env);
		/* Wait until A holds the key's lock (it is compiling). */
		for (int i = 0; i < 2000 && lock_files() == 0; i++)
			usleep(5000);
		ASSERT(lock_files() == 1);
		kill(a, sig);
		t0 = (double)epoch_ms();
		b = spawn_probe(argv, out_b, env);
		ASSERT(waitpid(b, &status, 0) == b);
	}
	text = rj_test_read_file(out_b, NULL);
	printf("waiter finished %.0f ms after the holder was %s: %s", (double)epoch_ms() - t0,
	       sig == SIGKILL ? "killed" : "stopped", text);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_CONTAINS(text, "compiles=1 ");
	/* What it waited, less its own compile (ms=, as the machine measured it: minutes
	   under a sanitizer on a loaded box), is bounded; the compile is not. */
	ASSERT(strstr(text, " ms="));
	ASSERT((double)epoch_ms() - t0 - strtod(strstr(text, " ms=") + 4, NULL) < max_wait_ms);
	free(text);
	kill(a, SIGKILL);
	waitpid(a, &status, 0);
}

TEST(holder_killed_mid_compile_blocks_nobody)
{
	/* The kernel drops a dead process's flock: the waiter compiles at once, not after
	   the (long) timeout. */
	holder_then_waiter(SIGKILL, "ROCJIT_LOCK_TIMEOUT_MS=600000", 60000); /* not 600 s */
}

TEST(holder_that_hangs_is_waited_for_at_most_the_timeout)
{
	holder_then_waiter(SIGSTOP, "ROCJIT_LOCK_TIMEOUT_MS=1500", 30000); /* 1.5 s, and the
									     start-up's slack */
}

static int count_bad(void)
{
	rocjit_ctx *ctx = rj_test_open();
	uint64_t checked = 0, bad = 0;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };

	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.cache_open, 1);
	ASSERT_INT(rocjit_cache_verify(ctx, 0, NULL, NULL, &checked, &bad), 0);
	printf("after the trials: the database opens, %llu entries checked, %llu bad\n",
	       (unsigned long long)checked, (unsigned long long)bad);
	rocjit_close(ctx);
	return (int)bad;
}

/*
 * kill -9 at random moments of compile-and-store runs (each run a new key, so every run
 * that lives long enough writes): the database must still open, verify clean, and every
 * entry it serves must be whole (the checksum is checked on every read).
 */
TEST(kill_9_during_writes_never_leaves_a_bad_entry)
{
	enum { TRIALS = 200 };
	char src[4300], out[4300], opt[64];
	unsigned seed = 12345;
	int killed = 0;

	snprintf(src, sizeof src, "%s/axpy.hip", ROCJIT_TEST_KERNELS);
	snprintf(out, sizeof out, "%s/trial.out", rj_test_dir);
	for (int t = 0; t < TRIALS; t++) {
		const char *argv[] = { ROCJIT_TEST_PROBE, "--cache", rj_test_cache_dir, "--target",
				 t % 2 ? "gfx90a" : "gfx1030", "--file", src, "--option", opt,
				 NULL };
		struct timespec nap;
		int status;
		pid_t pid;

		snprintf(opt, sizeof opt, "-DRJ_TRIAL=%d", t);
		pid = spawn_probe(argv, out, NULL);
		seed = seed * 1103515245u + 12345u;
		/* Between 50 and 450 ms: before, during and after the compile and the store. */
		nap.tv_sec = 0;
		nap.tv_nsec = (long)(50 + (seed >> 16) % 400) * 1000000L;
		nanosleep(&nap, NULL);
		kill(pid, SIGKILL);
		ASSERT(waitpid(pid, &status, 0) == pid);
		killed += WIFSIGNALED(status);
	}
	printf("%d trials, %d killed before they finished\n", TRIALS, killed);
	ASSERT(killed > TRIALS / 4);
	ASSERT_INT(count_bad(), 0);
}
