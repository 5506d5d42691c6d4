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
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "request/context.h"
#include "worker/pool.h"

/*
 * The size of version 1's rocjit_prefetch_item: the stride of a caller that gives none
 * (NULL options, options version 1, item_size 0), and the smallest one accepted.  When
 * the struct grows this stays the old size (the offset of the first new field).
 */
#define ITEM_V1_SIZE sizeof(rocjit_prefetch_item)

/* The part of a rocjit_prefetch_status each version has: version 1 is all of it so far. */
static const size_t status_sizes[] = { sizeof(rocjit_prefetch_status) };
_Static_assert(sizeof status_sizes / sizeof status_sizes[0] == ROCJIT_PREFETCH_STATUS_VERSION,
	       "rocjit_prefetch_status versions");

struct rocjit_prefetch {
	rocjit_ctx *ctx;
	const rocjit_prefetch_item *items;
	size_t item_size;     /* the caller's stride between items (options item_size)   */
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

/* Item i of a list whose elements are size bytes apart; only the fields of version 1
 * are read, so a caller's larger (later) struct reads right.  size is a multiple of the
 * struct's alignment (item_stride), so the element is aligned as the struct needs. */
static const rocjit_prefetch_item *item_at(const rocjit_prefetch_item *items, size_t size,
					   size_t i)
{
	return (const rocjit_prefetch_item *)(const void *)((const char *)items + i * size);
}

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
		rc = one(pf, item_at(pf->items, pf->item_size, i), &compiled);
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

/*
 * The stride the caller's options give (as rocjit_register_sources_v2 checks elem_size):
 * at least version 1's item, and a multiple of its alignment, so that every element is
 * aligned and the fields this library reads lie inside it.
 */
static int item_stride(size_t *size, const rocjit_prefetch_options *opts, size_t n)
{
	*size = opts && opts->version >= 2 && opts->item_size ? opts->item_size : ITEM_V1_SIZE;
	RJ_CHECK(*size < ITEM_V1_SIZE || *size % _Alignof(rocjit_prefetch_item) != 0,
		 ROCJIT_EINVAL, "rocjit_prefetch_start: item_size %zu is not "
		 "sizeof(rocjit_prefetch_item) as a caller knows it (at least %zu, a multiple "
		 "of %zu)", *size, ITEM_V1_SIZE, (size_t)_Alignof(rocjit_prefetch_item));
	RJ_CHECK(n > SIZE_MAX / *size, ROCJIT_EINVAL, "rocjit_prefetch_start: count %zu is "
		 "too large", n);
	return 0;
}

static int check_items(const rocjit_prefetch_item *items, size_t size, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const rocjit_prefetch_item *it = item_at(items, size, i);
		RJ_CHECK(!it->program == !it->registered, ROCJIT_EINVAL,
			 "rocjit_prefetch_start: item %zu must name a program or a registered "
			 "source (exactly one of them)", i);
	}
	return 0;
}

/*
 * The caller's options, as far as its version goes, over this version's defaults: a
 * caller built with an older header has a smaller struct, and nothing past its version's
 * fields is read.  NULL: the defaults.
 */
static void take_options(rocjit_prefetch_options *dst, const rocjit_prefetch_options *opts)
{
	rocjit_prefetch_options_init(dst, ROCJIT_PREFETCH_OPTIONS_VERSION);
	if (!opts)
		return;
	memcpy(dst, opts, opts->version >= 2 ? sizeof *opts
					     : offsetof(rocjit_prefetch_options, item_size));
}

ROCJIT_API int rocjit_prefetch_start(rocjit_prefetch **out, rocjit_ctx *ctx,
				     const rocjit_prefetch_item *items, size_t n,
				     const rocjit_prefetch_options *opts)
{
	rocjit_prefetch *pf;
	unsigned int want;
	size_t size;

	RJ_CHECK(!out || !ctx || (!items && n), ROCJIT_EINVAL,
		 "rocjit_prefetch_start: out, ctx or items is NULL");
	*out = NULL;
	RJ_CHECK(opts && (opts->version < 1 || opts->version > ROCJIT_PREFETCH_OPTIONS_VERSION),
		 ROCJIT_EINVAL, "rocjit_prefetch_start: options version %u unknown: set it to "
		 "ROCJIT_PREFETCH_OPTIONS_VERSION (rocjit_prefetch_options_init)",
		 opts->version);
	RJ_FORWARD(item_stride(&size, opts, n));
	RJ_FORWARD(check_items(items, size, n));
	pf = calloc(1, sizeof *pf);
	RJ_CHECK(!pf, ROCJIT_ENOMEM, "rocjit_prefetch_start: out of memory");
	pf->ctx = ctx;
	pf->items = items;
	pf->item_size = size;
	pf->n = n;
	take_options(&pf->opts, opts);
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, NULL);
	pf->st.version = ROCJIT_PREFETCH_STATUS_VERSION; /* what the progress calls get */
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

/* Fills the fields of out's version (as rocjit_counters_get does); a refused call leaves
 * *out as it was. */
ROCJIT_API int rocjit_prefetch_status_get(rocjit_prefetch_status *out, const rocjit_prefetch *pf)
{
	rocjit_prefetch_status st;
	unsigned int version;

	RJ_CHECK(!out || !pf, ROCJIT_EINVAL, "rocjit_prefetch_status_get: NULL argument");
	version = out->version;
	RJ_CHECK(version < 1 || version > ROCJIT_PREFETCH_STATUS_VERSION, ROCJIT_EINVAL,
		 "rocjit_prefetch_status_get: version %u unknown: set it to "
		 "ROCJIT_PREFETCH_STATUS_VERSION (rocjit_prefetch_status_init)", version);
	pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&pf->mu);
	st = pf->st;
	pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&pf->mu);
	memcpy(out, &st, status_sizes[version - 1]);
	out->version = version;
	rj_error_clear();
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
