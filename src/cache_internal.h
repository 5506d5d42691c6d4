/*
 * cache_internal.h - the cache connection's layout, shared by cache.c (open, get, put)
 * and cache_admin.c (walk, remove, verify, compact, counters).  Nothing else includes it.
 */
#ifndef ROCJIT_CACHE_INTERNAL_H
#define ROCJIT_CACHE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>

#include "cache.h"

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

/* cache_guard.c: 0, or ROCJIT_EIO saying why the folder or file must not be used. */
int rj_cache_check_trusted(const char *dir, const char *file);
int rj_cache_check_local(const char *dir);

/*
 * Takes c->lock and makes sure the connection is open (it is closed across fork():
 * cache.c).  Returns with the lock held in every case: 0, or ROCJIT_EIO (recorded) when
 * the connection cannot be opened again; the caller then unlocks and fails.
 */
int rj_cache_lock(rj_cache *c);

/* cache_admin.c: evicts least recently used entries past max_bytes (caller holds lock);
 * writes the pending hit counts and counters in one transaction (caller holds lock, the
 * connection open); kept pending when the write fails. */
void rj_cache_evict_locked(rj_cache *c);
void rj_cache_flush_locked(rj_cache *c);

/* Runs sql (no results); 0 or ROCJIT_EIO with the message recorded.  Caller holds lock. */
int rj_cache_exec(rj_cache *c, const char *sql);

#endif
