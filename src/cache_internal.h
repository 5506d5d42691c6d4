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
	rj_key *hits; /* keys hit since open, written at close */
	size_t nhits, caphits;
	double saved_ms;                    /* compile time of those hits */
	uint64_t misses, compiles;          /* reported by the context at close */
	double compile_ms;
	char path[4096];
	char dir[4096];
	int bad_file;   /* open failed because the file is no usable rocjit cache: move it aside */
	uint64_t max_bytes; /* $ROCJIT_CACHE_MAXSIZE: code bytes kept at most; 0 no limit */
};


#define DB_FAIL(c, what)                                                               \
	RJ_FAIL(ROCJIT_EIO, "cache %s: %s failed: %s", (c)->path, (what),             \
		sqlite3_errmsg((c)->db))

/* cache_guard.c: 0, or ROCJIT_EIO saying why the folder or file must not be used. */
int rj_cache_check_trusted(const char *dir, const char *file);
int rj_cache_check_local(const char *dir);

/* cache_admin.c: evicts least recently used entries past max_bytes (caller holds lock);
 * writes the hit counts and counters gathered since open (at close). */
void rj_cache_evict_locked(rj_cache *c);
void rj_cache_flush_counts(rj_cache *c);

/* Runs sql (no results); 0 or ROCJIT_EIO with the message recorded.  Caller holds lock. */
int rj_cache_exec(rj_cache *c, const char *sql);

#endif
