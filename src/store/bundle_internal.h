/*
 * bundle_internal.h - what the two bundle files share: a bundle's layout and the checks of
 * its rows.  bundle_lookup.c owns them; bundle_transfer.c imports through them.  Nothing
 * outside those two files includes it.
 */
#ifndef ROCJIT_BUNDLE_INTERNAL_H
#define ROCJIT_BUNDLE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "store/bundle_lookup.h"

/* PRAGMA user_version of a bundle (the application_id is the cache's, RJ_CACHE_APP_ID). */
#define RJ_BUNDLE_FORMAT 2

struct rj_bundle {
	sqlite3 *db;
	sqlite3_stmt *find;
	pthread_mutex_t lock;
	int fd; /* the checked file, which SQLite reads (sqlite_fd.h) */
	char path[4096];
	int64_t *checked;      /* rowids of entries rj_bundle_row_problem() passed, under lock */
	size_t nchecked, capchecked;
	struct rj_bundle *next;
};

/*
 * Opens one bundle (checked as opened, read through that descriptor), or says why it
 * cannot be used: NULL, with one warning and the reason in why[size] (may be NULL).
 * quiet: a missing file is skipped without a word.  Close it with rj_bundles_close.
 */
struct rj_bundle *rj_bundle_open_one(const char *path, int quiet, char *why, size_t size);

/* A bundle row as read, before anything about it is believed. */
struct rj_bundle_row {
	const void *key, *pkey, *code;
	int key_len, pkey_len, code_len;  /* key_len < 0: not read (lookups by pkey) */
	int64_t size, checksum;
	const char *platform, *target, *kernels;
	double compile_ms;
};

/* The columns a row is checked by: first, in this order, in every SELECT whose rows
 * rj_bundle_row_read reads. */
#define RJ_BUNDLE_ROW_COLUMNS "code, size, checksum, compile_ms, platform, target, kernels, pkey"
#define RJ_BUNDLE_ROW_NCOLUMNS 8

/* Reads RJ_BUNDLE_ROW_COLUMNS of st's current row into r (the key is not read: key_len
 * -1).  The pointers are valid until st steps again. */
void rj_bundle_row_read(sqlite3_stmt *st, struct rj_bundle_row *r);

/* Why r cannot be used as the entry it claims to be, into why[size]: -1; 0 when nothing is
 * wrong (see bundle_lookup.c). */
int rj_bundle_row_problem(char *why, size_t size, const struct rj_bundle_row *r);

#endif
