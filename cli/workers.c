/*
 * workers.c - prewarm's compile slots: the jobs prewarm runs at once, each on a thread
 * of this process with a context of its own.
 *
 * The compiles themselves run in the library's compile workers (rocjit-worker
 * processes, README "Compile workers"): parallel across processes, which hipRTC needs,
 * and isolated, so a compiler that aborts, hangs past the time limit or exhausts memory
 * fails its job with a message that says which, and the run goes on.  This file only
 * keeps --jobs requests in flight: a thread per slot asks the library as any application
 * does (cli_compile_stored), and the pool's size is handed to the library
 * (ROCJIT_WORKERS, ROCJIT_COMPILE_TIMEOUT) before the first compile.
 *
 * A context per thread: its counters (stores, store failures) then describe its own job,
 * which is how cli_compile_stored tells "compiled" from "compiled, not stored".
 *
 * Owns the threads and their hand-over.  Uses the files below the commands (cache.c) and
 * no command's file; prewarm.c drives the pool.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

enum slot_state { SLOT_IDLE, SLOT_RUNNING, SLOT_DONE };

struct slot {
	struct cli_pool *pool;
	pthread_t thread;
	int started;
	rocjit_ctx *ctx;
	enum slot_state state;
	size_t id;
	struct cli_job job;        /* its strings are the caller's, valid until collected */
	struct cli_job_result res;
};

struct cli_pool {
	pthread_mutex_t mu;
	pthread_cond_t work, done; /* work: a slot has a job or must stop; done: a result */
	struct slot *s;
	int n;
	int stopping;
};

struct cli_pool *cli_pool_new(int max_workers)
{
	struct cli_pool *p = cli_alloc(sizeof *p);
	char text[32];

	p->n = max_workers > 0 ? max_workers : 1;
	p->s = cli_alloc((size_t)p->n * sizeof *p->s);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	/* As many compile workers as slots: set before any compile, which reads it once. */
	snprintf(text, sizeof text, "%d", p->n);
	setenv("ROCJIT_WORKERS", text, 1);
	return p;
}

void cli_pool_set_timeout(struct cli_pool *p, double seconds)
{
	char text[32];

	(void)p;
	snprintf(text, sizeof text, "%g", seconds);
	setenv("ROCJIT_COMPILE_TIMEOUT", text, 1); /* before the threads start */
}

/* The kernels of a code object, comma separated ("" when it cannot be read). */
static char *kernel_list(const rocjit_code *code)
{
	rocjit_codeobj_info *info = NULL;
	size_t len = 1;
	char *s;

	if (rocjit_codeobj_inspect(&info, code->data, code->size) != 0)
		return cli_strdup("");
	for (size_t i = 0; i < info->num_kernels; i++)
		len += strlen(info->kernels[i]) + 1;
	s = cli_alloc(len);
	for (size_t i = 0; i < info->num_kernels; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, info->kernels[i]);
	}
	rocjit_codeobj_info_free(info);
	return s;
}

/* Runs one job on slot s's context into s->res. */
static void run_job(struct slot *s)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code = NULL;
	char why[1024] = "";
	int rc, stored = CLI_NO_STORE;

	p.name = s->job.name;
	p.source = s->job.source;
	p.length = s->job.length;
	p.options = s->job.noptions ? s->job.options : NULL;
	p.num_options = s->job.noptions;
	p.headers = s->job.nheaders ? s->job.headers : NULL;
	p.num_headers = s->job.nheaders;
	p.language = s->job.language;
	p.name_expressions = s->job.nexprs ? s->job.exprs : NULL;
	p.num_name_expressions = s->job.nexprs;
	rc = cli_compile_stored(&code, s->ctx, s->job.target, &p, &stored, why, sizeof why);
	memset(&s->res, 0, sizeof s->res);
	s->res.rc = rc;
	if (rc == 0) {
		s->res.from_cache = code->from_cache;
		s->res.not_stored = stored == CLI_NOT_STORED;
		s->res.compile_ms = code->compile_ms;
		snprintf(s->res.key, sizeof s->res.key, "%s", code->key);
		s->res.kernels = kernel_list(code);
	} else {
		s->res.kernels = cli_strdup("");
	}
	s->res.message = cli_strdup(rc ? rocjit_last_error() : why);
	s->res.log = cli_strdup(rocjit_last_log()); /* this thread's compile */
}

static void *slot_main(void *arg)
{
	struct slot *s = arg;
	struct cli_pool *p = s->pool;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (s->state != SLOT_RUNNING && !p->stopping)
			pthread_cond_wait(&p->work, &p->mu);
		if (s->state != SLOT_RUNNING)
			break;
		pthread_mutex_unlock(&p->mu);
		run_job(s);
		pthread_mutex_lock(&p->mu);
		s->state = SLOT_DONE;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int cli_pool_start(struct cli_pool *p)
{
	for (int i = 0; i < p->n; i++) {
		struct slot *s = &p->s[i];
		if (s->started)
			continue;
		s->pool = p;
		if (cli_open(&s->ctx, 0, 0) != CLI_OK)
			return -1;
		if (pthread_create(&s->thread, NULL, slot_main, s) != 0) {
			cli_fail("cannot start a compile thread: %s", strerror(errno));
			return -1;
		}
		s->started = 1;
	}
	return 0;
}

int cli_pool_can_submit(const struct cli_pool *p)
{
	int idle = 0;

	pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&p->mu);
	for (int i = 0; i < p->n && !idle; i++)
		idle = p->s[i].started && p->s[i].state == SLOT_IDLE;
	pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&p->mu);
	return idle;
}

int cli_pool_busy(const struct cli_pool *p)
{
	int busy = 0;

	pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&p->mu);
	for (int i = 0; i < p->n && !busy; i++)
		busy = p->s[i].state != SLOT_IDLE;
	pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&p->mu);
	return busy;
}

int cli_pool_submit(struct cli_pool *p, size_t id, const struct cli_job *job)
{
	int rc = -1;

	pthread_mutex_lock(&p->mu);
	for (int i = 0; i < p->n; i++) {
		struct slot *s = &p->s[i];
		if (!s->started || s->state != SLOT_IDLE)
			continue;
		s->job = *job;
		s->id = id;
		s->state = SLOT_RUNNING;
		pthread_cond_broadcast(&p->work);
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

/* A finished slot's result, handed over; the slot becomes idle.  Under p->mu. */
static int take_result(struct cli_pool *p, size_t *id, struct cli_job_result *res)
{
	for (int i = 0; i < p->n; i++) {
		struct slot *s = &p->s[i];
		if (s->state != SLOT_DONE)
			continue;
		*id = s->id;
		*res = s->res;
		memset(&s->res, 0, sizeof s->res);
		s->state = SLOT_IDLE;
		return 1;
	}
	return 0;
}

int cli_pool_wait(struct cli_pool *p, int timeout_ms, size_t *id, struct cli_job_result *res)
{
	struct timespec until;
	int got;

	clock_gettime(CLOCK_REALTIME, &until);
	if (timeout_ms >= 0) {
		until.tv_sec += timeout_ms / 1000;
		until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&p->mu);
	while (!(got = take_result(p, id, res))) {
		int running = 0;
		for (int i = 0; i < p->n; i++)
			running |= p->s[i].state == SLOT_RUNNING;
		if (!running)
			break;
		if (timeout_ms < 0)
			pthread_cond_wait(&p->done, &p->mu);
		else if (pthread_cond_timedwait(&p->done, &p->mu, &until) != 0)
			break;
	}
	pthread_mutex_unlock(&p->mu);
	return got;
}

void cli_pool_free(struct cli_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stopping = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->n; i++) {
		struct slot *s = &p->s[i];
		if (s->started)
			pthread_join(s->thread, NULL);
		cli_job_result_free(&s->res);
		rocjit_close(s->ctx);
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	free(p->s);
	free(p);
}

void cli_job_result_free(struct cli_job_result *r)
{
	free(r->kernels);
	free(r->message);
	free(r->log);
	r->kernels = r->message = r->log = NULL;
}
