/*
 * cache_process.c - the process's open caches: opening and closing them, fork(), and the
 * thread that writes usage records.
 *
 * fork(): SQLite forbids using a connection in a child process, even closing it there,
 * and a connection opened in the child while an inherited one exists shares the parent's
 * lock bookkeeping (SQLite keeps it per process and file).  So before every fork() each
 * open cache's connection is closed (under its lock, with no statement running), and the
 * first use afterwards, in parent or child, opens it again: a child never holds any
 * connection of its parent.  The hits still pending at the fork are the parent's: the
 * child forgets its copy of them.  The connection is opened again by rj_cache_lock
 * (cache_db.c).
 *
 * Owns the list of open caches, the fork handlers and the flusher thread.  The connection
 * is cache_db.c's and the usage records cache_usage.c's: this file decides when they are
 * closed or written, never how.  Above both in the cache's layers (cache_internal.h); it
 * never calls get, put or the administrative walks.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/cache_internal.h"
#include "base/error.h"
#include "base/fsutil.h"

#define FLUSH_MS 2000

/* ---- The process's open caches: fork and usage records ---------------------------------- */

/*
 * Lock order: caches_mu, then a cache's lock, then flush_mu.  Nothing holding a cache's
 * lock takes caches_mu.
 */
static pthread_mutex_t caches_mu = PTHREAD_MUTEX_INITIALIZER;
static rj_cache *caches;               /* under caches_mu */
static pthread_once_t process_once = PTHREAD_ONCE_INIT;

/* The flusher: one thread a process, started at the first pending hit, that writes the
 * pending hits of every cache FLUSH_MS after the oldest came. */
static pthread_mutex_t flush_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flush_cv;
static int flush_armed;                /* under flush_mu: a flush is due at flush_due */
static struct timespec flush_due;
static int flusher;                    /* under flush_mu: 0 none, 1 running, -1 failed */

/* How often the flusher writes a process's index again while the process keeps adding to
 * it (at close and at exit it is written whenever it lacks something). */
#define INDEX_EVERY_S 30

/*
 * Writes c's pending hits now (caller holds c->lock; rate: the flusher passes 1, close and
 * exit 0), and checks the mapped index against the database's deletions.  Returns 1 when
 * the read index lacks entries this process used and is due to be written again: the
 * caller then calls write_index without c->lock.  Best-effort.
 */
static int flush_now_locked(rj_cache *c, int rate)
{
	rj_cache_put_held_locked(c);
	if ((c->nhits || c->later || rj_cache_counts_pending(c) || (c->check_due && rate)) &&
	    !c->readonly &&
	    rj_cache_reopen_locked(c) == 0)
		rj_cache_flush_locked(c);
	c->check_due = 0;
	if (c->db)
		rj_index_check_deletions(c); /* rows another program deleted meanwhile */
	if (!rj_index_wanted(c) ||
	    (rate && c->index_written && time(NULL) - c->index_written < INDEX_EVERY_S))
		return 0;
	c->index_dirty = 0; /* what is used from now on marks it again */
	c->index_written = time(NULL);
	return 1;
}

/*
 * Writes c's folder's index through a connection of its own, so that c's lock is not held
 * while the rows are copied: the process's lookups (index hits above all) go on meanwhile.
 * c stays open (the caller holds caches_mu, or c is no longer listed).
 */
static void write_index(rj_cache *c)
{
	rj_cache *w;
	int rc = -1;

	if (rj_cache_open_unregistered(&w, c->opened_as, 0, 0) == 0) {
		pthread_mutex_lock(&w->lock);
		rc = rj_index_write_locked(w);
		pthread_mutex_unlock(&w->lock);
		rj_cache_close_db(w);
		rj_cache_free(w);
	}
	rj_error_clear();
	if (rc != 0) {
		pthread_mutex_lock(&c->lock);
		c->index_dirty = 1; /* tried again at the next round (at most every 30 s) */
		pthread_mutex_unlock(&c->lock);
	}
}

/* Every open cache's pending hits, and the indexes due.  exiting: take no lock that is
 * held (at exit, other threads may be anywhere), skip instead. */
static void flush_all(int exiting, int rate)
{
	if (exiting ? pthread_mutex_trylock(&caches_mu) != 0 : pthread_mutex_lock(&caches_mu) != 0)
		return;
	for (rj_cache *c = caches; c; c = c->next_open) {
		int index_due;
		if (exiting ? pthread_mutex_trylock(&c->lock) != 0
			    : pthread_mutex_lock(&c->lock) != 0)
			continue;
		index_due = flush_now_locked(c, rate);
		pthread_mutex_unlock(&c->lock);
		if (index_due)
			write_index(c);
	}
	pthread_mutex_unlock(&caches_mu);
}

static void flush_at_exit(void)
{
	flush_all(1, 0);
}

static void *flusher_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&flush_mu);
	for (;;) {
		while (!flush_armed)
			pthread_cond_wait(&flush_cv, &flush_mu);
		if (pthread_cond_timedwait(&flush_cv, &flush_mu, &flush_due) != ETIMEDOUT)
			continue; /* woken early: wait on for the same time */
		flush_armed = 0;
		pthread_mutex_unlock(&flush_mu);
		flush_all(0, 1);
		pthread_mutex_lock(&flush_mu);
	}
	return NULL;
}

static void init_flush_cv(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&flush_cv, &attr);
	pthread_condattr_destroy(&attr);
}

/*
 * A cache got its first pending hit: makes sure a flush comes within FLUSH_MS (now: at
 * once, a batch is full).  Called under the cache's lock, once or twice per batch (never
 * per hit).  The flusher runs with every signal blocked, so that the application's
 * signals go to its own threads.
 */
void rj_cache_arm_flusher(int now)
{
	pthread_mutex_lock(&flush_mu);
	if (!flush_armed || now) {
		clock_gettime(CLOCK_MONOTONIC, &flush_due);
		if (!now) {
			flush_due.tv_sec += FLUSH_MS / 1000;
			flush_due.tv_nsec += (long)(FLUSH_MS % 1000) * 1000000L;
			if (flush_due.tv_nsec >= 1000000000L) {
				flush_due.tv_sec++;
				flush_due.tv_nsec -= 1000000000L;
			}
		}
		flush_armed = 1;
		if (flusher == 0) {
			pthread_t t;
			pthread_attr_t attr;
			sigset_t all, old;
			sigfillset(&all);
			pthread_sigmask(SIG_SETMASK, &all, &old);
			pthread_attr_init(&attr);
			pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
			flusher = pthread_create(&t, &attr, flusher_main, NULL) == 0 ? 1 : -1;
			pthread_attr_destroy(&attr);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
		}
		pthread_cond_signal(&flush_cv);
	}
	pthread_mutex_unlock(&flush_mu);
}

/* Before fork(): every cache quiet and its connection closed (see the top of the file). */
static void before_fork(void)
{
	pthread_mutex_lock(&caches_mu);
	for (rj_cache *c = caches; c; c = c->next_open) {
		pthread_mutex_lock(&c->lock);
		if (c->db) {
			rj_cache_close_db(c);
			c->closed_for_fork = 1;
		}
	}
}

static void after_fork_parent(void)
{
	for (rj_cache *c = caches; c; c = c->next_open)
		pthread_mutex_unlock(&c->lock);
	pthread_mutex_unlock(&caches_mu);
}

/* Never the cache's lock: a failure may be counted by a thread that holds another tier's
 * lock (the remote tier's: rj_remote_count_in).  The flusher, armed here, writes them
 * (rj_cache_flush_locked). */
void rj_cache_count(rj_cache *c, enum rj_count what, uint64_t n)
{
	if (!c || !n || what < 0 || what >= RJ_COUNT_N)
		return;
	atomic_fetch_add(&c->counts[what], n);
	rj_cache_arm_flusher(0);
}

/* The child: the pending hits and counts are the parent's to write; no flusher runs. */
static void after_fork_child(void)
{
	for (rj_cache *c = caches; c; c = c->next_open) {
		rj_cache_forget_pending(c);
		rj_cache_forget_counts(c);
		rj_cache_forget_held(c);
		rj_cache_forget_later(c);
		pthread_mutex_init(&c->lock, NULL); /* anew: the parent's thread took it */
	}
	pthread_mutex_init(&flush_mu, NULL);
	init_flush_cv();
	flush_armed = 0;
	flusher = 0;
	pthread_mutex_init(&caches_mu, NULL);
}

static void process_init(void)
{
	init_flush_cv();
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	atexit(flush_at_exit);
}

int rj_cache_open(rj_cache **out, const char *dir, int readonly)
{
	rj_cache *c;

	char abs[sizeof c->opened_as];

	pthread_once(&process_once, process_init);
	/* Absolute: the connection may be opened later (deferred, or again after fork()),
	   when the process may have changed its working folder. */
	if (dir[0] != '/') {
		char cwd[sizeof abs];
		RJ_CHECK(!getcwd(cwd, sizeof cwd), ROCJIT_EIO, "cache folder %s: the working "
			 "folder cannot be read (%s): give the cache folder as an absolute path",
			 dir, strerror(errno));
		RJ_CHECK(rj_fs_join(abs, sizeof abs, cwd, dir) != 0, ROCJIT_EINVAL,
			 "cache folder path is too long");
	} else {
		RJ_CHECK(strlen(dir) >= sizeof abs, ROCJIT_EINVAL, "cache folder path is too long");
		memcpy(abs, dir, strlen(dir) + 1);
	}
	RJ_FORWARD(rj_cache_open_unregistered(out, abs, readonly, 1));
	c = *out;
	memcpy(c->opened_as, abs, strlen(abs) + 1); /* the same size */
	c->checked_at = time(NULL);
	c->remap_at = c->checked_at + RJ_CHECK_S; /* open looked for an index just now */
	pthread_mutex_lock(&caches_mu);
	c->next_open = caches;
	caches = c;
	c->registered = 1;
	pthread_mutex_unlock(&caches_mu);
	return 0;
}

void rj_cache_close(rj_cache *c)
{
	if (!c)
		return;
	if (c->registered) {
		pthread_mutex_lock(&caches_mu);
		for (rj_cache **p = &caches; *p; p = &(*p)->next_open)
			if (*p == c) {
				*p = c->next_open;
				break;
			}
		pthread_mutex_unlock(&caches_mu);
	}
	if (c->db || c->closed_for_fork || c->deferred) {
		int index_due;
		pthread_mutex_lock(&c->lock);
		if ((c->nhits || c->later || c->misses || c->compiles ||
		     rj_cache_counts_pending(c)) && !c->readonly &&
		    rj_cache_reopen_locked(c) == 0)
			rj_cache_flush_locked(c);
		index_due = flush_now_locked(c, 0); /* the index, when it lacks what was used */
		pthread_mutex_unlock(&c->lock);
		if (index_due)
			write_index(c);
		rj_cache_close_db(c);
	}
	rj_cache_forget_later(c); /* stored above when they could be */
	rj_cache_free(c);
}
