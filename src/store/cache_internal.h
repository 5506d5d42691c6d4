/*
 * cache_internal.h - the cache connection's layout, shared by cache.c (open, get, put)
 * and cache_admin.c (walk, remove, verify, compact, counters).  Nothing else includes it.
 */
#ifndef ROCJIT_CACHE_INTERNAL_H
#define ROCJIT_CACHE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>

#include "store/cache.h"

struct rj_cache {
	sqlite3 *db;
	pthread_mutex_t lock;
	sqlite3_stmt *get, *put, *totals;
	int readonly;
	rj_key *hits; /* keys hit and not yet written (batched: cache.c) */
	size_t nhits, caphits;
	double saved_ms;                    /* compile time of those hits */
	uint64_t misses, compiles;          /* reported by the context at close */
	double compile_ms;
	char path[4096];
	char dir[4096];
	int dirfd;      /* the checked cache folder (pinned, sqlite_fd.h), or -1 */
	int filefd;     /* a cache given as a file: the checked file SQLite reads, or -1 */
	int bad_file;   /* open failed because the file is no usable rocjit cache: move it aside */
	uint64_t max_bytes; /* $ROCJIT_CACHE_MAXSIZE: code bytes kept at most; 0 no limit */
	/* fork (cache.c): the connection is closed before every fork() and opened again,
	   from what rj_cache_open was given, by the first use in parent or child. */
	char opened_as[4096];
	int closed_for_fork;
	int registered;                /* in the process's list of open caches */
	struct rj_cache *next_open;
};


#define DB_FAIL(c, what)                                                               \
	RJ_FAIL(ROCJIT_EIO, "cache %s: %s failed: %s", (c)->path, (what),             \
		sqlite3_errmsg((c)->db))

/*
 * trust.c: the trust rule, applied to the descriptor fd that is then used (what:
 * "cache", "bundle", ... for the message).  0, or ROCJIT_EIO saying why it must not be
 * used and what to do.  RJ_TRUST_CACHE: a cache (its hints name ROCJIT_CACHE_DIR and
 * ROCJIT_CACHE_SHARED); with RJ_TRUST_SHARED, a cache shared by a group of this user.
 */
#define RJ_TRUST_CACHE 1
#define RJ_TRUST_SHARED 2
int rj_trust_check(int fd, const char *path, const char *what, int flags);
/* RJ_TRUST_CACHE, plus RJ_TRUST_SHARED when $ROCJIT_CACHE_SHARED is on. */
int rj_cache_trust_flags(void);
/*
 * cache.c: <dir>/locks opened through the checked cache folder dirfd (created 0700, or
 * 0770 in shared mode; never through a link) and checked by the trust rule.  Returns the
 * descriptor, or a negative code with the message recorded.
 */
int rj_cache_locks_dir(int dirfd, const char *dir);
/* 0, or ROCJIT_EIO when folder dirfd is on a network file system (and not allowed). */
int rj_cache_check_local(int dirfd, const char *dir);

/*
 * Takes c->lock and makes sure the connection is open (it is closed across fork():
 * cache.c).  Returns with the lock held in every case: 0, or ROCJIT_EIO (recorded) when
 * the connection cannot be opened again; the caller then unlocks and fails.
 */
int rj_cache_lock(rj_cache *c);

/* cache.c, for cache_process.c: opens a cache that is not in the process's list; closes
 * its connection and the descriptors SQLite reads through. */
int rj_cache_open_unregistered(rj_cache **out, const char *dir, int readonly);
void rj_cache_close_db(rj_cache *c);
/* cache_process.c: a cache got its first pending hit; a flush comes within 2 s. */
void rj_cache_arm_flusher(void);

/* cache_admin.c: evicts least recently used entries past max_bytes (caller holds lock);
 * writes the pending hit counts and counters in one transaction (caller holds lock, the
 * connection open); kept pending when the write fails. */
void rj_cache_evict_locked(rj_cache *c);
void rj_cache_flush_locked(rj_cache *c);

/* Runs sql (no results); 0 or ROCJIT_EIO with the message recorded.  Caller holds lock. */
int rj_cache_exec(rj_cache *c, const char *sql);

#endif
