/*
 * bundle.c - prebuilt, read-only bundles of code objects, and moving entries between the
 * user cache and a bundle file (export, import).
 *
 * Owns the bundles a context opened (immutable SQLite files in the cache's format) and
 * the lookup by portable key.  Never writes a bundle it reads.  A bundle that cannot be
 * used is skipped with one warning; it never fails a request.
 *
 * A bundle is data from outside: whoever wrote it chose every byte of every row.  An entry
 * is used or imported only after row_problem() found nothing wrong with it (checksum,
 * code object, target, kernel names, key sizes); a context checks each entry once, the
 * first time it loads it, and remembers the rows it checked.  Import never takes a row's
 * usage (hits, last_used, created): they are this cache's, fresh at import.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <math.h>

#include "store/bundle.h"
#include "store/cache_internal.h"
#include "codeobj/codeobj.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "rocjit_schema.h"
#include "store/sqlite_fd.h"
#include "store/trust.h"
#include "key/target.h"

#define RJ_BUNDLE_FORMAT 2

struct rj_bundle {
	sqlite3 *db;
	sqlite3_stmt *find;
	pthread_mutex_t lock;
	int fd; /* the checked file, which SQLite reads (sqlite_fd.h) */
	char path[4096];
	int64_t *checked;      /* rowids of entries row_problem() passed, under lock */
	size_t nchecked, capchecked;
	struct rj_bundle *next;
};

static int int_query(sqlite3 *db, const char *sql, int *value)
{
	sqlite3_stmt *st;
	int rc = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*value = sqlite3_column_int(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/* Why the last bundle this thread tried could not be used (for import's error). */
static _Thread_local char bundle_error[1024];

static void bundle_free(struct rj_bundle *b)
{
	sqlite3_finalize(b->find);
	sqlite3_close(b->db);
	if (b->fd >= 0)
		close(b->fd);
	pthread_mutex_destroy(&b->lock);
	free(b->checked);
	free(b);
}

/*
 * Opens one bundle, or says why it cannot be used (NULL).  The file is opened once,
 * O_NONBLOCK (a FIFO is refused, never waited on), checked as opened (regular, trust
 * rule) and read by SQLite through that same descriptor, so the checked file is the one
 * served.  quiet: a missing file is skipped without a word (the optional bundle beside
 * the executable).
 */
static struct rj_bundle *open_one(const char *path, int quiet)
{
	struct rj_bundle *b = calloc(1, sizeof *b);
	char uri[64], trust[1024];
	int app = 0, version = 0;
	const char *why = NULL;
	struct stat st;
	int missing = 0;

	if (!b)
		return NULL;
	snprintf(b->path, sizeof b->path, "%s", path);
	pthread_mutex_init(&b->lock, NULL);
	b->fd = rj_fs_open_regular(AT_FDCWD, path, O_RDONLY, 0, &st);
	if (b->fd < 0 && errno == ENOENT && quiet) {
		bundle_free(b);
		return NULL;
	}
	if (b->fd < 0) {
		missing = errno == ENOENT;
		why = rj_fs_why(errno, &st);
	} else if (rj_trust_check(b->fd, path, "bundle", 0) != 0) {
		/* Whoever can write a bundle can put code on the GPU: this user's or root's
		   (installed with the application), and writable by nobody else. */
		snprintf(trust, sizeof trust, "%s", rocjit_last_error());
		why = trust;
	} else {
		rj_sqlite_fd_uri(uri, sizeof uri, b->fd, "immutable=1");
		if (sqlite3_open_v2(uri, &b->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
				    SQLITE_OPEN_NOMUTEX, rj_sqlite_vfs()) != SQLITE_OK)
			why = b->db ? sqlite3_errmsg(b->db) : "out of memory";
		else if (int_query(b->db, "PRAGMA application_id", &app) != 0 ||
			 app != RJ_CACHE_APP_ID)
			why = "not a rocjit bundle";
		else if (int_query(b->db, "PRAGMA user_version", &version) != 0 ||
			 version != RJ_BUNDLE_FORMAT)
			why = "a format this rocjit does not read";
		else if (sqlite3_prepare_v3(b->db,
					    "SELECT code, size, checksum, compile_ms, rowid, platform, "
					    "kernels, pkey FROM entries "
					    "WHERE pkey = ?1 AND target = ?2 "
					    "ORDER BY compiler = ?3 DESC, created DESC LIMIT 1",
					    -1, SQLITE_PREPARE_PERSISTENT, &b->find, NULL) != SQLITE_OK)
			why = sqlite3_errmsg(b->db);
	}
	if (why) {
		/* Bundles are opened once a context: one warning each. */
		snprintf(bundle_error, sizeof bundle_error, "%s", why);
		if (missing)
			rj_warn_once("bundle-missing", "bundle %s is skipped: %s", path, why);
		else
			rj_log(RJ_LOG_WARN, "bundle %s is skipped: %s", path, why);
		bundle_free(b);
		return NULL;
	}
	RJ_LOG(RJ_LOG_DEBUG, "bundle %s", path);
	return b;
}

/* Adds the bundles of a colon-separated list; missing files are skipped silently when
 * quiet (the bundle beside the executable is optional), else with a warning. */
static void add_list(struct rj_bundle **list, const char *paths, int quiet)
{
	char path[4096];

	for (const char *p = paths; p && *p;) {
		size_t n = strcspn(p, ":");
		if (n && n < sizeof path) {
			struct rj_bundle *b, **tail = list;
			memcpy(path, p, n);
			path[n] = 0;
			if ((b = open_one(path, quiet)) != NULL) {
				while (*tail)
					tail = &(*tail)->next;
				*tail = b;
			}
		}
		p += n;
		if (*p == ':')
			p++;
	}
}

struct rj_bundle *rj_bundles_open(const char *paths)
{
	struct rj_bundle *list = NULL;
	char exe[PATH_MAX];
	ssize_t n;

	add_list(&list, paths, 0);
	add_list(&list, getenv("ROCJIT_BUNDLE_PATH"), 0);
	/* <executable>.rocjit, installed next to the application. */
	n = readlink("/proc/self/exe", exe, sizeof exe - 8);
	if (n > 0) {
		memcpy(exe + n, ".rocjit", 8);
		add_list(&list, exe, 1);
	}
	return list;
}

void rj_bundles_close(struct rj_bundle *list)
{
	while (list) {
		struct rj_bundle *next = list->next;
		bundle_free(list);
		list = next;
	}
}

/* A bundle row as read, before anything about it is believed. */
struct row {
	const void *key, *pkey, *code;
	int key_len, pkey_len, code_len;  /* key_len < 0: not read (lookups by pkey) */
	int64_t size, checksum;
	const char *platform, *target, *kernels;
	double compile_ms;
};

/*
 * Why a bundle row cannot be used as the entry it claims to be, into why[size]; 0 when
 * nothing is wrong.  Checks what the row says against what its code is: the checksum and
 * size, that the code parses as a code object (rj_codeobj_check: AMDGPU ELF or CUBIN),
 * that the object's own target is the row's (a well-formed, normalized target id of the
 * row's platform), that its kernels are the row's, and that the keys are 16 bytes.  What
 * no row can prove - that the code is what its source compiles to - is the trust rule's
 * business (who may write a bundle).  Sets the thread's last error when the code is bad.
 */
static int row_problem(char *why, size_t size, const struct row *r)
{
	char norm[RJ_TARGET_MAX], *kernels = NULL;
	const char *platform;
	int rc;

	why[0] = 0;
	if (r->key_len >= 0 && (!r->key || r->key_len != 16))
		snprintf(why, size, "its key is %d bytes, not 16", r->key_len);
	else if (!r->pkey || r->pkey_len != 16)
		snprintf(why, size, "its portable key is %d bytes, not 16", r->pkey_len);
	else if (!r->code || r->code_len <= 0 || r->size != r->code_len)
		snprintf(why, size, "its code is %d bytes where the entry says %lld", r->code_len,
			 (long long)r->size);
	else if (rj_checksum(r->code, (size_t)r->code_len) != (uint64_t)r->checksum)
		snprintf(why, size, "its code does not match its checksum");
	else if (!isfinite(r->compile_ms) || r->compile_ms < 0)
		snprintf(why, size, "its compile time is not a duration");
	else if (!r->target || strlen(r->target) >= RJ_TARGET_MAX ||
		 rj_target_normalize(norm, r->target) != 0 || strcmp(norm, r->target) != 0)
		snprintf(why, size, "its target is not a normalized target id");
	if (why[0])
		return -1;
	platform = rocjit_platform_name(rocjit_target_platform(r->target));
	if (!r->platform || strcmp(r->platform, platform) != 0) {
		snprintf(why, size, "its platform is not %s's (%s)", r->target, platform);
		return -1;
	}
	rc = rj_codeobj_check(r->code, (size_t)r->code_len, r->target, &kernels);
	if (rc != 0)
		snprintf(why, size, "its code is not a code object for %s: %s", r->target,
			 rocjit_last_error());
	else if (!r->kernels || strcmp(kernels, r->kernels) != 0)
		snprintf(why, size, "its kernel names are not those in its code (%s)", kernels);
	free(kernels);
	/* Names and targets inside the code are the bundle writer's bytes: shown, not run. */
	for (char *p = why; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return why[0] ? -1 : 0;
}

/* Whether b's row was checked already (b->lock held); adds it when add. */
static int row_checked(struct rj_bundle *b, int64_t rowid, int add)
{
	for (size_t i = 0; i < b->nchecked; i++)
		if (b->checked[i] == rowid)
			return 1;
	if (add) {
		if (b->nchecked == b->capchecked) {
			size_t cap = b->capchecked ? 2 * b->capchecked : 16;
			int64_t *n = realloc(b->checked, cap * sizeof *n);
			if (!n)
				return 0; /* checked again next time */
			b->checked = n;
			b->capchecked = cap;
		}
		b->checked[b->nchecked++] = rowid;
	}
	return 0;
}

/*
 * A bundle's entry is checked (row_problem) the first time this context loads it; after
 * that its rowid is known good, and the in-process table serves the program's repeats,
 * so a hit never checks again.  A bad entry is a miss with one warning.
 */
int rj_bundles_get(struct rj_bundle *list, const rj_key *pkey, const char *target,
		   const char *compiler, void **code, size_t *size, double *compile_ms,
		   const char **which)
{
	for (struct rj_bundle *b = list; b; b = b->next) {
		int found = 0;

		pthread_mutex_lock(&b->lock);
		sqlite3_bind_blob(b->find, 1, pkey->b, 16, SQLITE_STATIC);
		sqlite3_bind_text(b->find, 2, target, -1, SQLITE_STATIC);
		sqlite3_bind_text(b->find, 3, compiler ? compiler : "", -1, SQLITE_STATIC);
		if (sqlite3_step(b->find) == SQLITE_ROW) {
			sqlite3_stmt *f = b->find;
			int64_t rowid = sqlite3_column_int64(f, 4);
			struct row r = { .key_len = -1 };
			char why[1024];
			int bad;

			r.code = sqlite3_column_blob(f, 0);
			r.code_len = sqlite3_column_bytes(f, 0);
			r.size = sqlite3_column_int64(f, 1);
			r.checksum = sqlite3_column_int64(f, 2);
			r.compile_ms = sqlite3_column_double(f, 3);
			r.platform = (const char *)sqlite3_column_text(f, 5);
			r.kernels = (const char *)sqlite3_column_text(f, 6);
			r.pkey = sqlite3_column_blob(f, 7);
			r.pkey_len = sqlite3_column_bytes(f, 7);
			r.target = target;
			/* Checked before: the file is immutable, but the copy is still summed. */
			if (row_checked(b, rowid, 0)) {
				snprintf(why, sizeof why, "its code does not match its checksum");
				bad = r.code_len <= 0 || r.size != r.code_len ||
				      rj_checksum(r.code, (size_t)r.code_len) != (uint64_t)r.checksum;
			} else {
				bad = row_problem(why, sizeof why, &r) != 0;
			}
			if (bad) {
				rj_warn_once("bundle-bad", "bundle %s has a bad entry for %s (%s); it "
					     "is not used", b->path, target, why);
			} else if ((*code = malloc((size_t)r.code_len)) != NULL) {
				row_checked(b, rowid, 1);
				memcpy(*code, r.code, (size_t)r.code_len);
				*size = (size_t)r.code_len;
				*compile_ms = r.compile_ms;
				*which = b->path;
				found = 1;
			}
		}
		sqlite3_reset(b->find);
		pthread_mutex_unlock(&b->lock);
		if (found)
			return 1;
	}
	return 0;
}

/* ---- Export and import (the user cache's connection, under its lock) -------------------- */

/* How many different keys the list holds (a key may be listed twice). */
static size_t distinct_keys(const rj_key *keys, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < i && memcmp(keys[i].b, keys[j].b, sizeof keys[i].b) != 0; j++)
			;
		d += j == i;
	}
	return d;
}

/* Writes the new bundle's schema and header, then copies the entries, all in the file.
 * name: the file as SQLite is to open it (sqlite_fd.h); path: as the user gave it. */
static int export_locked(rj_cache *c, const char *name, const char *path, const rj_key *keys,
			 size_t n, size_t *count)
{
	char sql[256];
	sqlite3_stmt *st = NULL;
	sqlite3 *out = NULL;
	int rc = ROCJIT_EIO;
	size_t copied = 0;

	if (sqlite3_open_v2(name, &out, SQLITE_OPEN_READWRITE, rj_sqlite_vfs()) != SQLITE_OK)
		goto fail;
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d; "
		 "CREATE TABLE bundle (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
		 RJ_CACHE_APP_ID, RJ_BUNDLE_FORMAT);
	if (sqlite3_exec(out, rj_schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(out, sql, NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_close(out);
	out = NULL;
	if (sqlite3_prepare_v2(c->db, "ATTACH DATABASE ?1 AS bundle", -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	st = NULL;
	if (rj_cache_exec(c, "BEGIN") != 0)
		goto detach;
	if (sqlite3_prepare_v2(c->db, "INSERT OR IGNORE INTO bundle.entries (" RJ_ENTRY_COLUMNS ") "
			       "SELECT " RJ_ENTRY_COLUMNS " FROM main.entries WHERE key = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		goto rollback;
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_blob(st, 1, keys[i].b, 16, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cannot write bundle %s: %s",
				     path, sqlite3_errmsg(c->db));
			goto rollback;
		}
		copied += (size_t)sqlite3_changes(c->db);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	snprintf(sql, sizeof sql, "INSERT INTO bundle.bundle (name, value) VALUES "
		 "('created', '%lld')", (long long)time(NULL));
	if (rj_cache_exec(c, sql) != 0 ||
	    rj_cache_exec(c, "INSERT INTO bundle.bundle (name, value) SELECT 'targets', "
			  "group_concat(t, ' ') FROM (SELECT DISTINCT target AS t FROM "
			  "bundle.entries); INSERT INTO bundle.bundle (name, value) SELECT "
			  "'compilers', coalesce(group_concat(x, ' | '), '') FROM (SELECT DISTINCT "
			  "compiler AS x FROM bundle.entries)") != 0 ||
	    rj_cache_exec(c, "COMMIT") != 0)
		goto rollback;
	rc = 0;
	goto detach;
rollback:
	sqlite3_finalize(st);
	st = NULL;
	rj_cache_exec(c, "ROLLBACK");
detach:
	rj_cache_exec(c, "DETACH DATABASE bundle");
fail:
	sqlite3_finalize(st);
	if (out)
		sqlite3_close(out);
	if (rc == 0 && copied != distinct_keys(keys, n))
		rc = rj_error_set(ROCJIT_EINVAL, __FILE__, __LINE__,
				  "%zu of the keys are not in the cache %s: prewarm them first",
				  distinct_keys(keys, n) - copied, c->path);
	else if (rc != 0 && !rocjit_last_error()[0])
		rj_error_set(rc, __FILE__, __LINE__, "cannot write bundle %s: %s", path,
			     sqlite3_errmsg(c->db));
	if (count)
		*count = copied;
	return rc;
}

/*
 * Creates the bundle file path for export: its folder is opened once and the file made in
 * it with O_CREAT | O_EXCL | O_NOFOLLOW, so an existing file, or a symbolic link (even a
 * dangling one), is refused and nothing is created where a link points.  0644: a bundle is
 * made to be shipped and read by anyone.  *dirfd, *fd and name[] (SQLite's name of the file,
 * through the folder's descriptor) are what the export writes through.
 */
static int create_output(int *dirfd, int *fd, char *name, size_t size, char *base, size_t bsize,
			 const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct stat st;

	RJ_CHECK(strlen(path) >= sizeof dir, ROCJIT_EINVAL, "%s: path is too long", path);
	snprintf(dir, sizeof dir, "%s", path);
	if (slash) {
		dir[slash - path] = 0;
		if (slash == path)
			snprintf(dir, sizeof dir, "/");
	} else {
		snprintf(dir, sizeof dir, ".");
	}
	snprintf(base, bsize, "%s", slash ? slash + 1 : path);
	RJ_CHECK(!*base || !strcmp(base, ".") || !strcmp(base, ".."), ROCJIT_EINVAL,
		 "%s names a folder: give the bundle file to write", path);
	*dirfd = rj_fs_open_dir(AT_FDCWD, dir, 0);
	RJ_CHECK(*dirfd < 0, ROCJIT_EIO, "cannot write bundle %s: folder %s: %s", path, dir,
		 strerror(errno));
	*fd = rj_fs_open_regular(*dirfd, base, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0644, &st);
	if (*fd < 0) {
		int e = errno;
		close(*dirfd);
		*dirfd = -1;
		RJ_CHECK(e == EEXIST, ROCJIT_EINVAL, "%s: %s: a bundle is written whole, to a new "
			 "file; remove it first, or choose another name", path, rj_fs_why(e, &st));
		RJ_FAIL(ROCJIT_EIO, "cannot write bundle %s: %s", path, rj_fs_why(e, &st));
	}
	fchmod(*fd, 0644); /* past the umask */
	if (rj_sqlite_name_in(name, size, *dirfd, dir, base) != 0) {
		unlinkat(*dirfd, base, 0);
		close(*fd);
		close(*dirfd);
		*fd = *dirfd = -1;
		RJ_FAIL(ROCJIT_EINVAL, "%s: path is too long", path);
	}
	return 0;
}

int rj_bundle_export(rj_cache *c, const char *path, const char *const *keys, size_t n,
		     size_t *count)
{
	char name[4400], base[4096];
	int rc, dirfd = -1, fd = -1;
	rj_key *k;

	RJ_CHECK(!path || !*path || (n && !keys), ROCJIT_EINVAL,
		 "rocjit_bundle_export: path or keys missing");
	RJ_FORWARD(rj_cache_keys_from_hex(&k, keys, n));
	if ((rc = create_output(&dirfd, &fd, name, sizeof name, base, sizeof base, path)) != 0) {
		free(k);
		return rc;
	}
	rj_error_clear();
	if ((rc = rj_cache_lock(c)) == 0) {
		rc = export_locked(c, name, path, k, n, count);
		pthread_mutex_unlock(&c->lock);
	}
	free(k);
	if (rc != 0) {
		/* Remove what this call created, if the name still is that file. */
		struct stat a, b;
		if (fstat(fd, &a) == 0 && fstatat(dirfd, base, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			unlinkat(dirfd, base, 0);
	}
	close(fd);
	close(dirfd);
	return rc;
}

#define IMPORT_READ \
	"SELECT key, platform, target, compiler, options, source_name, headers, kernels, " \
	"size, checksum, compile_ms, pkey, code FROM entries"
/* Usage is this cache's: never the bundle's hits and dates (a far-future last_used would
   pin an entry against eviction). */
#define IMPORT_WRITE \
	"INSERT OR IGNORE INTO main.entries (key, platform, target, compiler, options, " \
	"source_name, headers, kernels, size, checksum, compile_ms, pkey, code, created, " \
	"last_used, hits) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, " \
	"?14, ?14, 0)"

/* Why the rows were refused: the first few, for the error text. */
struct rejects {
	size_t n;
	char first[768];
	rocjit_reject_fn fn;
	void *user;
};

static void reject(struct rejects *rj, const struct row *r, const char *why)
{
	char hex[33] = "";
	size_t len = strlen(rj->first);

	if (r->key && r->key_len == 16)
		rj_key_hex((const rj_key *)r->key, hex);
	if (rj->n < 3 && len + 8 < sizeof rj->first)
		snprintf(rj->first + len, sizeof rj->first - len, "%s%s%.8s: %.220s",
			 rj->n ? "; " : "", hex[0] ? "entry " : "entry with a bad key", hex, why);
	rj->n++;
	if (rj->fn)
		rj->fn(hex, why, rj->user);
}

/* Copies b's good rows into c (c->lock held), one transaction. */
static int import_locked(rj_cache *c, struct rj_bundle *b, struct rejects *rj, size_t *copied)
{
	sqlite3_stmt *rd = NULL, *wr = NULL;
	int64_t now = (int64_t)time(NULL);
	int rc = ROCJIT_EIO, step;

	if (sqlite3_prepare_v2(b->db, IMPORT_READ, -1, &rd, NULL) != SQLITE_OK) {
		rj_error_set(rc, __FILE__, __LINE__, "cannot read bundle %s: %s", b->path,
			     sqlite3_errmsg(b->db));
		goto out;
	}
	if (rj_cache_exec(c, "BEGIN") != 0)
		goto out;
	if (sqlite3_prepare_v2(c->db, IMPORT_WRITE, -1, &wr, NULL) != SQLITE_OK)
		goto rollback;
	while ((step = sqlite3_step(rd)) == SQLITE_ROW) {
		struct row r;
		char why[1024];

		r.key = sqlite3_column_blob(rd, 0);
		r.key_len = sqlite3_column_bytes(rd, 0);
		r.platform = (const char *)sqlite3_column_text(rd, 1);
		r.target = (const char *)sqlite3_column_text(rd, 2);
		r.kernels = (const char *)sqlite3_column_text(rd, 7);
		r.size = sqlite3_column_int64(rd, 8);
		r.checksum = sqlite3_column_int64(rd, 9);
		r.compile_ms = sqlite3_column_double(rd, 10);
		r.pkey = sqlite3_column_blob(rd, 11);
		r.pkey_len = sqlite3_column_bytes(rd, 11);
		r.code = sqlite3_column_blob(rd, 12);
		r.code_len = sqlite3_column_bytes(rd, 12);
		if (row_problem(why, sizeof why, &r) != 0) {
			reject(rj, &r, why);
			continue;
		}
		sqlite3_bind_blob(wr, 1, r.key, 16, SQLITE_STATIC);
		for (int col = 1; col <= 7; col++) {
			const unsigned char *t = sqlite3_column_text(rd, col);
			sqlite3_bind_text(wr, col + 1, t ? (const char *)t : "", -1, SQLITE_STATIC);
		}
		sqlite3_bind_int64(wr, 9, r.size);
		sqlite3_bind_int64(wr, 10, r.checksum);
		sqlite3_bind_double(wr, 11, r.compile_ms);
		sqlite3_bind_blob(wr, 12, r.pkey, 16, SQLITE_STATIC);
		sqlite3_bind_blob(wr, 13, r.code, r.code_len, SQLITE_STATIC);
		sqlite3_bind_int64(wr, 14, now);
		if (sqlite3_step(wr) != SQLITE_DONE) {
			rj_error_set(rc, __FILE__, __LINE__, "cannot import %s into %s: %s", b->path,
				     c->path, sqlite3_errmsg(c->db));
			goto rollback;
		}
		*copied += (size_t)sqlite3_changes(c->db);
		sqlite3_reset(wr);
	}
	if (step != SQLITE_DONE) {
		rj_error_set(rc, __FILE__, __LINE__, "cannot read bundle %s: %s", b->path,
			     sqlite3_errmsg(b->db));
		goto rollback;
	}
	if (rj_cache_exec(c, "COMMIT") != 0)
		goto rollback;
	rj_cache_evict_locked(c);
	rc = 0;
	goto out;
rollback:
	rj_cache_exec(c, "ROLLBACK");
	*copied = 0;
out:
	sqlite3_finalize(wr);
	sqlite3_finalize(rd);
	return rc;
}

int rj_bundle_import(rj_cache *c, const char *path, size_t *copied, size_t *rejected,
		     rocjit_reject_fn fn, void *user)
{
	struct rejects rj = { 0, "", fn, user };
	struct rj_bundle *b;
	size_t n = 0;
	int rc;

	RJ_CHECK(!path, ROCJIT_EINVAL, "rocjit_bundle_import: path is NULL");
	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is opened read-only", c->path);
	/* Checked the way a context would use it, and read through that connection. */
	bundle_error[0] = 0;
	b = open_one(path, 0);
	RJ_CHECK(!b, ROCJIT_EIO, "cannot import %s: %s", path,
		 bundle_error[0] ? bundle_error : "not a usable bundle");
	if ((rc = rj_cache_lock(c)) == 0) {
		rc = import_locked(c, b, &rj, &n);
		pthread_mutex_unlock(&c->lock);
	}
	rj_bundles_close(b);
	if (copied)
		*copied = n;
	if (rejected)
		*rejected = rj.n;
	if (rc != 0)
		return rc;
	if (rj.n)
		RJ_FAIL(ROCJIT_EFORMAT, "%zu copied, %zu rejected: %s%s", n, rj.n, rj.first,
			rj.n > 3 ? "; ..." : "");
	rj_error_clear();
	return 0;
}
