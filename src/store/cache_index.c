/*
 * cache_index.c - the cache's read index: the most recently used entries, and the
 * compiler memos, in one file (rocjit-cache.index beside the database) that a process
 * reads without SQLite.  This file reads it: mapping the folder's index, finding an
 * entry, the checks of a mapping, and on the read side retiring an index that was
 * replaced and following the one that replaced it.
 *
 * Why: a new process's first request used to open the database, and SQLite's open alone
 * (its initialisation, the schema, the WAL index) takes 0.5-0.6 ms, twice the budget of a
 * first hit (bench/RESULTS.md, issue 14).  With an index the cache is opened as a folder
 * and a mapped file; the database is opened at the first miss, by the usage-record
 * flusher, or by an administrative call (rj_cache_lock).
 *
 * The file (cache/FORMAT.md has the layout, cache_index_internal.h its structs) is written
 * whole, to a new file renamed over the old, by a process holding the database's write
 * lock (cache_index_write.c).  The index names the database file it was written from
 * (device and inode): a database replaced, moved aside or removed makes it stale, and it
 * is not used.
 *
 * Each entry carries its signature as the database held it (index version 4), so that
 * under ROCJIT_REQUIRE_SIGNED=all a hit it serves is verified without SQLite; the copy
 * only ever accepts (src/request/signing.c), and whatever changes a signature removes
 * the index or makes it dropped (cache_index_write.c).
 *
 * Readers trust nothing in it: every offset is checked against the file's size, every
 * code object against its checksum, every entry's other fields against theirs, as a hit
 * from the database is.  An index that fails a check is not used again by this process
 * and is written anew.  The file takes the cache's trust rule (trust.c), like the
 * database.  Nothing but its usage board (cache_index_board.c) changes after the rename,
 * but whoever may write the file can shorten it under a mapping (a group member in shared
 * mode, the user's own `cp` over it): every mapping is guarded (base/mapguard.c, issue
 * 27), so an access past the new end reads zeros instead of raising SIGBUS, and marks the
 * mapping broken.  What a lookup takes from it (the code, copied; the kernels column; a
 * signature) is used only once the mark says the mapping was whole meanwhile: a broken
 * mapping is a miss, served by the database, and the folder's index is mapped again.
 *
 * The lowest of the index's three files (cache_internal.h has the layers): it calls
 * nothing of the board's file or the writer's, and it writes nothing on disk - not the
 * index file, not its board, not the database (it reads the deletion count only).
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/env.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/mapguard.h"
#include "store/cache_index_internal.h"
#include "store/cache_internal.h"
#include "store/trust.h"

/* The index's size at most, unless $ROCJIT_CACHE_INDEX_SIZE says otherwise. */
#define INDEX_DEFAULT_MAX (64ull << 20)

int rj_db_identity(int dirfd, struct rj_db_id *id)
{
	struct statx sx;

	if (statx(dirfd, RJ_CACHE_FILE, AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_BTIME, &sx) != 0 ||
	    !(sx.stx_mask & STATX_INO))
		return -1;
	id->dev = ((uint64_t)sx.stx_dev_major << 32) | sx.stx_dev_minor;
	id->ino = sx.stx_ino;
	id->born_ns = sx.stx_mask & STATX_BTIME
			      ? (int64_t)sx.stx_btime.tv_sec * 1000000000 + sx.stx_btime.tv_nsec
			      : 0;
	return 0;
}

void rj_index_note_database(rj_cache *c)
{
	c->db_id_known = c->dirfd >= 0 && rj_db_identity(c->dirfd, &c->db_id) == 0;
}

uint64_t rj_index_max_bytes(void)
{
	uint64_t max;

	rj_env_size("ROCJIT_CACHE_INDEX_SIZE", INDEX_DEFAULT_MAX, &max);
	return max;
}

uint64_t rj_index_header_sum(const struct index_header *h, const void *slots, const void *memos)
{
	return rj_checksum(h, offsetof(struct index_header, checksum)) ^
	       rj_checksum(slots, (size_t)h->nslots * sizeof(struct index_slot)) ^
	       rj_checksum(memos, (size_t)h->memos_size);
}

uint64_t rj_index_entry_sum(const struct index_entry *e, const char *kernels,
			    const unsigned char *signature)
{
	return rj_checksum(e, offsetof(struct index_entry, meta_sum)) ^
	       rj_checksum(kernels, e->kernels_len) ^
	       rj_checksum(signature, (size_t)e->signer_len + e->sig_len);
}

/* Whether the mapped file's header and tables hold together (not yet the entries). */
static int header_ok(const struct rj_index *ix, const struct rj_db_id *db)
{
	const struct index_header *h = ix->h;
	uint64_t slots_end;

	if (ix->size < sizeof *h || memcmp(h->magic, INDEX_MAGIC, 8) != 0 ||
	    h->version != INDEX_VERSION || h->cache_format != RJ_CACHE_FORMAT ||
	    h->size != ix->size || h->db_dev != db->dev || h->db_ino != db->ino ||
	    h->db_born_ns != db->born_ns)
		return 0;
	if (h->nentries > INDEX_MAX_ENTRIES || h->usage_off != sizeof *h ||
	    h->usage_size != sizeof(struct index_board) +
				     (uint64_t)h->nentries * sizeof(struct index_usage) ||
	    h->usage_size > ix->size - h->usage_off)
		return 0;
	if (h->nslots == 0 || (h->nslots & (h->nslots - 1)) != 0 || h->nslots > (1u << 28) ||
	    h->slots_off != align8(h->usage_off + h->usage_size))
		return 0;
	slots_end = h->slots_off + (uint64_t)h->nslots * sizeof(struct index_slot);
	if (slots_end > ix->size || h->memos_off < slots_end || h->memos_off > ix->size ||
	    h->memos_size > ix->size - h->memos_off)
		return 0;
	return rj_index_header_sum(h, ix->base + h->slots_off, ix->base + h->memos_off) ==
	       h->checksum;
}

int rj_index_matches(const struct rj_index *ix, int dirfd)
{
	struct rj_db_id db;

	return rj_db_identity(dirfd, &db) == 0 && ix->h->db_dev == db.dev &&
	       ix->h->db_ino == db.ino && ix->h->db_born_ns == db.born_ns;
}

/*
 * Maps the folder's index file: 0 with *out when it is trusted, sound and written from
 * database db; -1 when absent, -2 when untrusted, stale or damaged (why in *why), -3 when
 * a writer retired it (being replaced or removed: look again).  writable: map it so that
 * hits can be recorded on its board, when this process may write the file (else
 * read-only: hits go to the pending usage records).
 */
static int map_file(int dirfd, const char *dir, int writable, const struct rj_db_id *db,
		    struct rj_index **out, const char **why)
{
	struct rj_index *ix;
	struct stat st;
	char shown[4200];
	void *base;
	int fd = -1;

	*why = NULL;
	if (writable)
		fd = rj_fs_open_regular(dirfd, RJ_INDEX_FILE, O_RDWR | O_NOFOLLOW, 0, &st);
	if (fd < 0) {
		writable = 0;
		fd = rj_fs_open_regular(dirfd, RJ_INDEX_FILE, O_RDONLY | O_NOFOLLOW, 0, &st);
	}
	if (fd < 0)
		return -1;
	rj_fs_join(shown, sizeof shown, dir, RJ_INDEX_FILE);
	if (rj_trust_check_stat(&st, shown, "cache index", rj_cache_trust_flags()) != 0) {
		*why = rocjit_last_error();
		close(fd);
		return -2;
	}
	if (st.st_size < (off_t)sizeof(struct index_header)) {
		close(fd);
		*why = "too short";
		return -2;
	}
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED,
		    fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return -1;
	/* Guarded before the first byte is read: the file may be shortened at any moment. */
	if (!(ix = calloc(1, sizeof *ix)) ||
	    (ix->guard = rj_mapguard_add(base, (size_t)st.st_size)) < 0) {
		free(ix);
		munmap(base, (size_t)st.st_size);
		return -1;
	}
	ix->map = base;
	ix->base = base;
	ix->size = (size_t)st.st_size;
	ix->h = base;
	if (!header_ok(ix, db)) {
		rj_index_unmap(ix);
		*why = "stale or damaged";
		return -2;
	}
	ix->nslots = ix->h->nslots;
	ix->nentries = ix->h->nentries;
	ix->slots_off = ix->h->slots_off;
	ix->nmemos = ix->h->nmemos;
	ix->memos_off = ix->h->memos_off;
	ix->memos_size = ix->h->memos_size;
	ix->deletions = ix->h->deletions;
	ix->written = ix->h->written;
	ix->complete = ix->h->complete == 1;
	ix->dev = (uint64_t)st.st_dev;
	ix->ino = (uint64_t)st.st_ino;
	ix->slots = (const struct index_slot *)(ix->base + ix->slots_off);
	ix->board = (struct index_board *)((unsigned char *)ix->map + ix->h->usage_off);
	ix->usage = (struct index_usage *)(ix->board + 1);
	if (__atomic_load_n(&ix->board->retired, __ATOMIC_ACQUIRE)) {
		rj_index_unmap(ix);
		return -3;
	}
	/* Shortened while it was checked: what was read may be zeros.  Being rewritten
	   (`cp` over it), or damaged: look again later. */
	if (rj_mapguard_broken(ix->guard)) {
		rj_index_unmap(ix);
		return -1;
	}
	ix->writable = writable;
	*out = ix;
	return 0;
}

/*
 * Whether c may write boards: not a read-only cache, and not on a copy-on-write file
 * system (btrfs, ZFS, bcachefs), where the first write to a mapped page allocates and a
 * full disk then ends the process with SIGBUS on a plain cache hit.  There the index is
 * mapped read-only and hits go through memory to the database.  (ext4 and XFS write in
 * place: the board is written as zeros when the file is made, so its blocks exist.)
 */
static int board_writable(const rj_cache *c)
{
	return !c->readonly && !c->fs_cow;
}

int rj_index_map(rj_cache *c)
{
	struct rj_db_id db;
	const char *why;
	uint64_t deleted;
	int rc = -3;

	if (c->dirfd < 0 || rj_index_max_bytes() == 0 || rj_db_identity(c->dirfd, &db) != 0)
		return -1;
	/* With a connection open, only an index of the database it opened. */
	if (c->db_id_known && (db.dev != c->db_id.dev || db.ino != c->db_id.ino ||
			       db.born_ns != c->db_id.born_ns))
		return -1;
	/* Retired: a writer is replacing it this moment; the new one is renamed in next. */
	for (int tries = 0; rc == -3 && tries < 3; tries++)
		rc = map_file(c->dirfd, c->dir, board_writable(c), &db, &c->index, &why);
	if (rc == 0 && ((c->index->ino == c->index_bad_ino && c->index->dev == c->index_bad_dev &&
			 c->index->written == c->index_bad_written) ||
			(c->db && rj_index_read_deletions(c, &deleted) == 0 &&
			 deleted != c->index->deletions))) {
		/* The file this process found damaged or stale, or one older than a deletion
		   the open connection knows of. */
		rj_index_unmap(c->index);
		c->index = NULL;
		return -1;
	}
	if (rc == -2) {
		rj_log(RJ_LOG_INFO, "cache index %s/%s: %s; not used (it is written again), the "
		       "database is read instead", c->dir, RJ_INDEX_FILE, why);
		c->index_dirty = 1;
	}
	return rc == 0 ? 0 : -1;
}

int rj_index_stale(rj_cache *c)
{
	struct rj_index *ix = c->index;

	/* A mapping whose file was shortened under it is left as a retired one is: the
	   file now in the folder (rewritten, or written anew at close) may serve again. */
	if (!ix ||
	    (!rj_index_broken(ix) && !__atomic_load_n(&ix->board->retired, __ATOMIC_ACQUIRE)))
		return 0;
	/* Unmapped at once (hits are copies: nothing points into it), then the file that
	   replaced it, if any: a process that outlives many rewrites maps one index. */
	rj_index_retire(c);
	rj_index_map(c);
	return 1;
}

/*
 * Key's entry: its slot's offset checked (entries lie past the slots, so past the board,
 * which other processes write), and the key it carries.  NULL when ix has no such key, or
 * *bad set when its slot or entry is damaged.
 */
const struct index_entry *rj_index_entry_of(const struct rj_index *ix, const rj_key *key,
					    int *bad)
{
	uint32_t mask = ix->nslots - 1, i;
	uint64_t start;

	*bad = 0;
	memcpy(&start, key->b, sizeof start);
	i = (uint32_t)start & mask;
	for (uint32_t probes = 0; probes <= mask; probes++, i = (i + 1) & mask) {
		const struct index_slot *s = &ix->slots[i];
		const struct index_entry *e;

		if (s->off == 0)
			return NULL;
		if (memcmp(s->key, key->b, 16) != 0)
			continue;
		e = (const struct index_entry *)(ix->base + s->off);
		*bad = s->off % 8 || s->off < ix->slots_off || s->off > ix->size - sizeof *e ||
		       memcmp(e->key, key->b, 16) != 0 || e->ordinal >= ix->nentries;
		return *bad ? NULL : e;
	}
	return NULL;
}

void rj_index_reject(rj_cache *c)
{
	if (!c->index)
		return;
	c->index_bad_dev = c->index->dev;
	c->index_bad_ino = c->index->ino;
	c->index_bad_written = c->index->written;
	rj_index_retire(c);
	c->index_dirty = 1;
}

int rj_index_broken(const struct rj_index *ix)
{
	return rj_mapguard_broken(ix->guard);
}

void rj_index_unmap(struct rj_index *ix)
{
	if (!ix)
		return;
	rj_mapguard_remove(ix->guard);
	munmap(ix->map, ix->size);
	free(ix);
}

int rj_index_complete(const struct rj_index *ix)
{
	return ix->complete;
}

/*
 * Checks entry e's fields other than its code (the kernels column and the signature in
 * bounds and well formed, the meta checksum), and fills what they say into *hit: its
 * code's place and size, not yet checked against the code's checksum.  0, or -1 when the
 * entry is damaged.
 */
static int entry_fields(const struct rj_index *ix, const struct index_entry *mapped,
			struct rj_index_hit *hit)
{
	/* The mapping is shared and writable by whoever may write the file: the fields are
	   read once, into le, and only le's bounds are used, so that a change made while
	   they are checked moves no bound (the bytes may still change: checksums say so). */
	struct index_entry le;
	const struct index_entry *e = &le;
	uint64_t off = (uint64_t)((const unsigned char *)mapped - ix->base);
	uint64_t left = ix->size - off - sizeof le, code_off;
	const char *kernels = (const char *)(mapped + 1), *signer;
	const unsigned char *signature;

	memcpy(&le, mapped, sizeof le);
	if (e->ordinal >= ix->nentries || e->kernels_len == 0 || e->kernels_len > left ||
	    memchr(kernels, 0, e->kernels_len) != kernels + e->kernels_len - 1)
		return -1;
	left -= e->kernels_len;
	signature = (const unsigned char *)kernels + e->kernels_len;
	signer = (const char *)signature;
	/* Unsigned, or a valid name with its NUL and a signature of the one length. */
	if (e->signer_len || e->sig_len) {
		if (e->signer_len < 2 || e->signer_len > RJ_SIG_NAME_MAX + 1 ||
		    e->sig_len != RJ_SIG_BYTES || (uint64_t)e->signer_len + e->sig_len > left ||
		    memchr(signer, 0, e->signer_len) != signer + e->signer_len - 1 ||
		    !rj_sig_name_valid(signer, e->signer_len - 1))
			return -1;
	}
	if (rj_index_entry_sum(e, kernels, signature) != e->meta_sum)
		return -1;
	code_off = align8(off + sizeof *e + e->kernels_len + e->signer_len + e->sig_len);
	if (e->size == 0 || code_off > ix->size || e->size > ix->size - code_off)
		return -1;
	hit->code = ix->base + code_off;
	hit->size = (size_t)e->size;
	hit->compile_ms = e->compile_ms;
	hit->kernels = kernels;
	hit->ordinal = e->ordinal;
	hit->signer = e->signer_len ? signer : NULL;
	hit->sig = e->signer_len ? signature + e->signer_len : NULL;
	hit->described = mapped->described;
	return 0;
}

/*
 * The code is copied out of the mapping, and the copy is what is checked and handed out:
 * a mapping can turn into zeros (a file shortened under it) or change (anyone who may
 * write the file) after a hit, and the caller keeps the code past the lookup (a program's
 * code object, until the context closes).  A check that fails on a broken mapping is a
 * miss, not damage: the file was shortened, not written wrong.
 */
int rj_index_find(const struct rj_index *ix, const rj_key *key, struct rj_index_hit *hit)
{
	int bad;
	const struct index_entry *e = rj_index_entry_of(ix, key, &bad);
	uint64_t sum;
	void *copy;

	if (!e)
		return bad && !rj_index_broken(ix) ? -1 : 0;
	if (entry_fields(ix, e, hit) != 0)
		return rj_index_broken(ix) ? 0 : -1;
	sum = e->checksum;
	if (!(copy = malloc(hit->size)))
		return -2;
	memcpy(copy, hit->code, hit->size);
	if (rj_checksum(copy, hit->size) != sum) {
		free(copy);
		return rj_index_broken(ix) ? 0 : -1;
	}
	hit->code = hit->owned = copy;
	return 1;
}

int rj_index_signature(const rj_cache *c, const rj_key *key, const char **signer,
		       const unsigned char **sig, const unsigned char **described)
{
	const struct rj_index *ix = c->index;
	struct rj_index_hit hit;
	int bad;
	const struct index_entry *e;

	*signer = NULL;
	*sig = NULL;
	*described = NULL;
	/* The current index: the hit's code is a copy (rj_index_find), so it names no
	   mapping.  An index that replaced the hit's since then may hold another signature
	   for the key: a signature is only ever checked against the code itself, so one that
	   is not the code's is not trusted, and the database judges.  The caller copies what
	   the pointers give, then asks rj_index_broken. */
	if (!ix || !(e = rj_index_entry_of(ix, key, &bad)))
		return 0;
	if (entry_fields(ix, e, &hit) != 0)
		return 0;
	*signer = hit.signer;
	*sig = hit.sig;
	*described = hit.described;
	return 1;
}

const char *rj_index_memo(const struct rj_index *ix, const char *platform)
{
	const unsigned char *p = ix->base + ix->memos_off, *end = p + ix->memos_size;

	for (uint32_t i = 0; i < ix->nmemos; i++) {
		uint32_t plen, mlen;
		const char *name, *memo;

		if ((size_t)(end - p) < 8)
			return NULL;
		memcpy(&plen, p, 4);
		memcpy(&mlen, p + 4, 4);
		if (plen == 0 || mlen == 0 || plen > (size_t)(end - p) - 8 ||
		    mlen > (size_t)(end - p) - 8 - plen)
			return NULL;
		name = (const char *)p + 8;
		memo = name + plen;
		if (name[plen - 1] || memo[mlen - 1])
			return NULL;
		if (!strcmp(name, platform))
			return memo;
		p += 8 + plen + mlen;
	}
	return NULL;
}

void rj_index_retire(rj_cache *c)
{
	rj_index_unmap(c->index);
	c->index = NULL;
}

/* The database's deletion count: 0, or -1 when there is none (no index writer made it). */
int rj_index_read_deletions(rj_cache *c, uint64_t *n)
{
	sqlite3_stmt *st;
	int ok;

	if (sqlite3_prepare_v2(c->db, "SELECT n FROM deletions", -1, &st, NULL) != SQLITE_OK)
		return -1;
	ok = sqlite3_step(st) == SQLITE_ROW;
	*n = ok ? (uint64_t)sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return ok ? 0 : -1;
}

/*
 * The folder's index, with its board writable when asked, when it was written from the
 * database c's connection opened (a board's keys and counts belong to that database):
 * NULL when there is none, it is retired, or this process may not write it as asked.
 */
struct rj_index *rj_index_map_current(rj_cache *c, int writable)
{
	struct rj_index *ix = NULL;
	struct rj_db_id db;
	const char *why;

	if ((writable && !board_writable(c)) || c->dirfd < 0 || !c->db_id_known ||
	    rj_db_identity(c->dirfd, &db) != 0 || db.dev != c->db_id.dev ||
	    db.ino != c->db_id.ino || db.born_ns != c->db_id.born_ns ||
	    map_file(c->dirfd, c->dir, writable, &db, &ix, &why) != 0)
		return NULL;
	if (writable && !ix->writable) {
		rj_index_unmap(ix);
		return NULL;
	}
	return ix;
}
