/*
 * test_workers.c - compiles run in worker processes (src/worker/): the compiler's aborts,
 * hangs and memory blow-ups fail one request and the application lives on; workers run
 * in parallel, start only for compiles, are replaced when they die, and are not shared
 * with a forked child; compiling ahead of need (rocjit_prefetch_*); every wait on a worker
 * is bounded by the limits, and a worker leaves no temporary folder behind however it
 * ends (issue 27).
 *
 * Every compile here is a real hipRTC compile in a real rocjit-worker process (the test
 * environment names it: ROCJIT_WORKER).
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* Uses a cross-lane shuffle, which hipRTC 5.2 lists gfx700 for and then cannot select:
 * LLVM aborts the process compiling it ("Cannot select: intrinsic llvm.amdgcn.ds.bpermute"). */
static const char shuffle_src[] =
	"extern \"C\" __global__ void swap_pairs(float *x)\n"
	"{\n"
	"\tx[threadIdx.x] = __shfl_xor(x[threadIdx.x], 1);\n"
	"}\n";

/* Constant evaluation that never ends in practice once its step limit is lifted. */
static const char endless_src[] =
	"constexpr unsigned long spin(unsigned long n)\n"
	"{\n"
	"\tunsigned long s = 0;\n"
	"\tfor (unsigned long i = 0; i < n; i++)\n"
	"\t\ts += i ^ (s >> 3);\n"
	"\treturn s;\n"
	"}\n"
	"template <unsigned long N> struct at_compile_time { static constexpr unsigned long v = spin(N); };\n"
	"extern \"C\" __global__ void k(unsigned long *x) { x[0] = at_compile_time<(1ul << 40)>::v; }\n";

/* 90,000 class template instantiations, each in a statement of its own (no deep recursion
 * anywhere, so no stack overflow first): about 470 MB and 8 s in the compiler. */
static const char greedy_src[] =
	"template <int N> struct blob { int pad[N % 13 + 1]; static constexpr int v = N % 3; };\n"
	"#define B1(n) s += blob<n>::v;\n"
	"#define B10(n) B1(n##0) B1(n##1) B1(n##2) B1(n##3) B1(n##4) B1(n##5) B1(n##6) B1(n##7) "
	"B1(n##8) B1(n##9)\n"
	"#define B100(n) B10(n##0) B10(n##1) B10(n##2) B10(n##3) B10(n##4) B10(n##5) B10(n##6) "
	"B10(n##7) B10(n##8) B10(n##9)\n"
	"#define B1000(n) B100(n##0) B100(n##1) B100(n##2) B100(n##3) B100(n##4) B100(n##5) "
	"B100(n##6) B100(n##7) B100(n##8) B100(n##9)\n"
	"#define B10000(n) B1000(n##0) B1000(n##1) B1000(n##2) B1000(n##3) B1000(n##4) "
	"B1000(n##5) B1000(n##6) B1000(n##7) B1000(n##8) B1000(n##9)\n"
	"extern \"C\" __global__ void k(int *x)\n"
	"{\n"
	"\tint s = 0;\n"
	"\tB10000(1) B10000(2) B10000(3) B10000(4) B10000(5) B10000(6) B10000(7) B10000(8) "
	"B10000(9)\n"
	"\tx[0] = s;\n"
	"}\n";

static rocjit_stats stats_of(rocjit_ctx *ctx)
{
	rocjit_stats st;

	memset(&st, 0, sizeof st);
	st.version = ROCJIT_STATS_VERSION;
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	return st;
}

static rocjit_ctx *open_flags(unsigned int flags)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;

	o.cache_dir = rj_test_cache_dir;
	o.flags = flags;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	return ctx;
}

static int compile_src(const rocjit_code **code, rocjit_ctx *ctx, const char *target,
		       const char *src, const char *opt, char *log, size_t log_size)
{
	const char *opts[] = { opt };

	return rj_test_compile(code, ctx, target, "t.hip", src, opt ? opts : NULL, opt ? 1 : 0,
			       NULL, 0, log, log_size);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* After a failure the same process still compiles: the next request gets a new worker. */
static void still_compiles(rocjit_ctx *ctx)
{
	const rocjit_code *code;

	code = rj_test_compile_variant(ctx, "gfx90a", "RJW_AFTER", 1);
	ASSERT(code->size > 0);
}

TEST(a_worker_compiles_the_bytes_an_in_process_compile_gives)
{
	rocjit_ctx *w = open_flags(ROCJIT_OPEN_NO_CACHE);
	rocjit_ctx *p = open_flags(ROCJIT_OPEN_NO_CACHE | ROCJIT_OPEN_COMPILE_INPROCESS);
	const rocjit_code *a = rj_test_compile_variant(w, "gfx90a", "RJW_SAME", 1);
	const rocjit_code *b = rj_test_compile_variant(p, "gfx90a", "RJW_SAME", 1);
	rocjit_stats sw = stats_of(w), sp = stats_of(p);

	ASSERT_INT(a->size, b->size);
	ASSERT(memcmp(a->data, b->data, a->size) == 0);
	ASSERT_STR(a->key, b->key);
	ASSERT_INT(sw.worker_compiles, 1);
	ASSERT_INT(sp.worker_compiles, 0);
	ASSERT_INT(sw.workers_started, 1);
	ASSERT_INT(sw.workers_running, 1);
	ASSERT(sw.worker_overhead_ms >= 0 && sw.worker_overhead_ms < sw.compile_ms);
	rocjit_close(w);
	rocjit_close(p);
}

TEST(an_aborting_compiler_fails_the_request_and_the_application_lives)
{
	rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	const rocjit_code *code;
	char log[4096];
	rocjit_stats st;
	int rc = compile_src(&code, ctx, "gfx700", shuffle_src, NULL, log, sizeof log);

	if (rc == 0)
		rj_test_skip("this hipRTC compiles a shuffle for gfx700: no abort to provoke");
	ASSERT_INT(rc, ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(rocjit_last_error(), "SIGABRT");
	ASSERT_CONTAINS(rocjit_last_error(), "t.hip for gfx700");
	ASSERT_CONTAINS(rocjit_last_error(), "Cannot select");
	ASSERT_CONTAINS(log, "LLVM ERROR");
	st = stats_of(ctx);
	ASSERT_INT(st.workers_lost, 1);
	ASSERT_INT(st.compile_errors, 1);
	still_compiles(ctx);
	st = stats_of(ctx);
	ASSERT_INT(st.workers_started, 2);
	/* A failed request is tried again when asked again, and fails the same way. */
	ASSERT_INT(compile_src(&code, ctx, "gfx700", shuffle_src, NULL, log, sizeof log),
		   ROCJIT_ECOMPILE);
	rocjit_close(ctx);
}

/*
 * With $var=value, src (compiled with opt) fails naming the limit (why), within 30 s; the
 * worker is lost, and without the limit the same process compiles again.
 */
static void stopped_at_limit(const char *var, const char *value, const char *src,
			     const char *opt, const char *why)
{
	rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	const rocjit_code *code;
	char log[1024];
	double t0 = now_s();

	setenv(var, value, 1);
	ASSERT_INT(compile_src(&code, ctx, "gfx90a", src, opt, log, sizeof log), ROCJIT_ECOMPILE);
	ASSERT(now_s() - t0 < 30);
	ASSERT_CONTAINS(rocjit_last_error(), why);
	ASSERT_INT(stats_of(ctx).workers_lost, 1);
	unsetenv(var);
	still_compiles(ctx);
	rocjit_close(ctx);
}

TEST(a_compile_past_the_time_limit_is_stopped)
{
	stopped_at_limit("ROCJIT_COMPILE_TIMEOUT", "1.5", endless_src, "-fconstexpr-steps=2147483647",
			 "time limit of 1.5 s (ROCJIT_COMPILE_TIMEOUT)");
}

TEST(a_compile_past_the_memory_limit_is_stopped)
{
	stopped_at_limit("ROCJIT_COMPILE_MEMORY_MB", "250", greedy_src, NULL,
			 "more than 250 MiB (ROCJIT_COMPILE_MEMORY_MB)");
}

/* The other process: the probe, linked with the shared library, which finds its worker
 * beside itself (ROCJIT_WORKER unset). */
static char *probe(const char *file, int expect_status)
{
	char cache_arg[4300];
	const char *argv[] = { ROCJIT_TEST_PROBE, "--cache", cache_arg, "--target", "gfx90a",
			       "--file", file, NULL };
	const char *env[] = { "ROCJIT_WORKER=", NULL };
	char *out = NULL;

	snprintf(cache_arg, sizeof cache_arg, "%s", rj_test_cache_dir);
	ASSERT_INT(rj_test_run(argv, env, &out), expect_status);
	return out;
}

TEST(a_cache_hit_starts_no_worker)
{
	char path[4200];
	char *out;

	snprintf(path, sizeof path, "%s/k.hip", rj_test_dir);
	rj_test_write_file(path, rj_test_axpy, strlen(rj_test_axpy));
	out = probe(path, 0);
	ASSERT_CONTAINS(out, "compiles=1 ");
	ASSERT_CONTAINS(out, "worker_compiles=1 workers_started=1 ");
	free(out);
	out = probe(path, 0);
	ASSERT_CONTAINS(out, "disk_hits=1 ");
	ASSERT_CONTAINS(out, "worker_compiles=0 workers_started=0 ");
	free(out);
}

struct job {
	rocjit_ctx *ctx;
	int i;
	const rocjit_code *code;
};

static void *compile_job(void *arg)
{
	struct job *j = arg;

	j->code = rj_test_compile_variant(j->ctx, "gfx1030", "RJW_PAR", j->i);
	return NULL;
}

TEST(workers_compile_at_the_same_time)
{
	rocjit_ctx *ctx;
	pthread_t t[2];
	struct job jobs[2];
	rocjit_stats st;

	setenv("ROCJIT_WORKERS", "2", 1);
	ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	for (int i = 0; i < 2; i++) {
		jobs[i].ctx = ctx;
		jobs[i].i = i;
		ASSERT_INT(pthread_create(&t[i], NULL, compile_job, &jobs[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	st = stats_of(ctx);
	ASSERT_INT(st.worker_compiles, 2);
	ASSERT_INT(st.workers_max, 2);
	/* Two at once take two workers; a third compile reuses one of them. */
	ASSERT_INT(st.workers_started, 2);
	rj_test_compile_variant(ctx, "gfx1030", "RJW_PAR", 9);
	ASSERT_INT(stats_of(ctx).workers_started, 2);
	ASSERT(strcmp(jobs[0].code->key, jobs[1].code->key) != 0);
	rocjit_close(ctx);
}

/* The pids of this process's children named rocjit-worker. */
static int worker_pids(pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	ASSERT(d != NULL);
	while ((e = readdir(d)) && n < max) {
		char path[300], text[512], *paren;
		FILE *f;
		int ppid = 0;

		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(text, sizeof text, f) && strstr(text, "(rocjit-worker)") &&
		    (paren = strrchr(text, ')')) && sscanf(paren + 2, "%*c %d", &ppid) == 1 &&
		    ppid == getpid())
			out[n++] = (pid_t)atoi(e->d_name);
		fclose(f);
	}
	closedir(d);
	return n;
}

TEST(a_worker_that_died_while_idle_is_replaced_without_a_failure)
{
	rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	pid_t pids[4];
	rocjit_stats st;

	rj_test_compile_variant(ctx, "gfx90a", "RJW_IDLE", 1);
	ASSERT_INT(worker_pids(pids, 4), 1);
	ASSERT_INT(kill(pids[0], SIGKILL), 0);
	usleep(100000);
	rj_test_compile_variant(ctx, "gfx90a", "RJW_IDLE", 2);
	st = stats_of(ctx);
	ASSERT_INT(st.workers_started, 2);
	ASSERT_INT(st.workers_lost, 0);
	ASSERT_INT(st.compile_errors, 0);
	rocjit_close(ctx);
}

/* Whether pid is a live process (not gone, not a zombie nobody reaped yet). */
static int running(pid_t pid)
{
	char path[64], text[512], *paren;
	FILE *f;
	int live = 0;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(text, sizeof text, f) && (paren = strrchr(text, ')')))
		live = paren[2] != 'Z' && paren[2] != 'X';
	fclose(f);
	return live;
}

TEST(a_worker_exits_when_its_forked_parent_exits)
{
	int fds[2], status;
	pid_t child, worker = 0;

	ASSERT_INT(pipe(fds), 0);
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
		pid_t pids[2];
		rj_test_compile_variant(ctx, "gfx90a", "RJW_EXIT", 1);
		if (worker_pids(pids, 2) != 1)
			_exit(1);
		if (write(fds[1], &pids[0], sizeof pids[0]) != (ssize_t)sizeof pids[0])
			_exit(1);
		_exit(0); /* without rocjit_close: the worker must notice alone */
	}
	close(fds[1]);
	ASSERT_INT(read(fds[0], &worker, sizeof worker), (long long)sizeof worker);
	ASSERT_INT(waitpid(child, &status, 0), child);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (int i = 0; i < 100 && running(worker); i++)
		usleep(50000);
	ASSERT(!running(worker));
}

TEST(a_forked_child_starts_its_own_workers)
{
	rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	pid_t child;
	int status;

	rj_test_compile_variant(ctx, "gfx90a", "RJW_FORK", 1);
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		rocjit_stats st = stats_of(ctx);
		if (st.workers_started != 0 || st.workers_running != 0)
			_exit(2);
		rj_test_compile_variant(ctx, "gfx90a", "RJW_FORK", 2);
		st = stats_of(ctx);
		_exit(st.workers_started == 1 && st.workers_running == 1 ? 0 : 3);
	}
	ASSERT_INT(waitpid(child, &status, 0), child);
	ASSERT(WIFEXITED(status));
	ASSERT_INT(WEXITSTATUS(status), 0);
	/* The parent's worker was not disturbed by the child's copy of its channel. */
	rj_test_compile_variant(ctx, "gfx90a", "RJW_FORK", 3);
	ASSERT_INT(stats_of(ctx).workers_started, 1);
	ASSERT_INT(stats_of(ctx).workers_lost, 0);
	rocjit_close(ctx);
}

/* With ROCJIT_WORKER=worker a compile fails with ROCJIT_ENOCOMPILER saying why. */
static void refused_worker(const char *worker, const char *why)
{
	rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	const rocjit_code *code;
	char log[256];

	if (worker) /* NULL: the one the configuration file names */
		setenv("ROCJIT_WORKER", worker, 1);
	ASSERT_INT(compile_src(&code, ctx, "gfx90a", rj_test_axpy, NULL, log, sizeof log),
		   ROCJIT_ENOCOMPILER);
	ASSERT_CONTAINS(rocjit_last_error(), why);
	rocjit_close(ctx);
}

TEST(rocjit_worker_naming_no_executable_is_an_error_that_says_so)
{
	refused_worker("/nonexistent/rocjit-worker", "ROCJIT_WORKER=/nonexistent/rocjit-worker");
}

TEST(a_worker_of_another_program_is_refused)
{
	refused_worker("/bin/cat", "did not start"); /* echoes: never a valid greeting */
}

/*
 * The worker is code this process runs, given every source: like a compiler library, it
 * must be owned by this user or root and writable by nobody else, and so must the folders
 * on its way (it is started by its path, again for each worker).  Each refusal names
 * what is wrong; the planted program never runs.
 */
/*
 * A worker a configuration file names (here the system file) is held to the trust rule;
 * ROCJIT_WORKER in the environment and the worker beside the library are the user's own
 * (pool.c).
 */
TEST(a_worker_others_could_change_is_not_run)
{
	char bin[4300], path[4400], marker[4400], script[4600], conf[4400], line[4500];

	snprintf(conf, sizeof conf, "%s/rocjit.conf", rj_test_dir);
	snprintf(bin, sizeof bin, "%s/bin", rj_test_dir);
	snprintf(line, sizeof line, "worker = %s/rocjit-worker\n", bin);
	rj_test_write_file(conf, line, strlen(line));
	ASSERT_INT(chmod(conf, 0644), 0);
	setenv("ROCJIT_CONFIG", conf, 1); /* before the process reads a setting */
	unsetenv("ROCJIT_WORKER");
	snprintf(path, sizeof path, "%s/rocjit-worker", bin);
	snprintf(marker, sizeof marker, "%s/it-ran", rj_test_dir);
	snprintf(script, sizeof script, "#!/bin/sh\ntouch %s\nexec sleep 600\n", marker);
	ASSERT_INT(mkdir(bin, 0755), 0);
	rj_test_write_file(path, script, strlen(script));
	ASSERT_INT(chmod(path, 0757), 0);
	refused_worker(NULL, "is writable by everyone (mode 0757)");
	ASSERT_INT(chmod(path, 0775), 0);
	refused_worker(NULL, "is writable by its group");
	ASSERT_INT(chmod(path, 0755), 0);
	ASSERT_INT(chmod(bin, 0777), 0);
	refused_worker(NULL, "is writable by every user (mode 0777)");
	ASSERT_CONTAINS(rocjit_last_error(), "chmod go-w");
	ASSERT_INT(chmod(bin, 0755), 0);
	if (geteuid() == 0) {
		ASSERT_INT(chown(path, 65534, 65534), 0);
		refused_worker(NULL, "is owned by user 65534");
		ASSERT_INT(chown(path, 0, 0), 0);
		ASSERT_INT(chown(bin, 65534, 65534), 0);
		refused_worker(NULL, "is owned by user 65534");
	}
	ASSERT(access(marker, F_OK) != 0);
}

TEST(in_process_compiling_starts_no_worker)
{
	rocjit_ctx *ctx;

	setenv("ROCJIT_COMPILE_INPROCESS", "1", 1);
	ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	rj_test_compile_variant(ctx, "gfx90a", "RJW_INPROC", 1);
	ASSERT_INT(stats_of(ctx).workers_started, 0);
	ASSERT_INT(stats_of(ctx).worker_compiles, 0);
	ASSERT_INT(stats_of(ctx).compiles, 1);
	rocjit_close(ctx);
}

TEST(a_compile_error_in_a_worker_gives_the_diagnostics_of_an_in_process_one)
{
	/* A compile error's diagnostics come back through the result, as in process. */
	rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	const rocjit_code *code;
	char log[4096];

	ASSERT_INT(compile_src(&code, ctx, "gfx90a", "extern \"C\" __global__ void k() { nope; }\n",
			       NULL, log, sizeof log), ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(log, "t.hip:1:");
	ASSERT_CONTAINS(log, "nope");
	ASSERT_CONTAINS(rocjit_last_error(), "did not compile for gfx90a");
	ASSERT_INT(stats_of(ctx).workers_lost, 0);
	rocjit_close(ctx);
}

/* ---- Compiling ahead of need ---------------------------------------------------------- */

struct progress {
	atomic_int calls, failures;
	atomic_size_t last_done;
	atomic_uint version;   /* the status version of the last call */
	atomic_uint seen;      /* bit i: item i was reported          */
	char message[512];
};

static void on_progress(void *user, const rocjit_prefetch_status *st, size_t index, int rc,
			const char *message)
{
	struct progress *p = user;

	atomic_fetch_add(&p->calls, 1);
	atomic_store(&p->version, st->version);
	if (index < 32)
		atomic_fetch_or(&p->seen, 1u << index);
	if (rc) {
		atomic_fetch_add(&p->failures, 1);
		snprintf(p->message, sizeof p->message, "%s", message);
	}
	if (st->done > atomic_load(&p->last_done))
		atomic_store(&p->last_done, st->done);
}

#define NPROGRAMS 4

TEST(prefetch_compiles_a_list_in_the_background_and_reports_progress)
{
	rocjit_ctx *ctx = open_flags(0);
	static char sources[NPROGRAMS][512];
	rocjit_program progs[NPROGRAMS];
	rocjit_prefetch_item items[NPROGRAMS];
	rocjit_prefetch_options opts = ROCJIT_PREFETCH_OPTIONS_INIT;
	rocjit_prefetch_status st = ROCJIT_PREFETCH_STATUS_INIT;
	struct progress p;
	rocjit_prefetch *pf;
	const rocjit_code *code;

	memset(&p, 0, sizeof p);
	memset(items, 0, sizeof items);
	for (int i = 0; i < NPROGRAMS; i++) {
		rocjit_program init = ROCJIT_PROGRAM_INIT;
		if (i == NPROGRAMS - 1)
			snprintf(sources[i], sizeof sources[i], "extern \"C\" __global__ void k() "
				 "{ broken; }\n");
		else
			snprintf(sources[i], sizeof sources[i], "#define N %d\n%s", i, rj_test_axpy);
		progs[i] = init;
		progs[i].name = "pre.hip";
		progs[i].source = sources[i];
		items[i].program = &progs[i];
		items[i].target = "gfx90a";
	}
	opts.progress = on_progress;
	opts.user = &p;
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, items, NPROGRAMS, &opts), 0);
	ASSERT_INT(rocjit_prefetch_wait(pf, -1), 0);
	ASSERT_INT(rocjit_prefetch_status_get(&st, pf), 0);
	ASSERT_INT(st.total, NPROGRAMS);
	ASSERT_INT(st.done, NPROGRAMS);
	ASSERT_INT(st.failed, 1);
	ASSERT_INT(st.compiled, NPROGRAMS - 1);
	ASSERT_INT(st.finished, 1);
	ASSERT_INT(atomic_load(&p.calls), NPROGRAMS);
	ASSERT_INT(atomic_load(&p.failures), 1);
	ASSERT_INT(atomic_load(&p.last_done), NPROGRAMS);
	ASSERT_CONTAINS(p.message, "pre.hip did not compile for gfx90a");
	rocjit_prefetch_free(pf);
	/* What it compiled is there for the application: a hit, no compile. */
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &progs[1]), 0);
	ASSERT_INT(stats_of(ctx).compiles, NPROGRAMS - 1);
	ASSERT_INT(stats_of(ctx).memory_hits, 1);
	rocjit_close(ctx);
	/* A second prefetch of the same list in a new context: cached, no worker needed. */
	ctx = open_flags(0);
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, items, NPROGRAMS - 1, NULL), 0);
	ASSERT_INT(rocjit_prefetch_wait(pf, 60), 0);
	ASSERT_INT(rocjit_prefetch_status_get(&st, pf), 0);
	ASSERT_INT(st.compiled, 0);
	ASSERT_INT(st.done, NPROGRAMS - 1);
	ASSERT_INT(stats_of(ctx).disk_hits, NPROGRAMS - 1);
	ASSERT_INT(stats_of(ctx).worker_compiles, 0);
	rocjit_prefetch_free(pf);
	rocjit_close(ctx);
}

TEST(prefetch_refuses_bad_items_and_options)
{
	rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	rocjit_prefetch_item item;
	rocjit_prefetch_options opts = ROCJIT_PREFETCH_OPTIONS_INIT;
	rocjit_prefetch *pf = (rocjit_prefetch *)&item;

	memset(&item, 0, sizeof item);
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, &item, 1, NULL), ROCJIT_EINVAL);
	ASSERT(pf == NULL);
	ASSERT_CONTAINS(rocjit_last_error(), "item 0");
	item.registered = "nothing.hip";
	opts.version = 99;
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, &item, 1, &opts), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_prefetch_options_init(&opts, 99), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_prefetch_options_init(&opts, ROCJIT_PREFETCH_OPTIONS_VERSION), 0);
	/* A registered name that does not exist fails that item, not the call. */
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, &item, 1, &opts), 0);
	ASSERT_INT(rocjit_prefetch_wait(pf, -1), 0);
	{
		rocjit_prefetch_status st = ROCJIT_PREFETCH_STATUS_INIT;
		ASSERT_INT(rocjit_prefetch_status_get(&st, pf), 0);
		ASSERT_INT(st.failed, 1);
	}
	rocjit_prefetch_free(pf);
	/* An empty list is finished at once. */
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, NULL, 0, NULL), 0);
	ASSERT_INT(rocjit_prefetch_wait(pf, 0), 0);
	rocjit_prefetch_free(pf);
	rocjit_prefetch_free(NULL);
	rocjit_close(ctx);
}

/* The status is versioned like every struct the library fills: the caller's version is
 * honoured, a version 0 (an uninitialised struct) or a newer one is refused untouched. */
TEST(prefetch_status_get_refuses_version_0_and_too_new)
{
	rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	rocjit_prefetch_status st = ROCJIT_PREFETCH_STATUS_INIT;
	rocjit_prefetch *pf;

	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, NULL, 0, NULL), 0);
	ASSERT_INT(rocjit_prefetch_wait(pf, 0), 0);

	memset(&st, 0xab, sizeof st);
	st.version = 0;
	ASSERT_INT(rocjit_prefetch_status_get(&st, pf), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "version 0");
	ASSERT_CONTAINS(rocjit_last_error(), "rocjit_prefetch_status_init");
	ASSERT_INT(st.version, 0);
	ASSERT(st.total == (size_t)0xabababababababab && st.finished == (int)0xabababab);

	st.version = ROCJIT_PREFETCH_STATUS_VERSION + 1;
	ASSERT_INT(rocjit_prefetch_status_get(&st, pf), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_PREFETCH_STATUS_VERSION");
	ASSERT_INT(st.version, ROCJIT_PREFETCH_STATUS_VERSION + 1);
	ASSERT(st.total == (size_t)0xabababababababab); /* refused: untouched */

	ASSERT_INT(rocjit_prefetch_status_init(&st, ROCJIT_PREFETCH_STATUS_VERSION), 0);
	ASSERT_INT(rocjit_prefetch_status_get(&st, pf), 0);
	ASSERT_STR(rocjit_last_error(), "");
	ASSERT_INT(st.version, ROCJIT_PREFETCH_STATUS_VERSION);
	ASSERT_INT(st.total, 0);
	ASSERT_INT(st.finished, 1);
	ASSERT_INT(rocjit_prefetch_status_get(NULL, pf), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_prefetch_status_get(&st, NULL), ROCJIT_EINVAL);
	rocjit_prefetch_free(pf);
	rocjit_close(ctx);
}

/* What a caller built with a later header passes: its rocjit_prefetch_item has a field
 * this library does not know, at the end. */
struct wide_item {
	rocjit_prefetch_item item;
	const char *later_field;
};

#define NWIDE 3

/* items[] is read with the caller's item_size: each wide item's program is compiled (and
 * the field past the known ones never read), so the application's later requests are
 * hits. */
TEST(prefetch_reads_items_with_a_larger_item_size)
{
	rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	static char sources[NWIDE][512];
	rocjit_program progs[NWIDE];
	struct wide_item wide[NWIDE];
	rocjit_prefetch_options opts = ROCJIT_PREFETCH_OPTIONS_INIT;
	rocjit_prefetch_status st = ROCJIT_PREFETCH_STATUS_INIT;
	struct progress p;
	rocjit_prefetch *pf;

	ASSERT(sizeof wide[0] > sizeof(rocjit_prefetch_item));
	memset(&p, 0, sizeof p);
	memset(wide, 0, sizeof wide);
	for (int i = 0; i < NWIDE; i++) {
		rocjit_program init = ROCJIT_PROGRAM_INIT;
		snprintf(sources[i], sizeof sources[i], "#define N %d\n%s", 40 + i, rj_test_axpy);
		progs[i] = init;
		progs[i].name = "wide.hip";
		progs[i].source = sources[i];
		wide[i].item.program = &progs[i];
		wide[i].item.target = "gfx90a";
		/* Read as an item at the wrong stride, this would be a program pointer. */
		wide[i].later_field = "not a program";
	}
	opts.item_size = sizeof wide[0];
	opts.progress = on_progress;
	opts.user = &p;
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, &wide[0].item, NWIDE, &opts), 0);
	ASSERT_INT(rocjit_prefetch_wait(pf, -1), 0);
	ASSERT_INT(rocjit_prefetch_status_get(&st, pf), 0);
	ASSERT_INT(st.total, NWIDE);
	ASSERT_INT(st.done, NWIDE);
	ASSERT_INT(st.failed, 0);
	ASSERT_INT(st.compiled, NWIDE);
	ASSERT_INT(atomic_load(&p.calls), NWIDE);
	ASSERT_INT(atomic_load(&p.seen), (1u << NWIDE) - 1);
	/* The progress calls' status carries this library's version. */
	ASSERT_INT(atomic_load(&p.version), ROCJIT_PREFETCH_STATUS_VERSION);
	rocjit_prefetch_free(pf);
	/* Exactly these programs were compiled: each is now a hit. */
	for (int i = 0; i < NWIDE; i++) {
		const rocjit_code *code;
		ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &progs[i]), 0);
	}
	ASSERT_INT(stats_of(ctx).compiles, NWIDE);
	ASSERT_INT(stats_of(ctx).memory_hits, NWIDE);
	rocjit_close(ctx);
}

TEST(prefetch_refuses_an_item_size_too_small_or_misaligned)
{
	rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	rocjit_prefetch_item items[2];
	rocjit_prefetch_options opts = ROCJIT_PREFETCH_OPTIONS_INIT;
	rocjit_prefetch_status st = ROCJIT_PREFETCH_STATUS_INIT;
	rocjit_prefetch *pf = (rocjit_prefetch *)&items[0];

	memset(items, 0, sizeof items);
	items[0].registered = items[1].registered = "nothing.hip";
	opts.item_size = sizeof(rocjit_prefetch_item) - sizeof(void *);
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, items, 2, &opts), ROCJIT_EINVAL);
	ASSERT(pf == NULL);
	ASSERT_CONTAINS(rocjit_last_error(), "item_size");
	opts.item_size = sizeof(rocjit_prefetch_item) + 1;
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, items, 1, &opts), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "a multiple of");
	opts.item_size = SIZE_MAX - SIZE_MAX % _Alignof(rocjit_prefetch_item);
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, items, 2, &opts), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "too large");

	/* 0 is version 1's size; so is any item_size under options version 1, which has no
	 * such field (the bytes there are the caller's, not options). */
	opts.item_size = 0;
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, items, 2, &opts), 0);
	ASSERT_INT(rocjit_prefetch_wait(pf, -1), 0);
	ASSERT_INT(rocjit_prefetch_status_get(&st, pf), 0);
	ASSERT_INT(st.done, 2);
	ASSERT_INT(st.failed, 2); /* no such registered source: the items fail, not the call */
	rocjit_prefetch_free(pf);
	ASSERT_INT(rocjit_prefetch_options_init(&opts, 1), 0);
	opts.item_size = 3;
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, items, 2, &opts), 0);
	ASSERT_INT(rocjit_prefetch_wait(pf, -1), 0);
	ASSERT_INT(rocjit_prefetch_status_get(&st, pf), 0);
	ASSERT_INT(st.done, 2);
	rocjit_prefetch_free(pf);
	rocjit_close(ctx);
}

TEST(prefetch_free_cancels_what_has_not_started)
{
	rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	static char sources[12][512];
	rocjit_program progs[12];
	rocjit_prefetch_item items[12];
	rocjit_prefetch_options opts = ROCJIT_PREFETCH_OPTIONS_INIT;
	rocjit_prefetch *pf;

	memset(items, 0, sizeof items);
	for (int i = 0; i < 12; i++) {
		rocjit_program init = ROCJIT_PROGRAM_INIT;
		snprintf(sources[i], sizeof sources[i], "#define N %d\n%s", i, rj_test_axpy);
		progs[i] = init;
		progs[i].name = "c.hip";
		progs[i].source = sources[i];
		items[i].program = &progs[i];
		items[i].target = "gfx90a";
	}
	opts.threads = 1;
	ASSERT_INT(rocjit_prefetch_start(&pf, ctx, items, 12, &opts), 0);
	ASSERT_INT(rocjit_prefetch_wait(pf, 0.01), 1); /* 12 compiles take longer */
	rocjit_prefetch_free(pf);
	ASSERT(stats_of(ctx).compiles < 12);
	rocjit_close(ctx);
}

/* ---- Limits, and what a worker leaves behind (issue 27) ------------------------------------
 *
 * Each test points TMPDIR at a folder of its own before the first compile, so that what
 * is left there is the test's: a worker's private folder (rocjit-worker-*) or comgr's.
 */

static char tmp[4200];

/* Compiles src (option opt, or none) for gfx90a: rocjit_compile's result. */
static int try_compile(rocjit_ctx *ctx, const char *src, const char *opt)
{
	const rocjit_code *code;

	return compile_src(&code, ctx, "gfx90a", src, opt, NULL, 0);
}


/* TMPDIR: a folder of the test's own, before anything chose one. */
static void private_tmpdir(void)
{
	snprintf(tmp, sizeof tmp, "%s/tmp", rj_test_dir);
	ASSERT_INT(mkdir(tmp, 0700), 0);
	ASSERT_INT(setenv("TMPDIR", tmp, 1), 0);
}

/* How many entries of dir start with prefix (a NULL prefix: any). */
static int count_in(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && (!prefix || strncmp(e->d_name, prefix, strlen(prefix)) == 0))
			n++;
	closedir(d);
	return n;
}

/* Whether a worker folder of tmp holds a comgr folder now: its path in out. */
static int comgr_folder(char *out, size_t size)
{
	DIR *d = opendir(tmp);
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d)) != NULL) {
		char sub[4600];
		if (strncmp(e->d_name, "rocjit-worker-", 14) != 0)
			continue;
		snprintf(sub, sizeof sub, "%s/%s", tmp, e->d_name);
		if (count_in(sub, "comgr-") > 0) {
			snprintf(out, size, "%s", sub);
			found = 1;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* Nothing of a worker or of comgr is left in TMPDIR. */
static void nothing_left(void)
{
	ASSERT_INT(count_in(tmp, "rocjit-worker-"), 0);
	ASSERT_INT(count_in(tmp, "comgr-"), 0);
}

struct bg {
	rocjit_ctx *ctx;
	const char *src, *opt;
	int rc;
	char error[2048];
	int saw_private; /* a comgr folder was seen inside a worker's folder, mode 0700 */
	atomic_int done;  /* the compile returned (its results above are then written) */
};

static void *compile_bg(void *arg)
{
	struct bg *b = arg;

	b->rc = try_compile(b->ctx, b->src, b->opt);
	snprintf(b->error, sizeof b->error, "%s", rocjit_last_error());
	atomic_store(&b->done, 1);
	return NULL;
}

/* Waits (up to 60 s) until the compile in b is under way in a worker's private folder. */
static void wait_for_private_folder(struct bg *b)
{
	char dir[4600];
	struct stat st;

	for (int i = 0; i < 6000 && !atomic_load(&b->done); i++) {
		if (comgr_folder(dir, sizeof dir) && stat(dir, &st) == 0) {
			b->saw_private = (st.st_mode & 0777) == 0700;
			return;
		}
		usleep(10000);
	}
}

/*
 * With $var=value, src fails naming the limit; while it compiled, comgr's temporary
 * folder was inside the worker's private one (0700); afterwards nothing is left.
 */
static void stopped_leaves_nothing(const char *var, const char *value, const char *src,
				   const char *opt, const char *why)
{
	struct bg b = { 0 };
	pthread_t t;

	private_tmpdir();
	setenv(var, value, 1);
	b.ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	b.src = src;
	b.opt = opt;
	ASSERT_INT(pthread_create(&t, NULL, compile_bg, &b), 0);
	wait_for_private_folder(&b);
	pthread_join(t, NULL);
	ASSERT_INT(b.rc, ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(b.error, why);
	ASSERT(b.saw_private);
	nothing_left();
	rocjit_close(b.ctx);
}

TEST(a_worker_stopped_at_the_time_limit_leaves_no_temporary_folder)
{
	stopped_leaves_nothing("ROCJIT_COMPILE_TIMEOUT", "3", endless_src,
			       "-fconstexpr-steps=2147483647",
			       "time limit of 3 s (ROCJIT_COMPILE_TIMEOUT)");
}

TEST(a_worker_stopped_at_the_memory_limit_leaves_no_temporary_folder)
{
	stopped_leaves_nothing("ROCJIT_COMPILE_MEMORY_MB", "250", greedy_src, NULL,
			       "more than 250 MiB (ROCJIT_COMPILE_MEMORY_MB)");
}

/* The pid of this process's child running rocjit-worker, or 0. */
static pid_t worker_child(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	while (d && !found && (e = readdir(d)) != NULL) {
		char path[300], text[512], comm[64];
		int pid, ppid;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(text, sizeof text, f) &&
		    sscanf(text, "%d (%63[^)]) %*c %d", &pid, comm, &ppid) == 3 &&
		    ppid == (int)getpid() && strcmp(comm, "rocjit-worker") == 0)
			found = pid;
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

TEST(a_worker_killed_mid_compile_leaves_no_temporary_folder)
{
	struct bg b = { 0 };
	pthread_t t;
	pid_t pid;

	private_tmpdir();
	setenv("ROCJIT_COMPILE_TIMEOUT", "120", 1);
	b.ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	b.src = endless_src;
	b.opt = "-fconstexpr-steps=2147483647";
	ASSERT_INT(pthread_create(&t, NULL, compile_bg, &b), 0);
	wait_for_private_folder(&b);
	ASSERT(b.saw_private);
	pid = worker_child();
	ASSERT(pid > 0);
	ASSERT_INT(kill(pid, SIGKILL), 0);
	pthread_join(t, NULL);
	ASSERT_INT(b.rc, ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(b.error, "signal 9");
	nothing_left();
	rocjit_close(b.ctx);
}

/* A worker program that starts and never greets. */
static void silent_worker(char *path, size_t size)
{
	static const char script[] = "#!/bin/sh\nexec sleep 600\n";

	snprintf(path, size, "%s/silent-worker", rj_test_dir);
	rj_test_write_file(path, script, sizeof script - 1);
	ASSERT_INT(chmod(path, 0755), 0);
	if (access(path, X_OK) != 0)
		rj_test_skip("the test folder does not allow running programs");
}

TEST(a_worker_that_never_greets_fails_within_the_time_limit)
{
	char path[4300];
	rocjit_ctx *ctx;
	double t0;

	private_tmpdir();
	silent_worker(path, sizeof path);
	setenv("ROCJIT_WORKER", path, 1);
	setenv("ROCJIT_COMPILE_TIMEOUT", "2", 1);
	ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	t0 = now_s();
	ASSERT_INT(try_compile(ctx, "extern \"C\" __global__ void k(int *x) { x[0] = 1; }\n",
			       NULL), ROCJIT_ENOCOMPILER);
	ASSERT(now_s() - t0 >= 1.9);
	ASSERT(now_s() - t0 < 4.0); /* not the fixed 120 s it was */
	ASSERT_CONTAINS(rocjit_last_error(), "no greeting within the time limit "
			"(ROCJIT_COMPILE_TIMEOUT)");
	ASSERT_INT(worker_child(), 0); /* killed and reaped */
	nothing_left();
	rocjit_close(ctx);
}

TEST(the_folders_of_a_parent_that_crashed_are_swept_and_their_links_not_followed)
{
	char stale[4400], live[4400], path[4600], outside[4400];
	rocjit_ctx *ctx;
	pid_t dead = fork();

	ASSERT(dead >= 0);
	if (dead == 0)
		_exit(0);
	ASSERT_INT(waitpid(dead, NULL, 0), dead);
	private_tmpdir();
	/* A crashed parent's folder, with comgr's inside and a link out of it. */
	snprintf(stale, sizeof stale, "%s/rocjit-worker-%d-AbCdEf", tmp, (int)dead);
	ASSERT_INT(mkdir(stale, 0700), 0);
	snprintf(path, sizeof path, "%s/comgr-123456", stale);
	ASSERT_INT(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/comgr-123456/input.hip", stale);
	rj_test_write_file(path, "x", 1);
	snprintf(outside, sizeof outside, "%s/outside", rj_test_dir);
	ASSERT_INT(mkdir(outside, 0700), 0);
	snprintf(path, sizeof path, "%s/outside/keep.txt", rj_test_dir);
	rj_test_write_file(path, "keep", 4);
	snprintf(path, sizeof path, "%s/comgr-123456/link", stale);
	ASSERT_INT(symlink(outside, path), 0);
	/* A live process's folder (this test's parent): left alone. */
	snprintf(live, sizeof live, "%s/rocjit-worker-%d-GhIjKl", tmp, (int)getppid());
	ASSERT_INT(mkdir(live, 0700), 0);

	ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	ASSERT_INT(try_compile(ctx, "extern \"C\" __global__ void k(int *x) { x[0] = 1; }\n",
			       NULL), 0);
	ASSERT(access(stale, F_OK) != 0);
	ASSERT(access(live, F_OK) == 0);
	snprintf(path, sizeof path, "%s/outside/keep.txt", rj_test_dir);
	ASSERT(access(path, F_OK) == 0);
	rocjit_close(ctx);
	ASSERT_INT(rmdir(live), 0);
}

TEST(the_time_limit_bounds_a_compile_and_the_next_compile_works)
{
	rocjit_ctx *ctx;
	double t0;

	private_tmpdir();
	setenv("ROCJIT_COMPILE_TIMEOUT", "2", 1);
	ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
	t0 = now_s();
	ASSERT_INT(try_compile(ctx, endless_src, "-fconstexpr-steps=2147483647"), ROCJIT_ECOMPILE);
	ASSERT(now_s() - t0 < 4.0 + 30.0); /* the worker's start (loading hipRTC) + 2 s */
	ASSERT_CONTAINS(rocjit_last_error(), "time limit of 2 s");
	unsetenv("ROCJIT_COMPILE_TIMEOUT");
	ASSERT_INT(try_compile(ctx, "extern \"C\" __global__ void k(int *x) { x[0] = 2; }\n",
			       NULL), 0);
	rocjit_close(ctx);
}

/* Whether tmp still holds a folder of a worker of parent. */
static int folder_of(pid_t parent)
{
	char prefix[64];

	snprintf(prefix, sizeof prefix, "rocjit-worker-%d-", (int)parent);
	return count_in(tmp, prefix) > 0;
}

/* Reaps child (killed, or exiting with want), then waits up to 5 s for its worker to
 * remove its own folder: nobody else does. */
static void reaped_and_folder_gone(pid_t child, int killed, int want)
{
	int status;

	ASSERT_INT(waitpid(child, &status, 0), child);
	ASSERT(killed ? WIFSIGNALED(status) : WIFEXITED(status) && WEXITSTATUS(status) == want);
	for (int i = 0; i < 100 && folder_of(child); i++)
		usleep(50000);
	ASSERT(!folder_of(child));
}

TEST(a_worker_whose_parent_is_killed_mid_compile_removes_its_folder)
{
	char dir[4600];
	pid_t child;

	private_tmpdir();
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
		setenv("ROCJIT_COMPILE_TIMEOUT", "120", 1);
		(void)try_compile(ctx, endless_src, "-fconstexpr-steps=2147483647");
		_exit(1);
	}
	for (int i = 0; i < 6000 && !comgr_folder(dir, sizeof dir); i++)
		usleep(10000);
	ASSERT(folder_of(child));
	ASSERT_INT(kill(child, SIGKILL), 0);
	reaped_and_folder_gone(child, 1, 0);
	ASSERT_INT(count_in(tmp, "comgr-"), 0);
}

TEST(a_worker_whose_parent_exits_without_reaping_it_removes_its_folder)
{
	pid_t child;

	private_tmpdir();
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		rocjit_ctx *ctx = open_flags(ROCJIT_OPEN_NO_CACHE);
		rj_test_compile_variant(ctx, "gfx90a", "RJW_TMP", 1);
		_exit(folder_of(getpid()) ? 0 : 1); /* no rocjit_close, no destructor */
	}
	reaped_and_folder_gone(child, 0, 0);
}
