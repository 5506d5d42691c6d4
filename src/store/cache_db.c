/*
 * cache_db.c - the on-disk cache's connection: one SQLite database per user (format:
 * cache/FORMAT.md), opened through checked descriptors.
 *
 * Owns the cache folder's rule (rocjit_cache_dir), opening the database (the folder and
 * file checks, then cache_schema.c's checks, moving a damaged file aside), the
 * connection's lock, closing it, and opening it again after a fork() closed it.  Above
 * cache_schema.c, below every other cache file (see cache_internal.h): it knows nothing of
 * compilers or devices, of usage records, of the process's list of open caches, or of
 * what the rows mean.  Every failure is returned to the caller, who treats it as a miss
 * (see cache.h).
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

#include "base/config.h"
#include "base/env.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "store/cache_internal.h"
#include "store/sqlite_fd.h"
#include "store/trust.h"

/* Each variable is read only when the ones before it are unset: the folder given is the
 * common case, and the environment is a list walked per getenv. */
ROCJIT_API int rocjit_cache_dir(char *out, size_t size, const char *dir)
{
	const char *env, *xdg, *home;
	int rc;

	if (dir && *dir)
		rc = rj_fs_join(out, size, dir, NULL);
	else if ((env = rj_config("ROCJIT_CACHE_DIR", NULL)) && *env)
		rc = rj_fs_join(out, size, env, NULL);
	else if ((xdg = getenv("XDG_CACHE_HOME")) && *xdg == '/')
		rc = rj_fs_join(out, size, xdg, "rocjit");
	else if ((home = getenv("HOME")) && *home == '/')
		rc = rj_fs_join(out, size, home, ".cache/rocjit");
	else if (home && *home)
		RJ_FAIL(ROCJIT_EINVAL, "no cache folder: HOME=%s is not an absolute path; set "
			"HOME to one, or set ROCJIT_CACHE_DIR", home);
	else
		RJ_FAIL(ROCJIT_EINVAL, "no cache folder: HOME is not set; set ROCJIT_CACHE_DIR");
	RJ_CHECK(rc != 0, ROCJIT_EINVAL, "cache folder path is too long");
	return 0;
}

/*
 * A cache "folder" that is a file is a bundle (or a cache file) named directly, as
 * `rocjit list --cache app.rocjit` does: opened read-only and immutable, never changed.
 * fd is the file as opened and checked (st: its fstat): SQLite reads that descriptor
 * (sqlite_fd.h), so what the trust rule saw is what is served.  c keeps fd.
 */
static int open_file(rj_cache *c, int fd, const struct stat *st, const char *file,
		     int tflags)
{
	c->readonly = 1;
	c->filefd = fd;
	snprintf(c->path, sizeof c->path, "%s", file);
	snprintf(c->dir, sizeof c->dir, "%s", file);
	if (strrchr(c->dir, '/'))
		*strrchr(c->dir, '/') = 0;
	RJ_FORWARD(rj_trust_check_stat(st, file, "cache file", tflags));
	if (rj_sqlite_open_fd(&c->db, fd) != SQLITE_OK)
		RJ_FAIL(ROCJIT_EIO, "cannot open %s: %s", file,
			c->db ? sqlite3_errmsg(c->db) : "out of memory");
	return rj_cache_init_schema(c);
}

/*
 * Opens the cache folder dir (creating it, and the folders above it, unless read-only),
 * or the file dir names.  Returns the descriptor, and its fstat in *st (the checks below
 * use it: the same descriptor, not looked at again).  The folder is created 0700, or 0770
 * for a new cache in shared mode (fchmod past the umask: only what was created here,
 * never an existing folder).
 */
static int open_cache_path(rj_cache *c, const char *dir, int tflags, struct stat *st)
{
	int shared = tflags & RJ_TRUST_SHARED, created = 0, fd;

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
	if (fstat(fd, st) != 0 || !(S_ISDIR(st->st_mode) || S_ISREG(st->st_mode))) {
		close(fd);
		RJ_FAIL(ROCJIT_EIO, "cache %s is %s, not a folder or a cache file: it is not "
			"used; choose another with ROCJIT_CACHE_DIR", dir, rj_fs_kind(st->st_mode));
	}
	return fd;
}

/*
 * The files SQLite will open in the cache folder - the database, its -wal and -shm - must
 * be regular files (never symbolic links, FIFOs or devices) that pass the trust rule.
 * Checked through dirfd without following links.  A missing database is created here,
 * O_EXCL and O_NOFOLLOW, 0600 (0660 for a new cache in shared mode), so SQLite never
 * creates it through a link and its mode is never changed afterwards.
 *
 * An existing file is checked by fstatat, never opened: closing any descriptor of a file
 * drops every POSIX lock the process holds on it, and another connection of this process
 * (a second context on the cache, the index writer's) may hold SQLite's locks on these very
 * files - losing its lock on the -shm lets another process reset the WAL index under it.
 * The folder is trusted (checked before), so the name checked is the file SQLite opens,
 * O_NOFOLLOW.  The database is looked at before it is created, not created to learn that
 * it exists: it nearly always does, and a failed O_EXCL open costs a path walk of its own.
 */
static int check_file(rj_cache *c, int dirfd, const char *name, int create, int tflags)
{
	mode_t mode = tflags & RJ_TRUST_SHARED ? 0660 : 0600;
	struct stat st;
	char shown[4200];
	int fd, rc;

	rj_fs_join(shown, sizeof shown, c->dir, name);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		RJ_CHECK(errno != ENOENT, ROCJIT_EIO, "cache %s: cannot check it: %s", shown,
			 strerror(errno));
		if (!create)
			return 0;
		fd = rj_fs_open_regular(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, mode,
					&st);
		if (fd >= 0) {
			fchmod(fd, mode); /* created here: past the umask */
			rc = rj_trust_check(fd, shown, "cache", tflags);
			close(fd); /* new: no connection holds a lock on it */
			return rc;
		}
		RJ_CHECK(errno != EEXIST, ROCJIT_EIO, "cache %s: %s: it is not used; remove it, or "
			 "choose another cache folder with ROCJIT_CACHE_DIR", shown,
			 rj_fs_why(errno, &st));
		/* Another process made it a moment ago: checked as found. */
		RJ_CHECK(fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0, ROCJIT_EIO,
			 "cache %s: cannot check it: %s", shown, strerror(errno));
	}
	RJ_CHECK(!S_ISREG(st.st_mode), ROCJIT_EIO, "cache %s: %s: it is not used; remove it, or "
		 "choose another cache folder with ROCJIT_CACHE_DIR", shown,
		 rj_fs_why(S_ISDIR(st.st_mode) ? EISDIR : EINVAL, &st));
	return rj_trust_check_stat(&st, shown, "cache", tflags);
}

static int check_files(rj_cache *c, int dirfd, int tflags)
{
	RJ_FORWARD(check_file(c, dirfd, RJ_CACHE_FILE, !c->readonly, tflags));
	RJ_FORWARD(check_file(c, dirfd, RJ_CACHE_FILE "-wal", 0, tflags));
	return check_file(c, dirfd, RJ_CACHE_FILE "-shm", 0, tflags);
}

/* Opens the database in the cache folder fd (dir; st: its fstat), checked and pinned
 * first. */
static int open_folder(rj_cache *c, int fd, const struct stat *st, const char *dir,
		       int tflags)
{
	int flags = c->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	int persist = 1;
	char name[4300];

	/* Pinned at once: from here on c->dirfd is closed by close_db whatever happens. */
	c->dirfd = rj_sqlite_pin_dir(fd, st);
	RJ_FORWARD(rj_trust_check_stat(st, dir, "cache folder", tflags));
	RJ_FORWARD(rj_cache_check_local(c->dirfd, dir, &c->fs_cow));
	RJ_FORWARD(check_files(c, c->dirfd, tflags));
	/* With a sound index, SQLite waits for the first use that needs it (cache_index.c):
	   the files it will open are checked all the same, so a cache the trust rule refuses
	   is refused at open, with or without an index. */
	if (c->may_defer && rj_index_map(c) == 0) {
		c->deferred = 1;
		return 0;
	}
	/*
	 * SQLite opens the database by name.  The name goes through the checked folder's
	 * descriptor (/proc/self/fd/N/..., see sqlite_fd.h), so it is the folder checked
	 * above, whatever happened to the path meanwhile; in it, the names checked above
	 * can change only by this user (the folder is writable by nobody else) or, in a
	 * shared cache, by the group trusted with its contents - and SQLite opens each of
	 * its files O_NOFOLLOW.  The name is never a URI: a folder called "file:/x" is
	 * ./file:/x.  NOMUTEX: c->lock serializes every use of the connection.  URI: the
	 * names this connection is given (its database's, and the bundle file export
	 * attaches: both from rj_sqlite_name_in) never start with "file:", so none is read
	 * as a URI.
	 */
	RJ_CHECK(rj_sqlite_name_in(name, sizeof name, c->dirfd, dir, RJ_CACHE_FILE) != 0,
		 ROCJIT_EINVAL, "cache folder path is too long");
	if (sqlite3_open_v2(name, &c->db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
			    rj_sqlite_vfs()) != SQLITE_OK)
		RJ_FAIL(ROCJIT_EIO, "cannot open cache %s: %s", c->path,
			c->db ? sqlite3_errmsg(c->db) : "out of memory");
	sqlite3_busy_timeout(c->db, RJ_CACHE_BUSY_MS);
	/* The -wal and -shm stay when the last connection closes (the WAL emptied: see
	   rj_cache_set_pragmas), so that the next process opens them instead of creating both files
	   again: creating and deleting them cost each process tens of microseconds on a
	   quiet ext4, milliseconds while others create files (bench/RESULTS.md, issue 14). */
	sqlite3_file_control(c->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
	if (!c->readonly && rj_cache_retry_busy(c, rj_cache_set_pragmas) != 0)
		return rj_cache_damaged(c);
	/* Checked before WAL mode is asked for: a file that is not a rocjit cache is moved
	   aside as it was found, never switched to WAL first. */
	if (rj_cache_retry_busy(c, rj_cache_check_format) != 0)
		return rj_cache_damaged(c);
	if (!c->readonly && rj_cache_retry_busy(c, rj_cache_set_wal) != 0)
		return rj_cache_damaged(c);
	rj_index_note_database(c); /* the file just read: what an index written from it names */
	return 0;
}

static int open_db(rj_cache *c, const char *dir)
{
	int tflags = rj_cache_trust_flags(), fd;
	struct stat st;

	RJ_CHECK(rj_fs_join(c->dir, sizeof c->dir, dir, NULL) != 0 ||
			 rj_fs_join(c->path, sizeof c->path, dir, RJ_CACHE_FILE) != 0,
		 ROCJIT_EINVAL, "cache folder path is too long");
	fd = open_cache_path(c, dir, tflags, &st);
	RJ_FORWARD(fd < 0 ? ROCJIT_EIO : 0);
	if (!S_ISDIR(st.st_mode))
		RJ_FORWARD(open_file(c, fd, &st, dir, tflags));
	else
		RJ_FORWARD(open_folder(c, fd, &st, dir, tflags));
	return c->deferred ? 0 : rj_cache_prepare_statements(c);
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
			rj_index_drop(c); /* written from the file moved aside */
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

int rj_cache_open_unregistered(rj_cache **out, const char *dir, int readonly, int defer)
{
	rj_cache *c = calloc(1, sizeof *c);
	int rc;

	*out = NULL;
	RJ_CHECK(!c, ROCJIT_ENOMEM, "out of memory opening the cache");
	pthread_mutex_init(&c->lock, NULL);
	c->dirfd = c->filefd = -1;
	c->readonly = readonly;
	c->may_defer = defer;
	rj_cache_limit_init(c);
	rc = open_db(c, dir);
	if (rc < 0 && c->bad_file && !c->readonly)
		rc = move_aside_and_reopen(c, dir);
	if (rc < 0) {
		/* Keep the message: closing must not overwrite it. */
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		rj_cache_close_db(c);
		rj_cache_free(c);
		return rj_error_set(rc, __FILE__, __LINE__, "%s", msg);
	}
	if (c->db)
		rj_cache_limit_refresh_locked(c); /* nobody else has c yet */
	*out = c;
	return 0;
}

void rj_cache_free(rj_cache *c)
{
	rj_index_retire(c);
	free(c->hits);
	free(c->held);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/*
 * Opens the connection after a fork() closed it, or for the first time when the cache was
 * opened on its index (deferred): a fresh cache is opened from what the first open was
 * given, and its connection and statements move into c.  Caller holds c->lock (so it must
 * not touch caches_mu: the fresh shell is never listed).
 */
int rj_cache_reopen_locked(rj_cache *c)
{
	rj_cache *fresh = NULL;
	int rc;

	if (c->db)
		return 0;
	RJ_CHECK(!c->closed_for_fork && !c->deferred, ROCJIT_EIO, "cache %s is not open",
		 c->path);
	/* A deferred connection that could not be opened is not tried again at every use. */
	RJ_CHECK(c->open_failed, ROCJIT_EIO, "%s", c->open_error);
	rc = rj_cache_open_unregistered(&fresh, c->opened_as, c->readonly, 0);
	if (rc != 0 && c->deferred) {
		/* The first open of this connection: its message says why; kept for the next. */
		snprintf(c->open_error, sizeof c->open_error, "%s", rocjit_last_error());
		c->open_failed = 1;
		rj_log(RJ_LOG_WARN, "%s; hits the cache's index serves go on", c->open_error);
		return rc;
	}
	if (rc != 0)
		RJ_FAIL(rc, "cache %s could not be opened again after fork(): %s", c->path,
			rocjit_last_error());
	c->db = fresh->db;
	c->max_bytes = fresh->max_bytes;
	c->max_from = fresh->max_from;
	memcpy(c->max_stored, fresh->max_stored, sizeof c->max_stored);
	c->db_id = fresh->db_id;
	c->db_id_known = fresh->db_id_known;
	c->get = fresh->get;
	c->put = fresh->put;
	c->totals = fresh->totals;
	fresh->db = NULL;
	fresh->get = fresh->put = fresh->totals = NULL;
	/* The descriptors SQLite reads through go along with the connection; c's old ones
	   (closed before the fork: -1) go with the shell. */
	{
		int dirfd = c->dirfd, filefd = c->filefd;
		c->dirfd = fresh->dirfd;
		c->filefd = fresh->filefd;
		fresh->dirfd = dirfd;
		fresh->filefd = filefd;
	}
	rj_cache_close_db(fresh);
	rj_cache_free(fresh);
	c->closed_for_fork = c->deferred = 0;
	/* Opening may have moved a damaged database aside: an index of that file goes; and
	   one written before entries were deleted (by a program that left it) goes too. */
	if (c->index && !rj_index_matches(c->index, c->dirfd))
		rj_index_retire(c);
	rj_index_check_deletions(c);
	return 0;
}

int rj_cache_lock(rj_cache *c)
{
	int rc;

	pthread_mutex_lock(&c->lock);
	if (c->db)
		return 0;
	rc = rj_cache_reopen_locked(c);
	if (rc != 0)
		pthread_mutex_unlock(&c->lock);
	return rc;
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
