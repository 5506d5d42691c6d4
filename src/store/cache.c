/*
 * cache.c - the on-disk cache: one SQLite database per user (format: cache/FORMAT.md).
 *
 * Owns the database connection, its schema and its statements.  Knows nothing of
 * compilers or devices: it stores and returns opaque code objects under 16-byte keys.
 * Every failure is returned to the caller, who treats it as a miss (see cache.h).
 *
 * The hit path is one prepared SELECT and a checksum.  Hit counts and last-use times are
 * gathered in memory and written in batches, one transaction per batch (see "Usage
 * records" below), so that readers rarely take SQLite's write lock and a process that
 * crashes or never closes still leaves its hot entries recently used.
 *
 * The process's list of open caches, fork() and the flusher live in cache_process.c.
 */
#include "store/cache.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "base/error.h"
#include "store/cache_internal.h"
#include "base/fsutil.h"
#include "store/sqlite_fd.h"
#include "rocjit_schema.h" /* generated from cache/schema.sql: rj_schema_sql */

#define RJ_CACHE_FORMAT 2
#define RJ_CACHE_APP_ID 0x726a6974 /* "rjit" */
#define RJ_CACHE_FILE "rocjit-cache.sqlite"
#define BUSY_TIMEOUT_MS 5000
#define RJ_CACHE_DEFAULT_MAX (4ull << 30) /* 4 GiB of code, like the peers' few GiB */
/* Usage records: pending hits are written when this many accumulate, or when the oldest
 * is this old (a background thread), or by a store, at close, or at exit. */
#define FLUSH_HITS 256


ROCJIT_API int rocjit_cache_dir(char *out, size_t size, const char *dir)
{
	const char *env = getenv("ROCJIT_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (dir && *dir)
		n = snprintf(out, size, "%s", dir);
	else if (env && *env)
		n = snprintf(out, size, "%s", env);
	else if (xdg && *xdg == '/')
		n = snprintf(out, size, "%s/rocjit", xdg);
	else if (home && *home == '/')
		n = snprintf(out, size, "%s/.cache/rocjit", home);
	else if (home && *home)
		RJ_FAIL(ROCJIT_EINVAL, "no cache folder: HOME=%s is not an absolute path; set "
			"HOME to one, or set ROCJIT_CACHE_DIR", home);
	else
		RJ_FAIL(ROCJIT_EINVAL, "no cache folder: HOME is not set; set ROCJIT_CACHE_DIR");
	RJ_CHECK(n < 0 || (size_t)n >= size, ROCJIT_EINVAL, "cache folder path is too long");
	return 0;
}

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

static int pragma_int(rj_cache *c, const char *sql, int *value)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK)
		DB_FAIL(c, sql);
	rc = sqlite3_step(st);
	*value = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		DB_FAIL(c, sql);
	return 0;
}

/*
 * Creates the schema in a new database, or checks an existing one's format.  Runs in an
 * immediate transaction so that two processes creating the same new file do not both
 * run it half-way.
 */
static int init_schema(rj_cache *c)
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
		snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d; "
			 "INSERT OR IGNORE INTO counters (name, value) VALUES ('since', %lld)",
			 RJ_CACHE_APP_ID, RJ_CACHE_FORMAT, (long long)time(NULL));
		if (rj_cache_exec(c, rj_schema_sql) != 0 || rj_cache_exec(c, sql) != 0) {
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

static int set_wal(rj_cache *c)
{
	return rj_cache_exec(c, "PRAGMA synchronous=NORMAL; PRAGMA journal_mode=WAL");
}

/*
 * Runs step again while SQLite answers "busy", for as long as the busy timeout: switching
 * to WAL and reading the schema of a database that other processes are creating or
 * recovering at the same moment can be refused at once, without the busy handler.  A
 * crowd of processes opening a new cache together must all get it.
 */
static int retry_busy(rj_cache *c, int (*step)(rj_cache *c))
{
	double deadline = rj_now_ms() + BUSY_TIMEOUT_MS;
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
static int damaged(rj_cache *c)
{
	int code = sqlite3_errcode(c->db) & 0xff;

	if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
		c->bad_file = 1;
	return ROCJIT_EIO;
}

/*
 * A file shorter than the pages its header counts was cut short (a full disk, a copy
 * interrupted).  Only when no WAL holds newer pages: those may not be in the file yet.
 */
static int check_truncated(rj_cache *c)
{
	struct stat st, sw;
	int pages = 0, page_size = 0;
	int truncated;

	/* In one read transaction: no checkpoint can shrink the file under it, and a WAL
	   that holds pages the file lacks is seen (then nothing is concluded). */
	if (rj_cache_exec(c, "BEGIN") != 0)
		return 0;
	truncated = pragma_int(c, "PRAGMA page_count", &pages) == 0 &&
		    pragma_int(c, "PRAGMA page_size", &page_size) == 0 &&
		    !(fstatat(c->dirfd, RJ_CACHE_FILE "-wal", &sw, AT_SYMLINK_NOFOLLOW) == 0 &&
		      sw.st_size > 0) &&
		    fstatat(c->dirfd, RJ_CACHE_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (long long)st.st_size < (long long)pages * page_size;
	rj_cache_exec(c, "COMMIT");
	if (truncated) {
		c->bad_file = 1;
		RJ_FAIL(ROCJIT_EIO, "cache %s is truncated (%lld of %lld bytes)", c->path,
			(long long)st.st_size, (long long)pages * page_size);
	}
	return 0;
}

static int prepare(rj_cache *c, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
		DB_FAIL(c, "prepare");
	return 0;
}

static int prepare_reads(rj_cache *c)
{
	RJ_FORWARD(prepare(c, &c->get,
			   "SELECT code, size, checksum, compile_ms FROM entries WHERE key = ?1"));
	return prepare(c, &c->totals, "SELECT count(*), coalesce(sum(size), 0) FROM entries");
}

/*
 * A cache "folder" that is a file is a bundle (or a cache file) named directly, as
 * `rocjit list --cache app.rocjit` does: opened read-only and immutable, never changed.
 * fd is the file as opened and checked: SQLite reads that descriptor (sqlite_fd.h), so
 * what the trust rule saw is what is served.  c keeps fd.
 */
static int open_file(rj_cache *c, int fd, const char *file)
{
	char uri[64];

	c->readonly = 1;
	c->filefd = fd;
	snprintf(c->path, sizeof c->path, "%s", file);
	snprintf(c->dir, sizeof c->dir, "%s", file);
	if (strrchr(c->dir, '/'))
		*strrchr(c->dir, '/') = 0;
	RJ_FORWARD(rj_trust_check(fd, file, "cache file", rj_cache_trust_flags()));
	rj_sqlite_fd_uri(uri, sizeof uri, fd, "immutable=1");
	if (sqlite3_open_v2(uri, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
			    SQLITE_OPEN_NOMUTEX, rj_sqlite_vfs()) != SQLITE_OK)
		RJ_FAIL(ROCJIT_EIO, "cannot open %s: %s", file,
			c->db ? sqlite3_errmsg(c->db) : "out of memory");
	RJ_FORWARD(init_schema(c));
	return prepare_reads(c);
}

/*
 * Opens the cache folder dir (creating it, and the folders above it, unless read-only),
 * or the file dir names.  Returns the descriptor; *is_dir says which.  The folder is
 * created 0700, or 0770 for a new cache in shared mode (fchmod past the umask: only what
 * was created here, never an existing folder).
 */
static int open_cache_path(rj_cache *c, const char *dir, int *is_dir)
{
	int shared = rj_cache_trust_flags() & RJ_TRUST_SHARED, created = 0, fd;
	struct stat st;

	/* O_NONBLOCK: a FIFO named as the cache is refused below, never waited on. */
	fd = open(dir, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && !c->readonly) {
		fd = rj_fs_make_dirs(dir, shared ? 0770 : 0700, &created);
		if (fd >= 0 && created && shared)
			fchmod(fd, 0770);
	}
	RJ_CHECK(fd < 0 && errno == ENOENT, ROCJIT_EIO,
		 "cache folder %s does not exist (it is opened read-only, so not created)", dir);
	RJ_CHECK(fd < 0, ROCJIT_EIO, "cannot %s cache folder %s: %s; choose another with "
		 "ROCJIT_CACHE_DIR", c->readonly ? "open" : "open or create", dir,
		 strerror(errno));
	if (fstat(fd, &st) != 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
		close(fd);
		RJ_FAIL(ROCJIT_EIO, "cache %s is %s, not a folder or a cache file: it is not "
			"used; choose another with ROCJIT_CACHE_DIR", dir, rj_fs_kind(st.st_mode));
	}
	*is_dir = S_ISDIR(st.st_mode);
	return fd;
}

/*
 * The files SQLite will open in the cache folder - the database, its -wal and -shm - must
 * be regular files (never symbolic links, FIFOs or devices) that pass the trust rule.
 * Checked through dirfd without following links.  A missing database is created here,
 * O_EXCL and O_NOFOLLOW, 0600 (0660 for a new cache in shared mode), so SQLite never
 * creates it through a link and its mode is never changed afterwards.
 */
static int check_files(rj_cache *c, int dirfd)
{
	static const char *const names[] = { RJ_CACHE_FILE, RJ_CACHE_FILE "-wal",
					     RJ_CACHE_FILE "-shm" };
	int tflags = rj_cache_trust_flags();
	mode_t mode = tflags & RJ_TRUST_SHARED ? 0660 : 0600;

	for (int i = 0; i < 3; i++) {
		struct stat st;
		char shown[4200];
		int fd = -1, rc;

		snprintf(shown, sizeof shown, "%s/%s", c->dir, names[i]);
		if (i == 0 && !c->readonly) {
			fd = rj_fs_open_regular(dirfd, names[i],
						O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, mode, &st);
			if (fd >= 0)
				fchmod(fd, mode); /* created here: past the umask */
		}
		if (fd < 0 && (i != 0 || c->readonly || errno == EEXIST))
			fd = rj_fs_open_regular(dirfd, names[i], O_RDONLY | O_NOFOLLOW, 0, &st);
		if (fd < 0 && errno == ENOENT)
			continue;
		RJ_CHECK(fd < 0, ROCJIT_EIO, "cache %s: %s: it is not used; remove it, or "
			 "choose another cache folder with ROCJIT_CACHE_DIR", shown,
			 rj_fs_why(errno, &st));
		rc = rj_trust_check(fd, shown, "cache", tflags);
		close(fd);
		RJ_FORWARD(rc);
	}
	return 0;
}

static int open_db(rj_cache *c, const char *dir)
{
	int flags = c->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	char name[4300];
	int fd, is_dir = 0;

	snprintf(c->dir, sizeof c->dir, "%s", dir);
	RJ_CHECK((size_t)snprintf(c->path, sizeof c->path, "%s/%s", dir, RJ_CACHE_FILE) >=
			 sizeof c->path,
		 ROCJIT_EINVAL, "cache folder path is too long");
	fd = open_cache_path(c, dir, &is_dir);
	RJ_FORWARD(fd < 0 ? ROCJIT_EIO : 0);
	if (!is_dir)
		return open_file(c, fd, dir);
	/* Pinned at once: from here on c->dirfd is closed by close_db whatever happens. */
	c->dirfd = rj_sqlite_pin_dir(fd);
	RJ_FORWARD(rj_trust_check(c->dirfd, dir, "cache folder", rj_cache_trust_flags()));
	RJ_FORWARD(rj_cache_check_local(c->dirfd, dir));
	RJ_FORWARD(check_files(c, c->dirfd));
	/*
	 * SQLite opens the database by name.  The name goes through the checked folder's
	 * descriptor (/proc/self/fd/N/..., see sqlite_fd.h), so it is the folder checked
	 * above, whatever happened to the path meanwhile; in it, the names checked above
	 * can change only by this user (the folder is writable by nobody else) or, in a
	 * shared cache, by the group trusted with its contents - and SQLite opens each of
	 * its files O_NOFOLLOW.  The name is never a URI: a folder called "file:/x" is
	 * ./file:/x.  NOMUTEX: c->lock serializes every use of the connection.  URI: bundles
	 * are attached as "file:" URIs (bundle.c).
	 */
	RJ_CHECK(rj_sqlite_name_in(name, sizeof name, c->dirfd, dir, RJ_CACHE_FILE) != 0,
		 ROCJIT_EINVAL, "cache folder path is too long");
	if (sqlite3_open_v2(name, &c->db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
			    rj_sqlite_vfs()) != SQLITE_OK)
		RJ_FAIL(ROCJIT_EIO, "cannot open cache %s: %s", c->path,
			c->db ? sqlite3_errmsg(c->db) : "out of memory");
	sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
	if (!c->readonly && retry_busy(c, set_wal) != 0)
		return damaged(c);
	if (retry_busy(c, init_schema) != 0)
		return damaged(c);
	RJ_FORWARD(check_truncated(c));
	RJ_FORWARD(prepare_reads(c));
	if (!c->readonly)
		RJ_FORWARD(prepare(c, &c->put,
				   "INSERT OR REPLACE INTO entries (key, platform, target, "
				   "compiler, options, source_name, headers, kernels, size, "
				   "checksum, created, last_used, hits, compile_ms, code, pkey) "
				   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, 0, ?12, "
				   "?13, ?14)"));
	return 0;
}

/* Closes c's connection and statements, keeping its descriptors and the rest of c. */
static void close_conn(rj_cache *c)
{
	sqlite3_finalize(c->get);
	sqlite3_finalize(c->put);
	sqlite3_finalize(c->totals);
	c->get = c->put = c->totals = NULL;
	if (c->db)
		sqlite3_close(c->db);
	c->db = NULL;
}

/* Closes the connection, then the descriptors SQLite read through. */
void rj_cache_close_db(rj_cache *c)
{
	close_conn(c);
	rj_sqlite_unpin_dir(c->dirfd);
	if (c->filefd >= 0)
		close(c->filefd);
	c->dirfd = c->filefd = -1;
}

int rj_cache_locks_dir(int dirfd, const char *dir)
{
	int shared = rj_cache_trust_flags() & RJ_TRUST_SHARED, created = 0, locks;
	char shown[4200];
	struct stat st;

	snprintf(shown, sizeof shown, "%s/locks", dir);
	locks = rj_fs_make_dir_at(dirfd, "locks", shared ? 0770 : 0700, &created);
	if (locks >= 0 && created && shared)
		fchmod(locks, 0770); /* made here: past the umask, for every member */
	if (locks < 0) {
		int e = errno;
		if (fstatat(dirfd, "locks", &st, AT_SYMLINK_NOFOLLOW) != 0)
			memset(&st, 0, sizeof st);
		RJ_FAIL(ROCJIT_EIO, "cache locks folder %s is not used: %s", shown,
			S_ISLNK(st.st_mode) ? rj_fs_why(ELOOP, &st) : strerror(e));
	}
	if (rj_trust_check(locks, shown, "cache locks folder", rj_cache_trust_flags()) != 0) {
		close(locks);
		return ROCJIT_EIO;
	}
	return locks;
}

int rj_cache_dirfd(const rj_cache *c)
{
	return c->dirfd;
}

/*
 * Takes <cache>/locks/open.lock, exclusively, in the checked locks folder, without
 * following links: a planted link makes no file anywhere else.  Returns the descriptor
 * (the lock dies with it), or -1: then the caller goes on unlocked (best effort).
 */
static int take_open_lock(int dirfd, const char *dir)
{
	int shared = rj_cache_trust_flags() & RJ_TRUST_SHARED;
	int locks = rj_cache_locks_dir(dirfd, dir), fd;
	struct stat st;

	if (locks < 0) {
		rj_log(RJ_LOG_WARN, "%s", rocjit_last_error());
		return -1;
	}
	fd = rj_fs_open_regular(locks, "open.lock", O_RDWR | O_CREAT | O_NOFOLLOW,
				shared ? 0660 : 0600, &st);
	if (fd < 0)
		rj_log(RJ_LOG_WARN, "cache lock %s/locks/open.lock is not used: %s", dir,
		       rj_fs_why(errno, &st));
	close(locks);
	if (fd >= 0)
		flock(fd, LOCK_EX);
	return fd;
}

/*
 * Keeps a damaged database for inspection and starts a fresh one.  Processes that find
 * the same damage at once take turns (a flock in locks/); each looks again once it has
 * its turn, so only the first moves the file, and a fresh cache another made meanwhile
 * is never moved.  The -wal and -shm go along with the file they belong to.  Renames are
 * made in the folder descriptor that was checked, not by path.
 */
static int move_aside_and_reopen(rj_cache *c, const char *dir)
{
	char msg[1024], aside[300], from[300], to[320];
	int fd = -1, rc;

	snprintf(msg, sizeof msg, "%s", rocjit_last_error());
	close_conn(c);
	if (c->dirfd >= 0)
		fd = take_open_lock(c->dirfd, dir);
	rj_cache_close_db(c);
	c->bad_file = 0;
	rc = open_db(c, dir); /* another process may have mended it meanwhile */
	if (rc < 0 && c->bad_file && c->dirfd >= 0) {
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		close_conn(c);
		snprintf(aside, sizeof aside, "%s.bad-%lld-%d", RJ_CACHE_FILE,
			 (long long)time(NULL), (int)getpid());
		if (renameat(c->dirfd, RJ_CACHE_FILE, c->dirfd, aside) == 0) {
			static const char *const sides[] = { "-wal", "-shm" };
			for (int i = 0; i < 2; i++) {
				snprintf(from, sizeof from, "%s%s", RJ_CACHE_FILE, sides[i]);
				snprintf(to, sizeof to, "%s%s", aside, sides[i]);
				renameat(c->dirfd, from, c->dirfd, to);
			}
			rj_warn_once("cache-moved", "%s; moved it aside to %s/%s and started a "
				     "fresh cache", msg, dir, aside);
			rj_cache_close_db(c);
			c->bad_file = 0;
			rc = open_db(c, dir);
		}
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int rj_cache_open_unregistered(rj_cache **out, const char *dir, int readonly)
{
	rj_cache *c = calloc(1, sizeof *c);
	int rc;

	*out = NULL;
	RJ_CHECK(!c, ROCJIT_ENOMEM, "out of memory opening the cache");
	pthread_mutex_init(&c->lock, NULL);
	c->dirfd = c->filefd = -1;
	c->readonly = readonly;
	c->max_bytes = RJ_CACHE_DEFAULT_MAX;
	rj_env_size("ROCJIT_CACHE_MAXSIZE", RJ_CACHE_DEFAULT_MAX, &c->max_bytes);
	rc = open_db(c, dir);
	if (rc < 0 && c->bad_file && !c->readonly)
		rc = move_aside_and_reopen(c, dir);
	if (rc < 0) {
		/* Keep the message: closing must not overwrite it. */
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		rj_cache_close(c);
		return rj_error_set(rc, __FILE__, __LINE__, "%s", msg);
	}
	*out = c;
	return 0;
}


const char *rj_cache_path(const rj_cache *c)
{
	return c->path;
}

const char *rj_cache_dir_of(const rj_cache *c)
{
	return c->dir;
}

int rj_cache_readonly(const rj_cache *c)
{
	return c->readonly;
}

uint64_t rj_cache_max_bytes(const rj_cache *c)
{
	return c->max_bytes;
}

/*
 * Records a hit in memory (caller holds c->lock): an append, and once per batch a word
 * to the flusher.  The batch is written when it reaches FLUSH_HITS, by this thread.
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
		rj_cache_arm_flusher();
	else if (c->nhits >= FLUSH_HITS)
		rj_cache_flush_locked(c);
}

/* Removes a row whose code failed its checksum.  Best-effort. */
static void drop_locked(rj_cache *c, const rj_key *key)
{
	sqlite3_stmt *st;

	if (c->readonly)
		return;
	if (sqlite3_prepare_v2(c->db, "DELETE FROM entries WHERE key = ?1", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_blob(st, 1, key->b, 16, SQLITE_STATIC);
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
}

int rj_cache_get(rj_cache *c, const rj_key *key, void **code, size_t *size,
		 double *compile_ms)
{
	int rc, ret = 0;
	char hex[33];

	*code = NULL;
	*size = 0;
	if ((rc = rj_cache_lock(c)) != 0) {
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
		*code = malloc((size_t)blen);
		if (*code) {
			memcpy(*code, blob, (size_t)blen);
			*size = (size_t)blen;
			*compile_ms = sqlite3_column_double(c->get, 3);
			c->saved_ms += *compile_ms;
			sqlite3_reset(c->get); /* no read open while a batch is written */
			note_hit(c, key);
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

int rj_cache_put(rj_cache *c, const rj_key *key, const struct rj_cache_meta *m,
		 const void *code, size_t size)
{
	sqlite3_stmt *st;
	int rc;

	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is read-only", c->path);
	/* Storing it would evict every other entry, then it too: keep the others. */
	RJ_CHECK(c->max_bytes && size > c->max_bytes, ROCJIT_EIO,
		 "cache %s: the code object (%zu bytes) is larger than the cache's size limit "
		 "(ROCJIT_CACHE_MAXSIZE, %llu bytes), so it is not stored: raise "
		 "ROCJIT_CACHE_MAXSIZE", c->path, size, (unsigned long long)c->max_bytes);
	if ((rc = rj_cache_lock(c)) != 0) {
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	st = c->put;
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
	if (rc != SQLITE_DONE) {
		rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: write failed: %s",
				  c->path, sqlite3_errmsg(c->db));
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
				  "(ROCJIT_CACHE_MAXSIZE, %llu bytes), which is too small for the "
				  "entries in use: raise ROCJIT_CACHE_MAXSIZE", c->path,
				  (unsigned long long)c->max_bytes);
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	if (c->nhits)
		rj_cache_flush_locked(c); /* a writer already: the pending hits go along */
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int rj_cache_totals(rj_cache *c, uint64_t *entries, uint64_t *bytes)
{
	int rc;

	*entries = *bytes = 0;
	if ((rc = rj_cache_lock(c)) != 0) {
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	rc = sqlite3_step(c->totals);
	*entries = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(c->totals, 0) : 0;
	*bytes = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(c->totals, 1) : 0;
	sqlite3_reset(c->totals);
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
	sqlite3_stmt *st;
	int rc = 0;

	*memo = NULL;
	if ((rc = rj_cache_lock(c)) != 0) {
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
	if ((rc = rj_cache_lock(c)) != 0) {
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
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
	pthread_mutex_unlock(&c->lock);
	return rc;
}
