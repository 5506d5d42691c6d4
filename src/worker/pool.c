/*
 * pool.c - the compile workers of this process: finding the worker executable, starting
 * workers, handing each compile to an idle one, and what happens when one dies or runs
 * past a limit.
 *
 * Why processes (rocFFT's run-time-compile helper is the precedent): an LLVM abort, a
 * crash or an out-of-memory inside the compiler ends the process it runs in, and hipRTC
 * 5.x is not thread-safe, so compiles inside one process are serialized.  In a worker, a
 * failed compile costs one request and one worker, and compiles run in parallel.
 *
 * Workers start with posix_spawn (process.c; never a bare fork: the application may hold
 * locks and vendor threads a forked child would inherit half-taken), one at a time as compiles need
 * them, up to rj_worker_max(), and live as long as this process: the compiler loads once
 * per worker.  A worker ends by itself when its socket closes (this process exited) or
 * when its parent is gone (serve.c).  A cache hit never reaches this file.
 *
 * Limits, read at each compile: $ROCJIT_COMPILE_TIMEOUT (seconds; default 600; 0: none)
 * and $ROCJIT_COMPILE_MEMORY_MB (the worker's resident memory, sampled every 100 ms while
 * it compiles; default half of this machine's memory; 0: none).  A worker past either is
 * killed (SIGKILL: a compiler in a loop answers nothing else).  The same limits bound
 * every wait on a worker: its start (the greeting; 120 s when no time limit is set), the
 * request sent to it, its answer, and its end (process.c).  Each worker has a private
 * temporary folder, removed when it ends for any reason (process.c).
 *
 * Owns the pool (a process-wide table of workers under one mutex), which thread uses which
 * worker, the limits, and what a failed compile's message says.  One worker process -
 * starting it, receiving under the limits, ending it - is process.c's; the bytes are
 * wire.c's; the platforms are called directly only on the in-process path.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/env.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/trust.h"
#include "compile/vendor_lib.h"
#include "worker/pool.h"
#include "worker/process.h"
#include "worker/wire.h"

#define DEFAULT_TIMEOUT_S 600.0 /* generous: the largest real files take a few minutes */

/* The relative path from the library's folder to the installed worker's (CMake). */
#ifndef ROCJIT_WORKER_RELDIR
#define ROCJIT_WORKER_RELDIR "rocjit"
#endif

#define POOL_MAX 256

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct rj_wproc w[POOL_MAX];
	int max;         /* 0 until the first compile through the pool                    */
	char path[PATH_MAX];
	int path_state;  /* 0 not looked for, 1 found, -1 none: compile in process        */
} pool = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static atomic_uint_fast64_t started, lost;

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/*
 * In a forked child: the workers are the parent's.  The child closes its copies of their
 * channels (the parent's copies keep them alive) and starts its own when it compiles;
 * the lock may have been held by a thread that does not exist in the child.
 */
static void forget_workers(void)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

	for (int i = 0; i < POOL_MAX; i++) {
		if (pool.w[i].pid) {
			close(pool.w[i].sock);
			close(pool.w[i].out);
		}
		memset(&pool.w[i], 0, sizeof pool.w[i]);
	}
	pool.mu = mu;
	pool.cv = cv;
	atomic_store(&started, 0);
	atomic_store(&lost, 0);
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&pool.mu);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&pool.mu);
}

static void install_atfork(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, forget_workers);
}

/*
 * At exit (or when the library is unloaded): the idle workers are killed and reaped here,
 * not left to notice their closed socket and be reaped by whoever inherits them (in a
 * container whose first process does not reap, they would stay as zombies).  Workers in
 * the middle of a compile for another thread are left alone: they end when they notice.
 */
__attribute__((destructor)) static void stop_idle_workers(void)
{
	if (pthread_mutex_trylock(&pool.mu) != 0)
		return;
	for (int i = 0; i < POOL_MAX; i++)
		if (!pool.w[i].busy && pool.w[i].pid > 0)
			(void)rj_wproc_retire(&pool.w[i], 1);
	pthread_mutex_unlock(&pool.mu);
}

int rj_worker_max(void)
{
	cpu_set_t set;
	long cpus = 1;

	if (sched_getaffinity(0, sizeof set, &set) == 0)
		cpus = CPU_COUNT(&set);
	else if (sysconf(_SC_NPROCESSORS_ONLN) > 0)
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return (int)rj_env_long("ROCJIT_WORKERS", cpus < 1 ? 1 : cpus, 1, POOL_MAX);
}

void rj_worker_counts(struct rj_worker_counts *out)
{
	int running = 0;

	pthread_mutex_lock(&pool.mu);
	for (int i = 0; i < POOL_MAX; i++)
		running += pool.w[i].busy || pool.w[i].pid > 0; /* busy: compiling or starting */
	out->max = pool.max ? pool.max : rj_worker_max();
	pthread_mutex_unlock(&pool.mu);
	out->started = atomic_load(&started);
	out->lost = atomic_load(&lost);
	out->running = running;
}

/* ---- Finding the worker ------------------------------------------------------------------ */

static int executable(const char *path)
{
	return access(path, X_OK) == 0;
}

/*
 * A worker a configuration file names is code this process runs, given every source it
 * compiles, named by a file another party may have written (a system file, a shared
 * home): it falls under the trust rule as the compiler libraries do
 * (compile/vendor_lib.c): a regular file owned by this user or root and writable by
 * nobody else.  One named by this process's environment is its user's own choice, and
 * the one beside the library is as trusted as the library that found it (whoever can
 * change it can change the library): neither is held to the rule, which a build tree made
 * under umask 002 (group-writable files) would fail.  It is started by its
 * path, again for each worker, so that path is the real one (out[size]: no link on the
 * way that another could turn) and the folders on it must be safe too (nobody else can
 * put another file there in between).  0, or ROCJIT_ENOCOMPILER saying why.
 */
static int trusted_worker(const char *path, char *out, size_t size)
{
	char why[600], proc[64];
	int fd = rj_trust_open(path, "the compile worker", 0, NULL), rc = 0;
	ssize_t n;

	if (fd < 0) {
		snprintf(why, sizeof why, "%s", rocjit_last_error()); /* not formatted into itself */
		RJ_FAIL(ROCJIT_ENOCOMPILER, "%s; it is not run: point ROCJIT_WORKER at a "
			"rocjit-worker of yours or root's", why);
	}
	if (rj_fs_folders_safe(fd, path, why, sizeof why) != 0)
		rc = ROCJIT_ENOCOMPILER;
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	if (!rc && (n = readlink(proc, out, size - 1)) > 0 && out[0] == '/')
		out[n] = 0;
	else if (!rc)
		snprintf(out, size, "%s", path); /* no /proc: the folders were checked anyway */
	close(fd);
	RJ_CHECK(rc, rc, "the compile worker %s is not run: %s", path, why);
	return 0;
}

/*
 * The worker beside the library (or the program it is linked into): in its folder (the
 * build tree) or in the installed place relative to it.  1 with out set, else 0 with the
 * places tried in tried.
 */
static int find_beside_library(char *out, size_t size, char *tried, size_t tried_size)
{
	Dl_info info;
	char dir[PATH_MAX];
	char *slash;

	ssize_t n;

	if (dladdr((void *)(uintptr_t)rj_worker_compile, &info) && info.dli_fname &&
	    strchr(info.dli_fname, '/')) {
		snprintf(dir, sizeof dir, "%s", info.dli_fname);
	} else if ((n = readlink("/proc/self/exe", dir, sizeof dir - 1)) > 0) {
		dir[n] = 0; /* linked into the program itself */
	} else {
		snprintf(tried, tried_size, "(the library's folder could not be found)");
		return 0;
	}
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	if (snprintf(out, size, "%s/%s", dir, RJ_WORKER_NAME) < (int)size && executable(out))
		return 1;
	snprintf(tried, tried_size, "%s", out);
	if (snprintf(out, size, "%s/%s/%s", dir, ROCJIT_WORKER_RELDIR, RJ_WORKER_NAME) < (int)size &&
	    executable(out))
		return 1;
	snprintf(tried + strlen(tried), tried_size - strlen(tried), " and %s", out);
	return 0;
}

/*
 * Decides, once, which executable the workers run: $ROCJIT_WORKER, else the one beside
 * the library.  With none, compiles run in this process (path_state -1) with a warning;
 * a $ROCJIT_WORKER that is no executable is an error instead: it was asked for.
 * Under pool.mu.
 */
static int locate_worker(void)
{
	int from;
	const char *env = rj_config("ROCJIT_WORKER", &from);
	char tried[2 * PATH_MAX + 16];

	if (pool.path_state)
		return 0;
	if (env && *env) {
		RJ_CHECK(!executable(env), ROCJIT_ENOCOMPILER, "ROCJIT_WORKER=%s is not an "
			 "executable file: point it at the rocjit-worker of this rocjit "
			 "installation, or unset it", env);
		if (from == RJ_FROM_ENV)
			snprintf(pool.path, sizeof pool.path, "%s", env);
		else
			RJ_FORWARD(trusted_worker(env, pool.path, sizeof pool.path));
		pool.path_state = 1;
		return 0;
	}
	if (find_beside_library(pool.path, sizeof pool.path, tried, sizeof tried)) {
		pool.path_state = 1;
		return 0;
	}
	pool.path_state = -1;
	rj_log(RJ_LOG_WARN, "no compile worker (%s) was found at %s: compiling in this process, "
	       "where an abort in the compiler ends the application and compiles run one at "
	       "a time.  Install rocjit-worker with the library, or set ROCJIT_WORKER to its "
	       "path (ROCJIT_COMPILE_INPROCESS=1 silences this)", RJ_WORKER_NAME, tried);
	return 0;
}

/*
 * An idle worker for this thread, started when none is idle and the pool is not full;
 * else waits for one.  0 with *out, or an error from rj_wproc_spawn.
 */
static int acquire(struct rj_wproc **out, int platform, const struct rj_wlimits *lim)
{
	struct rj_wproc *free_slot;
	int rc, spawned;

	pthread_mutex_lock(&pool.mu);
	for (;;) {
		int alive = 0;
		free_slot = NULL;
		for (int i = 0; i < pool.max; i++) {
			struct rj_wproc *w = &pool.w[i];
			/* busy first: a busy slot's other fields belong to the thread using it */
			if (!w->busy && w->pid && !rj_wproc_idle_alive(w))
				(void)rj_wproc_retire(w, 1); /* died while idle: not this request's fault */
			if (!w->busy && w->pid) {
				w->busy = 1;
				pthread_mutex_unlock(&pool.mu);
				*out = w;
				return 0;
			}
			if (w->busy || w->pid)
				alive++;
			else if (!free_slot)
				free_slot = w;
		}
		if (free_slot && alive < pool.max)
			break;
		pthread_cond_wait(&pool.cv, &pool.mu);
	}
	free_slot->busy = 1; /* reserved while it starts, outside the lock */
	pthread_mutex_unlock(&pool.mu);
	rc = rj_wproc_spawn(free_slot, pool.path, platform, lim, &spawned);
	if (spawned)
		atomic_fetch_add(&started, 1);
	if (rc != 0) {
		pthread_mutex_lock(&pool.mu);
		free_slot->busy = 0;
		pthread_cond_signal(&pool.cv);
		pthread_mutex_unlock(&pool.mu);
		return rc;
	}
	*out = free_slot;
	return 0;
}

static void release(struct rj_wproc *w)
{
	pthread_mutex_lock(&pool.mu);
	w->busy = 0;
	pthread_cond_signal(&pool.cv);
	pthread_mutex_unlock(&pool.mu);
}

/* ---- The limits and the failures they cause ---------------------------------------------- */

/* Seconds in $ROCJIT_COMPILE_TIMEOUT (a decimal number; 0 none), else the default. */
static double timeout_s(void)
{
	const char *env = rj_config("ROCJIT_COMPILE_TIMEOUT", NULL);
	char *end;
	double v;

	if (!env || !*env)
		return DEFAULT_TIMEOUT_S;
	v = strtod(env, &end);
	if (end == env || *end || !(v >= 0) || v > 1e7) {
		rj_warn_once("ROCJIT_COMPILE_TIMEOUT", "ROCJIT_COMPILE_TIMEOUT=%s is not a number of "
			     "seconds (0 for no limit): the default, %.0f s, applies", env,
			     DEFAULT_TIMEOUT_S);
		return DEFAULT_TIMEOUT_S;
	}
	return v;
}

/* MiB in $ROCJIT_COMPILE_MEMORY_MB (0 none), else half of this machine's memory. */
static uint64_t memory_mib(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	long half = pages > 0 && page > 0 ? (long)((uint64_t)pages * (uint64_t)page >> 21) : 0;

	return (uint64_t)rj_env_long("ROCJIT_COMPILE_MEMORY_MB", half, 0, LONG_MAX / 2);
}

/*
 * The error of a worker that ended mid-compile, with its own last words appended to the
 * compile's log (out->log, malloc'ed here).  ROCJIT_ECOMPILE.
 */
static int worker_failed(enum rj_wend end, struct rj_wproc *w, const struct rj_compile_req *req,
			 const char *target, const struct rj_wlimits *lim, double timeout,
			 const struct rj_wtail *t, struct rj_compile_out *out)
{
	char what[256], line[512];
	pid_t pid = w->pid;
	int status = rj_wproc_retire(w, end != RJ_WEND_DIED);

	atomic_fetch_add(&lost, 1);
	rj_wproc_last_line(line, sizeof line, t);
	out->log = malloc(t->len + 64);
	if (out->log)
		snprintf(out->log, t->len + 64, "%s%s", t->len ? "the compile worker printed:\n" : "",
			 t->text);
	if (end == RJ_WEND_TIMEOUT)
		RJ_FAIL(ROCJIT_ECOMPILE, "compiling %s for %s ran past the time limit of %g s "
			"(ROCJIT_COMPILE_TIMEOUT): its worker (pid %d) was stopped.  Raise the "
			"limit (0: none) if the source is that large", req->name, target, timeout,
			(int)pid);
	if (end == RJ_WEND_MEMORY)
		RJ_FAIL(ROCJIT_ECOMPILE, "compiling %s for %s used more than %llu MiB "
			"(ROCJIT_COMPILE_MEMORY_MB): its worker (pid %d) was stopped.  Raise the "
			"limit (0: none), or compile a smaller source", req->name, target,
			(unsigned long long)lim->memory_mib, (int)pid);
	rj_wproc_describe_status(what, sizeof what, status);
	RJ_FAIL(ROCJIT_ECOMPILE, "the compiler failed on %s for %s: its worker (pid %d) %s%s%s."
		"  This application goes on; the compiler cannot build this source for this "
		"target (try another target, or fewer or other options)%s", req->name, target,
		(int)pid, what, line[0] ? ": " : "", line,
		strstr(t->text, "out of memory") || strstr(t->text, "bad_alloc") ?
		"; it ran out of memory" : "");
}

/* ---- Compiling ---------------------------------------------------------------------------- */

static int in_process(const struct rj_platform *p, const char *target,
		      const struct rj_compile_req *req, struct rj_compile_out *out,
		      struct rj_worker_run *run)
{
	run->in_worker = 0;
	run->compiler_ms = 0;
	run->lost = 0;
	RJ_FORWARD(p->target_check(target));
	return p->compile(target, req, out);
}

/*
 * Sends the encoded request to w and reads its answer into out, both within the time
 * limit (timeout seconds from now, 0 none) and the memory limit: a worker that stops
 * reading holds the send no longer than one that stops answering holds the receive.
 */
static int exchange(struct rj_wproc *w, const struct rj_wbuf *msg, const char *target,
		    const struct rj_compile_req *req, struct rj_compile_out *out,
		    double timeout, uint64_t memory, struct rj_worker_run *run)
{
	struct rj_wlimits lim = { timeout > 0 ? rj_now_ms() + timeout * 1e3 : 0, memory };
	struct timeval tv = { 0, 0 };
	struct rj_wtail t = { .len = 0 };
	char message[2048];
	char *payload = NULL;
	size_t len = 0;
	enum rj_wend end;
	int rc;

	rj_wproc_drain(w->out, NULL); /* what it printed since its last request */
	if (timeout > 0) {
		tv.tv_sec = (time_t)timeout;
		tv.tv_usec = (suseconds_t)((timeout - (double)tv.tv_sec) * 1e6);
	}
	(void)setsockopt(w->sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (rj_wire_send(w->sock, msg) != 0)
		end = timeout > 0 && rj_now_ms() >= lim.deadline_ms ? RJ_WEND_TIMEOUT :
								   RJ_WEND_DIED;
	else
		end = rj_wproc_receive(w, &lim, &t, &payload, &len);
	run->lost = end != RJ_WEND_FRAME;
	if (end != RJ_WEND_FRAME)
		return worker_failed(end, w, req, target, &lim, timeout, &t, out);
	{
		struct rj_wread r = { payload, len, 0, 0 };
		if (rj_wire_result_read(&r, &rc, message, sizeof message, out,
					req->num_name_expressions, &run->compiler_ms) != 0) {
			free(payload);
			free(out->code);
			free(out->log);
			rj_vendor_names_free(out->lowered, req->num_name_expressions);
			memset(out, 0, sizeof *out);
			rj_wproc_retire(w, 1);
			atomic_fetch_add(&lost, 1);
			RJ_FAIL(ROCJIT_ENOMEM, "the compile worker's answer for %s could not be "
				"read (out of memory, or a broken worker): compile again", req->name);
		}
	}
	free(payload);
	if (t.len)
		rj_log_block(RJ_LOG_INFO, t.text, "the compile worker printed, compiling %s:",
			     req->name);
	run->in_worker = 1;
	if (rc != 0)
		return rj_error_set(rc, __FILE__, __LINE__, "%s", message);
	return 0;
}

int rj_worker_compile(const struct rj_platform *p, const char *target, const char *compiler,
		      const struct rj_compile_req *req, struct rj_compile_out *out,
		      int inprocess, struct rj_worker_run *run)
{
	struct rj_wbuf msg = { 0 };
	struct rj_wproc *w;
	double timeout;
	struct rj_wlimits start;
	int rc;

	memset(out, 0, sizeof *out);
	run->in_worker = 0;
	run->compiler_ms = 0;
	run->lost = 0;
	if (inprocess || rocjit_env_flag("ROCJIT_COMPILE_INPROCESS") == 1)
		return in_process(p, target, req, out, run);
	pthread_once(&atfork_once, install_atfork);
	pthread_mutex_lock(&pool.mu);
	if (!pool.max)
		pool.max = rj_worker_max();
	rc = locate_worker();
	pthread_mutex_unlock(&pool.mu);
	RJ_FORWARD(rc);
	if (pool.path_state < 0)
		return in_process(p, target, req, out, run);
	rj_wire_request(&msg, p->id, target, compiler, req);
	RJ_CHECK(msg.oom, ROCJIT_ENOMEM, "out of memory sending %s to a compile worker (or "
		 "the request is over 1 GiB)", req->name);
	/* The limits hold from here: a worker that never greets fails this request at the
	   time limit, as one that never answers does. */
	timeout = timeout_s();
	start.deadline_ms = timeout > 0 ? rj_now_ms() + timeout * 1e3 : 0;
	start.memory_mib = memory_mib();
	rc = acquire(&w, p->id, &start);
	if (rc == 0) {
		rc = exchange(w, &msg, target, req, out, timeout, start.memory_mib, run);
		release(w);
	}
	rj_wbuf_free(&msg);
	return rc;
}
