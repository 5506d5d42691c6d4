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
 * Workers start with posix_spawn (never a bare fork: the application may hold locks and
 * vendor threads a forked child would inherit half-taken), one at a time as compiles need
 * them, up to rj_worker_max(), and live as long as this process: the compiler loads once
 * per worker.  A worker ends by itself when its socket closes (this process exited) or
 * when its parent is gone (serve.c).  A cache hit never reaches this file.
 *
 * Limits, read at each compile: $ROCJIT_COMPILE_TIMEOUT (seconds; default 600; 0: none)
 * and $ROCJIT_COMPILE_MEMORY_MB (the worker's resident memory, sampled every 100 ms while
 * it compiles; default half of this machine's memory; 0: none).  A worker past either is
 * killed (SIGKILL: a compiler in a loop answers nothing else).
 *
 * Owns the pool (a process-wide table of workers under one mutex) and the parent's end of
 * the wire.  Uses wire.c for the bytes and the platforms only for the in-process path.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/env.h"
#include "base/error.h"
#include "compile/vendor_lib.h"
#include "worker/pool.h"
#include "worker/wire.h"

extern char **environ;

#define WORKER_NAME "rocjit-worker"
#define DEFAULT_TIMEOUT_S 600.0 /* generous: the largest real files take a few minutes */
#define HELLO_TIMEOUT_MS 120000.0 /* starting and loading the compiler, on a loaded machine */
#define MEMORY_SAMPLE_MS 100
#define TAIL_MAX 4096 /* what is kept of a worker's own output, for a failure's message */

/* The relative path from the library's folder to the installed worker's (CMake). */
#ifndef ROCJIT_WORKER_RELDIR
#define ROCJIT_WORKER_RELDIR "rocjit"
#endif

/* A slot.  busy is read and written under pool.mu; while busy, the other fields belong to
 * the thread that set it (starting the worker, or compiling), so other threads read them
 * only in slots they found idle. */
struct worker {
	pid_t pid;   /* 0: the slot is free                                               */
	int sock;    /* the channel                                                       */
	int out;     /* read end of the worker's stdout and stderr (non-blocking)         */
	int busy;    /* a thread is using it (or starting it)                             */
};

#define POOL_MAX 256

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct worker w[POOL_MAX];
	int max;         /* 0 until the first compile through the pool                    */
	char path[PATH_MAX];
	int path_state;  /* 0 not looked for, 1 found, -1 none: compile in process        */
} pool = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static atomic_uint_fast64_t started, lost;

static int retire(struct worker *w, int kill_it);
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
			(void)retire(&pool.w[i], 1);
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
	if (snprintf(out, size, "%s/%s", dir, WORKER_NAME) < (int)size && executable(out))
		return 1;
	snprintf(tried, tried_size, "%s", out);
	if (snprintf(out, size, "%s/%s/%s", dir, ROCJIT_WORKER_RELDIR, WORKER_NAME) < (int)size &&
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
	const char *env = getenv("ROCJIT_WORKER");
	char tried[2 * PATH_MAX + 16];

	if (pool.path_state)
		return 0;
	if (env && *env) {
		RJ_CHECK(!executable(env), ROCJIT_ENOCOMPILER, "ROCJIT_WORKER=%s is not an "
			 "executable file: point it at the rocjit-worker of this rocjit "
			 "installation, or unset it", env);
		snprintf(pool.path, sizeof pool.path, "%s", env);
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
	       "path (ROCJIT_COMPILE_INPROCESS=1 silences this)", WORKER_NAME, tried);
	return 0;
}

/* ---- One worker -------------------------------------------------------------------------- */

/* What a worker printed, its last TAIL_MAX bytes. */
struct tail {
	char text[TAIL_MAX + 1];
	size_t len;
};

/* Reads what the worker printed so far (non-blocking) into t (NULL: discarded). */
static void drain(int fd, struct tail *t)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
		size_t k = n > 0 ? (size_t)n : 0;
		if (!t || !k)
			continue;
		if (k >= TAIL_MAX) {
			memcpy(t->text, buf + k - TAIL_MAX, TAIL_MAX);
			t->len = TAIL_MAX;
		} else {
			if (t->len + k > TAIL_MAX) {
				size_t drop = t->len + k - TAIL_MAX;
				memmove(t->text, t->text + drop, t->len - drop);
				t->len -= drop;
			}
			memcpy(t->text + t->len, buf, k);
			t->len += k;
		}
		t->text[t->len] = 0;
	}
}

/* The worker's resident memory in MiB, or 0 when it cannot be read. */
static uint64_t resident_mib(pid_t pid)
{
	char path[64], text[128];
	unsigned long long size = 0, resident = 0;
	int fd;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = 0;
	if (sscanf(text, "%llu %llu", &size, &resident) != 2)
		return 0;
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE) >> 20;
}

enum wait_end { GOT_FRAME, DIED, TIMED_OUT, OVER_MEMORY };

struct limits {
	double deadline_ms;  /* 0: none */
	uint64_t memory_mib; /* 0: none */
};

/*
 * Receives one frame from w with the limits applied, collecting its output into t.
 * GOT_FRAME with *payload malloc'ed; otherwise nothing to free.
 */
static enum wait_end receive(struct worker *w, const struct limits *lim, struct tail *t,
			     char **payload, size_t *len)
{
	uint32_t n = 0;
	size_t got = 0, want = sizeof n;
	char *p = NULL;

	for (;;) {
		struct pollfd fds[2] = { { w->sock, POLLIN, 0 }, { w->out, POLLIN, 0 } };
		int timeout = -1;
		double now = rj_now_ms();

		if (lim->deadline_ms > 0) {
			if (now >= lim->deadline_ms)
				break;
			timeout = (int)(lim->deadline_ms - now) + 1;
		}
		if (lim->memory_mib && (timeout < 0 || timeout > MEMORY_SAMPLE_MS))
			timeout = MEMORY_SAMPLE_MS;
		if (poll(fds, 2, timeout) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			drain(w->out, t);
		if (lim->memory_mib && resident_mib(w->pid) > lim->memory_mib) {
			free(p);
			return OVER_MEMORY;
		}
		if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		for (;;) {
			char *dst = p ? p + got : (char *)&n + got;
			ssize_t r = recv(w->sock, dst, want - got, MSG_DONTWAIT);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				break;
			if (r <= 0) {
				free(p);
				drain(w->out, t);
				return DIED;
			}
			got += (size_t)r;
			if (got < want)
				continue;
			if (p) {
				p[n] = 0;
				*payload = p;
				*len = n;
				return GOT_FRAME;
			}
			if (n > RJ_WIRE_FRAME_MAX || !(p = malloc((size_t)n + 1)))
				return DIED; /* not a worker's frame: treated as a broken worker */
			got = 0;
			want = n;
			if (!want) {
				p[0] = 0;
				*payload = p;
				*len = 0;
				return GOT_FRAME;
			}
		}
	}
	free(p);
	return TIMED_OUT;
}

/* Closes w's ends, kills it if asked, and reaps it; its wait status, or -1 when another
 * waiter of this process took it. */
static int retire(struct worker *w, int kill_it)
{
	int status = 0;
	pid_t r;

	if (kill_it)
		kill(w->pid, SIGKILL);
	close(w->sock);
	close(w->out);
	do
		r = waitpid(w->pid, &status, 0);
	while (r < 0 && errno == EINTR);
	w->pid = 0;
	return r > 0 ? status : -1;
}

/*
 * Starts a worker into w (a reserved slot) and reads its hello.  0, or an error (w left
 * free) saying what to do.  posix_spawn resets the signals the application may ignore or
 * block, and closes every other descriptor of the application in the worker.
 */
static int spawn(struct worker *w, int platform)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	int sv[2], op[2], rc;
	pid_t pid = 0;
	const char *why = NULL;
	char *argv[] = { (char *)WORKER_NAME, (char *)"--platform",
			 (char *)(platform == ROCJIT_PLATFORM_NVIDIA ? "nvidia" : "amd"), NULL };
	struct limits lim = { rj_now_ms() + HELLO_TIMEOUT_MS, 0 };
	struct tail t = { .len = 0 };
	char *hello = NULL;
	size_t len = 0;

	RJ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0, ROCJIT_EIO,
		 "cannot start a compile worker: socketpair: %s", strerror(errno));
	if (pipe2(op, O_CLOEXEC) != 0) {
		rc = errno;
		close(sv[0]);
		close(sv[1]);
		RJ_FAIL(ROCJIT_EIO, "cannot start a compile worker: pipe: %s", strerror(rc));
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, op[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, op[1], STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
	posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
#endif
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGCHLD);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&pid, pool.path, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(sv[1]);
	close(op[1]);
	if (rc != 0) {
		close(sv[0]);
		close(op[0]);
		w->pid = 0;
		RJ_FAIL(ROCJIT_ENOCOMPILER, "cannot start the compile worker %s: %s; reinstall "
			"rocjit, set ROCJIT_WORKER to a working rocjit-worker, or compile in "
			"this process (ROCJIT_COMPILE_INPROCESS=1)", pool.path, strerror(rc));
	}
	w->sock = sv[0];
	w->out = op[0];
	w->pid = pid; /* last: a fork meanwhile sees a slot without a worker or a whole one */
	fcntl(w->out, F_SETFL, O_NONBLOCK);
	atomic_fetch_add(&started, 1);
	if (receive(w, &lim, &t, &hello, &len) == GOT_FRAME) {
		struct rj_wread r = { hello, len, 0, 0 };
		rc = rj_wire_hello_check(&r, &why);
		free(hello);
		if (rc == 0) {
			RJ_LOG(RJ_LOG_INFO, "started compile worker %d (%s)", (int)w->pid,
			       pool.path);
			return 0;
		}
	}
	retire(w, 1);
	RJ_FAIL(ROCJIT_ENOCOMPILER, "the compile worker %s did not start: %s%s%s; set "
		"ROCJIT_WORKER to the rocjit-worker installed with this library, or compile in "
		"this process (ROCJIT_COMPILE_INPROCESS=1)", pool.path,
		why ? why : "it sent no greeting", t.len ? ". It printed: " : "",
		t.len ? t.text : "");
}

/* Whether an idle worker is still there: it sends nothing between requests, so anything
 * readable on its socket is its end. */
static int idle_alive(const struct worker *w)
{
	struct pollfd fd = { w->sock, POLLIN, 0 };

	return poll(&fd, 1, 0) == 0;
}

/*
 * An idle worker for this thread, started when none is idle and the pool is not full;
 * else waits for one.  0 with *out, or an error from spawn.
 */
static int acquire(struct worker **out, int platform)
{
	struct worker *free_slot;
	int rc;

	pthread_mutex_lock(&pool.mu);
	for (;;) {
		int alive = 0;
		free_slot = NULL;
		for (int i = 0; i < pool.max; i++) {
			struct worker *w = &pool.w[i];
			/* busy first: a busy slot's other fields belong to the thread using it */
			if (!w->busy && w->pid && !idle_alive(w))
				(void)retire(w, 1); /* died while idle: not this request's fault */
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
	rc = spawn(free_slot, platform);
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

static void release(struct worker *w)
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
	const char *env = getenv("ROCJIT_COMPILE_TIMEOUT");
	char *end;
	double v;

	if (!env || !*env)
		return DEFAULT_TIMEOUT_S;
	v = strtod(env, &end);
	if (end == env || *end || !(v >= 0) || v > 1e7) {
		rj_warn_once("compile-timeout", "ROCJIT_COMPILE_TIMEOUT=%s is not a number of "
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

/* The last line of what the worker printed ("LLVM ERROR: ..."), for a message. */
static void last_line(char *out, size_t size, const struct tail *t)
{
	size_t end = t->len, start;

	while (end && (t->text[end - 1] == '\n' || t->text[end - 1] == '\r' ||
		       t->text[end - 1] == ' '))
		end--;
	start = end;
	while (start && t->text[start - 1] != '\n')
		start--;
	snprintf(out, size, "%.*s", (int)(end - start), t->text + start);
}

/* A worker's end status in words: "was killed by signal 6 (SIGABRT)". */
static void describe_status(char *out, size_t size, int status)
{
	if (status == -1)
		snprintf(out, size, "ended (its exit status was taken by another part of this "
			 "process)");
	else if (WIFSIGNALED(status))
		snprintf(out, size, "was killed by signal %d (SIG%s)", WTERMSIG(status),
			 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	else if (WIFEXITED(status))
		snprintf(out, size, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(out, size, "ended");
}

/*
 * The error of a worker that ended mid-compile, with its own last words appended to the
 * compile's log (out->log, malloc'ed here).  ROCJIT_ECOMPILE.
 */
static int worker_failed(enum wait_end end, struct worker *w, const struct rj_compile_req *req,
			 const char *target, const struct limits *lim, double timeout,
			 const struct tail *t, struct rj_compile_out *out)
{
	char what[256], line[512];
	pid_t pid = w->pid;
	int status = retire(w, end != DIED);

	atomic_fetch_add(&lost, 1);
	last_line(line, sizeof line, t);
	out->log = malloc(t->len + 64);
	if (out->log)
		snprintf(out->log, t->len + 64, "%s%s", t->len ? "the compile worker printed:\n" : "",
			 t->text);
	if (end == TIMED_OUT)
		RJ_FAIL(ROCJIT_ECOMPILE, "compiling %s for %s ran past the time limit of %g s "
			"(ROCJIT_COMPILE_TIMEOUT): its worker (pid %d) was stopped.  Raise the "
			"limit (0: none) if the source is that large", req->name, target, timeout,
			(int)pid);
	if (end == OVER_MEMORY)
		RJ_FAIL(ROCJIT_ECOMPILE, "compiling %s for %s used more than %llu MiB "
			"(ROCJIT_COMPILE_MEMORY_MB): its worker (pid %d) was stopped.  Raise the "
			"limit (0: none), or compile a smaller source", req->name, target,
			(unsigned long long)lim->memory_mib, (int)pid);
	describe_status(what, sizeof what, status);
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

/* Sends the encoded request to w and reads its answer into out. */
static int exchange(struct worker *w, const struct rj_wbuf *msg, const char *target,
		    const struct rj_compile_req *req, struct rj_compile_out *out,
		    struct rj_worker_run *run)
{
	double timeout = timeout_s();
	struct limits lim = { timeout > 0 ? rj_now_ms() + timeout * 1e3 : 0, memory_mib() };
	struct tail t = { .len = 0 };
	char message[2048];
	char *payload = NULL;
	size_t len = 0;
	enum wait_end end;
	int rc;

	drain(w->out, NULL); /* what it printed since its last request */
	if (rj_wire_send(w->sock, msg) != 0)
		end = DIED;
	else
		end = receive(w, &lim, &t, &payload, &len);
	run->lost = end != GOT_FRAME;
	if (end != GOT_FRAME)
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
			retire(w, 1);
			atomic_fetch_add(&lost, 1);
			RJ_FAIL(ROCJIT_ENOMEM, "the compile worker's answer for %s could not be "
				"read (out of memory, or a broken worker): compile again", req->name);
		}
	}
	free(payload);
	if (t.len)
		RJ_LOG(RJ_LOG_INFO, "the compile worker printed, compiling %s:\n%s", req->name,
		       t.text);
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
	struct worker *w;
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
	rc = acquire(&w, p->id);
	if (rc == 0) {
		rc = exchange(w, &msg, target, req, out, run);
		release(w);
	}
	rj_wbuf_free(&msg);
	return rc;
}
