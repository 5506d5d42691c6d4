/*
 * prefetch.c - compiling a list of programs ahead of need, in background threads
 * (rocjit_prefetch_*).
 *
 * Each thread takes the next item and asks for it as the application would
 * (rocjit_compile, rocjit_compile_registered_v2): the request path finds it in memory, on
 * disk or in a bundle, or compiles it in a worker (worker/pool.c).  So a prefetch and an
 * application asking for the same kernel at the same time compile it once, and a prefetch
 * never holds anything the application's own requests wait for.  Threads are as many as
 * the workers by default: more would only queue in the pool.
 *
 * Owns the prefetch handle and its threads.  Above the request path: it uses the public
 * calls, like any client of the library, and one switch of the request path's
 * (rj_fleet_nowait: an item another node compiles is put aside, not waited for).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "request/context.h"
#include "worker/pool.h"

struct rocjit_prefetch {
	rocjit_ctx *ctx;
	const rocjit_prefetch_item *items;
	size_t n;
	rocjit_prefetch_options opts;
	atomic_size_t next;   /* the next item to take                                  */
	size_t *deferred;     /* under mu: items another node was compiling when taken, */
	size_t ndeferred;     /* taken up again once the others are done (n slots)      */
	atomic_int cancel;    /* rocjit_prefetch_free: take no more items               */
	pthread_t *threads;
	unsigned int nthreads;

	pthread_mutex_t mu;   /* guards st and running; cv signals the end              */
	pthread_cond_t cv;
	rocjit_prefetch_status st;
	unsigned int running; /* threads not yet finished                               */
};

static int one(rocjit_prefetch *pf, const rocjit_prefetch_item *it, int *compiled)
{
	const rocjit_code *code = NULL;
	int rc;

	if (it->program)
		rc = rocjit_compile(&code, pf->ctx, it->target, it->program);
	else
		rc = rocjit_compile_registered_v2(&code, pf->ctx, it->target, it->registered,
						  it->registered_options);
	*compiled = rc == 0 && !code->from_cache;
	return rc;
}

/*
 * The next item: in order, then the ones deferred.  *again: it was deferred, so it is
 * asked for waiting, as the application would.  0 when none is left.
 */
static int take(rocjit_prefetch *pf, size_t *i, int *again)
{
	int ok = 0;

	if (atomic_load(&pf->cancel))
		return 0;
	*i = atomic_fetch_add(&pf->next, 1);
	*again = 0;
	if (*i < pf->n)
		return 1;
	pthread_mutex_lock(&pf->mu);
	if (pf->ndeferred) {
		*i = pf->deferred[--pf->ndeferred];
		*again = ok = 1;
	}
	pthread_mutex_unlock(&pf->mu);
	return ok;
}

/*
 * A prefetch thread.  With a remote tier, an item whose key another node of the fleet is
 * compiling now is not waited for (rj_fleet_nowait): it is put aside and taken up after
 * the others, by when its value is usually there.  So the nodes of a fleet that prefetch
 * the same list in the same order compile different kernels at the same time, instead of
 * all waiting for the one node that took the first.
 */
static void *run(void *arg)
{
	rocjit_prefetch *pf = arg;
	size_t i;
	int again;

	while (take(pf, &i, &again)) {
		rocjit_prefetch_status st;
		int compiled = 0, rc;

		rj_fleet_nowait = !again;
		rc = one(pf, &pf->items[i], &compiled);
		rj_fleet_nowait = 0;
		pthread_mutex_lock(&pf->mu);
		if (rc == RJ_DEFERRED) {
			pf->deferred[pf->ndeferred++] = i;
			pthread_mutex_unlock(&pf->mu);
			continue;
		}
		pf->st.done++;
		pf->st.failed += rc != 0;
		pf->st.compiled += (size_t)compiled;
		st = pf->st;
		pthread_mutex_unlock(&pf->mu);
		if (pf->opts.progress)
			pf->opts.progress(pf->opts.user, &st, i, rc, rc ? rocjit_last_error() : "");
	}
	pthread_mutex_lock(&pf->mu);
	if (--pf->running == 0) {
		pf->st.finished = 1;
		pthread_cond_broadcast(&pf->cv);
	}
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

ROCJIT_API int rocjit_prefetch_options_init(rocjit_prefetch_options *opts, unsigned int version)
{
	rocjit_prefetch_options init = ROCJIT_PREFETCH_OPTIONS_INIT;

	RJ_CHECK(!opts || version != ROCJIT_PREFETCH_OPTIONS_VERSION, ROCJIT_EINVAL,
		 "rocjit_prefetch_options_init: NULL options or unknown version %u", version);
	*opts = init;
	return 0;
}

static int check_items(const rocjit_prefetch_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		RJ_CHECK(!items[i].program == !items[i].registered, ROCJIT_EINVAL,
			 "rocjit_prefetch_start: item %zu must name a program or a registered "
			 "source (exactly one of them)", i);
	return 0;
}

ROCJIT_API int rocjit_prefetch_start(rocjit_prefetch **out, rocjit_ctx *ctx,
				     const rocjit_prefetch_item *items, size_t n,
				     const rocjit_prefetch_options *opts)
{
	rocjit_prefetch *pf;
	unsigned int want;

	RJ_CHECK(!out || !ctx || (!items && n), ROCJIT_EINVAL,
		 "rocjit_prefetch_start: out, ctx or items is NULL");
	*out = NULL;
	RJ_CHECK(opts && opts->version != ROCJIT_PREFETCH_OPTIONS_VERSION, ROCJIT_EINVAL,
		 "rocjit_prefetch_start: options version %u unknown: set it to "
		 "ROCJIT_PREFETCH_OPTIONS_VERSION", opts->version);
	RJ_FORWARD(check_items(items, n));
	pf = calloc(1, sizeof *pf);
	RJ_CHECK(!pf, ROCJIT_ENOMEM, "rocjit_prefetch_start: out of memory");
	pf->ctx = ctx;
	pf->items = items;
	pf->n = n;
	if (opts)
		pf->opts = *opts;
	else
		rocjit_prefetch_options_init(&pf->opts, ROCJIT_PREFETCH_OPTIONS_VERSION);
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, NULL);
	pf->st.total = n;
	want = pf->opts.threads ? pf->opts.threads : (unsigned int)rj_worker_max();
	if (want > n)
		want = (unsigned int)n;
	pf->threads = calloc(want ? want : 1, sizeof *pf->threads);
	pf->deferred = calloc(n ? n : 1, sizeof *pf->deferred);
	if (!pf->threads || !pf->deferred) {
		rocjit_prefetch_free(pf);
		RJ_FAIL(ROCJIT_ENOMEM, "rocjit_prefetch_start: out of memory");
	}
	pthread_mutex_lock(&pf->mu);
	for (; pf->nthreads < want; pf->nthreads++) {
		if (pthread_create(&pf->threads[pf->nthreads], NULL, run, pf) != 0)
			break;
		pf->running++;
	}
	if (pf->running == 0)
		pf->st.finished = n == 0;
	pthread_mutex_unlock(&pf->mu);
	if (pf->nthreads == 0 && n) {
		rocjit_prefetch_free(pf);
		RJ_FAIL(ROCJIT_ENOMEM, "rocjit_prefetch_start: no thread could be started");
	}
	*out = pf;
	rj_error_clear();
	return 0;
}

ROCJIT_API int rocjit_prefetch_status_get(rocjit_prefetch_status *out, const rocjit_prefetch *pf)
{
	RJ_CHECK(!out || !pf, ROCJIT_EINVAL, "rocjit_prefetch_status_get: NULL argument");
	pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&pf->mu);
	*out = pf->st;
	pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&pf->mu);
	return 0;
}

ROCJIT_API int rocjit_prefetch_wait(rocjit_prefetch *pf, double timeout_s)
{
	struct timespec until;
	int finished;

	RJ_CHECK(!pf, ROCJIT_EINVAL, "rocjit_prefetch_wait: NULL prefetch");
	clock_gettime(CLOCK_REALTIME, &until);
	if (timeout_s >= 0) {
		double whole = (double)(time_t)timeout_s;
		until.tv_sec += (time_t)timeout_s;
		until.tv_nsec += (long)((timeout_s - whole) * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&pf->mu);
	while (!pf->st.finished) {
		if (timeout_s < 0)
			pthread_cond_wait(&pf->cv, &pf->mu);
		else if (pthread_cond_timedwait(&pf->cv, &pf->mu, &until) != 0)
			break;
	}
	finished = pf->st.finished;
	pthread_mutex_unlock(&pf->mu);
	return finished ? 0 : 1;
}

ROCJIT_API void rocjit_prefetch_free(rocjit_prefetch *pf)
{
	if (!pf)
		return;
	atomic_store(&pf->cancel, 1);
	for (unsigned int i = 0; i < pf->nthreads; i++)
		pthread_join(pf->threads[i], NULL);
	pthread_mutex_lock(&pf->mu);
	pf->st.finished = 1;
	pthread_mutex_unlock(&pf->mu);
	pthread_mutex_destroy(&pf->mu);
	pthread_cond_destroy(&pf->cv);
	free(pf->threads);
	free(pf->deferred);
	free(pf);
}
