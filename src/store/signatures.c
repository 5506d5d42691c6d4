/*
 * signatures.c - the `signatures` table: one row per signed entry, by its key.
 *
 * A table of its own rather than columns of `entries`: a cache or a bundle written with
 * signatures keeps format 2, so an older rocjit still opens it (and ignores them), and a
 * cache without the table reads as unsigned.  The table is made by the first signature
 * written into a file; a trigger drops a row with its entry (any program's DELETE,
 * eviction and purge included).  INSERT OR REPLACE into `entries` fires no DELETE
 * trigger, so whoever replaces an entry also writes its signature row (rj_sig_table_put
 * with signer NULL drops a stale one).  What a signature covers and who is trusted:
 * src/sign/sign.c, src/request/signing.c.
 */
#include "store/signatures.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"

int rj_sig_table_create(sqlite3 *db, const char *schema)
{
	char sql[768];
	const char *s = schema ? schema : "main";

	snprintf(sql, sizeof sql,
		 "CREATE TABLE IF NOT EXISTS %s.signatures ("
		 "key BLOB PRIMARY KEY CHECK (length(key) = 16), signer TEXT NOT NULL, "
		 "sig BLOB NOT NULL, signed INTEGER NOT NULL) WITHOUT ROWID; "
		 "CREATE TRIGGER IF NOT EXISTS %s.entries_unsigned AFTER DELETE ON entries "
		 "BEGIN DELETE FROM signatures WHERE key = old.key; END",
		 s, s);
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

int rj_sig_table_exists(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int yes = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND "
			       "name = 'signatures'", -1, &st, NULL) == SQLITE_OK)
		yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

int rj_sig_table_put(sqlite3 *db, const void *key, const char *signer,
		     const unsigned char *sig)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (!signer && !rj_sig_table_exists(db))
		return 0;
	if (signer && rj_sig_table_create(db, NULL) != SQLITE_OK)
		RJ_FAIL(ROCJIT_EIO, "cannot add the signatures table: %s", sqlite3_errmsg(db));
	rc = sqlite3_prepare_v2(db, signer ? "INSERT OR REPLACE INTO main.signatures (key, "
				"signer, sig, signed) VALUES (?1, ?2, ?3, strftime('%s', 'now'))" :
				"DELETE FROM main.signatures WHERE key = ?1", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_blob(st, 1, key, 16, SQLITE_STATIC);
		if (signer) {
			sqlite3_bind_text(st, 2, signer, -1, SQLITE_STATIC);
			sqlite3_bind_blob(st, 3, sig, RJ_SIG_BYTES, SQLITE_STATIC);
		}
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		RJ_FAIL(ROCJIT_EIO, "cannot write a signature: %s", sqlite3_errmsg(db));
	return 0;
}

int rj_sig_table_get(sqlite3 *db, const void *key, struct rj_stored_sig *out)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	memset(out, 0, sizeof *out);
	/* No table: prepare fails, and the entry is unsigned. */
	if (sqlite3_prepare_v2(db, "SELECT signer, sig FROM signatures WHERE key = ?1", -1, &st,
			       NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_bind_blob(st, 1, key, 16, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *signer = (const char *)sqlite3_column_text(st, 0);
		const void *sig = sqlite3_column_blob(st, 1);
		int n = sqlite3_column_bytes(st, 1);

		/* Kept as found, cut to what fits: a name too long or a signature of the wrong
		   length is the verifier's "bad", never read past. */
		snprintf(out->signer, sizeof out->signer, "%s", signer ? signer : "?");
		if (signer && strlen(signer) > RJ_SIG_NAME_MAX)
			out->signer[0] = '?', out->signer[1] = 0;
		out->len = sig && n > 0 ? (size_t)n : 0;
		if (out->len == RJ_SIG_BYTES)
			memcpy(out->sig, sig, RJ_SIG_BYTES);
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

void rj_row_subject_make(struct rj_row_subject *r, const void *key, const void *pkey,
			 const char *platform, const char *target, const char *compiler,
			 const char *options, const char *source_name, const char *headers,
			 const char *kernels, double compile_ms, const void *code, size_t size)
{
	unsigned char described[RJ_SIG_DIGEST_BYTES];

	memcpy(r->key.b, key, 16);
	memset(r->pkey.b, 0, 16);
	if (pkey)
		memcpy(r->pkey.b, pkey, 16);
	rj_sig_describe_text(described, options, source_name, headers);
	rj_sig_subject_make(&r->e, &r->key, &r->pkey, platform, target, compiler, kernels,
			    kernels ? strlen(kernels) : 0, compile_ms, described, code, size);
}
