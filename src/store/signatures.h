/*
 * signatures.h - the `signatures` table of a cache or a bundle (see signatures.c and
 * cache/FORMAT.md, "Signatures").
 *
 * For the store's files (cache_usage.c writes with each entry, bundle_lookup.c and
 * cache_admin.c read) and the bundle export (bundle_transfer.c).  Plain SQLite on a
 * connection the caller holds and locks: no policy here (which keys are trusted is
 * src/request/signing.c's).
 */
#ifndef ROCJIT_STORE_SIGNATURES_H
#define ROCJIT_STORE_SIGNATURES_H

#include <sqlite3.h>
#include <stddef.h>

#include "sign/sign.h"

/* An entry's signature as stored: signer "" and len 0 when it has none. */
struct rj_stored_sig {
	char signer[RJ_SIG_NAME_MAX + 1];
	unsigned char sig[RJ_SIG_BYTES];
	size_t len;
};

/* The table, and the trigger that drops a signature with its entry (schema qualifies
 * the names: "main", "bundle"; NULL: main).  0 or an SQLite code. */
int rj_sig_table_create(sqlite3 *db, const char *schema);

/* 1 when the main database has the table. */
int rj_sig_table_exists(sqlite3 *db);

/*
 * Records key's signature (signer NULL: it has none, and a signature left from an older
 * entry of that key is dropped).  In the caller's transaction; the table is made at the
 * first signature written.  0, or ROCJIT_EIO with the SQLite message recorded.
 */
int rj_sig_table_put(sqlite3 *db, const void *key, const char *signer,
		     const unsigned char *sig);

/* key's signature into *out: 1 when there is one (a malformed one is given as it is:
 * the verifier says it is bad), 0 when none (or no table: an unsigned cache or bundle). */
int rj_sig_table_get(sqlite3 *db, const void *key, struct rj_stored_sig *out);

/*
 * An entry's signature subject (sign.h) from its stored fields, as a row of `entries`
 * (a cache's or a bundle's) holds them: the one constructor every site that reads a row
 * uses, so that none leaves a field out.  key and pkey are 16 bytes each (pkey NULL:
 * none, zeros) and copied into r; the strings and code are kept as pointers (NULL is ""),
 * valid as long as the row is.  The description digest is computed here.
 */
struct rj_row_subject {
	rj_key key, pkey;
	struct rj_sig_subject e;
};
void rj_row_subject_make(struct rj_row_subject *r, const void *key, const void *pkey,
			 const char *platform, const char *target, const char *compiler,
			 const char *options, const char *source_name, const char *headers,
			 const char *kernels, double compile_ms, const void *code, size_t size);

#endif
