/*
 * cache_signing.c - signing the entries already in a cache (or in a bundle opened as a
 * cache file): the work behind rocjit_cache_sign, and behind a signed
 * rocjit_bundle_export (which signs the entries it exports first).
 *
 * Reads each entry's code, checks it against its checksum (a damaged entry is never
 * signed), asks the caller's signer for a signature over the entry's fields, and writes
 * the signatures table (signatures.c) in one transaction.  Knows nothing of keys: the
 * signer is the caller's (src/request/signing.c).
 */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "store/cache_internal.h"
#include "store/cache_signing.h"
#include "store/signatures.h"

int rj_cache_sign(rj_cache *c, const rj_key *keys, size_t n, rj_cache_signer_fn fn,
		  void *user, size_t *signed_count, size_t *skipped)
{
	sqlite3_stmt *st = NULL;
	size_t done = 0, bad = 0, rounds = keys ? n : 1;
	int rc = 0;

	*signed_count = 0;
	if (skipped)
		*skipped = 0;
	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is read-only: it cannot be signed", c->path);
	RJ_FORWARD(rj_cache_lock(c));
	if (rj_cache_exec(c, "BEGIN IMMEDIATE") != 0) {
		pthread_mutex_unlock(&c->lock);
		return ROCJIT_EIO;
	}
	if (sqlite3_prepare_v2(c->db, keys ? "SELECT key, pkey, platform, target, compiler, "
			       "code, size, checksum FROM entries WHERE key = ?1" :
			       "SELECT key, pkey, platform, target, compiler, code, size, "
			       "checksum FROM entries ORDER BY key", -1, &st, NULL) != SQLITE_OK) {
		rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: %s", c->path,
				  sqlite3_errmsg(c->db));
		goto out;
	}
	for (size_t i = 0; i < rounds && rc == 0; i++) {
		if (keys)
			sqlite3_bind_blob(st, 1, keys[i].b, 16, SQLITE_STATIC);
		while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
			const void *code = sqlite3_column_blob(st, 5);
			int len = sqlite3_column_bytes(st, 5);
			struct rj_sig_subject e;
			char signer[RJ_SIG_NAME_MAX + 1];
			unsigned char sig[RJ_SIG_BYTES];
			rj_key key, pkey;

			if (sqlite3_column_bytes(st, 0) != 16 || !code || len <= 0 ||
			    len != sqlite3_column_int64(st, 6) ||
			    rj_checksum(code, (size_t)len) != (uint64_t)sqlite3_column_int64(st, 7)) {
				bad++; /* rocjit verify says what is wrong with it */
				continue;
			}
			memcpy(key.b, sqlite3_column_blob(st, 0), 16);
			memset(pkey.b, 0, 16);
			if (sqlite3_column_bytes(st, 1) == 16)
				memcpy(pkey.b, sqlite3_column_blob(st, 1), 16);
			e.key = &key;
			e.pkey = &pkey;
			e.platform = (const char *)sqlite3_column_text(st, 2);
			e.target = (const char *)sqlite3_column_text(st, 3);
			e.compiler = (const char *)sqlite3_column_text(st, 4);
			if (!e.platform || !e.target || !e.compiler) {
				bad++;
				continue;
			}
			e.code = code;
			e.code_size = (size_t)len;
			fn(&e, signer, sig, user);
			rc = rj_sig_table_put(c->db, key.b, signer, sig);
			done += rc == 0;
		}
		sqlite3_reset(st);
	}
out:
	sqlite3_finalize(st);
	if (rc == 0 && rj_cache_exec(c, "COMMIT") == 0) {
		*signed_count = done;
		if (skipped)
			*skipped = bad;
		c->index_dirty = 1;
	} else {
		rj_cache_exec(c, "ROLLBACK");
		if (rc == 0)
			rc = ROCJIT_EIO;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}
