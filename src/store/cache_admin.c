/*
 * cache_admin.c - administering a cache: walking, finding, removing, verifying and
 * compacting entries, reading or zeroing the counters across processes, and storing the
 * size limit kept in the cache (cache_settings.c reads it).
 *
 * Owns the administrative SQL, on the rj_cache it is given (cache_admin.h); the public
 * calls (rocjit_cache_*) that find that cache in a context are src/request/admin.c's.
 * The top of the cache's layers (cache_internal.h): nothing in the cache calls it, and
 * the hit path never comes here.
 *
 * Callbacks run without the connection's lock: the walks (foreach, find, verify) read
 * their rows in batches under the lock, in key order from after the last key seen, copy
 * what the callback gets, and let go of the lock before calling it.  So a callback may
 * call anything on the same context - statistics, another walk, a removal, a compile -
 * and a walk sees each key at most once, with what changed meanwhile seen or not.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "codeobj/codeobj.h"
#include "store/cache_admin.h"
#include "store/cache_internal.h"
#include "store/keylock.h"
#include "store/signatures.h"

#define ENTRY_COLUMNS \
	"key, platform, target, compiler, options, source_name, headers, kernels, size, " \
	"created, last_used, hits, compile_ms, pkey"
#define ENTRY_NCOLUMNS 14 /* the code and its checksum follow, where selected */
#define WALK_BATCH 128 /* rows read under the lock at a time; callbacks run after */

static const char *text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? (const char *)t : "";
}

/* Fills e, *k with its key and *pk with its portable key (zeros when none), from a row
 * selected with ENTRY_COLUMNS first.  Its signature is row_signature's. */
static void row_entry(sqlite3_stmt *st, rocjit_entry *e, rj_key *k, rj_key *pk)
{
	const void *key = sqlite3_column_blob(st, 0);

	memset(k, 0, sizeof *k);
	if (key && sqlite3_column_bytes(st, 0) == 16)
		memcpy(k->b, key, 16);
	rj_key_hex(k, e->key);
	e->platform = text(st, 1);
	e->target = text(st, 2);
	e->compiler = text(st, 3);
	e->options = text(st, 4);
	e->source_name = text(st, 5);
	e->headers = text(st, 6);
	e->kernels = text(st, 7);
	e->size = (uint64_t)sqlite3_column_int64(st, 8);
	e->created = sqlite3_column_int64(st, 9);
	e->last_used = sqlite3_column_int64(st, 10);
	e->hits = (uint64_t)sqlite3_column_int64(st, 11);
	e->compile_ms = sqlite3_column_double(st, 12);
	e->name_expressions = ""; /* split from kernels by entry_dup */
	e->pkey[0] = 0;
	memset(pk, 0, sizeof *pk);
	if (sqlite3_column_bytes(st, 13) == 16) {
		memcpy(pk->b, sqlite3_column_blob(st, 13), 16);
		rj_key_hex(pk, e->pkey);
	}
	e->signer[0] = 0;
	e->signature = ROCJIT_SIGNATURE_NONE;
}

/*
 * Sets e->signer and e->signature from the signature of the row of key k and portable
 * key pk (zeros when it has none) (has_table: the file has a
 * signatures table), checked against trust when the code is given, by the signer's name
 * alone when not (a walk that reads no code, or code that failed its checksum).  Under
 * the cache's lock.
 */
static void row_signature(rj_cache *c, int has_table, const struct rj_sig_trust *trust,
			  rocjit_entry *e, const rj_key *k, const rj_key *pk, const void *code,
			  size_t size)
{
	struct rj_stored_sig sig;
	struct rj_row_subject sub;
	enum rj_sig_status st;

	e->signer[0] = 0;
	e->signature = ROCJIT_SIGNATURE_NONE;
	if (!has_table || !rj_sig_table_get(c->db, k->b, &sig))
		return;
	snprintf(e->signer, sizeof e->signer, "%s", sig.signer);
	if (!code) {
		e->signature = rj_sig_trust_find(trust, sig.signer) ? ROCJIT_SIGNATURE_UNCHECKED
								     : ROCJIT_SIGNATURE_UNTRUSTED;
		return;
	}
	/* e as row_entry read it: the kernels column whole, not yet split (entry_dup). */
	rj_row_subject_make(&sub, k->b, pk->b, e->platform, e->target, e->compiler, e->options,
			    e->source_name, e->headers, e->kernels, e->compile_ms, code, size);
	st = rj_sig_verify(trust, &sub.e, sig.signer, sig.sig, sig.len);
	/* BAD is a claim in a trusted key's name that does not hold; a malformed signature
	   (another format, a name cut short) by a name not trusted here is only untrusted:
	   verify --fix must not drop what this rocjit cannot read. */
	if (st == RJ_SIG_BAD && !rj_sig_trust_find(trust, sig.signer))
		st = RJ_SIG_UNTRUSTED;
	e->signature = st == RJ_SIG_TRUSTED     ? ROCJIT_SIGNATURE_TRUSTED
		       : st == RJ_SIG_UNTRUSTED ? ROCJIT_SIGNATURE_UNTRUSTED
		       : st == RJ_SIG_UNSIGNED  ? ROCJIT_SIGNATURE_NONE
						: ROCJIT_SIGNATURE_BAD;
}

/* The key hex spells: 0, or -1 when hex is not 32 hex digits. */
static int key_from_hex(rj_key *key, const char *hex)
{
	if (!hex || strlen(hex) != 32)
		return -1;
	for (int i = 0; i < 16; i++) {
		unsigned v;
		if (!isxdigit((unsigned char)hex[2 * i]) || !isxdigit((unsigned char)hex[2 * i + 1]) ||
		    sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		key->b[i] = (uint8_t)v;
	}
	return 0;
}

int rj_cache_keys_from_hex(rj_key **out, const char *const *keys, size_t n)
{
	*out = calloc(n ? n : 1, sizeof **out);
	RJ_CHECK(!*out, ROCJIT_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (key_from_hex(&(*out)[i], keys[i]) != 0) {
			free(*out);
			*out = NULL;
			RJ_FAIL(ROCJIT_EINVAL, "\"%s\" is not a key (32 hex digits)",
				keys[i] ? keys[i] : "(null)");
		}
	return 0;
}

/* Takes c's lock and prepares sql: 0 with the lock held and *st to finalize, or
 * ROCJIT_EIO recorded with the lock let go. */
static int lock_prepare(rj_cache *c, const char *sql, sqlite3_stmt **st)
{
	int rc;

	RJ_FORWARD(rj_cache_lock(c));
	if (sqlite3_prepare_v2(c->db, sql, -1, st, NULL) != SQLITE_OK) {
		rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: %s", c->path,
				  sqlite3_errmsg(c->db));
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	return 0;
}

/* A copy of e whose strings live in the same allocation (free() it), or NULL. */
static rocjit_entry *entry_dup(const rocjit_entry *e)
{
	const char *const src[] = { e->platform, e->target, e->compiler, e->options,
				    e->source_name, e->headers, e->kernels };
	size_t len = sizeof *e;
	rocjit_entry *d;
	char *p, *kernels = NULL;

	for (size_t i = 0; i < 7; i++)
		len += strlen(src[i]) + 1;
	d = malloc(len);
	if (!d)
		return NULL;
	*d = *e;
	p = (char *)(d + 1);
	for (size_t i = 0; i < 7; i++) {
		size_t n = strlen(src[i]) + 1;
		const char **dst[] = { &d->platform, &d->target, &d->compiler, &d->options,
				       &d->source_name, &d->headers, &d->kernels };
		memcpy(p, src[i], n);
		*dst[i] = p;
		if (dst[i] == &d->kernels)
			kernels = p;
		p += n;
	}
	/* The kernels column carries the name expressions after a line break (FORMAT.md). */
	{
		size_t n = rj_kernels_symbols_len(kernels);
		d->name_expressions = kernels[n] ? kernels + n + 1 : kernels + n;
		kernels[n] = 0;
	}
	return d;
}

/* What a walk keeps: every row (foreach), the bad ones (verify), every row with its
 * verdict (verify_each). */
enum walk { WALK_LIST, WALK_BAD, WALK_EACH };

/* What a walk checks signatures against. */
struct walk_rule {
	const struct rj_sig_trust *trust; /* NULL: no key is trusted */
	int require_all;                  /* verify: an entry not signed by a trusted key is
	                                     bad (ROCJIT_REQUIRE_SIGNED_ALL refuses it) */
};

/* One batch of a walk: rows copied under the lock, handed to the callback after. */
struct batch {
	rocjit_entry *rows[WALK_BATCH];
	int reason[WALK_BATCH];            /* verify: why the row is bad */
	char *message[WALK_BATCH];         /* verify: its message */
	size_t n;
	size_t read;                       /* rows the statement gave (n <= read) */
	rj_key last;                       /* the key of the last row read */
	int started;                       /* last is set: read after it */
};

static void batch_clear(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->rows[i]);
		free(b->message[i]);
	}
	b->n = 0;
	b->read = 0;
}

/* The row's code (selected after ENTRY_COLUMNS, with its checksum) when it matches its
 * size and checksum, else NULL. */
static const void *row_code(sqlite3_stmt *st, const rocjit_entry *e)
{
	const void *code = sqlite3_column_blob(st, ENTRY_NCOLUMNS);
	int n = sqlite3_column_bytes(st, ENTRY_NCOLUMNS);

	if (!code || n <= 0 || (uint64_t)n != e->size ||
	    rj_checksum(code, (size_t)n) !=
		    (uint64_t)sqlite3_column_int64(st, ENTRY_NCOLUMNS + 1))
		return NULL;
	return code;
}

/* verify's test of one row selected with ENTRY_COLUMNS, code, checksum, and its
 * signature (e's signer and signature are set here): 0 good, else the reason, with msg
 * filled. */
static int check_row(rj_cache *c, int has_sigs, const struct walk_rule *rule,
		     sqlite3_stmt *st, rocjit_entry *e, const rj_key *k, const rj_key *pk,
		     char *msg, size_t size)
{
	const void *code = row_code(st, e);

	row_signature(c, has_sigs, rule->trust, e, k, pk, code, (size_t)e->size);
	msg[0] = 0;
	if (!code) {
		snprintf(msg, size, "the code object does not match its checksum");
		return ROCJIT_BAD_CHECKSUM;
	}
	if (rj_codeobj_check(code, (size_t)e->size, e->target, NULL) != 0) {
		snprintf(msg, size, "%s", rocjit_last_error());
		return ROCJIT_BAD_OBJECT;
	}
	if (e->signature == ROCJIT_SIGNATURE_BAD) {
		snprintf(msg, size, "the signature in the name of trusted key %s does not hold: "
			 "the code, or what it is stored under, was changed after it was signed",
			 e->signer);
		return ROCJIT_BAD_SIGNATURE;
	}
	if (rule->require_all && e->signature != ROCJIT_SIGNATURE_TRUSTED) {
		snprintf(msg, size, "%s%s, and ROCJIT_REQUIRE_SIGNED=all loads only code signed "
			 "by a trusted key (`rocjit sign` signs the cache)",
			 e->signature == ROCJIT_SIGNATURE_NONE ? "unsigned"
							       : "signed by a key not trusted: ",
			 e->signature == ROCJIT_SIGNATURE_NONE ? "" : e->signer);
		return ROCJIT_BAD_SIGNATURE;
	}
	return 0;
}

/*
 * Reads the next batch of a walk in key order, under the lock: every row (WALK_LIST), or
 * checked (WALK_BAD: only the bad ones, with their reason; WALK_EACH: all, with theirs;
 * *checked counts the rows looked at).  0, or ROCJIT_EIO/ENOMEM recorded.  The lock is
 * not held on return.
 */
static int next_batch(rj_cache *c, enum walk walk, const struct walk_rule *rule,
		      struct batch *b, uint64_t *checked)
{
	sqlite3_stmt *st = NULL;
	struct rj_index *board;
	int rc = 0, step = SQLITE_DONE, has_sigs, verify = walk != WALK_LIST;

	batch_clear(b);
	RJ_FORWARD(lock_prepare(c, verify ? "SELECT " ENTRY_COLUMNS ", code, checksum FROM "
					    "entries WHERE key > ?1 ORDER BY key LIMIT ?2"
					  : "SELECT " ENTRY_COLUMNS " FROM entries WHERE key > ?1 "
					    "ORDER BY key LIMIT ?2",
				&st));
	if (b->started)
		sqlite3_bind_blob(st, 1, b->last.b, 16, SQLITE_TRANSIENT);
	else
		sqlite3_bind_zeroblob(st, 1, 0); /* sorts before every key */
	sqlite3_bind_int(st, 2, WALK_BATCH);
	board = verify ? NULL : rj_index_peek_open(c); /* usage not yet folded */
	has_sigs = rj_sig_table_exists(c->db);
	while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
		rocjit_entry e;
		rj_key pk;
		char msg[1100];
		int reason = 0;

		row_entry(st, &e, &b->last, &pk);
		rj_index_peek_entry(board, &b->last, &e.hits, &e.last_used);
		b->started = 1;
		b->read++;
		if (verify) {
			(*checked)++;
			reason = check_row(c, has_sigs, rule, st, &e, &b->last, &pk, msg,
					   sizeof msg);
			if (!reason && walk == WALK_BAD)
				continue;
		} else {
			row_signature(c, has_sigs, rule->trust, &e, &b->last, &pk, NULL, 0);
		}
		b->rows[b->n] = entry_dup(&e);
		b->message[b->n] = verify ? strdup(msg) : NULL;
		b->reason[b->n] = reason;
		if (!b->rows[b->n] || (verify && !b->message[b->n])) {
			free(b->rows[b->n]);
			free(b->message[b->n]);
			rc = rj_error_set(ROCJIT_ENOMEM, __FILE__, __LINE__, "out of memory");
			break;
		}
		b->n++;
	}
	if (rc == 0 && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: %s", c->path,
				  sqlite3_errmsg(c->db));
	sqlite3_finalize(st);
	rj_index_unmap(board);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int rj_cache_foreach(rj_cache *c, const struct rj_sig_trust *trust, rocjit_entry_fn fn,
		     void *user)
{
	struct walk_rule rule = { trust, 0 };
	struct batch *b;
	int rc = 0;

	RJ_CHECK(!fn, ROCJIT_EINVAL, "rocjit_cache_foreach: fn is NULL");
	b = calloc(1, sizeof *b);
	RJ_CHECK(!b, ROCJIT_ENOMEM, "out of memory");
	do {
		rc = next_batch(c, WALK_LIST, &rule, b, NULL);
		for (size_t i = 0; rc == 0 && i < b->n; i++)
			rc = fn(b->rows[i], user);
	} while (rc == 0 && b->read == WALK_BATCH);
	batch_clear(b);
	free(b);
	if (rc == 0)
		rj_error_clear();
	return rc;
}

int rj_cache_find(rj_cache *c, const struct rj_sig_trust *trust, const char *prefix,
		  rj_cache_found_fn fn, void *user)
{
	char upper[33], matches[256] = "";
	struct rj_index *board;
	sqlite3_stmt *st;
	rocjit_entry e, *one = NULL;
	rj_key k, pk;
	void *code = NULL;
	size_t n, found = 0, size = 0;
	int rc = 0, has_sigs;

	RJ_CHECK(!fn || !prefix, ROCJIT_EINVAL, "rocjit_cache_find: prefix or fn is NULL");
	n = strlen(prefix);
	RJ_CHECK(n < 4 || n > 32 || strspn(prefix, "0123456789abcdefABCDEF") != n, ROCJIT_EINVAL,
		 "\"%s\" is not a key prefix: give 4 to 32 hex digits of a key (rocjit list "
		 "shows them)", prefix);
	for (size_t i = 0; i <= n; i++)
		upper[i] = (char)toupper((unsigned char)prefix[i]);
	RJ_FORWARD(lock_prepare(c, "SELECT " ENTRY_COLUMNS ", code, checksum FROM entries "
				"WHERE substr(hex(key), 1, ?2) = ?1 ORDER BY key LIMIT 6",
				&st));
	sqlite3_bind_text(st, 1, upper, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)n);
	board = rj_index_peek_open(c);
	has_sigs = rj_sig_table_exists(c->db);
	while (sqlite3_step(st) == SQLITE_ROW) {
		row_entry(st, &e, &k, &pk);
		rj_index_peek_entry(board, &k, &e.hits, &e.last_used);
		if (found < 5) {
			size_t len = strlen(matches);
			snprintf(matches + len, sizeof matches - len, "%s%.12s", found ? ", " : "",
				 e.key);
		}
		if (found++ == 0) {
			/* The first match, copied: the callback runs after the lock is let go. */
			const void *blob = row_code(st, &e);
			row_signature(c, has_sigs, trust, &e, &k, &pk, blob, (size_t)e.size);
			one = entry_dup(&e);
			if (blob && (code = malloc((size_t)e.size)) != NULL) {
				memcpy(code, blob, (size_t)e.size);
				size = (size_t)e.size;
			}
		}
	}
	sqlite3_finalize(st);
	rj_index_unmap(board);
	pthread_mutex_unlock(&c->lock);
	if (found == 1 && one)
		rc = fn(one, code, size, user);
	else if (found == 1)
		rc = rj_error_set(ROCJIT_ENOMEM, __FILE__, __LINE__, "out of memory");
	free(one);
	free(code);
	RJ_CHECK(found == 0, ROCJIT_ENOTFOUND, "no cache entry's key starts with %s (rocjit list "
		 "shows the keys)", prefix);
	RJ_CHECK(found > 1, ROCJIT_EINVAL, "%s matches %s%zu entries (%s%s): give more digits",
		 prefix, found > 5 ? "more than " : "", found > 5 ? (size_t)5 : found, matches,
		 found > 5 ? ", ..." : "");
	return rc;
}

/* Deletes keys in one transaction; the caller holds the lock. */
static int remove_locked(rj_cache *c, const rj_key *keys, size_t n, size_t *removed)
{
	sqlite3_stmt *st;
	size_t count = 0;

	RJ_FORWARD(rj_cache_exec(c, "BEGIN IMMEDIATE"));
	rj_index_drop(c); /* before the rows, under the write lock (cache_index_write.c) */
	if (sqlite3_prepare_v2(c->db, "DELETE FROM entries WHERE key = ?1", -1, &st, NULL) !=
	    SQLITE_OK) {
		rj_cache_exec(c, "ROLLBACK");
		DB_FAIL(c, "remove");
	}
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_blob(st, 1, keys[i].b, 16, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_DONE)
			count += (size_t)sqlite3_changes(c->db);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rj_cache_exec(c, "COMMIT") != 0) {
		rj_cache_exec(c, "ROLLBACK");
		return ROCJIT_EIO;
	}
	if (removed)
		*removed = count;
	return 0;
}

int rj_cache_remove(rj_cache *c, const char *const *keys, size_t n, size_t *removed)
{
	rj_key *k;
	int rc;

	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is opened read-only", c->path);
	RJ_CHECK(n && !keys, ROCJIT_EINVAL, "rocjit_cache_remove: keys is NULL");
	RJ_FORWARD(rj_cache_keys_from_hex(&k, keys, n));
	if ((rc = rj_cache_lock(c)) == 0) {
		rc = remove_locked(c, k, n, removed);
		pthread_mutex_unlock(&c->lock);
	}
	free(k);
	/* What purge removes, and lock files killed processes left (cheap: one folder). */
	rj_keylock_sweep(c->dir, 100000);
	if (rc == 0)
		rj_error_clear();
	return rc;
}

int rj_cache_compact(rj_cache *c)
{
	int rc;

	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is opened read-only", c->path);
	RJ_FORWARD(rj_cache_lock(c));
	/* VACUUM rewrites the database through the WAL; the checkpoints move it into the
	   file and truncate the WAL, so the space really goes back. */
	rc = rj_cache_exec(c, "PRAGMA wal_checkpoint(TRUNCATE)");
	if (rc == 0)
		rc = rj_cache_exec(c, "VACUUM");
	if (rc == 0)
		rc = rj_cache_exec(c, "PRAGMA wal_checkpoint(TRUNCATE)");
	pthread_mutex_unlock(&c->lock);
	if (rc == 0)
		rj_error_clear();
	return rc;
}

int rj_cache_verify(rj_cache *c, const struct rj_sig_trust *trust, int require_all, int fix,
		    int each, rj_cache_bad_fn bad, void *user, uint64_t *checked,
		    uint64_t *bad_count)
{
	struct walk_rule rule = { trust, require_all };
	rj_key *drop = NULL;
	size_t ndrop = 0, cap = 0;
	uint64_t nchecked = 0, nbad = 0;
	struct batch *b;
	int rc = 0;

	RJ_CHECK(fix && c->readonly, ROCJIT_EIO, "cache %s is opened read-only: cannot fix",
		 c->path);
	b = calloc(1, sizeof *b);
	RJ_CHECK(!b, ROCJIT_ENOMEM, "out of memory");
	do {
		rc = next_batch(c, each ? WALK_EACH : WALK_BAD, &rule, b, &nchecked);
		for (size_t i = 0; rc == 0 && i < b->n; i++) {
			if (bad)
				bad(b->rows[i], b->reason[i], b->message[i], user);
			if (!b->reason[i])
				continue;
			nbad++;
			if (fix && ndrop == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				rj_key *nk = realloc(drop, ncap * sizeof *nk);
				if (!nk)
					continue;
				drop = nk;
				cap = ncap;
			}
			if (fix)
				key_from_hex(&drop[ndrop++], b->rows[i]->key);
		}
	} while (rc == 0 && b->read == WALK_BATCH);
	batch_clear(b);
	free(b);
	if (rc == 0 && ndrop) {
		if ((rc = rj_cache_lock(c)) == 0) {
			rc = remove_locked(c, drop, ndrop, NULL);
			pthread_mutex_unlock(&c->lock);
		}
	}
	free(drop);
	if (checked)
		*checked = nchecked;
	if (bad_count)
		*bad_count = nbad;
	if (rc == 0)
		rj_error_clear();
	return rc;
}

int rj_cache_counters(rj_cache *c, rocjit_counters *out)
{
	sqlite3_stmt *st;
	struct rj_index *board;

	RJ_FORWARD(lock_prepare(c, "SELECT name, value FROM counters", &st));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = text(st, 0);
		double v = sqlite3_column_double(st, 1);
		if (!strcmp(name, "disk_hits"))
			out->disk_hits = (uint64_t)v;
		else if (!strcmp(name, "misses"))
			out->misses = (uint64_t)v;
		else if (!strcmp(name, "compiles"))
			out->compiles = (uint64_t)v;
		else if (!strcmp(name, "compile_ms"))
			out->compile_ms = v;
		else if (!strcmp(name, "saved_ms"))
			out->saved_ms = v;
		else if (!strcmp(name, "since"))
			out->since = (int64_t)v;
		else if (!strcmp(name, RJ_EVICTIONS_COUNTER))
			out->evictions = (uint64_t)v;
		else if (!strcmp(name, rj_count_names[RJ_COUNT_COMPILE_ERROR]))
			out->compile_errors = (uint64_t)v;
		else if (!strcmp(name, rj_count_names[RJ_COUNT_SIGNATURE_REJECT]))
			out->signature_rejects = (uint64_t)v;
		else if (!strcmp(name, rj_count_names[RJ_COUNT_REMOTE_ERROR]))
			out->remote_errors = (uint64_t)v;
	}
	sqlite3_finalize(st);
	board = rj_index_peek_open(c); /* hits on the read index's board, not yet folded */
	rj_index_peek_counters(board, &out->disk_hits, &out->saved_ms);
	rj_index_unmap(board);
	pthread_mutex_unlock(&c->lock);
	rj_error_clear();
	return 0;
}

int rj_cache_counters_add(rj_cache *c, const char *const *names, const double *values, size_t n)
{
	sqlite3_stmt *st = NULL;
	size_t nonzero = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		nonzero += values[i] != 0;
	if (!nonzero)
		return 0;
	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is opened read-only", c->path);
	RJ_FORWARD(rj_cache_lock(c));
	if ((rc = rj_cache_exec(c, "BEGIN IMMEDIATE")) == 0) {
		if (sqlite3_prepare_v2(c->db, RJ_ADD_COUNTER_SQL, -1, &st, NULL) != SQLITE_OK)
			rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: %s", c->path,
					  sqlite3_errmsg(c->db));
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (values[i] == 0)
				continue;
			sqlite3_bind_text(st, 1, names[i], -1, SQLITE_STATIC);
			sqlite3_bind_double(st, 2, values[i]);
			if (sqlite3_step(st) != SQLITE_DONE)
				rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: %s",
						  c->path, sqlite3_errmsg(c->db));
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
		if (rc == 0)
			rc = rj_cache_exec(c, "COMMIT");
		if (rc != 0)
			rj_cache_exec(c, "ROLLBACK");
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int rj_cache_counters_read(rj_cache *c, const char *const *names, double *values, size_t n)
{
	sqlite3_stmt *st;

	for (size_t i = 0; i < n; i++)
		values[i] = 0;
	RJ_FORWARD(lock_prepare(c, "SELECT name, value FROM counters", &st));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = text(st, 0);
		for (size_t i = 0; i < n; i++)
			if (!strcmp(name, names[i]))
				values[i] = sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int rj_cache_zero(rj_cache *c)
{
	char sql[128];
	int rc;

	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is opened read-only", c->path);
	snprintf(sql, sizeof sql,
		 "DELETE FROM counters; INSERT INTO counters (name, value) VALUES ('since', %lld)",
		 (long long)time(NULL));
	RJ_FORWARD(rj_cache_lock(c));
	rj_index_fold(c); /* counts the board holds are zeroed too */
	if ((rc = rj_cache_exec(c, "BEGIN IMMEDIATE")) == 0) {
		if ((rc = rj_cache_exec(c, sql)) == 0)
			rc = rj_cache_exec(c, "COMMIT");
		if (rc != 0)
			rj_cache_exec(c, "ROLLBACK");
	}
	pthread_mutex_unlock(&c->lock);
	if (rc == 0)
		rj_error_clear();
	return rc;
}

/* ---- The size limit kept in the cache (cache_settings.c reads it) ---------------------- */

int rj_cache_limit_set(rj_cache *c, const char *text)
{
	sqlite3_stmt *st = NULL;
	int rc;

	RJ_CHECK(c->readonly, ROCJIT_EIO, "cache %s is read-only: its size limit cannot be "
		 "stored", c->path);
	RJ_FORWARD(rj_cache_lock(c));
	rc = text ? rj_cache_exec(c, "CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY "
				  "KEY, value TEXT NOT NULL)") : 0;
	if (rc == 0 &&
	    sqlite3_prepare_v2(c->db, text ? "INSERT OR REPLACE INTO settings (name, value) "
					     "VALUES ('" RJ_CACHE_LIMIT_KEY "', ?1)" :
					     "DELETE FROM settings WHERE name = '" RJ_CACHE_LIMIT_KEY "'",
			       -1, &st, NULL) == SQLITE_OK) {
		if (text)
			sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: storing the "
					  "size limit failed: %s", c->path, sqlite3_errmsg(c->db));
	} else if (rc == 0 && text) {
		rc = rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "cache %s: storing the size "
				  "limit failed: %s", c->path, sqlite3_errmsg(c->db));
	}
	/* Removing from a cache that never had the table: nothing to remove. */
	sqlite3_finalize(st);
	if (rc == 0)
		rj_cache_evict_locked(c); /* refreshes first: the new limit holds at once */
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int rj_cache_limit_get(rj_cache *c, uint64_t *bytes, int *from, const char **stored)
{
	RJ_FORWARD(rj_cache_lock(c));
	rj_cache_limit_refresh_locked(c);
	*bytes = c->max_bytes;
	*from = c->max_from;
	*stored = c->max_stored[0] ? c->max_stored : NULL;
	pthread_mutex_unlock(&c->lock);
	return 0;
}
