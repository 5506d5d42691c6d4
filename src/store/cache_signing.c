/*
 * cache_signing.c - signing the entries already in a cache or a bundle file: the work
 * behind rocjit_cache_sign, a signed rocjit_bundle_export (which signs the entries it
 * exports first) and rocjit_bundle_sign (a signed copy renamed over the bundle: a bundle
 * is opened immutable by the processes that read it, so it is never changed in place).
 *
 * Reads each entry's code, checks it against its checksum (a damaged entry is never
 * signed), asks the caller's signer what to do with it given its origin (origins.c) and
 * its current signature (sign it anew, keep that one, or refuse), and writes
 * the signatures table (signatures.c) in one transaction, which also removes the cache's
 * read index (it holds the old signatures).  Knows nothing of keys: the signer is the
 * caller's (src/request/signing.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "store/cache_internal.h"
#include "store/cache_signing.h"
#include "store/origins.h"
#include "store/signatures.h"

/*
 * Signs the entries of keys (NULL: all) in db as fn decides, in the caller's transaction:
 * 0 with *k counted (bad: entries whose code fails its checksum, never signed), or
 * ROCJIT_EIO recorded (path names the file).
 */
static int sign_rows(sqlite3 *db, const char *path, const rj_key *keys, size_t n,
		     rj_cache_signer_fn fn, void *user, struct rj_sign_counts *k)
{
	sqlite3_stmt *st = NULL;
	size_t rounds = keys ? n : 1;
	int rc = 0;

#define SIGN_READ "SELECT key, pkey, platform, target, compiler, code, size, checksum, " \
	"options, source_name, headers, kernels, compile_ms FROM entries "
	if (sqlite3_prepare_v2(db, keys ? SIGN_READ "WHERE key = ?1" : SIGN_READ "ORDER BY key",
			       -1, &st, NULL) != SQLITE_OK)
		RJ_FAIL(ROCJIT_EIO, "%s: %s", path, sqlite3_errmsg(db));
	for (size_t i = 0; i < rounds && rc == 0; i++) {
		if (keys)
			sqlite3_bind_blob(st, 1, keys[i].b, 16, SQLITE_STATIC);
		while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
			const void *code = sqlite3_column_blob(st, 5);
			int len = sqlite3_column_bytes(st, 5);
			struct rj_row_subject e;
			struct rj_stored_sig current;
			struct rj_stored_origin origin;
			char signer[RJ_SIG_NAME_MAX + 1];
			unsigned char sig[RJ_SIG_BYTES];
			const char *text[7];

			for (int t = 0; t < 7; t++)
				text[t] = (const char *)sqlite3_column_text(st, t < 3 ? 2 + t : 5 + t);
			if (sqlite3_column_bytes(st, 0) != 16 || !code || len <= 0 ||
			    len != sqlite3_column_int64(st, 6) ||
			    rj_checksum(code, (size_t)len) != (uint64_t)sqlite3_column_int64(st, 7) ||
			    !text[0] || !text[1] || !text[2] || !text[6]) {
				k->bad++; /* rocjit verify says what is wrong with it */
				continue;
			}
			rj_row_subject_make(&e, sqlite3_column_blob(st, 0),
					    sqlite3_column_bytes(st, 1) == 16 ?
						    sqlite3_column_blob(st, 1) : NULL,
					    text[0], text[1], text[2], text[3], text[4], text[5],
					    text[6], sqlite3_column_double(st, 12), code, (size_t)len);
			rj_sig_table_get(db, e.key.b, &current);
			rj_origin_get(db, e.key.b, &origin);
			switch (fn(&e.e, &origin, &current, signer, sig, user)) {
			case RJ_SIGN_NEW:
				rc = rj_sig_table_put(db, e.key.b, signer, sig);
				k->signed_count += rc == 0;
				break;
			case RJ_SIGN_KEEP:
				k->kept++;
				break;
			default:
				k->refused++;
			}
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

int rj_cache_sign(rj_cache *c, const rj_key *keys, size_t n, rj_cache_signer_fn fn,
		  void *user, struct rj_sign_counts *counts)
{
	struct rj_sign_counts k = { 0 };
	int rc;

	memset(counts, 0, sizeof *counts);
	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is read-only: it cannot be signed", c->path);
	RJ_FORWARD(rj_cache_lock(c));
	if (rj_cache_exec(c, "BEGIN IMMEDIATE") != 0) {
		pthread_mutex_unlock(&c->lock);
		return ROCJIT_EIO;
	}
	rc = sign_rows(c->db, c->path, keys, n, fn, user, &k);
	/* The read index holds the signatures as they were: removed in this transaction, as
	   by a deletion (cache_index_write.c), so that no process takes an old signature
	   from it; written anew with the new ones at close. */
	if (rc == 0 && k.signed_count)
		rj_index_drop(c);
	if (rc == 0 && rj_cache_exec(c, "COMMIT") == 0) {
		*counts = k;
		c->index_dirty = 1;
	} else {
		rj_cache_exec(c, "ROLLBACK");
		if (rc == 0)
			rc = ROCJIT_EIO;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/* 0 when the file open as fd, at path, is a live cache database: in WAL mode (byte 18 of
 * SQLite's header 2), or with a -wal file beside it.  A bundle is written whole, with a
 * rollback journal; copying a live database and renaming over it would lose its WAL. */
static int is_bundle_file(int fd, const char *path)
{
	unsigned char h[20];
	char wal[4200];
	struct stat st;

	if (pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h && (h[18] == 2 || h[19] == 2))
		return 0;
	snprintf(wal, sizeof wal, "%s-wal", path);
	return lstat(wal, &st) != 0;
}

/* Copies the regular file in (st: its fstat) into the new file out. 0 or errno. */
static int copy_file(int in, int out, const struct stat *st)
{
	char buf[1 << 16];
	off_t left = st->st_size;

	while (left > 0) {
		ssize_t r = read(in, buf, sizeof buf), w = 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? errno : EIO; /* shorter than it was: changed under us */
		for (ssize_t k; w < r; w += k)
			if ((k = write(out, buf + w, (size_t)(r - w))) < 0) {
				if (errno == EINTR) {
					k = 0;
					continue;
				}
				return errno;
			}
		left -= r;
	}
	return fsync(out) != 0 ? errno : 0;
}

int rj_bundle_sign(const char *path, const rj_key *keys, size_t n, rj_cache_signer_fn fn,
		   void *user, struct rj_sign_counts *counts)
{
	char tmp[4200];
	struct stat st;
	sqlite3 *db = NULL;
	struct rj_sign_counts k = { 0 };
	int in, out, e, rc = ROCJIT_EIO;

	memset(counts, 0, sizeof *counts);
	/* The rename replaces the name given: a symbolic link would become a signed copy
	   and the bundle it names stay unsigned, a second hard link keep the old file. */
	in = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	RJ_CHECK(in < 0 && errno == ELOOP, ROCJIT_EINVAL, "cannot sign %s: it is a symbolic "
		 "link; sign the file it names (realpath %s)", path, path);
	RJ_CHECK(in < 0, ROCJIT_EIO, "cannot sign bundle %s: %s", path, strerror(errno));
	if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(in);
		RJ_FAIL(ROCJIT_EINVAL, "cannot sign %s: not a bundle file", path);
	}
	if (st.st_nlink > 1) {
		close(in);
		RJ_FAIL(ROCJIT_EINVAL, "cannot sign %s: it has %ju hard links, which would keep "
			"the unsigned file; sign a copy of it", path, (uintmax_t)st.st_nlink);
	}
	if (!is_bundle_file(in, path)) {
		close(in);
		RJ_FAIL(ROCJIT_EINVAL, "cannot sign %s: it is a live cache database (in WAL "
			"mode, or with a -wal file beside it), not a bundle: sign a cache with "
			"`rocjit sign` (rocjit_cache_sign), and a bundle `rocjit export` wrote with "
			"--cache FILE", path);
	}
	if (snprintf(tmp, sizeof tmp, "%s.signing-XXXXXX", path) >= (int)sizeof tmp) {
		close(in);
		RJ_FAIL(ROCJIT_EINVAL, "%s: path is too long", path);
	}
	out = mkostemp(tmp, O_CLOEXEC);
	if (out < 0) {
		e = errno;
		close(in);
		RJ_FAIL(ROCJIT_EIO, "cannot sign bundle %s: cannot create a file beside it: %s "
			"(signing writes a signed copy and renames it over the bundle)", path,
			strerror(e));
	}
	fchmod(out, st.st_mode & 0777);
	e = copy_file(in, out, &st);
	close(in);
	if (e) {
		rj_error_set(rc, __FILE__, __LINE__, "cannot sign bundle %s: copying it: %s", path,
			     strerror(e));
		goto fail;
	}
	/* The copy is private until renamed: a plain read-write connection on it, its own
	   journal (never WAL: the file must be whole once closed). */
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA journal_mode=DELETE; BEGIN IMMEDIATE", NULL, NULL,
			 NULL) != SQLITE_OK) {
		rj_error_set(rc, __FILE__, __LINE__, "cannot sign bundle %s: %s", path,
			     db ? sqlite3_errmsg(db) : "out of memory");
		goto fail;
	}
	if ((rc = sign_rows(db, path, keys, n, fn, user, &k)) != 0)
		goto fail;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cannot sign bundle %s: %s",
				  path, sqlite3_errmsg(db));
		goto fail;
	}
	sqlite3_close(db);
	db = NULL;
	/* Processes reading the bundle keep the file they opened; new ones get the signed
	   one, whole. */
	if (fsync(out) != 0 || rename(tmp, path) != 0) {
		rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cannot sign bundle %s: "
				  "replacing it: %s", path, strerror(errno));
		goto fail;
	}
	close(out);
	*counts = k;
	return 0;
fail:
	sqlite3_close(db);
	close(out);
	unlink(tmp);
	return rc ? rc : ROCJIT_EIO;
}
