/*
 * cache_usage.c - the cache's usage records and its size limit.
 *
 * Owns what is written about entries after the fact: the batched hit counts and last-use
 * times (gathered in memory by cache.c, written here in one transaction per batch), the
 * counters across processes, entries kept to be stored later (the remote tier's hits,
 * copied in off the request path), the row insert every store goes through, and
 * eviction of the least recently used entries past ROCJIT_CACHE_MAXSIZE.  Works on a
 * connection cache_db.c opened, under the lock its caller holds; never opens, locks or
 * closes one itself.  When a batch is written is
 * its callers' choice: cache.c (a full batch, a store), cache_process.c (the flusher
 * thread, close, exit).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/shared.h"
#include "store/cache_internal.h"

int rj_cache_insert_locked(rj_cache *c, const rj_key *key, const struct rj_cache_meta *m,
			   const void *code, size_t size)
{
	sqlite3_stmt *st = rj_cache_put_stmt(c);
	int rc;

	if (!st)
		return ROCJIT_EIO;
	sqlite3_bind_blob(st, 1, key->b, 16, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, m->platform, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, m->target, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, m->compiler, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, m->options, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, m->source_name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, m->headers, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, m->kernels, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)size);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)rj_checksum(code, size));
	sqlite3_bind_int64(st, 11, (sqlite3_int64)time(NULL));
	sqlite3_bind_double(st, 12, m->compile_ms);
	sqlite3_bind_blob64(st, 13, code, size, SQLITE_STATIC);
	sqlite3_bind_blob(st, 14, m->pkey.b, 16, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: write failed: %s",
				    c->path, sqlite3_errmsg(c->db));
	c->index_dirty = 1;
	/* Its signature, or none (a replaced entry's is dropped): signatures.c; and where it
	   came from (origins.c), in the same transaction. */
	RJ_FORWARD(rj_sig_table_put(c->db, key->b, m->signer, m->signer ? m->sig : NULL));
	return rj_origin_put(c->db, key->b, m->origin, m->origin_signer);
}

/* An entry kept to be stored later: one allocation, the strings after it, and the code
 * too unless it lies in a shared buffer the entry holds a reference to. */
struct rj_later {
	struct rj_later *next;
	rj_key key;
	struct rj_cache_meta m;
	size_t size;
	const void *code;
	void *shared;        /* the buffer code lies in (rj_shared_ref'ed), or NULL */
};

int rj_cache_keep_later_locked(rj_cache *c, const rj_key *key, const struct rj_cache_meta *m,
			       const void *code, size_t size, void *shared)
{
	const char *src[7] = { m->platform, m->target, m->compiler, m->options, m->source_name,
			       m->headers, m->kernels };
	size_t len = sizeof(struct rj_later) + (shared ? 0 : size) + RJ_SIG_BYTES, n[7], ns, no;
	struct rj_later *l;
	char *p;

	for (int i = 0; i < 7; i++)
		len += (n[i] = strlen(src[i]) + 1);
	len += (ns = m->signer ? strlen(m->signer) + 1 : 0);
	len += (no = m->origin_signer ? strlen(m->origin_signer) + 1 : 0);
	l = malloc(len);
	RJ_CHECK(!l, ROCJIT_ENOMEM, "out of memory keeping an entry for the cache");
	l->key = *key;
	l->m = *m;
	l->size = size;
	p = (char *)(l + 1);
	l->shared = shared ? rj_shared_ref(shared) : NULL;
	if (shared) {
		l->code = code;
	} else {
		memcpy(p, code, size);
		l->code = p;
		p += size;
	}
	{
		const char **dst[7] = { &l->m.platform, &l->m.target, &l->m.compiler,
					&l->m.options, &l->m.source_name, &l->m.headers,
					&l->m.kernels };
		for (int i = 0; i < 7; i++) {
			memcpy(p, src[i], n[i]);
			*dst[i] = p;
			p += n[i];
		}
	}
	if (m->signer) {
		memcpy(p, m->signer, ns);
		l->m.signer = p;
		p += ns;
		memcpy(p, m->sig, RJ_SIG_BYTES);
		l->m.sig = (const unsigned char *)p;
		p += RJ_SIG_BYTES;
	}
	if (m->origin_signer) {
		memcpy(p, m->origin_signer, no);
		l->m.origin_signer = p;
	}
	l->next = c->later;
	c->later = l;
	return 0;
}

void rj_cache_forget_later(rj_cache *c)
{
	while (c->later) {
		struct rj_later *l = c->later;
		c->later = l->next;
		rj_shared_unref(l->shared);
		free(l);
	}
}

/* Stores the entries kept for later in one transaction, then applies the size limit
 * (caller holds lock, the connection open).  A failure loses them: the next process
 * asks the remote tier again. */
static void write_later_locked(rj_cache *c)
{
	int ok = !c->readonly && rj_cache_exec(c, "BEGIN IMMEDIATE") == 0;

	for (struct rj_later *l = c->later; ok && l; l = l->next)
		ok = rj_cache_insert_locked(c, &l->key, &l->m, l->code, l->size) == 0;
	if (ok && rj_cache_exec(c, "COMMIT") == 0)
		rj_cache_evict_locked(c);
	else if (!c->readonly)
		rj_cache_exec(c, "ROLLBACK");
	rj_cache_forget_later(c);
	rj_error_clear();
}

/*
 * Keeps the code bytes under c->max_bytes: when a store takes them over, the least
 * recently used entries go, in one transaction, down to 90% of the limit (so that the
 * next stores do not evict again at once).  A process reading an entry has its own copy
 * from one statement, so eviction never takes away what someone is loading.
 */
void rj_cache_evict_locked(rj_cache *c)
{
	sqlite3_stmt *sel = NULL, *del = NULL, *totals;
	uint64_t total = 0, low;
	int evicted = 0;

	rj_cache_limit_refresh_locked(c); /* another process may have stored a new limit */
	low = c->max_bytes / 10 * 9;
	if (!c->max_bytes || !(totals = rj_cache_totals_stmt(c)))
		return;
	if (sqlite3_step(totals) != SQLITE_ROW) {
		sqlite3_reset(totals);
		return;
	}
	total = (uint64_t)sqlite3_column_int64(totals, 1);
	sqlite3_reset(totals);
	if (total <= c->max_bytes || rj_cache_exec(c, "BEGIN IMMEDIATE") != 0)
		return;
	rj_index_drop(c); /* before the rows, under the write lock (cache_index_write.c) */
	if (sqlite3_prepare_v2(c->db, "SELECT key, size FROM entries ORDER BY last_used, created",
			       -1, &sel, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(c->db, "DELETE FROM entries WHERE key = ?1", -1, &del, NULL) ==
		    SQLITE_OK) {
		while (total > low && sqlite3_step(sel) == SQLITE_ROW) {
			sqlite3_bind_blob(del, 1, sqlite3_column_blob(sel, 0),
					  sqlite3_column_bytes(sel, 0), SQLITE_TRANSIENT);
			if (sqlite3_step(del) == SQLITE_DONE) {
				total -= (uint64_t)sqlite3_column_int64(sel, 1);
				evicted++;
			}
			sqlite3_reset(del);
		}
	}
	sqlite3_finalize(sel);
	sqlite3_finalize(del);
	/* Counted with the deletions, in their transaction: once, by the process that
	   evicted. */
	rj_cache_add_counter(c, RJ_EVICTIONS_COUNTER, evicted);
	if (rj_cache_exec(c, "COMMIT") != 0)
		rj_cache_exec(c, "ROLLBACK");
	else if (evicted)
		RJ_LOG(RJ_LOG_INFO, "cache %s: evicted %d least recently used entries to stay under "
		       "its size limit (cache_maxsize, %llu bytes)", c->path, evicted,
		       (unsigned long long)c->max_bytes);
}

/*
 * Writes the usage records gathered since the last flush - each hit entry's count and
 * last use, and the counters - in one transaction.  When it cannot be written (the cache
 * busy past the timeout) they stay pending for the next flush; a failure later in the
 * transaction loses only statistics.
 */
void rj_cache_flush_locked(rj_cache *c)
{
	sqlite3_stmt *st = NULL;
	int64_t now = (int64_t)time(NULL);

	if (c->later)
		write_later_locked(c);
	if ((!c->nhits && !c->misses && !c->compiles && !rj_cache_counts_pending(c)) ||
	    c->readonly)
		return;
	if (rj_cache_exec(c, "BEGIN IMMEDIATE") != 0)
		return;
	if (c->nhits && sqlite3_prepare_v2(c->db, RJ_USAGE_SQL, -1, &st, NULL) == SQLITE_OK) {
		for (size_t i = 0; i < c->nhits; i++) {
			sqlite3_bind_blob(st, 1, c->hits[i].b, 16, SQLITE_STATIC);
			sqlite3_bind_int64(st, 2, 1);
			sqlite3_bind_int64(st, 3, now);
			sqlite3_step(st);
			sqlite3_reset(st);
		}
	}
	sqlite3_finalize(st);
	rj_cache_add_counters(c, (double)c->nhits, c->saved_ms, (double)c->misses,
			      (double)c->compiles, c->compile_ms);
	/* Taken, not read: a failure counted meanwhile waits for the next flush.  Lost, as
	   the rest, when the transaction fails (statistics only). */
	for (int i = 0; i < RJ_COUNT_N; i++)
		rj_cache_add_counter(c, rj_count_names[i],
				     (double)atomic_exchange(&c->counts[i], 0));
	if (rj_cache_exec(c, "COMMIT") != 0)
		rj_cache_exec(c, "ROLLBACK");
	rj_cache_forget_pending(c);
}

void rj_cache_forget_pending(rj_cache *c)
{
	c->nhits = 0;
	c->saved_ms = 0;
	c->misses = c->compiles = 0;
	c->compile_ms = 0;
}

const char *const rj_count_names[RJ_COUNT_N] = {
	[RJ_COUNT_COMPILE_ERROR] = "compile_errors",
	[RJ_COUNT_SIGNATURE_REJECT] = "signature_rejects",
	[RJ_COUNT_REMOTE_ERROR] = "remote_errors",
};

int rj_cache_counts_pending(rj_cache *c)
{
	for (int i = 0; i < RJ_COUNT_N; i++)
		if (atomic_load(&c->counts[i]))
			return 1;
	return 0;
}

void rj_cache_forget_counts(rj_cache *c)
{
	for (int i = 0; i < RJ_COUNT_N; i++)
		atomic_store(&c->counts[i], 0);
}

void rj_cache_note_counts(rj_cache *c, uint64_t misses, uint64_t compiles, double compile_ms)
{
	pthread_mutex_lock(&c->lock);
	c->misses += misses;
	c->compiles += compiles;
	c->compile_ms += compile_ms;
	pthread_mutex_unlock(&c->lock);
}

/* Hits held at most: past it, they are put on the board at once (memory stays bounded). */
#define HELD_MAX 1024

/* An append, no search: a process reaches the index once per key and context (the
 * in-process table serves the rest), and a key held twice is put twice, adding up. */
int rj_cache_hold_hit(rj_cache *c, const rj_key *key, double compile_ms)
{
	if (c->nheld >= HELD_MAX)
		rj_cache_put_held_locked(c);
	if (c->nheld == c->capheld) {
		size_t cap = c->capheld ? c->capheld * 2 : 64;
		struct rj_held *n = realloc(c->held, cap * sizeof *n);
		if (!n)
			return -1;
		c->held = n;
		c->capheld = cap;
	}
	c->held[c->nheld++] = (struct rj_held){ *key, 1, (int64_t)time(NULL), compile_ms };
	return 0;
}

/* Writes held hits to the database (those whose index is gone): kept held when it cannot
 * be opened or written, for the next try. */
static void held_to_database(rj_cache *c, size_t n)
{
	sqlite3_stmt *st = NULL;
	double hits = 0, saved = 0;

	if (c->readonly || rj_cache_reopen_locked(c) != 0 ||
	    rj_cache_exec(c, "BEGIN IMMEDIATE") != 0)
		return;
	if (sqlite3_prepare_v2(c->db, RJ_USAGE_SQL, -1, &st, NULL) == SQLITE_OK) {
		for (size_t i = 0; i < n; i++) {
			sqlite3_bind_blob(st, 1, c->held[i].key.b, 16, SQLITE_STATIC);
			sqlite3_bind_int64(st, 2, (int64_t)c->held[i].hits);
			sqlite3_bind_int64(st, 3, c->held[i].last);
			sqlite3_step(st);
			sqlite3_reset(st);
			hits += (double)c->held[i].hits;
			saved += c->held[i].compile_ms * (double)c->held[i].hits;
		}
	}
	sqlite3_finalize(st);
	rj_cache_add_counters(c, hits, saved, 0, 0, 0);
	if (rj_cache_exec(c, "COMMIT") != 0) {
		rj_cache_exec(c, "ROLLBACK");
		return;
	}
	c->nheld = 0;
}

void rj_cache_put_held_locked(rj_cache *c)
{
	size_t left = 0;

	for (size_t i = 0; i < c->nheld; i++) {
		struct rj_held *h = &c->held[i];
		if (rj_index_put_hits(c->index, &h->key, h->hits, h->last, h->compile_ms) != 1)
			c->held[left++] = *h; /* the index lacks it now */
	}
	c->nheld = left;
	if (left)
		held_to_database(c, left);
}

void rj_cache_forget_held(rj_cache *c)
{
	c->nheld = 0;
}