/*
 * bundle_transfer.c - moving entries between the user cache and a bundle file: export
 * (the chosen entries into a new bundle) and import (a bundle's good entries into the
 * cache).
 *
 * Owns the bundle file export writes (created new, through its folder's descriptor) and
 * the copy in both directions, on the user cache's connection under its lock.  A bundle
 * is data from outside: import opens it as the bundle tier would (rj_bundle_open_one)
 * and takes a row only after rj_bundle_row_problem() found nothing wrong with it; it
 * never takes a row's usage (hits, last_used, created): they are this cache's, fresh at
 * import.  Never serves a request: looking up is bundle_lookup.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fsutil.h"
#include "store/bundle_internal.h"
#include "store/bundle_transfer.h"
#include "store/cache_internal.h"
#include "store/origins.h"
#include "store/signatures.h"
#include "store/sqlite_fd.h"

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

/* A table of the exported entries' own (signatures, origins) copied into the attached
 * bundle when the cache has it (has), made there first with create.  0, or -1. */
static int copy_rows(rj_cache *c, int has, int (*create)(sqlite3 *, const char *),
		     const char *sql)
{
	if (!has)
		return 0;
	return create(c->db, "bundle") == SQLITE_OK && rj_cache_exec(c, sql) == 0 ? 0 : -1;
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

	if (sqlite3_open_v2(name, &out, SQLITE_OPEN_READWRITE, rj_sqlite_vfs()) != SQLITE_OK ||
	    rj_db_create(out, RJ_BUNDLE_FORMAT, "CREATE TABLE bundle (name TEXT PRIMARY KEY, "
			 "value TEXT NOT NULL)", NULL) != SQLITE_OK)
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
	/* The entries' signatures go along (signatures.c), where the cache has any, and
	   their origins (origins.c): what `rocjit sign` on the bundle file goes by. */
	if (copy_rows(c, rj_sig_table_exists(c->db), rj_sig_table_create, "INSERT OR REPLACE "
		      "INTO bundle.signatures SELECT s.key, s.signer, s.sig, s.signed FROM "
		      "main.signatures s JOIN bundle.entries e ON e.key = s.key") != 0 ||
	    copy_rows(c, rj_origin_table_exists(c->db), rj_origin_table_create, "INSERT OR "
		      "REPLACE INTO bundle.origins SELECT o.key, o.origin, o.signer, o.recorded "
		      "FROM main.origins o JOIN bundle.entries e ON e.key = o.key") != 0)
		goto rollback;
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

/* The row's columns, then its key and the text columns no check reads. */
#define IMPORT_READ \
	"SELECT " RJ_BUNDLE_ROW_COLUMNS ", key, compiler, options, source_name, headers FROM " \
	"entries"
#define IMPORT_KEY RJ_BUNDLE_ROW_NCOLUMNS
/* Usage is this cache's: never the bundle's hits and dates (a far-future last_used would
   pin an entry against eviction): created and last_used are ?14, now; hits 0. */
#define IMPORT_WRITE \
	"INSERT OR IGNORE INTO main.entries (" RJ_ENTRY_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, " \
	"?6, ?7, ?8, ?9, ?10, ?14, ?14, 0, ?11, ?12, ?13)"
/* IMPORT_READ's columns of platform, target, compiler, options, source_name, headers,
 * kernels: IMPORT_WRITE's ?2 to ?8. */
static const int import_text[7] = { 4, 5, 9, 10, 11, 12, 6 };

/* Why the rows were refused: the first few, for the error text. */
struct rejects {
	size_t n;
	char first[768];
	rocjit_reject_fn fn;
	void *user;
};

static void reject(struct rejects *rj, const struct rj_bundle_row *r, const char *why)
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

/*
 * The signature of r (read by rd, IMPORT_READ) in b into *sig: 0 when it may be copied
 * (good, or unsigned where none is asked for: trust NULL), else -1 with why.  With
 * trust, only an entry signed by a trusted key is imported: imported, it is a local
 * entry, which nothing checks again unless ROCJIT_REQUIRE_SIGNED=all.
 */
static int import_signature(struct rj_bundle *b, const struct rj_sig_trust *trust,
			    sqlite3_stmt *rd, const struct rj_bundle_row *r,
			    struct rj_stored_sig *sig, char *why, size_t size)
{
	struct rj_row_subject sub;
	enum rj_sig_status st;

	if (!rj_sig_table_get(b->db, r->key, sig) || sig->len != RJ_SIG_BYTES ||
	    !rj_sig_name_valid(sig->signer, strlen(sig->signer)))
		sig->len = 0; /* a malformed one is not carried: the entry comes unsigned */
	if (!trust)
		return 0;
	/* Every field the signature covers, as this row holds it (and as it is copied). */
	rj_row_subject_make(&sub, r->key, r->pkey && r->pkey_len == 16 ? r->pkey : NULL,
			    r->platform, r->target, (const char *)sqlite3_column_text(rd, 9),
			    (const char *)sqlite3_column_text(rd, 10),
			    (const char *)sqlite3_column_text(rd, 11),
			    (const char *)sqlite3_column_text(rd, 12), r->kernels, r->compile_ms,
			    r->code, (size_t)r->code_len);
	st = rj_sig_verify(trust, &sub.e, sig->len ? sig->signer : "", sig->sig, sig->len);
	if (st == RJ_SIG_TRUSTED)
		return 0;
	snprintf(why, size, "%s%s (the trusted keys admit only entries signed by one of them)",
		 st == RJ_SIG_UNSIGNED ? "unsigned" : st == RJ_SIG_UNTRUSTED ?
		 "signed by a key that is not trusted: " : "badly signed in the name of ",
		 st == RJ_SIG_UNSIGNED ? "" : sig->signer);
	return -1;
}

/* Copies b's good rows into c (c->lock held), one transaction; with trust, only those
 * signed by a trusted key.  Signatures go along. */
static int import_locked(rj_cache *c, struct rj_bundle *b, const struct rj_sig_trust *trust,
			 struct rejects *rj, size_t *copied)
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
		struct rj_bundle_row r;
		struct rj_stored_sig sig;
		char why[1024];

		rj_bundle_row_read(rd, &r);
		r.key = sqlite3_column_blob(rd, IMPORT_KEY);
		r.key_len = sqlite3_column_bytes(rd, IMPORT_KEY);
		if (rj_bundle_row_problem(why, sizeof why, &r) != 0 ||
		    import_signature(b, trust, rd, &r, &sig, why, sizeof why) != 0) {
			reject(rj, &r, why);
			continue;
		}
		sqlite3_bind_blob(wr, 1, r.key, 16, SQLITE_STATIC);
		for (int i = 0; i < 7; i++) {
			const unsigned char *t = sqlite3_column_text(rd, import_text[i]);
			sqlite3_bind_text(wr, i + 2, t ? (const char *)t : "", -1, SQLITE_STATIC);
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
		/* Only a row this import wrote takes the bundle's signature: an entry the
		   cache had stays as it was, with its own. */
		if (sqlite3_changes(c->db) == 1) {
			/* Unsigned: a signature row left for the key by an older entry goes. */
			if (rj_sig_table_put(c->db, r.key, sig.len ? sig.signer : NULL,
					     sig.len ? sig.sig : NULL) != 0)
				goto rollback;
			/* From a bundle; its signer recorded only when the trust checked it
			   (origins.h): a node that trusts no key vouches for none of it. */
			if (rj_origin_put(c->db, r.key, RJ_ORIGIN_BUNDLE,
					  trust && sig.len ? sig.signer : NULL) != 0)
				goto rollback;
			(*copied)++;
		}
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

int rj_bundle_import(rj_cache *c, const char *path, const struct rj_sig_trust *trust,
		     size_t *copied, size_t *rejected, rocjit_reject_fn fn, void *user)
{
	struct rejects rj = { 0, "", fn, user };
	struct rj_bundle *b;
	char why[1024];
	size_t n = 0;
	int rc;

	RJ_CHECK(!path, ROCJIT_EINVAL, "rocjit_bundle_import: path is NULL");
	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is opened read-only", c->path);
	/* Checked the way a context would use it, and read through that connection. */
	b = rj_bundle_open_one(path, 0, why, sizeof why);
	RJ_CHECK(!b, ROCJIT_EIO, "cannot import %s: %s", path,
		 why[0] ? why : "not a usable bundle");
	if ((rc = rj_cache_lock(c)) == 0) {
		rc = import_locked(c, b, trust, &rj, &n);
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
