/*
 * origins.c - the `origins` table: one row per entry, by its key, saying where the entry
 * came from when it was stored (compiled here, the remote tier, a bundle) and, when it
 * came with a signature that was checked and trusted then, whose.
 *
 * A table of its own, as `signatures` is (signatures.c): the format stays 2, an older
 * rocjit ignores it, and a cache without it (or an entry without a row) reads as of
 * unknown origin, which no signer vouches for.  Made by the first row written; a trigger
 * drops a row with its entry; whoever stores an entry writes its row in the same
 * transaction (INSERT OR REPLACE fires no delete trigger, so the row is replaced too).
 *
 * What a row proves is what the cache's trust rule proves: it was written by someone who
 * may write the database (this user, or, in a cache shared by a group, any member of it).
 */
#include "store/origins.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"

static const char *const spelled[] = { "", "compiled", "remote", "bundle" };

int rj_origin_table_create(sqlite3 *db, const char *schema)
{
	char sql[768];
	const char *s = schema ? schema : "main";

	snprintf(sql, sizeof sql,
		 "CREATE TABLE IF NOT EXISTS %s.origins ("
		 "key BLOB PRIMARY KEY CHECK (length(key) = 16), origin TEXT NOT NULL, "
		 "signer TEXT, recorded INTEGER NOT NULL) WITHOUT ROWID; "
		 "CREATE TRIGGER IF NOT EXISTS %s.entries_origin_gone AFTER DELETE ON entries "
		 "BEGIN DELETE FROM origins WHERE key = old.key; END",
		 s, s);
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

int rj_origin_table_exists(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int yes = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND "
			       "name = 'origins'", -1, &st, NULL) == SQLITE_OK)
		yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

int rj_origin_put(sqlite3 *db, const void *key, int origin, const char *signer)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (origin < RJ_ORIGIN_COMPILED || origin > RJ_ORIGIN_BUNDLE)
		origin = RJ_ORIGIN_UNKNOWN;
	/* Cheap after the first time: IF NOT EXISTS on a table the schema holds. */
	if (rj_origin_table_create(db, NULL) != SQLITE_OK)
		RJ_FAIL(ROCJIT_EIO, "cannot add the origins table: %s", sqlite3_errmsg(db));
	rc = sqlite3_prepare_v2(db, origin == RJ_ORIGIN_UNKNOWN ?
				"DELETE FROM main.origins WHERE key = ?1" :
				"INSERT OR REPLACE INTO main.origins (key, origin, signer, recorded) "
				"VALUES (?1, ?2, ?3, strftime('%s', 'now'))", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_blob(st, 1, key, 16, SQLITE_STATIC);
		if (origin != RJ_ORIGIN_UNKNOWN) {
			sqlite3_bind_text(st, 2, spelled[origin], -1, SQLITE_STATIC);
			if (signer && *signer)
				sqlite3_bind_text(st, 3, signer, -1, SQLITE_STATIC);
		}
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		RJ_FAIL(ROCJIT_EIO, "cannot record an entry's origin: %s", sqlite3_errmsg(db));
	return 0;
}

int rj_origin_get(sqlite3 *db, const void *key, struct rj_stored_origin *out)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	memset(out, 0, sizeof *out);
	/* No table: prepare fails, and the entry's origin is unknown. */
	if (sqlite3_prepare_v2(db, "SELECT origin, signer FROM origins WHERE key = ?1", -1, &st,
			       NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_bind_blob(st, 1, key, 16, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *o = (const char *)sqlite3_column_text(st, 0);
		const char *signer = (const char *)sqlite3_column_text(st, 1);

		for (int i = RJ_ORIGIN_COMPILED; o && i <= RJ_ORIGIN_BUNDLE; i++)
			if (strcmp(o, spelled[i]) == 0)
				out->origin = i;
		if (signer && rj_sig_name_valid(signer, strlen(signer)))
			snprintf(out->signer, sizeof out->signer, "%s", signer);
		found = out->origin != RJ_ORIGIN_UNKNOWN;
	}
	sqlite3_finalize(st);
	return found;
}

const char *rj_origin_name(int origin)
{
	switch (origin) {
	case RJ_ORIGIN_COMPILED: return "compiled here";
	case RJ_ORIGIN_REMOTE: return "from the remote tier";
	case RJ_ORIGIN_BUNDLE: return "from a bundle";
	}
	return "of unknown origin";
}
