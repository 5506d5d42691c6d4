/*
 * origins.h - where each entry of a cache came from (issue 27): the `origins` table (see
 * origins.c and cache/FORMAT.md, "Origins").
 *
 * Written by the store with each entry (cache_usage.c, bundle_transfer.c's import), read
 * by the signing of entries already stored (cache_signing.c) and by push: a signer vouches
 * only for code whose origin it knows.  Plain SQLite on a connection the caller holds and
 * locks: no policy here (who may sign what is src/request/signing.c's).
 */
#ifndef ROCJIT_STORE_ORIGINS_H
#define ROCJIT_STORE_ORIGINS_H

#include <sqlite3.h>

#include "sign/sign.h"

enum rj_origin {
	RJ_ORIGIN_UNKNOWN = 0, /* no row: stored by an older rocjit, or the row is malformed */
	RJ_ORIGIN_COMPILED,    /* compiled by this cache's own rocjit */
	RJ_ORIGIN_REMOTE,      /* served by the remote tier */
	RJ_ORIGIN_BUNDLE,      /* imported from a bundle */
};

/* An entry's origin as stored: signer "" when it came without a signature that was
 * checked and trusted when it was stored. */
struct rj_stored_origin {
	int origin;                       /* enum rj_origin */
	char signer[RJ_SIG_NAME_MAX + 1];
};

/* The table and the trigger that drops a row with its entry (schema: "main", "bundle";
 * NULL: main).  0 or an SQLite code. */
int rj_origin_table_create(sqlite3 *db, const char *schema);

/* 1 when the main database has the table. */
int rj_origin_table_exists(sqlite3 *db);

/*
 * Records key's origin (signer: the trusted key whose signature it arrived with and that
 * was checked, or NULL), in the caller's transaction, replacing any; the table is made at
 * the first row written.  0, or ROCJIT_EIO with the SQLite message recorded.
 */
int rj_origin_put(sqlite3 *db, const void *key, int origin, const char *signer);

/* key's origin into *out: 1 when recorded, 0 when not (no row, no table, a malformed row:
 * out->origin RJ_ORIGIN_UNKNOWN). */
int rj_origin_get(sqlite3 *db, const void *key, struct rj_stored_origin *out);

/* For messages: "compiled here", "from the remote tier", "from a bundle", "of unknown
 * origin". */
const char *rj_origin_name(int origin);

#endif
