/*
 * workers.c - prewarm's worker processes: the pool the parent drives, the hidden
 * `rocjit __worker` command each worker runs, and the pipe protocol between them.
 *
 * Why processes: hipRTC 5.x is not thread-safe, so the library serializes compiles inside
 * a process; parallel compiles need separate processes (rocFFT does the same).  Workers
 * are started with posix_spawn of this executable, never fork() alone: the parent may
 * have loaded the vendor libraries, whose threads and locks a forked child would inherit
 * half-taken.  Each worker opens its own context and takes jobs until its input closes,
 * so a compiler is loaded once per worker, not once per job.
 *
 * Protocol: every message is a frame, a native uint32 payload length then the payload.
 * A payload is a sequence of fields: uint32 numbers, doubles, and strings (uint32 length,
 * bytes, then a NUL that is not counted, so a received string is a C string in place).
 *   job:    target, name, source, n_options, options..., n_headers, (name, text)...
 *   result: rc (int32), from_cache (bit 1: compiled but not stored), compile_ms, key,
 *           kernels, message (a failure's, or why it was not stored), log
 * The worker writes frames only to its private copy of stdout; its fd 1 points at stderr,
 * so nothing the libraries print can corrupt the protocol.
 *
 * Time limit: a job that runs past the pool's limit (--timeout, else
 * $ROCJIT_COMPILE_TIMEOUT, else DEFAULT_TIMEOUT_S) has its worker killed (SIGKILL: a
 * compiler stuck in a loop answers nothing else); the job fails saying so, and a later
 * job starts a new worker.  A hung compiler costs one job, never the run.
 *
 * Owns the worker processes and their pipes.  Uses the files below the commands (cache.c
 * compiles and says what was stored, as `rocjit compile` does) and no command's file;
 * main.c runs cli_worker, prewarm.c drives the pool.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

extern char **environ;

/* ---- Frames ------------------------------------------------------------------------------ */

struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = cli_realloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	put(b, &v, sizeof v);
}

static void put_f64(struct buf *b, double v)
{
	put(b, &v, sizeof v);
}

static void put_str(struct buf *b, const char *s, size_t n)
{
	put_u32(b, (uint32_t)n);
	put(b, s ? s : "", n);
	put(b, "", 1);
}

static void put_cstr(struct buf *b, const char *s)
{
	put_str(b, s, s ? strlen(s) : 0);
}

struct reader {
	char *p;        /* the frame, owned: freed by whoever read it */
	size_t len, off;
	int bad;
};

static void get(struct reader *r, void *out, size_t n)
{
	if (r->bad || r->len - r->off < n) {
		r->bad = 1;
		memset(out, 0, n);
		return;
	}
	memcpy(out, r->p + r->off, n);
	r->off += n;
}

static uint32_t get_u32(struct reader *r)
{
	uint32_t v;
	get(r, &v, sizeof v);
	return v;
}

static double get_f64(struct reader *r)
{
	double v;
	get(r, &v, sizeof v);
	return v;
}

/* A string in place (NUL-terminated by the sender), or "" on a malformed frame. */
static const char *get_str(struct reader *r, size_t *len)
{
	uint32_t n = get_u32(r);
	const char *s;

	if (r->bad || r->len - r->off < (size_t)n + 1 || r->p[r->off + n] != 0) {
		r->bad = 1;
		if (len)
			*len = 0;
		return "";
	}
	s = r->p + r->off;
	r->off += (size_t)n + 1;
	if (len)
		*len = n;
	return s;
}

/* Writes all of data; 0 or -1 (the reader is gone). */
static int write_all(int fd, const void *data, size_t n)
{
	const char *p = data;

	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads exactly n bytes: 1, 0 at a clean end before the first byte, -1 otherwise. */
static int read_all(int fd, void *data, size_t n)
{
	char *p = data;
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return got == 0 && r == 0 ? 0 : -1;
		got += (size_t)r;
	}
	return 1;
}

static int send_frame(int fd, const struct buf *b)
{
	uint32_t n = (uint32_t)b->len;

	if (write_all(fd, &n, sizeof n) != 0)
		return -1;
	return write_all(fd, b->p, b->len);
}

/* A frame's payload into a malloc'ed buffer: 1, 0 at end of input, -1 broken. */
static int recv_frame(int fd, struct reader *r)
{
	uint32_t n;
	char *p;
	int rc = read_all(fd, &n, sizeof n);

	if (rc <= 0)
		return rc;
	p = cli_alloc((size_t)n + 1);
	if (read_all(fd, p, n) != 1) {
		free(p);
		return -1;
	}
	r->p = p;
	r->len = n;
	r->off = 0;
	r->bad = 0;
	return 1;
}

/* ---- The worker (`rocjit __worker`) -------------------------------------------------------- */

#define WORKER_LOG_SIZE (256 * 1024)

/* Compiles one decoded job and encodes the result into out. */
static void run_job(rocjit_ctx *ctx, struct reader *r, struct buf *out, char *log)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_codeobj_info *info = NULL;
	const rocjit_code *code = NULL;
	const char *target = get_str(r, NULL);
	const char **options;
	rocjit_header *headers;
	uint32_t nopt, nhdr;
	struct buf kernels = { 0 };
	char why[1024] = "";
	int rc, stored = CLI_NO_STORE;

	p.name = get_str(r, NULL);
	p.source = get_str(r, &p.length);
	nopt = get_u32(r);
	options = cli_alloc((nopt ? nopt : 1) * sizeof *options);
	for (uint32_t i = 0; i < nopt && !r->bad; i++)
		options[i] = get_str(r, NULL);
	nhdr = get_u32(r);
	headers = cli_alloc((nhdr ? nhdr : 1) * sizeof *headers);
	for (uint32_t i = 0; i < nhdr && !r->bad; i++) {
		headers[i].name = get_str(r, NULL);
		headers[i].source = get_str(r, &headers[i].length);
	}
	p.options = nopt ? options : NULL;
	p.num_options = nopt;
	p.headers = nhdr ? headers : NULL;
	p.num_headers = nhdr;
	p.language = (int)get_u32(r);
	p.log = log;
	p.log_size = WORKER_LOG_SIZE;
	log[0] = 0;
	if (r->bad)
		rc = ROCJIT_EINVAL;
	else
		rc = cli_compile_stored(&code, ctx, target, &p, &stored, why, sizeof why);
	if (rc == 0 && rocjit_codeobj_inspect(&info, code->data, code->size) == 0) {
		for (size_t i = 0; i < info->num_kernels; i++) {
			if (i)
				put(&kernels, ",", 1);
			put(&kernels, info->kernels[i], strlen(info->kernels[i]));
		}
		rocjit_codeobj_free(info);
	}
	put(&kernels, "", 1);
	put_u32(out, (uint32_t)rc);
	put_u32(out, rc == 0 ? (uint32_t)code->from_cache | (uint32_t)(stored == CLI_NOT_STORED) << 1
			     : 0);
	put_f64(out, rc == 0 ? code->compile_ms : 0);
	put_cstr(out, rc == 0 ? code->key : "");
	put_cstr(out, kernels.p);
	put_cstr(out, r->bad ? "malformed job from the parent process"
			     : rc ? rocjit_last_error() : why);
	put_cstr(out, log);
	free(kernels.p);
	free(options);
	free(headers);
}

/* Loads the compilers of "amd,nvidia" now: the parent is still preparing the jobs. */
static void preload(const char *platforms)
{
	const char *id;

	if (strstr(platforms, "amd"))
		(void)rocjit_compiler_identity(&id, ROCJIT_PLATFORM_AMD);
	if (strstr(platforms, "nvidia"))
		(void)rocjit_compiler_identity(&id, ROCJIT_PLATFORM_NVIDIA);
}

int cli_worker(int argc, char **argv)
{
	rocjit_ctx *ctx;
	struct reader r;
	char *log;
	int out, rc;

	if (argc != 1 && !(argc == 3 && strcmp(argv[1], "--preload") == 0))
		return cli_usage_error("__worker", "takes only --preload PLATFORMS");
	/* Frames go to a private copy of stdout; fd 1 becomes stderr for everything else. */
	out = dup(STDOUT_FILENO);
	if (out < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		return cli_fail("worker: cannot set up its pipes: %s", strerror(errno));
	if (cli_open(&ctx, 0, 0) != CLI_OK)
		return CLI_FAIL;
	if (argc == 3)
		preload(argv[2]);
	log = cli_alloc(WORKER_LOG_SIZE);
	while ((rc = recv_frame(STDIN_FILENO, &r)) == 1) {
		struct buf res = { 0 };
		run_job(ctx, &r, &res, log);
		free(r.p);
		rc = send_frame(out, &res);
		free(res.p);
		if (rc != 0)
			break;
	}
	free(log);
	rocjit_close(ctx);
	close(out);
	return rc < 0 ? CLI_FAIL : CLI_OK;
}

/* ---- The pool (the parent) ------------------------------------------------------------------ */

#define DEFAULT_TIMEOUT_S 600.0 /* generous: the largest real files take a minute */

struct worker {
	pid_t pid;   /* 0: no process                                                      */
	int to, from;
	int busy;
	size_t job;
	double started_ms; /* when its job was handed over                                */
};

struct cli_pool {
	struct worker *w;
	int n;
	char *preload;
	double timeout_s;  /* a job's time limit; 0: none                                 */
};

struct cli_pool *cli_pool_new(int max_workers, const char *preload)
{
	struct cli_pool *p = cli_alloc(sizeof *p);
	const char *env = getenv("ROCJIT_COMPILE_TIMEOUT");

	p->timeout_s = DEFAULT_TIMEOUT_S;
	if (env && *env && cli_parse_seconds(&p->timeout_s, env) != 0) {
		cli_warn("ROCJIT_COMPILE_TIMEOUT=%s is not a number of seconds (0 for no limit): "
			 "the default, %.0f s, applies", env, DEFAULT_TIMEOUT_S);
		p->timeout_s = DEFAULT_TIMEOUT_S;
	}

	/* A worker that dies makes writes to its pipe fail with EPIPE, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	p->n = max_workers > 0 ? max_workers : 1;
	p->w = cli_alloc((size_t)p->n * sizeof *p->w);
	p->preload = preload && *preload ? cli_strdup(preload) : NULL;
	return p;
}

static int spawn(const struct cli_pool *p, struct worker *w)
{
	posix_spawn_file_actions_t fa;
	int to[2], from[2], rc;
	char *argv[7];
	int argc = 0;

	if (pipe2(to, O_CLOEXEC) != 0) {
		cli_fail("cannot start a worker: %s", strerror(errno));
		return -1;
	}
	if (pipe2(from, O_CLOEXEC) != 0) {
		cli_fail("cannot start a worker: %s", strerror(errno));
		close(to[0]);
		close(to[1]);
		return -1;
	}
	argv[argc++] = (char *)"rocjit";
	if (cli_global.cache_dir) {
		argv[argc++] = (char *)"--cache";
		argv[argc++] = cli_global.cache_dir;
	}
	argv[argc++] = (char *)"__worker";
	if (p->preload) {
		argv[argc++] = (char *)"--preload";
		argv[argc++] = p->preload;
	}
	argv[argc] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, to[0], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, from[1], STDOUT_FILENO);
	rc = posix_spawn(&w->pid, cli_global.self, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(to[0]);
	close(from[1]);
	if (rc != 0) {
		close(to[1]);
		close(from[0]);
		w->pid = 0;
		cli_fail("cannot start a worker (%s): %s; check that the rocjit executable "
			 "is readable", cli_global.self, strerror(rc));
		return -1;
	}
	w->to = to[1];
	w->from = from[0];
	w->busy = 0;
	return 0;
}

/* Closes a worker's pipes and reaps it; its exit status, as waitpid gives it. */
static int stop(struct worker *w)
{
	int status = 0;

	if (!w->pid)
		return 0;
	close(w->to);
	close(w->from);
	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
	w->busy = 0;
	return status;
}

void cli_pool_set_timeout(struct cli_pool *p, double seconds)
{
	p->timeout_s = seconds;
}

int cli_pool_start(struct cli_pool *p)
{
	for (int i = 0; i < p->n; i++)
		if (!p->w[i].pid && spawn(p, &p->w[i]) != 0)
			return -1;
	return 0;
}

int cli_pool_can_submit(const struct cli_pool *p)
{
	for (int i = 0; i < p->n; i++)
		if (!p->w[i].busy)
			return 1;
	return 0;
}

int cli_pool_busy(const struct cli_pool *p)
{
	for (int i = 0; i < p->n; i++)
		if (p->w[i].busy)
			return 1;
	return 0;
}

int cli_pool_submit(struct cli_pool *p, size_t id, const struct cli_job *job)
{
	struct worker *w = NULL;
	struct buf b = { 0 };

	/* A running idle worker first (its compiler is loaded), else a new one. */
	for (int i = 0; i < p->n && !w; i++)
		if (p->w[i].pid && !p->w[i].busy)
			w = &p->w[i];
	for (int i = 0; i < p->n && !w; i++)
		if (!p->w[i].pid)
			w = &p->w[i];
	if (!w || (!w->pid && spawn(p, w) != 0))
		return -1;
	put_cstr(&b, job->target);
	put_cstr(&b, job->name);
	put_str(&b, job->source, job->length);
	put_u32(&b, (uint32_t)job->noptions);
	for (size_t i = 0; i < job->noptions; i++)
		put_cstr(&b, job->options[i]);
	put_u32(&b, (uint32_t)job->nheaders);
	for (size_t i = 0; i < job->nheaders; i++) {
		const rocjit_header *h = &job->headers[i];
		put_cstr(&b, h->name);
		put_str(&b, h->source, h->length ? h->length : strlen(h->source));
	}
	put_u32(&b, (uint32_t)job->language);
	/* An idle worker is blocked reading: a large job cannot deadlock against it.  A
	   failed write means it died; the poll in cli_pool_wait reports that as this job's
	   result. */
	(void)send_frame(w->to, &b);
	free(b.p);
	w->busy = 1;
	w->job = id;
	w->started_ms = cli_now_ms();
	return 0;
}

/* How a worker ended, for the failed job's message. */
static char *describe_death(int status)
{
	char msg[512];

	if (WIFSIGNALED(status))
		snprintf(msg, sizeof msg, "the worker process died of signal %d (%s) while "
			 "compiling: the compiler crashed; try this file alone with `rocjit "
			 "compile`, and report it with the source", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(msg, sizeof msg, "the worker process exited (status %d) while "
			 "compiling; its messages are above", WIFEXITED(status) ?
			 WEXITSTATUS(status) : -1);
	return cli_strdup(msg);
}

/* Reads a worker's answer into *res: its job is done either way. */
static void collect(struct worker *w, struct cli_job_result *res)
{
	struct reader r;
	int rc = recv_frame(w->from, &r);

	memset(res, 0, sizeof *res);
	if (rc == 1) {
		res->rc = (int32_t)get_u32(&r);
		res->from_cache = (int)get_u32(&r);
		res->not_stored = res->from_cache >> 1 & 1;
		res->from_cache &= 1;
		res->compile_ms = get_f64(&r);
		snprintf(res->key, sizeof res->key, "%s", get_str(&r, NULL));
		res->kernels = cli_strdup(get_str(&r, NULL));
		res->message = cli_strdup(get_str(&r, NULL));
		res->log = cli_strdup(get_str(&r, NULL));
		free(r.p);
		if (!r.bad) {
			w->busy = 0;
			return;
		}
		cli_job_result_free(res);
	}
	/* It died (or garbled its answer): this job failed; a later job starts another. */
	res->rc = CLI_JOB_CRASHED;
	res->message = describe_death(stop(w));
	res->kernels = cli_strdup("");
	res->log = cli_strdup("");
}

/* Kills a worker whose job ran past the limit; the job fails, naming the limit. */
static void time_out(const struct cli_pool *p, struct worker *w, struct cli_job_result *res)
{
	char msg[512];

	kill(w->pid, SIGKILL);
	(void)stop(w);
	snprintf(msg, sizeof msg, "the compiler ran past the time limit of %g s and its worker "
		 "process was killed; raise the limit with --timeout SECONDS or "
		 "ROCJIT_COMPILE_TIMEOUT (0: none), or try this file alone with `rocjit "
		 "compile`", p->timeout_s);
	memset(res, 0, sizeof *res);
	res->rc = CLI_JOB_CRASHED;
	res->message = cli_strdup(msg);
	res->kernels = cli_strdup("");
	res->log = cli_strdup("");
}

int cli_pool_wait(struct cli_pool *p, int timeout_ms, size_t *id, struct cli_job_result *res)
{
	struct pollfd fds[256];
	int idx[256], n = 0, rc, wait_ms = timeout_ms;
	double now = cli_now_ms(), first_due = -1;

	for (int i = 0; i < p->n && n < 256; i++)
		if (p->w[i].busy) {
			double due = p->w[i].started_ms + p->timeout_s * 1e3;
			fds[n].fd = p->w[i].from;
			fds[n].events = POLLIN;
			idx[n++] = i;
			if (p->timeout_s > 0 && (first_due < 0 || due < first_due))
				first_due = due;
		}
	if (n == 0)
		return 0;
	if (first_due >= 0) {
		/* Wake for the first job's limit, whatever the caller's wait. */
		double left = first_due - now;
		int left_ms = left <= 0 ? 0 : left > 86400e3 ? 86400000 : (int)ceil(left);
		if (wait_ms < 0 || left_ms < wait_ms)
			wait_ms = left_ms;
	}
	rc = poll(fds, (nfds_t)n, wait_ms);
	for (int k = 0; rc > 0 && k < n; k++) {
		if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
			struct worker *w = &p->w[idx[k]];
			*id = w->job;
			collect(w, res);
			return 1;
		}
	}
	now = cli_now_ms();
	for (int k = 0; p->timeout_s > 0 && k < n; k++) {
		struct worker *w = &p->w[idx[k]];
		if (now - w->started_ms >= p->timeout_s * 1e3) {
			*id = w->job;
			time_out(p, w, res);
			return 1;
		}
	}
	return 0;
}

void cli_pool_free(struct cli_pool *p)
{
	if (!p)
		return;
	/* Closing a worker's input ends its loop; it closes its context (writing its
	   counters) and exits. */
	for (int i = 0; i < p->n; i++)
		stop(&p->w[i]);
	free(p->w);
	free(p->preload);
	free(p);
}

void cli_job_result_free(struct cli_job_result *r)
{
	free(r->kernels);
	free(r->message);
	free(r->log);
	r->kernels = r->message = r->log = NULL;
}
