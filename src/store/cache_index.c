/*
 * cache_index.c - the cache's read index: the most recently used entries, and the
 * compiler memos, in one file (rocjit-cache.index beside the database) that a process
 * reads without SQLite.
 *
 * Why: a new process's first request used to open the database, and SQLite's open alone
 * (its initialisation, the schema, the WAL index) takes 0.5-0.6 ms, twice the budget of a
 * first hit (bench/RESULTS.md, issue 14).  With an index the cache is opened as a folder
 * and a mapped file; the database is opened at the first miss, by the usage-record
 * flusher, or by an administrative call (rj_cache_lock).
 *
 * The file (cache/FORMAT.md has the layout) is written whole, to a new file renamed over
 * the old, by a process holding the database's write lock (BEGIN IMMEDIATE): from the
 * rows as they are then, the most recently used first, up to ROCJIT_CACHE_INDEX_SIZE
 * bytes.  Whoever deletes rows removes the index under the same lock first (rj_index_drop
 * in cache.c, cache_usage.c, cache_admin.c, cache_db.c), so a deleted entry is never in an
 * index written after its deletion, and one written before it is gone.  The index names
 * the database file it was written from (device and inode): a database replaced, moved
 * aside or removed makes it stale, and it is not used.
 *
 * Readers trust nothing in it: every offset is checked against the file's size, every
 * code object against its checksum, every entry's other fields against theirs, as a hit
 * from the database is.  An index that fails a check is not used again by this process
 * and is written anew.  The file takes the cache's trust rule (trust.c), like the
 * database.  Nothing but its usage board (below) changes after the rename, and no file is
 * ever shortened, so a mapping stays valid while the process lives.
 *
 * Hits are recorded on the board, in the mapping (struct index_board), or held in memory
 * for it (cache_usage.c): a process served by the index starts no flusher thread in its
 * first seconds and opens no connection, not even at exit, and a process killed leaves
 * the entries it hit recent.  A writer that replaces or removes the index marks its board
 * retired: every process that has it mapped moves on at its next lookup.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "store/cache_internal.h"
#include "store/trust.h"

#define INDEX_MAGIC "rjindex"       /* 8 bytes with its NUL */
#define INDEX_VERSION 3
#define INDEX_DEFAULT_MAX (64ull << 20)
/* Entries at most: the slots (twice as many, a power of two) stay within what a reader
 * accepts (2^28). */
#define INDEX_MAX_ENTRIES (1u << 26)
/* A process whose hits the index lacked writes it again at most this often while the
 * index is full (every entry cannot fit): processes with different working sets larger
 * than the index would otherwise rewrite it at each exit. */
#define INDEX_FULL_REWRITE_S 60

struct index_header {
	char magic[8];
	uint32_t version;       /* INDEX_VERSION */
	uint32_t cache_format;  /* RJ_CACHE_FORMAT of the database it was written from */
	uint64_t db_dev, db_ino; /* that database file, */
	int64_t db_born_ns;     /* and when it was made (0 where the file system does not say) */
	uint64_t size;          /* of the whole file */
	int64_t written;        /* time() at writing */
	uint32_t nslots;        /* a power of two */
	uint32_t nentries;
	uint32_t nmemos;
	uint32_t complete;      /* 1: every entry of the database then is here */
	uint64_t slots_off;     /* nslots struct index_slot */
	uint64_t memos_off;     /* nmemos of: u32 platform bytes, u32 memo bytes (each with
	                           its NUL), the platform, the memo */
	uint64_t memos_size;
	uint64_t deletions;     /* the database's deletion count when it was written */
	uint64_t usage_off;     /* the usage board, right after this header (the page a
	                           reader touches first): struct index_board, then */
	uint64_t usage_size;    /* nentries struct index_usage; the slots follow */
	uint64_t checksum;      /* of the header before this field, the slots and the memos */
};

struct index_slot {
	uint8_t key[16];
	uint64_t off;           /* of its struct index_entry; 0: an empty slot */
};

/* Followed by the kernels column (kernels_len bytes, its NUL included), then, at the next
 * multiple of 8, the code object (size bytes). */
struct index_entry {
	uint8_t key[16];
	uint64_t size;
	uint64_t checksum;      /* the code's, as the database stores it */
	double compile_ms;
	uint32_t kernels_len;
	uint32_t ordinal;       /* its struct index_usage on the board */
	uint64_t meta_sum;      /* of the fields before it and the kernels column */
};

/*
 * The usage board: the one part of the file written after it is made, in place, through
 * shared writable mappings, by every process that hits it (atomics; no checksum covers
 * it).  A hit is recorded here, in the page cache (or held, see rj_index_stamp): it
 * survives the process being killed, and a process that only hit the index needs neither
 * the flusher thread nor a connection at exit.  The index writer and whoever removes the
 * index fold the board into the database (fold_board, under the write lock): hit counts
 * are taken with an exchange, so a count is folded once; last uses are a maximum, folded
 * any number of times.
 */
struct index_board {
	uint64_t retired;       /* 1: replaced or removed; stop using this file (and look
	                           for the current one) */
	uint64_t disk_hits;     /* hits recorded here, for the counters */
	uint64_t saved_us;      /* their compile time, microseconds */
	uint64_t reserved[5];
};

struct index_usage {
	uint64_t hits;
	int64_t last_used;      /* time() of the last hit; 0 none */
};

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

struct rj_index {
	struct rj_index *next;  /* the cache's retired indexes (rj_index_retire) */
	int lent;               /* a hit pointed into it: unmapped only at close */
	void *map;
	const unsigned char *base;
	size_t size;
	const struct index_header *h;
	const struct index_slot *slots;
	struct index_board *board;
	struct index_usage *usage;
	int writable;                 /* 0: mapped read-only, hits go through memory */
	/* The header's fields as checked at map time: the mapping is writable (the board),
	   so nothing read again from it can move a bound. */
	uint32_t nslots, nentries, nmemos;
	uint64_t slots_off, memos_off, memos_size, deletions;
	uint64_t dev, ino;            /* the file */
	int64_t written;
};

/* Bounds on what a board says (any process that may write the file writes it). */
#define BOARD_MAX_HITS (1ull << 40)
#define BOARD_MAX_SAVED_US (1ull << 52)

static uint64_t align8(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

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

static uint64_t header_sum(const struct index_header *h, const void *slots, const void *memos)
{
	return rj_checksum(h, offsetof(struct index_header, checksum)) ^
	       rj_checksum(slots, (size_t)h->nslots * sizeof(struct index_slot)) ^
	       rj_checksum(memos, (size_t)h->memos_size);
}

static uint64_t entry_sum(const struct index_entry *e, const char *kernels)
{
	return rj_checksum(e, offsetof(struct index_entry, meta_sum)) ^
	       rj_checksum(kernels, e->kernels_len);
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
	return header_sum(h, ix->base + h->slots_off, ix->base + h->memos_off) == h->checksum;
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
	if (!(ix = calloc(1, sizeof *ix))) {
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
	ix->dev = (uint64_t)st.st_dev;
	ix->ino = (uint64_t)st.st_ino;
	ix->slots = (const struct index_slot *)(ix->base + ix->slots_off);
	ix->board = (struct index_board *)((unsigned char *)ix->map + ix->h->usage_off);
	ix->usage = (struct index_usage *)(ix->board + 1);
	if (__atomic_load_n(&ix->board->retired, __ATOMIC_ACQUIRE)) {
		rj_index_unmap(ix);
		return -3;
	}
	ix->writable = writable;
	*out = ix;
	return 0;
}

static int read_deletions(rj_cache *c, uint64_t *n);

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
			(c->db && read_deletions(c, &deleted) == 0 &&
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

	if (!ix || !__atomic_load_n(&ix->board->retired, __ATOMIC_ACQUIRE))
		return 0;
	rj_index_retire(c);
	/* The file that replaced it, if any.  Retired indexes whose code was handed out stay
	   mapped until close (and their unlinked files on disk): past a few, the database
	   serves instead, so a process that outlives many rewrites holds a bounded amount. */
	if (rj_index_kept(c) < RJ_INDEX_MAX_RETIRED)
		rj_index_map(c);
	return 1;
}

int rj_index_kept(const rj_cache *c)
{
	int n = 0;

	for (const struct rj_index *r = c->retired; r; r = r->next)
		n++;
	return n;
}

/* Adds hits of the entry at ordinal, last used at last, to the board.  The last use is
 * raised first: a fold that takes the hits then reads a last use at least theirs. */
static void put_hits(struct rj_index *ix, uint32_t ordinal, uint64_t hits, int64_t last,
		     double compile_ms)
{
	struct index_usage *u = &ix->usage[ordinal];
	int64_t was = __atomic_load_n(&u->last_used, __ATOMIC_RELAXED);
	double us = compile_ms * 1000.0 * (double)hits;

	while (was < last && !__atomic_compare_exchange_n(&u->last_used, &was, last, 1,
							 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	__atomic_fetch_add(&u->hits, hits, __ATOMIC_RELEASE);
	__atomic_fetch_add(&ix->board->disk_hits, hits, __ATOMIC_RELAXED);
	if (us > 0 && us < (double)BOARD_MAX_SAVED_US)
		__atomic_fetch_add(&ix->board->saved_us, (uint64_t)us, __ATOMIC_RELAXED);
}

/*
 * Like relatime for a file's atime: a hit of an entry whose last use on the board is
 * recent (within RECENT_S, as another process or this one wrote it) changes nothing
 * eviction needs, so the caller may hold it in memory (cache_usage.c) and have it put on
 * the board at close or exit rather than now.  Writing the board dirties its page: a
 * process's first write through its mapping takes a fault into the file system (10-15 us
 * on ext4 on the H100 box), on the first request.
 */
#define RECENT_S 60

int rj_index_stamp(struct rj_index *ix, uint32_t ordinal, double compile_ms, int may_hold)
{
	int64_t now = (int64_t)time(NULL), last;

	if (!ix->writable || ordinal >= ix->nentries)
		return 0;
	last = __atomic_load_n(&ix->usage[ordinal].last_used, __ATOMIC_RELAXED);
	if (may_hold && last >= now - RECENT_S && last <= now + 60)
		return 2;
	put_hits(ix, ordinal, 1, now, compile_ms);
	return 1;
}

/*
 * Key's entry: its slot's offset checked (entries lie past the slots, so past the board,
 * which other processes write), and the key it carries.  NULL when ix has no such key, or
 * *bad set when its slot or entry is damaged.
 */
static const struct index_entry *entry_of(const struct rj_index *ix, const rj_key *key,
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

/* The usage record of key's entry on ix's board, or NULL. */
static struct index_usage *usage_of(const struct rj_index *ix, const rj_key *key)
{
	int bad;
	const struct index_entry *e = entry_of(ix, key, &bad);

	return e ? &ix->usage[e->ordinal] : NULL;
}

int rj_index_put_hits(struct rj_index *ix, const rj_key *key, uint64_t hits, int64_t last,
		      double compile_ms)
{
	struct index_usage *u;

	if (!ix || !ix->writable || __atomic_load_n(&ix->board->retired, __ATOMIC_ACQUIRE) ||
	    !(u = usage_of(ix, key)))
		return 0;
	put_hits(ix, (uint32_t)(u - ix->usage), hits, last, compile_ms);
	return 1;
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

void rj_index_unmap(struct rj_index *ix)
{
	if (!ix)
		return;
	munmap(ix->map, ix->size);
	free(ix);
}

int rj_index_find(const struct rj_index *ix, const rj_key *key, struct rj_index_hit *hit)
{
	int bad;
	const struct index_entry *e = entry_of(ix, key, &bad);
	const char *kernels;
	uint64_t off, code_off;

	if (!e)
		return bad ? -1 : 0;
	off = (uint64_t)((const unsigned char *)e - ix->base);
	kernels = (const char *)(e + 1);
	if (e->kernels_len == 0 || e->kernels_len > ix->size - off - sizeof *e ||
	    kernels[e->kernels_len - 1] != 0 || strlen(kernels) != e->kernels_len - 1 ||
	    entry_sum(e, kernels) != e->meta_sum)
		return -1;
	code_off = align8(off + sizeof *e + e->kernels_len);
	if (e->size == 0 || code_off > ix->size || e->size > ix->size - code_off ||
	    rj_checksum(ix->base + code_off, (size_t)e->size) != e->checksum)
		return -1;
	hit->code = ix->base + code_off;
	hit->size = (size_t)e->size;
	hit->compile_ms = e->compile_ms;
	hit->kernels = kernels;
	hit->ordinal = e->ordinal;
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

void rj_index_lend(struct rj_index *ix)
{
	ix->lent = 1;
}

void rj_index_retire(rj_cache *c)
{
	struct rj_index *ix = c->index;

	c->index = NULL;
	if (ix && ix->lent) {
		ix->next = c->retired;
		c->retired = ix;
	} else {
		rj_index_unmap(ix);
	}
}

void rj_index_unmap_all(rj_cache *c)
{
	rj_index_retire(c);
	while (c->retired) {
		struct rj_index *next = c->retired->next;
		rj_index_unmap(c->retired);
		c->retired = next;
	}
}

/* The database's deletion count: 0, or -1 when there is none (no index writer made it). */
static int read_deletions(rj_cache *c, uint64_t *n)
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

void rj_index_check_deletions(rj_cache *c)
{
	uint64_t n;

	/* A mapping another writer retired is no evidence against the folder's current
	   index: move to that one first. */
	rj_index_stale(c);
	if (!c->index || (read_deletions(c, &n) == 0 && n == c->index->deletions))
		return;
	rj_log(RJ_LOG_INFO, "cache index %s/%s: entries were deleted since it was written; "
	       "not used (it is written anew)", c->dir, RJ_INDEX_FILE);
	if (c->readonly)
		rj_index_reject(c); /* a read-only cache changes nothing in the folder */
	else
		rj_index_drop(c);
	c->index_dirty = 1;
}

/*
 * The folder's index, with its board writable when asked, when it was written from the
 * database c's connection opened (a board's keys and counts belong to that database):
 * NULL when there is none, it is retired, or this process may not write it as asked.
 */
static struct rj_index *map_current(rj_cache *c, int writable)
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

static struct rj_index *map_board(rj_cache *c)
{
	return map_current(c, 1);
}

struct rj_index *rj_index_peek_open(rj_cache *c)
{
	return map_current(c, 0);
}

void rj_index_peek_entry(const struct rj_index *ix, const rj_key *key, uint64_t *hits,
			 int64_t *last_used)
{
	const struct index_usage *u = ix ? usage_of(ix, key) : NULL;
	uint64_t n;
	int64_t last;

	if (!u)
		return;
	n = __atomic_load_n(&u->hits, __ATOMIC_RELAXED);
	*hits += n < BOARD_MAX_HITS ? n : BOARD_MAX_HITS;
	last = __atomic_load_n(&u->last_used, __ATOMIC_RELAXED);
	if (last > *last_used && last <= (int64_t)time(NULL) + 60)
		*last_used = last;
}

void rj_index_peek_counters(const struct rj_index *ix, uint64_t *disk_hits, double *saved_ms)
{
	uint64_t n, us;

	if (!ix)
		return;
	n = __atomic_load_n(&ix->board->disk_hits, __ATOMIC_RELAXED);
	us = __atomic_load_n(&ix->board->saved_us, __ATOMIC_RELAXED);
	*disk_hits += n < BOARD_MAX_HITS ? n : BOARD_MAX_HITS;
	*saved_ms += (double)(us < BOARD_MAX_SAVED_US ? us : BOARD_MAX_SAVED_US) / 1000.0;
}

/*
 * Writes ix's board into the database: each entry's hits (taken, so that they are folded
 * once) and last use, and the counters.  In the caller's write transaction, or in one of
 * its own.  Hits recorded after their count was taken stay for the next fold; a
 * transaction that fails loses the counts taken (statistics only).  Values are checked:
 * the board is written by every process that may write the file.
 */
static void fold_board(rj_cache *c, struct rj_index *ix)
{
	int own = sqlite3_get_autocommit(c->db);
	int64_t now = (int64_t)time(NULL);
	uint64_t hits, saved_us;
	sqlite3_stmt *st = NULL;

	if (own && rj_cache_exec(c, "BEGIN IMMEDIATE") != 0)
		return;
	if (sqlite3_prepare_v2(c->db, RJ_USAGE_SQL, -1, &st, NULL) == SQLITE_OK) {
		for (uint32_t i = 0; i < ix->nslots; i++) {
			const struct index_slot *s = &ix->slots[i];
			const struct index_entry *e;
			int64_t last;

			if (s->off == 0 || s->off % 8 || s->off < ix->slots_off ||
			    s->off > ix->size - sizeof *e)
				continue;
			e = (const struct index_entry *)(ix->base + s->off);
			if (e->ordinal >= ix->nentries || memcmp(e->key, s->key, 16) != 0)
				continue;
			/* Only entries with hits: a put raises the last use before it adds its
			   hits, so the last use read after taking them covers them. */
			hits = __atomic_exchange_n(&ix->usage[e->ordinal].hits, 0, __ATOMIC_ACQUIRE);
			if (!hits)
				continue;
			last = __atomic_load_n(&ix->usage[e->ordinal].last_used, __ATOMIC_RELAXED);
			sqlite3_bind_blob(st, 1, e->key, 16, SQLITE_STATIC);
			sqlite3_bind_int64(st, 2, (int64_t)(hits < BOARD_MAX_HITS ? hits : BOARD_MAX_HITS));
			sqlite3_bind_int64(st, 3, last <= now + 60 ? last : now);
			sqlite3_step(st);
			sqlite3_reset(st);
		}
	}
	sqlite3_finalize(st);
	hits = __atomic_exchange_n(&ix->board->disk_hits, 0, __ATOMIC_RELAXED);
	saved_us = __atomic_exchange_n(&ix->board->saved_us, 0, __ATOMIC_RELAXED);
	rj_cache_add_counters(c, (double)(hits < BOARD_MAX_HITS ? hits : BOARD_MAX_HITS),
			      (double)(saved_us < BOARD_MAX_SAVED_US ? saved_us : BOARD_MAX_SAVED_US) /
				      1000.0,
			      0, 0, 0);
	if (own && rj_cache_exec(c, "COMMIT") != 0)
		rj_cache_exec(c, "ROLLBACK");
}

static void retire_board(struct rj_index *ix)
{
	__atomic_store_n(&ix->board->retired, 1, __ATOMIC_RELEASE);
}

void rj_index_fold(rj_cache *c)
{
	struct rj_index *ix;

	if (!c->db || !(ix = map_board(c)))
		return;
	fold_board(c, ix);
	rj_index_unmap(ix);
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
	if ((ix = map_board(c)) != NULL) {
		retire_board(ix);
		fold_board(c, ix);
		rj_index_unmap(ix);
	}
	if (c->dirfd >= 0)
		unlinkat(c->dirfd, RJ_INDEX_FILE, 0);
	if (own && rj_cache_exec(c, "COMMIT") != 0)
		rj_cache_exec(c, "ROLLBACK");
	rj_index_retire(c);
}

/* ---- Writing ---------------------------------------------------------------------------- */

struct chosen {
	rj_key key;
	uint64_t off;
};

struct writer {
	rj_cache *c;
	FILE *f;
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

/* The entries that fit, the most recently used first, and where each will lie. */
static int choose(struct writer *w, uint64_t max, uint64_t *end)
{
	sqlite3_stmt *st;
	uint64_t off = *end, total = 0;
	int rc;

	if (sqlite3_prepare_v2(w->c->db, "SELECT key, size, length(CAST(kernels AS BLOB)) "
			       "FROM entries ORDER BY last_used DESC, created DESC",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	w->h.complete = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t size = (uint64_t)sqlite3_column_int64(st, 1);
		uint64_t klen = (uint64_t)sqlite3_column_int64(st, 2) + 1;
		uint64_t need = align8(sizeof(struct index_entry) + klen) + align8(size);

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

/* Copies each chosen entry from the database, checked, and fills its slot. */
static int copy_entries(struct writer *w)
{
	uint32_t mask = w->h.nslots - 1;
	sqlite3_stmt *get = w->c->get;

	for (size_t i = 0; i < w->n; i++) {
		struct index_entry e;
		const void *code;
		const char *kernels;
		uint64_t start;
		uint32_t slot;
		int ok;

		sqlite3_bind_blob(get, 1, w->chosen[i].key.b, 16, SQLITE_STATIC);
		if (sqlite3_step(get) != SQLITE_ROW) {
			sqlite3_reset(get);
			return -1;
		}
		memset(&e, 0, sizeof e);
		memcpy(e.key, w->chosen[i].key.b, 16);
		e.ordinal = (uint32_t)i;
		code = sqlite3_column_blob(get, 0);
		e.size = (uint64_t)sqlite3_column_bytes(get, 0);
		e.checksum = (uint64_t)sqlite3_column_int64(get, 2);
		e.compile_ms = sqlite3_column_double(get, 3);
		kernels = (const char *)sqlite3_column_text(get, 4);
		kernels = kernels ? kernels : "";
		e.kernels_len = (uint32_t)strlen(kernels) + 1;
		e.meta_sum = entry_sum(&e, kernels);
		/* The row as choose() saw it, and a sound one: a damaged row is left out (its
		   space stays zeros), for the next get from the database to drop. */
		if (!code || e.size != (uint64_t)sqlite3_column_int64(get, 1) ||
		    rj_checksum(code, (size_t)e.size) != e.checksum) {
			sqlite3_reset(get);
			continue;
		}
		ok = put_at(w->f, w->chosen[i].off, &e, sizeof e) == 0 &&
		     fwrite(kernels, 1, e.kernels_len, w->f) == e.kernels_len &&
		     put_at(w->f, align8(w->chosen[i].off + sizeof e + e.kernels_len), code,
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
	w->h.checksum = header_sum(&w->h, w->slots, w->memos ? (void *)w->memos : (void *)"");
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
	if (rj_cache_exec(c, DELETIONS_SQL) != 0 || read_deletions(c, &w.h.deletions) != 0) {
		rj_cache_exec(c, "ROLLBACK");
		return -1;
	}
	/* The usage recorded on the index this one replaces counts in choosing. */
	if ((old = map_board(c)) != NULL)
		fold_board(c, old);
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
		fold_board(c, old);
	}
	rj_index_unmap(old);
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
