/*
 * cache.c - the on-disk cache on the request path: get, put, totals, and the compiler
 * memo.
 *
 * Owns what a request does with the cache: looking a key up (the read index first, else
 * one prepared SELECT and a checksum), storing a fresh code object (then keeping under
 * the size limit), and recording each hit.  A hit served by the index is recorded on the
 * index's usage board (cache_index_board.c), or held in memory when its entry was used
 * there within the last minute (cache_usage.c puts it there at close or exit).  A hit read from
 * the database is gathered in memory and written in batches (cache_usage.c), one
 * transaction per batch, so that readers rarely take SQLite's write lock and a process
 * that crashes or never closes still leaves its hot entries recently used; the first
 * pending hit arms the flusher (cache_process.c).  Stores and returns opaque code objects
 * under 16-byte keys: knows nothing of compilers or devices, and never opens or closes
 * the connection (cache_db.c).  Every failure is returned to the caller, who treats it as
 * a miss (see cache.h).
 */
#include "store/cache.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "store/cache_internal.h"

/* Usage records: pending hits are written by the background flusher when this many
 * accumulate, or when the oldest is 2 s old; or by a store, at close, or at exit.  A warm
 * start that hits every entry of a large kernel set (the op set: 436) fits in one batch,
 * so no flush competes with it. */
#define FLUSH_HITS 1024
/* Past this many pending (the flusher cannot keep up, or did not start), the requesting
 * thread writes them itself: the memory they take stays bounded. */
#define FLUSH_HITS_MAX 16384

/*
 * Records a hit in memory (caller holds c->lock): an append, and once per batch a word
 * to the flusher.  The flusher writes the batch, never this thread (a hit never waits for
 * a write), unless FLUSH_HITS_MAX are pending.
 */
static void note_hit(rj_cache *c, const rj_key *key)
{
	if (c->readonly)
		return;
	if (c->nhits == c->caphits) {
		size_t cap = c->caphits ? c->caphits * 2 : 16;
		rj_key *nk = realloc(c->hits, cap * sizeof *nk);
		if (!nk)
			return;
		c->hits = nk;
		c->caphits = cap;
	}
	c->hits[c->nhits++] = *key;
	if (c->nhits == 1)
		rj_cache_arm_flusher(0);
	else if (c->nhits == FLUSH_HITS)
		rj_cache_arm_flusher(1);
	else if (c->nhits >= FLUSH_HITS_MAX) {
		/* Hits from the index come without a connection: open it first.  When that
		   fails, the records go: their memory stays bounded. */
		if (rj_cache_reopen_locked(c) == 0)
			rj_cache_flush_locked(c);
		if (c->nhits >= FLUSH_HITS_MAX)
			c->nhits = 0;
	}
}

/* Removes a row whose code failed its checksum, and the index with it (one write
 * transaction: see cache_index_write.c).  Best-effort. */
static void drop_locked(rj_cache *c, const rj_key *key)
{
	sqlite3_stmt *st;

	if (c->readonly || rj_cache_exec(c, "BEGIN IMMEDIATE") != 0)
		return;
	rj_index_drop(c);
	if (sqlite3_prepare_v2(c->db, "DELETE FROM entries WHERE key = ?1", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_blob(st, 1, key->b, 16, SQLITE_STATIC);
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (rj_cache_exec(c, "COMMIT") != 0)
		rj_cache_exec(c, "ROLLBACK");
}

/*
 * A hit in the read index (caller holds c->lock): 1 with *code a malloc'ed copy, also in
 * *owned, 0 when the index has no such entry (or none is mapped), negative when out of
 * memory.  A damaged entry stops this process's use of the index, which is then written
 * anew.  A file shortened under the mapping (issue 27) is a miss: what was taken from it
 * is dropped once the mapping says it broke, and the folder's index is looked for again
 * at the next lookup.
 */
static int index_get_locked(rj_cache *c, const rj_key *key, const void **code, void **owned,
			    size_t *size, double *compile_ms, char **kernels)
{
	struct rj_index_hit hit;
	int found, recorded;

	if (c->index) {
		rj_index_stale(c); /* replaced or removed by another process: the current one */
	} else if (c->dirfd >= 0 && time(NULL) >= c->remap_at) {
		/* None mapped (none there at open, one dropped or found damaged, or the
		   connection was closed for a fork() when it was replaced): look again now and
		   then. */
		c->remap_at = time(NULL) + RJ_CHECK_S;
		rj_index_map(c);
	}
	if (!c->index || (found = rj_index_find(c->index, key, &hit)) == 0)
		return 0;
	if (found == -2)
		return rj_error_set(ROCJIT_ENOMEM, __FILE__, __LINE__,
				    "out of memory reading the cache");
	if (found < 0) {
		char hex[33];
		rj_key_hex(key, hex);
		rj_log(RJ_LOG_WARN, "cache index %s/%s: entry %s is damaged; the index is not "
		       "used again (it is written anew) and the database is read instead", c->dir,
		       RJ_INDEX_FILE, hex);
		rj_index_reject(c);
		return 0;
	}
	if (kernels && !(*kernels = strdup(hit.kernels))) {
		free(hit.owned);
		return rj_error_set(ROCJIT_ENOMEM, __FILE__, __LINE__,
				    "out of memory reading the cache");
	}
	if (rj_index_broken(c->index)) {
		/* The kernels column may be zeros (the code's checksum vouched for it). */
		free(hit.owned);
		if (kernels) {
			free(*kernels);
			*kernels = NULL;
		}
		rj_index_stale(c);
		return 0;
	}
	*code = *owned = hit.owned;
	*size = hit.size;
	*compile_ms = hit.compile_ms;
	recorded = rj_index_stamp(c->index, hit.ordinal, hit.compile_ms, 1);
	if (recorded == 2 && rj_cache_hold_hit(c, key, hit.compile_ms) != 0)
		recorded = rj_index_stamp(c->index, hit.ordinal, hit.compile_ms, 0);
	if (!recorded) {
		c->saved_ms += hit.compile_ms;
		note_hit(c, key);
	} else if (time(NULL) - c->checked_at >= RJ_CHECK_S && !c->readonly) {
		/* Recorded on the board: no flusher is needed for it.  A process that goes on
		   hitting still has its index checked against deletions by programs that do not
		   know it (rj_index_check_deletions), in the background, every few seconds. */
		c->checked_at = time(NULL);
		c->check_due = 1;
		rj_cache_arm_flusher(0);
	}
	return 1;
}

int rj_cache_get(rj_cache *c, const rj_key *key, const void **code, void **owned,
		 size_t *size, double *compile_ms, char **kernels)
{
	int rc, ret = 0;
	char hex[33];

	*code = *owned = NULL;
	*size = 0;
	if (kernels)
		*kernels = NULL;
	/* The index first: a hit there needs no connection (and opens none). */
	pthread_mutex_lock(&c->lock);
	if ((rc = index_get_locked(c, key, code, owned, size, compile_ms, kernels)) != 0) {
		pthread_mutex_unlock(&c->lock);
		return rc < 0 ? rc : 2;
	}
	if ((rc = rj_cache_reopen_locked(c)) != 0) {
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	sqlite3_bind_blob(c->get, 1, key->b, 16, SQLITE_STATIC);
	rc = sqlite3_step(c->get);
	if (rc == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(c->get, 0);
		int blen = sqlite3_column_bytes(c->get, 0);
		int64_t want_size = sqlite3_column_int64(c->get, 1);
		uint64_t want_sum = (uint64_t)sqlite3_column_int64(c->get, 2);

		if (!blob || blen <= 0 || blen != want_size ||
		    rj_checksum(blob, (size_t)blen) != want_sum) {
			rj_key_hex(key, hex);
			rj_log(RJ_LOG_WARN,
			       "cache %s: entry %s is corrupt (checksum or size mismatch); "
			       "dropped, it will be compiled again", c->path, hex);
			sqlite3_reset(c->get);
			drop_locked(c, key);
			pthread_mutex_unlock(&c->lock);
			return 0;
		}
		*owned = malloc((size_t)blen);
		if (*owned) {
			memcpy(*owned, blob, (size_t)blen);
			*code = *owned;
			*size = (size_t)blen;
			*compile_ms = sqlite3_column_double(c->get, 3);
			if (kernels) {
				const unsigned char *k = sqlite3_column_text(c->get, 4);
				*kernels = strdup(k ? (const char *)k : "");
			}
			c->saved_ms += *compile_ms;
			sqlite3_reset(c->get); /* no read open while a batch is written */
			note_hit(c, key);
			c->index_dirty = 1; /* the index lacks it */
			ret = 1;
		} else {
			ret = rj_error_set(ROCJIT_ENOMEM, __FILE__, __LINE__,
					   "out of memory reading the cache");
		}
	} else if (rc != SQLITE_DONE) {
		ret = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: read failed: %s",
				   c->path, sqlite3_errmsg(c->db));
	}
	sqlite3_reset(c->get);
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/* Whether key is stored (caller holds c->lock); a failed look-up counts as stored. */
static int has_key_locked(rj_cache *c, const rj_key *key)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(c->db, "SELECT 1 FROM entries WHERE key = ?1", -1, &st, NULL) !=
	    SQLITE_OK)
		return 1;
	sqlite3_bind_blob(st, 1, key->b, 16, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc != SQLITE_DONE;
}

/* Whether a code object of size bytes may be stored: 0, or ROCJIT_EIO saying why not. */
static int storable(const rj_cache *c, size_t size)
{
	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is read-only", c->path);
	/* Storing it would evict every other entry, then it too: keep the others. */
	RJ_CHECK(c->max_bytes && size > c->max_bytes, ROCJIT_EIO,
		 "cache %s: the code object (%zu bytes) is larger than the cache's size limit "
		 "(%llu bytes), so it is not stored: raise ROCJIT_CACHE_MAXSIZE, or the limit "
		 "`rocjit config` shows (rocjit config set cache_maxsize SIZE)",
		 c->path, size, (unsigned long long)c->max_bytes);
	return 0;
}

int rj_cache_put(rj_cache *c, const rj_key *key, const struct rj_cache_meta *m,
		 const void *code, size_t size)
{
	int rc;

	RJ_FORWARD(storable(c, size));
	if ((rc = rj_cache_lock(c)) != 0)
		return rc;
	/* The entry and its signature row (signatures.c) in one transaction. */
	if ((rc = rj_cache_exec(c, "SAVEPOINT rj_put")) != 0) {
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	if ((rc = rj_cache_insert_locked(c, key, m, code, size)) != 0) {
		rj_cache_exec(c, "ROLLBACK TO rj_put");
		rj_cache_exec(c, "RELEASE rj_put");
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	if ((rc = rj_cache_exec(c, "RELEASE rj_put")) != 0) {
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	rj_cache_evict_locked(c);
	/* The size limit may have taken the entry just written (entries stored in the same
	   second tie for least recently used): then it was not kept.  One look-up by key,
	   after a compile. */
	if (c->max_bytes && !has_key_locked(c, key)) {
		rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: the entry was evicted "
				  "as soon as it was stored, by the cache's size limit "
				  "(%llu bytes), which is too small for the entries in use: raise "
				  "ROCJIT_CACHE_MAXSIZE, or the limit `rocjit config` shows "
				  "(rocjit config set cache_maxsize SIZE)", c->path,
				  (unsigned long long)c->max_bytes);
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	if (c->nhits || c->later)
		rj_cache_flush_locked(c); /* a writer already: the pending hits go along */
	c->index_dirty = 1;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int rj_cache_put_later(rj_cache *c, const rj_key *key, const struct rj_cache_meta *m,
		       const void *code, size_t size, void *shared)
{
	int rc;

	RJ_FORWARD(storable(c, size));
	/* No flusher is started for it (a thread costs a new process about 45 us): a running
	   one stores it in its next round, else close or exit does. */
	pthread_mutex_lock(&c->lock);
	rc = rj_cache_keep_later_locked(c, key, m, code, size, shared);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int rj_cache_probe(rj_cache *c, const rj_key *key, const void **code, void **owned,
		   size_t *size, double *compile_ms, char **kernels)
{
	int rc;

	*code = *owned = NULL;
	*size = 0;
	if (kernels)
		*kernels = NULL;
	pthread_mutex_lock(&c->lock);
	rc = index_get_locked(c, key, code, owned, size, compile_ms, kernels);
	if (rc == 0)
		rc = c->index && rj_index_complete(c->index) ? 0 : 1;
	else if (rc > 0)
		rc = 2;
	pthread_mutex_unlock(&c->lock);
	return rc;
}

void rj_cache_meta_subject(struct rj_sig_subject *e, const rj_key *key,
			   const struct rj_cache_meta *m, const void *code, size_t size)
{
	unsigned char described[RJ_SIG_DIGEST_BYTES];

	rj_sig_describe_text(described, m->options, m->source_name, m->headers);
	rj_sig_subject_make(e, key, &m->pkey, m->platform, m->target, m->compiler, m->kernels,
			    m->kernels ? strlen(m->kernels) : 0, m->compile_ms, described, code,
			    size);
}

int rj_cache_index_signature(rj_cache *c, const rj_key *key, const void *code,
			     struct rj_stored_sig *sig,
			     unsigned char described[RJ_SIG_DIGEST_BYTES])
{
	const char *signer = NULL;
	const unsigned char *bytes = NULL, *desc = NULL;
	int found = 0;

	memset(sig, 0, sizeof *sig);
	memset(described, 0, RJ_SIG_DIGEST_BYTES);
	if (!code)
		return 0;
	pthread_mutex_lock(&c->lock);
	found = rj_index_signature(c, key, &signer, &bytes, &desc);
	if (found && signer) {
		memcpy(described, desc, RJ_SIG_DIGEST_BYTES);
		/* From the shared mapping: copied within bounds, then checked as a copy (a
		   name changed meanwhile is not a valid name, and the entry counts unsigned). */
		size_t n = strnlen(signer, RJ_SIG_NAME_MAX);
		memcpy(sig->signer, signer, n);
		sig->signer[n] = 0;
		memcpy(sig->sig, bytes, RJ_SIG_BYTES);
		sig->len = RJ_SIG_BYTES;
		if (!rj_sig_name_valid(sig->signer, n) || rj_index_broken(c->index)) {
			found = 0;
			memset(sig, 0, sizeof *sig);
			memset(described, 0, RJ_SIG_DIGEST_BYTES);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return found && signer ? 1 : 0;
}

/*
 * Whether c's index holds key's entry with a signature other than sig, the database's
 * (caller holds c->lock): then the entry was signed, re-signed or unsigned after the index
 * was written by a program that did not remove it, and the index is written anew (at
 * close, at exit, or by the flusher), so that the next processes find the signature there.
 */
static void note_index_signature(rj_cache *c, const rj_key *key, const struct rj_stored_sig *sig)
{
	const char *signer;
	const unsigned char *bytes;

	/* A malformed row is written to the index as unsigned (cache_index_write.c): so
	   compared, or every process would rewrite the index for it. */
	int usable = sig->len == RJ_SIG_BYTES && rj_sig_name_valid(sig->signer,
								  strlen(sig->signer));

	const unsigned char *desc;

	if (!rj_index_signature(c, key, &signer, &bytes, &desc))
		return;
	/* Compared in the mapping: a broken one is left (it is not used again). */
	if ((signer ? !usable || strcmp(signer, sig->signer) != 0 ||
			      memcmp(bytes, sig->sig, RJ_SIG_BYTES) != 0
		    : usable) &&
	    !rj_index_broken(c->index))
		c->index_dirty = 1;
}

int rj_cache_signed_get(rj_cache *c, const rj_key *key, struct rj_cache_signed *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(e, 0, sizeof *e);
	if ((rc = rj_cache_lock(c)) != 0)
		return rc;
	if ((rc = rj_cache_reopen_locked(c)) != 0) {
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	rc = sqlite3_prepare_v2(c->db, "SELECT platform, target, compiler, pkey, options, "
				"source_name, headers FROM entries WHERE key = ?1", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_blob(st, 1, key->b, 16, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	if (rc == SQLITE_ROW) {
		const char *f[3] = { (const char *)sqlite3_column_text(st, 0),
				     (const char *)sqlite3_column_text(st, 1),
				     (const char *)sqlite3_column_text(st, 2) };
		/* Cut where it does not fit: the signature then fails, as it should. */
		snprintf(e->platform, sizeof e->platform, "%s", f[0] ? f[0] : "");
		snprintf(e->target, sizeof e->target, "%s", f[1] ? f[1] : "");
		snprintf(e->compiler, sizeof e->compiler, "%s", f[2] ? f[2] : "");
		if (sqlite3_column_bytes(st, 3) == 16)
			memcpy(e->pkey.b, sqlite3_column_blob(st, 3), 16);
		rj_sig_describe_text(e->described, (const char *)sqlite3_column_text(st, 4),
				     (const char *)sqlite3_column_text(st, 5),
				     (const char *)sqlite3_column_text(st, 6));
		rj_sig_table_get(c->db, key->b, &e->sig);
		note_index_signature(c, key, &e->sig);
		rc = 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : rj_error_set(ROCJIT_EIO, __FILE__, __LINE__,
							  "cache %s: read failed: %s", c->path,
							  sqlite3_errmsg(c->db));
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int rj_cache_origin_get(rj_cache *c, const rj_key *key, struct rj_stored_origin *o)
{
	int rc;

	memset(o, 0, sizeof *o);
	if ((rc = rj_cache_lock(c)) != 0)
		return rc;
	if ((rc = rj_cache_reopen_locked(c)) == 0)
		rc = rj_origin_get(c->db, key->b, o);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int rj_cache_totals(rj_cache *c, uint64_t *entries, uint64_t *bytes)
{
	sqlite3_stmt *st;
	int rc;

	*entries = *bytes = 0;
	if ((rc = rj_cache_lock(c)) != 0)
		return rc;
	if (!(st = rj_cache_totals_stmt(c))) {
		pthread_mutex_unlock(&c->lock);
		return ROCJIT_EIO;
	}
	rc = sqlite3_step(st);
	*entries = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(st, 0) : 0;
	*bytes = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(st, 1) : 0;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW) {
		rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: count failed: %s",
				  c->path, sqlite3_errmsg(c->db));
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int rj_cache_memo_get(rj_cache *c, const char *platform, char **memo)
{
	const char *stored;
	sqlite3_stmt *st;
	int rc = 0;

	*memo = NULL;
	pthread_mutex_lock(&c->lock);
	if (c->index && (stored = rj_index_memo(c->index, platform)) != NULL) {
		*memo = strdup(stored);
		if (rj_index_broken(c->index)) {
			/* Copied from a mapping that turned into zeros: the database's. */
			free(*memo);
			*memo = NULL;
			rj_index_stale(c);
		} else {
			pthread_mutex_unlock(&c->lock);
			return *memo ? 1 : ROCJIT_ENOMEM;
		}
	}
	if ((rc = rj_cache_reopen_locked(c)) != 0) {
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	if (sqlite3_prepare_v2(c->db, "SELECT memo FROM compilers WHERE platform = ?1", -1, &st,
			       NULL) != SQLITE_OK) {
		rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: memo read failed: %s",
				  c->path, sqlite3_errmsg(c->db));
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	sqlite3_bind_text(st, 1, platform, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		*memo = strdup((const char *)sqlite3_column_text(st, 0));
		rc = *memo ? 1 : ROCJIT_ENOMEM;
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int rj_cache_memo_put(rj_cache *c, const char *platform, const char *memo)
{
	sqlite3_stmt *st;
	int rc;

	if (c->readonly)
		return 0;
	if ((rc = rj_cache_lock(c)) != 0)
		return rc;
	rc = sqlite3_prepare_v2(c->db, "INSERT OR REPLACE INTO compilers (platform, memo) "
			       "VALUES (?1, ?2)", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, platform, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, memo, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_finalize(st);
	}
	if (rc != SQLITE_OK)
		rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: memo write failed: %s",
				  c->path, sqlite3_errmsg(c->db));
	else
		c->index_dirty = 1;
	pthread_mutex_unlock(&c->lock);
	return rc;
}
