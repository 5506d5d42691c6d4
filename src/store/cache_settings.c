/*
 * cache_settings.c - the settings a cache keeps for every process that uses it: its size
 * limit (`rocjit config set cache_maxsize 5G`, ccache -M).
 *
 * Table `settings (name TEXT PRIMARY KEY, value TEXT)`, made by the first setting stored
 * (the format stays 2: an older rocjit ignores it, a cache without it has no setting).
 * The limit a process enforces is, first found: ROCJIT_CACHE_MAXSIZE in its environment
 * (a per-process override), the limit stored here, the configuration files, the default
 * (config.c).  The stored limit is read again before every eviction, which follows every
 * store: a limit set while a process runs holds for that process's next store.  Never read
 * on the hit path.
 *
 * Owns reading the table and c->max_bytes's choice, below the connection (cache_db.c) and
 * eviction (cache_usage.c); storing a limit, which takes the lock and evicts, is
 * cache_admin.c's.  Knows nothing of what is stored.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "base/config.h"
#include "base/env.h"
#include "base/error.h"
#include "store/cache_internal.h"

void rj_cache_limit_init(rj_cache *c)
{
	int from = RJ_FROM_DEFAULT;

	rj_config("ROCJIT_CACHE_MAXSIZE", &from);
	if (!rj_env_size("ROCJIT_CACHE_MAXSIZE", RJ_CACHE_DEFAULT_MAX, &c->max_fallback))
		from = RJ_FROM_DEFAULT;
	c->max_fallback_from = from;
	c->max_bytes = c->max_fallback;
	c->max_from = from;
	c->max_stored[0] = 0;
}

/*
 * Reads the stored limit into c->max_bytes (caller holds c->lock, connection open).  A
 * cache without the table, or a stored text that is no size (written by hand), leaves
 * the fallback in force; the second is said once.
 */
void rj_cache_limit_refresh_locked(rj_cache *c)
{
	sqlite3_stmt *st = NULL;
	uint64_t bytes;

	/* The process's caches outlive its contexts: what the environment and the files say
	   is read again too (getenv and a lookup: this runs after stores, not after hits). */
	rj_cache_limit_init(c);
	c->max_bytes = c->max_fallback;
	c->max_from = c->max_fallback_from;
	if (!c->db || sqlite3_prepare_v2(c->db, "SELECT value FROM settings WHERE name = '"
					 RJ_CACHE_LIMIT_KEY "'", -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return;
	}
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(c->max_stored, sizeof c->max_stored, "%s",
			 (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (!c->max_stored[0] || c->max_fallback_from == RJ_FROM_ENV)
		return;
	if (rocjit_parse_size(&bytes, c->max_stored) != 0) {
		rj_warn_once("cache-limit-bad", "cache %s: the stored size limit \"%s\" is no "
			     "size; set it again (rocjit config set cache_maxsize SIZE)",
			     c->path, c->max_stored);
		rj_error_clear();
		return;
	}
	c->max_bytes = bytes;
	c->max_from = RJ_FROM_CACHE;
}
