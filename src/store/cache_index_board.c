/*
 * cache_index_board.c - the read index's usage board: the one part of the index file
 * written after it is made, in place, by every process that hits it (struct index_board,
 * cache_index_internal.h).  Owns stamping a hit there (rj_index_stamp, for cache.c),
 * putting hits held in memory (rj_index_put_hits, for cache_usage.c), folding a board
 * into the database (rj_board_fold, rj_index_fold) and peeking at what it holds for the
 * readers of usage records (rj_index_peek_*, for cache_admin.c).
 *
 * Hits are recorded on the board, in the mapping, or held in memory for it
 * (cache_usage.c): a process served by the index starts no flusher thread in its first
 * seconds and opens no connection, not even at exit, and a process killed leaves the
 * entries it hit recent.
 *
 * Above cache_index.c, which maps and finds for it; below cache_index_write.c, which folds
 * through it before it replaces or removes a file.  Writes the board's counts only: never
 * the header, the slots, the entries or the memos, never the file's name in the folder,
 * and it does not retire a board (the writer's act).
 */
#include <string.h>
#include <time.h>

#include "store/cache_index_internal.h"
#include "store/cache_internal.h"

/* Bounds on what a board says (any process that may write the file writes it). */
#define BOARD_MAX_HITS (1ull << 40)
#define BOARD_MAX_SAVED_US (1ull << 52)

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

/* The usage record of key's entry on ix's board, or NULL. */
static struct index_usage *usage_of(const struct rj_index *ix, const rj_key *key)
{
	int bad;
	const struct index_entry *e = rj_index_entry_of(ix, key, &bad);

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

struct rj_index *rj_board_map(rj_cache *c)
{
	return rj_index_map_current(c, 1);
}

struct rj_index *rj_index_peek_open(rj_cache *c)
{
	return rj_index_map_current(c, 0);
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
void rj_board_fold(rj_cache *c, struct rj_index *ix)
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

void rj_index_fold(rj_cache *c)
{
	struct rj_index *ix;

	if (!c->db || !(ix = rj_board_map(c)))
		return;
	rj_board_fold(c, ix);
	rj_index_unmap(ix);
}
