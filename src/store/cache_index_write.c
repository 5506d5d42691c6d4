/*
 * cache_index_write.c - making the read index and removing it.  Owns writing the file
 * (rj_index_write_locked: the rows as they are, the most recently used first, up to
 * ROCJIT_CACHE_INDEX_SIZE bytes, checked and copied into a new file renamed over the old,
 * by a process holding the database's write lock, BEGIN IMMEDIATE), when to write it
 * (rj_index_wanted), the deletion count an index is compared by (the deletions table and
 * its triggers: deleted entries, changed signatures), and dropping it (rj_index_drop,
 * rj_index_check_deletions).
 *
 * Whoever deletes rows removes the index under the same lock first (rj_index_drop in
 * cache.c, cache_usage.c, cache_admin.c, cache_db.c), so a deleted entry is never in an
 * index written after its deletion, and one written before it is gone; so does whoever
 * re-signs entries (cache_signing.c), whose signatures the index holds.  A writer that
 * replaces or removes the index marks its board retired: every process that has it
 * mapped moves on at its next lookup (rj_index_stale).  The usage recorded on a board is
 * folded into the database (cache_index_board.c) before its file is replaced or removed.
 *
 * The top of the index's three files: uses cache_index.c (the layout's checksums, the
 * deletion count, mapping) and cache_index_board.c (folding); neither calls it.  Never
 * records a hit on a board and never serves a lookup from a mapping.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fsutil.h"
#include "store/cache_index_internal.h"
#include "store/cache_internal.h"
#include "store/trust.h"

/* A process whose hits the index lacked writes it again at most this often while the
 * index is full (every entry cannot fit): processes with different working sets larger
 * than the index would otherwise rewrite it at each exit. */
#define INDEX_FULL_REWRITE_S 60

/*
 * Rows ever deleted from entries, counted by the database itself: a trigger, so that any
 * program that deletes rows counts them, a rocjit that predates the index included (it
 * does not remove the index).  Made by the first index writer of a cache.  A process that
 * opens the database compares the count with its index's and drops a stale index
 * (rj_index_check_deletions).
 */
#define DELETIONS_SQL                                                                  \
	"CREATE TABLE IF NOT EXISTS deletions (n INTEGER NOT NULL); "                  \
	"INSERT INTO deletions SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM deletions); "  \
	"CREATE TRIGGER IF NOT EXISTS entries_deleted AFTER DELETE ON entries "        \
	"BEGIN UPDATE deletions SET n = n + 1; END"

/*
 * A signature changed or removed counts as a deletion: the index holds each entry's
 * signature as it was, and a process that opens the database drops an index older than
 * the change as it drops one older than a deletion.  For programs that do not know the
 * index holds signatures (an older rocjit, the sqlite3 shell); rocjit's own re-signing
 * removes the index at once (rj_cache_sign).  A signature added for a key that had none
 * is not counted: an index that holds the entry unsigned sends its hits to the database
 * (rocjit never refuses on the index's word).  Made with the deletion count, where the
 * cache has a signatures table (signatures.c makes it at the first signature; an index
 * written before then holds no signature).
 */
#define SIGNATURE_CHANGES_SQL                                                          \
	"CREATE TRIGGER IF NOT EXISTS main.signatures_replaced BEFORE INSERT ON "      \
	"signatures WHEN EXISTS (SELECT 1 FROM signatures WHERE key = new.key) "       \
	"BEGIN UPDATE deletions SET n = n + 1; END; "                                  \
	"CREATE TRIGGER IF NOT EXISTS main.signatures_changed AFTER UPDATE ON "        \
	"signatures BEGIN UPDATE deletions SET n = n + 1; END; "                       \
	"CREATE TRIGGER IF NOT EXISTS main.signatures_dropped AFTER DELETE ON "        \
	"signatures BEGIN UPDATE deletions SET n = n + 1; END"

/* ---- Dropping --------------------------------------------------------------------------- */

static void retire_board(struct rj_index *ix)
{
	__atomic_store_n(&ix->board->retired, 1, __ATOMIC_RELEASE);
}

void rj_index_drop(rj_cache *c)
{
	/* Under the write lock, so that no index is renamed in between the retiring and
	   the unlink: the caller's transaction, or one of its own (best-effort: without the
	   lock, the file is left, and this process stops using it). */
	int own = c->db && sqlite3_get_autocommit(c->db);
	struct rj_index *ix;

	if (!c->db || (own && rj_cache_exec(c, "BEGIN IMMEDIATE") != 0)) {
		rj_index_retire(c);
		return;
	}
	/* Retired first: every process stops serving from it at its next lookup; then its
	   usage is kept. */
	if ((ix = rj_board_map(c)) != NULL) {
		retire_board(ix);
		rj_board_fold(c, ix);
		rj_index_unmap(ix);
	}
	if (c->dirfd >= 0)
		unlinkat(c->dirfd, RJ_INDEX_FILE, 0);
	if (own && rj_cache_exec(c, "COMMIT") != 0)
		rj_cache_exec(c, "ROLLBACK");
	rj_index_retire(c);
}

void rj_index_check_deletions(rj_cache *c)
{
	uint64_t n;

	/* A mapping another writer retired is no evidence against the folder's current
	   index: move to that one first. */
	rj_index_stale(c);
	if (!c->index || (rj_index_read_deletions(c, &n) == 0 && n == c->index->deletions))
		return;
	rj_log(RJ_LOG_INFO, "cache index %s/%s: entries were deleted since it was written; "
	       "not used (it is written anew)", c->dir, RJ_INDEX_FILE);
	if (c->readonly)
		rj_index_reject(c); /* a read-only cache changes nothing in the folder */
	else
		rj_index_drop(c);
	c->index_dirty = 1;
}

/* ---- Writing ---------------------------------------------------------------------------- */

int rj_index_wanted(const rj_cache *c)
{
	if (!c->index_dirty || c->readonly || c->dirfd < 0 || !c->db || rj_index_max_bytes() == 0)
		return 0;
	/* The index the process mapped is full and recent: writing it again would leave out
	   as much as it adds. */
	if (c->index && !c->index->h->complete &&
	    time(NULL) - c->index->h->written < INDEX_FULL_REWRITE_S)
		return 0;
	return 1;
}

struct chosen {
	rj_key key;
	uint64_t off;
};

struct writer {
	rj_cache *c;
	FILE *f;
	int signatures;         /* the database has a signatures table */
	sqlite3_stmt *sig;      /* then: a key's signer and signature */
	struct index_header h;
	struct index_slot *slots;
	struct chosen *chosen;
	size_t n, cap;
	unsigned char *memos;
	size_t memos_size, memos_cap;
};

static int add_chosen(struct writer *w, const void *key, uint64_t off)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		struct chosen *nc = realloc(w->chosen, cap * sizeof *nc);
		if (!nc)
			return -1;
		w->chosen = nc;
		w->cap = cap;
	}
	memcpy(w->chosen[w->n].key.b, key, 16);
	w->chosen[w->n++].off = off;
	return 0;
}

/* The bytes an entry's signature takes in the index, given the lengths of the signer's
 * name (without its NUL) and of the signature as the table holds them: 0 for none, and for
 * one that is not well formed (left out: the database then judges the entry). */
static uint64_t signature_room(int64_t signer_len, int64_t sig_len)
{
	return signer_len >= 1 && signer_len <= RJ_SIG_NAME_MAX && sig_len == RJ_SIG_BYTES
		       ? (uint64_t)signer_len + 1 + RJ_SIG_BYTES
		       : 0;
}

/* The entries that fit, the most recently used first, and where each will lie. */
static int choose(struct writer *w, uint64_t max, uint64_t *end)
{
	sqlite3_stmt *st;
	uint64_t off = *end, total = 0;
	int rc;

	if (sqlite3_prepare_v2(w->c->db, w->signatures ?
			       "SELECT e.key, e.size, length(CAST(e.kernels AS BLOB)), "
			       "length(CAST(s.signer AS BLOB)), length(CAST(s.sig AS BLOB)) "
			       "FROM entries e LEFT JOIN signatures s ON s.key = e.key "
			       "ORDER BY e.last_used DESC, e.created DESC" :
			       "SELECT key, size, length(CAST(kernels AS BLOB)), 0, 0 "
			       "FROM entries ORDER BY last_used DESC, created DESC",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	w->h.complete = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t size = (uint64_t)sqlite3_column_int64(st, 1);
		uint64_t klen = (uint64_t)sqlite3_column_int64(st, 2) + 1;
		uint64_t need = align8(sizeof(struct index_entry) + klen +
				       signature_room(sqlite3_column_int64(st, 3),
						      sqlite3_column_int64(st, 4))) +
				align8(size);

		if (sqlite3_column_bytes(st, 0) != 16 || size == 0 || klen > UINT32_MAX)
			continue;
		if (total + need > max || w->n >= INDEX_MAX_ENTRIES) {
			w->h.complete = 0; /* smaller entries after it may still fit */
			continue;
		}
		if (add_chosen(w, sqlite3_column_blob(st, 0), off) != 0) {
			rc = SQLITE_NOMEM;
			break;
		}
		total += need;
		off += need;
	}
	sqlite3_finalize(st);
	*end = off;
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static int add_memos(struct writer *w)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(w->c->db, "SELECT platform, memo FROM compilers", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *memo = (const char *)sqlite3_column_text(st, 1);
		uint32_t plen, mlen;
		size_t need;

		if (!name || !memo)
			continue;
		plen = (uint32_t)strlen(name) + 1;
		mlen = (uint32_t)strlen(memo) + 1;
		need = 8 + (size_t)plen + mlen;
		if (w->memos_size + need > w->memos_cap) {
			size_t cap = (w->memos_size + need) * 2;
			unsigned char *nm = realloc(w->memos, cap);
			if (!nm) {
				rc = SQLITE_NOMEM;
				break;
			}
			w->memos = nm;
			w->memos_cap = cap;
		}
		memcpy(w->memos + w->memos_size, &plen, 4);
		memcpy(w->memos + w->memos_size + 4, &mlen, 4);
		memcpy(w->memos + w->memos_size + 8, name, plen);
		memcpy(w->memos + w->memos_size + 8 + plen, memo, mlen);
		w->memos_size += need;
		w->h.nmemos++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Writes size bytes of data at off, at or after the stream's position (zeros between). */
static int put_at(FILE *f, uint64_t off, const void *data, size_t size)
{
	static const char zeros[4096];
	long at = ftell(f);

	if (at < 0 || (uint64_t)at > off)
		return -1;
	for (uint64_t gap = off - (uint64_t)at; gap;) {
		size_t n = gap < sizeof zeros ? (size_t)gap : sizeof zeros;
		if (fwrite(zeros, 1, n, f) != n)
			return -1;
		gap -= n;
	}
	return size && fwrite(data, 1, size, f) != size ? -1 : 0;
}

/*
 * Key's signature as the table holds it into sig (the signer's name with its NUL, then
 * the signature) and e's lengths, with the digest of the entry's descriptive fields it
 * covers (e->described: a verifier of an index hit has no texts); none (both 0, the
 * digest zeros) when the table has no row for it, or one that is not well formed (within
 * what choose() left room for).  0, or -1 when the table
 * cannot be read.
 */
static int read_signature(struct writer *w, struct index_entry *e,
			  unsigned char sig[RJ_SIG_NAME_MAX + 1 + RJ_SIG_BYTES])
{
	int rc;

	e->signer_len = e->sig_len = 0;
	if (!w->sig)
		return 0;
	sqlite3_bind_blob(w->sig, 1, e->key, 16, SQLITE_STATIC);
	rc = sqlite3_step(w->sig);
	if (rc == SQLITE_ROW) {
		const char *signer = (const char *)sqlite3_column_text(w->sig, 0);
		int nlen = sqlite3_column_bytes(w->sig, 0);
		const void *blob = sqlite3_column_blob(w->sig, 1);
		int slen = sqlite3_column_bytes(w->sig, 1);

		if (signer && blob && signature_room(nlen, slen) &&
		    rj_sig_name_valid(signer, (size_t)nlen)) {
			memcpy(sig, signer, (size_t)nlen);
			sig[nlen] = 0;
			memcpy(sig + nlen + 1, blob, RJ_SIG_BYTES);
			e->signer_len = (uint32_t)nlen + 1;
			e->sig_len = RJ_SIG_BYTES;
			rj_sig_describe_text(e->described,
					     (const char *)sqlite3_column_text(w->sig, 2),
					     (const char *)sqlite3_column_text(w->sig, 3),
					     (const char *)sqlite3_column_text(w->sig, 4));
		}
	}
	sqlite3_reset(w->sig);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* Copies each chosen entry from the database, checked, and fills its slot. */
static int copy_entries(struct writer *w)
{
	uint32_t mask = w->h.nslots - 1;
	sqlite3_stmt *get = w->c->get;

	for (size_t i = 0; i < w->n; i++) {
		struct index_entry e;
		unsigned char sig[RJ_SIG_NAME_MAX + 1 + RJ_SIG_BYTES] = { 0 };
		const void *code;
		const char *kernels;
		uint64_t start, tail;
		uint32_t slot;
		int ok;

		sqlite3_bind_blob(get, 1, w->chosen[i].key.b, 16, SQLITE_STATIC);
		if (sqlite3_step(get) != SQLITE_ROW) {
			sqlite3_reset(get);
			return -1;
		}
		memset(&e, 0, sizeof e);
		memcpy(e.key, w->chosen[i].key.b, 16);
		if (read_signature(w, &e, sig) != 0) {
			sqlite3_reset(get);
			return -1;
		}
		e.ordinal = (uint32_t)i;
		code = sqlite3_column_blob(get, 0);
		e.size = (uint64_t)sqlite3_column_bytes(get, 0);
		e.checksum = (uint64_t)sqlite3_column_int64(get, 2);
		e.compile_ms = sqlite3_column_double(get, 3);
		kernels = (const char *)sqlite3_column_text(get, 4);
		kernels = kernels ? kernels : "";
		e.kernels_len = (uint32_t)strlen(kernels) + 1;
		e.meta_sum = rj_index_entry_sum(&e, kernels, sig);
		tail = (uint64_t)e.kernels_len + e.signer_len + e.sig_len;
		/* The row as choose() saw it, and a sound one: a damaged row is left out (its
		   space stays zeros), for the next get from the database to drop. */
		if (!code || e.size != (uint64_t)sqlite3_column_int64(get, 1) ||
		    rj_checksum(code, (size_t)e.size) != e.checksum) {
			sqlite3_reset(get);
			continue;
		}
		ok = put_at(w->f, w->chosen[i].off, &e, sizeof e) == 0 &&
		     fwrite(kernels, 1, e.kernels_len, w->f) == e.kernels_len &&
		     fwrite(sig, 1, e.signer_len + e.sig_len, w->f) == e.signer_len + e.sig_len &&
		     put_at(w->f, align8(w->chosen[i].off + sizeof e + tail), code,
			    (size_t)e.size) == 0;
		sqlite3_reset(get);
		if (!ok)
			return -1;
		memcpy(&start, e.key, sizeof start);
		for (slot = (uint32_t)start & mask; w->slots[slot].off; slot = (slot + 1) & mask)
			;
		memcpy(w->slots[slot].key, e.key, 16);
		w->slots[slot].off = w->chosen[i].off;
	}
	return 0;
}

static int write_file(struct writer *w, const struct rj_db_id *db, uint64_t max)
{
	uint64_t end;
	uint32_t nslots = 16;

	memcpy(w->h.magic, INDEX_MAGIC, 8);
	w->h.version = INDEX_VERSION;
	w->h.cache_format = RJ_CACHE_FORMAT;
	w->h.db_dev = db->dev;
	w->h.db_ino = db->ino;
	w->h.db_born_ns = db->born_ns;
	w->h.written = (int64_t)time(NULL);
	/* Two passes: which entries and how large (no code read), then the code. */
	end = 0;
	if (choose(w, max, &end) != 0 || add_memos(w) != 0)
		return -1;
	while (nslots < 2 * w->n + 1)
		nslots *= 2;
	w->h.nslots = nslots;
	w->h.nentries = (uint32_t)w->n;
	/* The board: right after the header, zeros (written with the slots below). */
	w->h.usage_off = sizeof w->h;
	w->h.usage_size = sizeof(struct index_board) + (uint64_t)w->n * sizeof(struct index_usage);
	w->h.slots_off = align8(w->h.usage_off + w->h.usage_size);
	/* choose() laid the entries out from 0: move them past the slots. */
	{
		uint64_t base = w->h.slots_off + (uint64_t)nslots * sizeof(struct index_slot);
		for (size_t i = 0; i < w->n; i++)
			w->chosen[i].off += base;
		end += base;
	}
	w->h.memos_off = end;
	w->h.memos_size = w->memos_size;
	w->h.size = end + w->memos_size;
	if (!(w->slots = calloc(nslots, sizeof *w->slots)))
		return -1;
	if (fseek(w->f, (long)(w->h.slots_off + (uint64_t)nslots * sizeof(struct index_slot)),
		  SEEK_SET) != 0 ||
	    copy_entries(w) != 0 || put_at(w->f, w->h.memos_off, w->memos, w->memos_size) != 0)
		return -1;
	w->h.checksum =
		rj_index_header_sum(&w->h, w->slots, w->memos ? (void *)w->memos : (void *)"");
	/* The board as zeros written, not a hole: a process's first hit then dirties a page
	   the file system has already allocated (cheaper to fault in for writing). */
	if (fseek(w->f, 0, SEEK_SET) != 0 || fwrite(&w->h, sizeof w->h, 1, w->f) != 1 ||
	    put_at(w->f, w->h.slots_off, w->slots, (size_t)nslots * sizeof *w->slots) != 0)
		return -1;
	return fflush(w->f) == 0 && !ferror(w->f) ? 0 : -1;
}

int rj_index_write_locked(rj_cache *c)
{
	struct writer w;
	struct rj_index *old;
	struct stat st;
	struct rj_db_id db;
	char tmp[64];
	int fd, rc = -1;
	mode_t mode = rj_cache_trust_flags() & RJ_TRUST_SHARED ? 0660 : 0600;
	uint64_t max = rj_index_max_bytes();

	if (!max || c->readonly || c->dirfd < 0 || !c->db || !c->get)
		return -1;
	/* The write lock: no row is deleted (and no index removed) while this one is made. */
	if (rj_cache_exec(c, "BEGIN IMMEDIATE") != 0)
		return -1;
	memset(&w, 0, sizeof w);
	w.c = c;
	if (rj_cache_exec(c, DELETIONS_SQL) != 0 ||
	    rj_index_read_deletions(c, &w.h.deletions) != 0) {
		rj_cache_exec(c, "ROLLBACK");
		return -1;
	}
	/* Signatures go in only with the triggers that count their changes; a table that
	   cannot be read so is taken as none (the database then judges every entry). */
	w.signatures = rj_sig_table_exists(c->db) &&
		       rj_cache_exec(c, SIGNATURE_CHANGES_SQL) == 0 &&
		       sqlite3_prepare_v2(c->db, "SELECT s.signer, s.sig, e.options, "
					  "e.source_name, e.headers FROM main.signatures s JOIN "
					  "main.entries e ON e.key = s.key WHERE s.key = ?1", -1,
					  &w.sig, NULL) == SQLITE_OK;
	if (!w.signatures) {
		sqlite3_finalize(w.sig);
		w.sig = NULL;
		rj_error_clear();
	}
	/* The usage recorded on the index this one replaces counts in choosing. */
	if ((old = rj_board_map(c)) != NULL)
		rj_board_fold(c, old);
	snprintf(tmp, sizeof tmp, "%s.tmp-%d", RJ_INDEX_FILE, (int)getpid());
	unlinkat(c->dirfd, tmp, 0); /* a crashed writer's, with this pid */
	/* Labelled with the file the rows come from: the one the connection opened, which
	   must still be the one named in the folder (not one removed or replaced since). */
	if (rj_db_identity(c->dirfd, &db) == 0 && c->db_id_known && db.dev == c->db_id.dev &&
	    db.ino == c->db_id.ino && db.born_ns == c->db_id.born_ns &&
	    (fd = rj_fs_open_regular(c->dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
				     mode, &st)) >= 0) {
		struct stat dbst;
		fchmod(fd, mode); /* past the umask, as the database */
		/* A shared cache: the database's group, whoever writes (members whose own
		   group differs still pass each other's index under the trust rule). */
		if ((rj_cache_trust_flags() & RJ_TRUST_SHARED) &&
		    fstatat(c->dirfd, RJ_CACHE_FILE, &dbst, AT_SYMLINK_NOFOLLOW) == 0 &&
		    dbst.st_gid != st.st_gid)
			(void)!fchown(fd, (uid_t)-1, dbst.st_gid);
		if ((w.f = fdopen(fd, "wb")) == NULL)
			close(fd);
		else {
			rc = write_file(&w, &db, max);
			if (fclose(w.f) != 0)
				rc = -1;
		}
		if (rc == 0 && renameat(c->dirfd, tmp, c->dirfd, RJ_INDEX_FILE) != 0)
			rc = -1;
		if (rc != 0)
			unlinkat(c->dirfd, tmp, 0);
	}
	/* Replaced: its readers move to the new file at their next lookup; what they recorded
	   meanwhile is folded now. */
	if (old && rc == 0) {
		retire_board(old);
		rj_board_fold(c, old);
	}
	rj_index_unmap(old);
	sqlite3_finalize(w.sig);
	rj_cache_exec(c, "COMMIT");
	free(w.slots);
	free(w.chosen);
	free(w.memos);
	if (rc == 0) {
		c->index_dirty = 0;
		rj_log(RJ_LOG_DEBUG, "cache index %s/%s written: %zu entries%s", c->dir,
		       RJ_INDEX_FILE, w.n, w.h.complete ? "" : " (full)");
	}
	return rc;
}
