/*
 * cache_schema.c - what a cache database holds, as rocjit reads it: the schema of a new
 * database, the checks that an opened file is a rocjit cache of this format and whole
 * (application id, version, truncation), the connection's pragmas and WAL, the prepared
 * statements, running SQL.  The format is cache/FORMAT.md.
 *
 * Works on a connection cache_db.c opened; calls no other cache file and knows nothing of
 * folders, descriptors, locks or what the rows mean.  Every failure is returned to the
 * caller, who treats it as a miss (see cache.h).
 */

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/error.h"
#include "store/cache_internal.h"
#include "rocjit_schema.h" /* generated from cache/schema.sql: rj_schema_sql */

#define RJ_WAL_LIMIT "4194304" /* bytes of WAL kept after a checkpoint: SQLite's 1000 pages */

int rj_cache_exec(rj_cache *c, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(c->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: %s", c->path,
				      msg ? msg : sqlite3_errmsg(c->db));
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

int rj_db_int(sqlite3 *db, const char *sql, int *value)
{
	sqlite3_stmt *st;
	int rc;

	*value = 0;
	if ((rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL)) != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*value = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int pragma_int(rj_cache *c, const char *sql, int *value)
{
	if (rj_db_int(c->db, sql, value) != SQLITE_OK)
		DB_FAIL(c, sql);
	return 0;
}

/*
 * The one place a rocjit database is created, cache or bundle: the schema, then the
 * header that says whose file it is and in which format.  Run in the caller's
 * transaction (or none, for a bundle's new file that nobody else sees yet).
 */
int rj_db_create(sqlite3 *db, int format, const char *more, char **msg)
{
	char sql[128];
	int rc;

	if (msg)
		*msg = NULL;
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d",
		 RJ_CACHE_APP_ID, format);
	rc = sqlite3_exec(db, rj_schema_sql, NULL, NULL, msg);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, sql, NULL, NULL, msg);
	if (rc == SQLITE_OK && more)
		rc = sqlite3_exec(db, more, NULL, NULL, msg);
	return rc;
}

/*
 * Creates the schema in a new database, or checks an existing one's format.  Runs in an
 * immediate transaction so that two processes creating the same new file do not both
 * run it half-way.
 */
int rj_cache_init_schema(rj_cache *c)
{
	int version, app;
	char sql[256];

	RJ_FORWARD(pragma_int(c, "PRAGMA user_version", &version));
	if (version == 1 && !c->readonly) {
		/* Format 1 lacked the portable key: add the column; old rows have none. */
		RJ_FORWARD(rj_cache_exec(c, "BEGIN IMMEDIATE"));
		if (pragma_int(c, "PRAGMA user_version", &version) == 0 && version == 1 &&
		    (rj_cache_exec(c, "ALTER TABLE entries ADD COLUMN pkey BLOB; "
				   "CREATE INDEX IF NOT EXISTS entries_pkey ON entries (pkey); "
				   "PRAGMA user_version = 2") != 0)) {
			rj_cache_exec(c, "ROLLBACK");
			return ROCJIT_EIO;
		}
		RJ_FORWARD(rj_cache_exec(c, "COMMIT"));
		version = RJ_CACHE_FORMAT;
	}
	if (version == RJ_CACHE_FORMAT)
		goto check_app;
	if (version != 0) {
		c->bad_file = 1;
		RJ_FAIL(ROCJIT_EIO, "cache %s has format version %d, this rocjit reads version %d",
			c->path, version, RJ_CACHE_FORMAT);
	}
	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is empty and opened read-only", c->path);
	RJ_FORWARD(rj_cache_exec(c, "BEGIN IMMEDIATE"));
	/* Under the write lock, so that another process creating the same cache right now is
	   seen either not at all or complete. */
	if (pragma_int(c, "PRAGMA user_version", &version) == 0 && version == 0) {
		int tables = 0;
		if (pragma_int(c, "SELECT count(*) FROM sqlite_master", &tables) != 0 ||
		    tables != 0) {
			/* Version 0 with tables: somebody else's SQLite file. */
			rj_cache_exec(c, "ROLLBACK");
			c->bad_file = 1;
			RJ_FAIL(ROCJIT_EIO, "%s is an SQLite file but not a rocjit cache", c->path);
		}
		char *msg;
		snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO counters (name, value) VALUES "
			 "('since', %lld)", (long long)time(NULL));
		if (rj_db_create(c->db, RJ_CACHE_FORMAT, sql, &msg) != SQLITE_OK) {
			rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: %s", c->path,
				     msg ? msg : sqlite3_errmsg(c->db));
			sqlite3_free(msg);
			rj_cache_exec(c, "ROLLBACK");
			return ROCJIT_EIO;
		}
	}
	RJ_FORWARD(rj_cache_exec(c, "COMMIT"));
check_app:
	RJ_FORWARD(pragma_int(c, "PRAGMA application_id", &app));
	if (app != RJ_CACHE_APP_ID) {
		c->bad_file = 1;
		RJ_FAIL(ROCJIT_EIO, "%s is not a rocjit cache (application_id %d)", c->path, app);
	}
	return 0;
}

/*
 * The connection's settings, before anything is read: synced at checkpoints only, and a
 * journal size limit, so that the last connection to close truncates the WAL that
 * persists (open_folder) to nothing, as deleting it did, and keeps it under the limit
 * between checkpoints.  Writes nothing.
 */
int rj_cache_set_pragmas(rj_cache *c)
{
	return rj_cache_exec(c, "PRAGMA synchronous=NORMAL; PRAGMA journal_size_limit="
			     RJ_WAL_LIMIT);
}

/* WAL mode, once the file is known to be a rocjit cache: a no-op for one already in it. */
int rj_cache_set_wal(rj_cache *c)
{
	return rj_cache_exec(c, "PRAGMA journal_mode=WAL");
}

/*
 * Runs step again while SQLite answers "busy", for as long as the busy timeout: switching
 * to WAL and reading the schema of a database that other processes are creating or
 * recovering at the same moment can be refused at once, without the busy handler.  A
 * crowd of processes opening a new cache together must all get it.
 */
int rj_cache_retry_busy(rj_cache *c, int (*step)(rj_cache *c))
{
	double deadline = rj_now_ms() + RJ_CACHE_BUSY_MS;
	struct timespec nap = { 0, 2000000 };
	int rc;

	while ((rc = step(c)) != 0) {
		int code = sqlite3_errcode(c->db) & 0xff;
		if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || rj_now_ms() > deadline)
			return rc;
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 32000000)
			nap.tv_nsec *= 2;
	}
	return 0;
}

/* Marks a failure that says the file is no database (garbage, truncated, foreign). */
int rj_cache_damaged(rj_cache *c)
{
	int code = sqlite3_errcode(c->db) & 0xff;

	if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
		c->bad_file = 1;
	return ROCJIT_EIO;
}

/* What one read transaction tells of an open database (read_marks). */
struct marks {
	int version, app;       /* PRAGMA user_version, PRAGMA application_id */
	long long want, have;   /* the bytes its header counts, the bytes the file has;
				   have -1: unknown, or a WAL holds pages the file may lack */
};

/*
 * Reads the format and owner marks and the size the header counts, in one read
 * transaction: no checkpoint can shrink the file under it, and a WAL that holds pages the
 * file lacks is seen (then the size says nothing).  On a failure the transaction is left
 * open and the SQLite error code kept, for rj_cache_retry_busy and rj_cache_damaged to read.
 */
static int read_marks(rj_cache *c, struct marks *m)
{
	struct stat st, sw;
	int pages = 0, page_size = 0;

	m->version = m->app = 0;
	m->want = 0;
	m->have = -1;
	RJ_FORWARD(rj_cache_exec(c, "BEGIN"));
	RJ_FORWARD(pragma_int(c, "PRAGMA user_version", &m->version));
	RJ_FORWARD(pragma_int(c, "PRAGMA application_id", &m->app));
	RJ_FORWARD(pragma_int(c, "PRAGMA page_count", &pages));
	RJ_FORWARD(pragma_int(c, "PRAGMA page_size", &page_size));
	m->want = (long long)pages * page_size;
	if (c->dirfd >= 0 &&
	    !(fstatat(c->dirfd, RJ_CACHE_FILE "-wal", &sw, AT_SYMLINK_NOFOLLOW) == 0 &&
	      sw.st_size > 0) &&
	    fstatat(c->dirfd, RJ_CACHE_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0)
		m->have = (long long)st.st_size;
	return rj_cache_exec(c, "COMMIT");
}

/*
 * A file shorter than the pages its header counts was cut short (a full disk, a copy
 * interrupted).  Only when no WAL holds newer pages: those may not be in the file yet.
 */
static int refuse_truncated(rj_cache *c, const struct marks *m)
{
	if (m->have < 0 || m->have >= m->want)
		return 0;
	c->bad_file = 1;
	RJ_FAIL(ROCJIT_EIO, "cache %s is truncated (%lld of %lld bytes)", c->path, m->have,
		m->want);
}

/* The same check on its own, after rj_cache_init_schema: best-effort, a failed read concludes
 * nothing. */
static int check_truncated(rj_cache *c)
{
	struct marks m;

	if (read_marks(c, &m) != 0) {
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
		return 0;
	}
	return refuse_truncated(c, &m);
}

/*
 * Whether the database is a whole rocjit cache of this format.  The usual case, an
 * existing cache of this format, costs one read transaction (read_marks) and writes
 * nothing; a new, older, foreign or empty file takes the long way: rj_cache_init_schema creates,
 * migrates or refuses it, then check_truncated.  A new (empty) file is switched to WAL
 * before its schema is written, so that creating it is a WAL commit like any other.
 */
int rj_cache_check_format(rj_cache *c)
{
	struct marks m;

	RJ_FORWARD(read_marks(c, &m));
	if (m.version == RJ_CACHE_FORMAT && m.app == RJ_CACHE_APP_ID)
		return refuse_truncated(c, &m);
	if (m.want == 0 && !c->readonly)
		RJ_FORWARD(rj_cache_set_wal(c));
	RJ_FORWARD(rj_cache_init_schema(c));
	return check_truncated(c);
}

static int prepare(rj_cache *c, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		DB_FAIL(c, "prepare");
	return 0;
}

/*
 * The request path's statements, each prepared once per connection.  Only the lookup is
 * prepared at open: a process whose requests all hit never stores or counts, and parsing
 * the insert (a table with four indexes) costs more than the lookup itself.  The others
 * are prepared at their first use (lazy_stmt).
 */
int rj_cache_prepare_statements(rj_cache *c)
{
	return prepare(c, &c->get,
		       "SELECT code, size, checksum, compile_ms, kernels FROM entries "
		       "WHERE key = ?1");
}

static sqlite3_stmt *lazy_stmt(rj_cache *c, sqlite3_stmt **st, const char *sql)
{
	if (!*st && prepare(c, st, sql) != 0)
		return NULL;
	return *st;
}

sqlite3_stmt *rj_cache_put_stmt(rj_cache *c)
{
	if (c->readonly) {
		rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s is read-only", c->path);
		return NULL;
	}
	return lazy_stmt(c, &c->put, "INSERT OR REPLACE INTO entries (" RJ_ENTRY_COLUMNS ") "
			 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, 0, ?12, ?14, "
			 "?13)");
}

sqlite3_stmt *rj_cache_totals_stmt(rj_cache *c)
{
	return lazy_stmt(c, &c->totals, "SELECT count(*), coalesce(sum(size), 0) FROM entries");
}

static void add_counter(sqlite3_stmt *st, const char *name, double value)
{
	if (value == 0)
		return;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, value);
	sqlite3_step(st);
	sqlite3_reset(st);
}

void rj_cache_add_counter(rj_cache *c, const char *name, double value)
{
	sqlite3_stmt *st = NULL;

	if (value == 0)
		return;
	if (sqlite3_prepare_v2(c->db, RJ_ADD_COUNTER_SQL, -1, &st, NULL) == SQLITE_OK)
		add_counter(st, name, value);
	sqlite3_finalize(st);
}

void rj_cache_add_counters(rj_cache *c, double disk_hits, double saved_ms, double misses,
			   double compiles, double compile_ms)
{
	sqlite3_stmt *st = NULL;

	if (!disk_hits && !saved_ms && !misses && !compiles && !compile_ms)
		return;
	if (sqlite3_prepare_v2(c->db, RJ_ADD_COUNTER_SQL, -1, &st, NULL) == SQLITE_OK) {
		add_counter(st, "disk_hits", disk_hits);
		add_counter(st, "saved_ms", saved_ms);
		add_counter(st, "misses", misses);
		add_counter(st, "compiles", compiles);
		add_counter(st, "compile_ms", compile_ms);
	}
	sqlite3_finalize(st);
}
