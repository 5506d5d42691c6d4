/*
 * test_index.c - the cache's read index (src/store/cache_index*.c): a new process serves
 * its hits from rocjit-cache.index without opening the database, and the index never
 * serves what the database no longer holds.  Real SQLite files, real second processes
 * (fork), the store's own calls (no compiler) except where a test says so.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "store/cache_admin.h"
#include "store/cache_internal.h"
#include "harness.h"

static const struct rj_cache_meta meta = { "amd", "gfx90a", "fake", "", "x.hip", "", "k1,k2",
					   2.5, { { 0 } }, NULL, NULL, RJ_ORIGIN_COMPILED, NULL };

static void key_of(rj_key *k, int i)
{
	memset(k, 0, sizeof *k);
	k->b[0] = (unsigned char)(i & 0xff);
	k->b[1] = (unsigned char)(i >> 8);
	k->b[15] = 0xa5;
}

static const char *cache_file(const char *name)
{
	static char path[4400];

	snprintf(path, sizeof path, "%s/%s", rj_test_cache_dir, name);
	return path;
}

static void code_of(char *out, size_t size, int i, int version)
{
	snprintf(out, size, "code-%d-v%d-%0200d", i, version, i);
}

/* Stores entries [from, to) (code version v) and closes: the close writes the index. */
static void store(int from, int to, int v)
{
	char code[256];
	rj_cache *c;

	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	for (int i = from; i < to; i++) {
		rj_key k;
		key_of(&k, i);
		code_of(code, sizeof code, i, v);
		ASSERT_INT(rj_cache_put(c, &k, &meta, code, strlen(code)), 0);
	}
	rj_cache_close(c);
}

/* Entry i through c: 2 from the index, 1 from the database, 0 a miss; -1000 when the code
 * is not version v's, -2000 when the kernels column is not the one stored. */
static int get(rj_cache *c, int i, int v)
{
	char want[256], *kernels = NULL;
	const void *code = NULL;
	void *owned = NULL;
	size_t size = 0;
	double ms = 0;
	rj_key k;
	int rc;

	key_of(&k, i);
	code_of(want, sizeof want, i, v);
	rc = rj_cache_get(c, &k, &code, &owned, &size, &ms, &kernels);
	if (rc == 2 && !owned)
		rc = -3000; /* the index's hits are copies (the file can shrink under the map) */
	if (rc > 0 && (size != strlen(want) || memcmp(code, want, size) != 0 || ms != 2.5))
		rc = -1000;
	else if (rc > 0 && (!kernels || strcmp(kernels, "k1,k2") != 0))
		rc = -2000;
	free(owned);
	free(kernels);
	return rc;
}

static int have_index(void)
{
	return access(cache_file(RJ_INDEX_FILE), F_OK) == 0;
}

/* How many mappings of an index file this process has (/proc/self/maps), and in *gone
 * how many of them are of a file since replaced or removed (" (deleted)"). */
static int index_mappings(int *gone)
{
	static const char name[] = "/" RJ_INDEX_FILE;
	char line[8192];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	*gone = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		char *at = strstr(line, name), *rest;

		if (!at)
			continue;
		rest = at + sizeof name - 1;
		if (!strcmp(rest, "\n")) {
			n++;
		} else if (!strcmp(rest, " (deleted)\n")) {
			n++;
			(*gone)++;
		}
	}
	fclose(f);
	return n;
}

/* ---- Served without the database ----------------------------------------------------------- */

static int hits_without_database(int n)
{
	rj_cache *c;

	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	RJ_CHILD_CHECK(c->deferred && !c->db && c->index);
	for (int i = 0; i < n; i++)
		RJ_CHILD_CHECK(get(c, i, 1) == 2);
	RJ_CHILD_CHECK(!c->db); /* no connection was opened for them */
	RJ_CHILD_CHECK(get(c, n, 1) == 0); /* a miss opens it */
	RJ_CHILD_CHECK(c->db && !c->deferred);
	RJ_CHILD_CHECK(get(c, 0, 1) == 2); /* the index still serves */
	rj_cache_close(c);
	return 0;
}

TEST(new_process_hits_from_the_index_without_opening_the_database)
{
	store(0, 5, 1);
	ASSERT(have_index());
	ASSERT_INT(rj_test_in_child(hits_without_database, 5), 0);
	ASSERT_INT(rj_test_in_child(hits_without_database, 5), 0);
}

/* Entry i's hits and last use as the database holds them, read with the sqlite3 library
 * (no fold of the board): -1 when there is no such row. */
static int64_t raw_usage(int i, int64_t *last_used)
{
	sqlite3_stmt *st;
	sqlite3 *db;
	int64_t hits = -1;
	rj_key k;

	key_of(&k, i);
	ASSERT_INT(sqlite3_open(cache_file(RJ_CACHE_FILE), &db), SQLITE_OK);
	ASSERT_INT(sqlite3_prepare_v2(db, "SELECT hits, last_used FROM entries WHERE key = ?1", -1,
				      &st, NULL),
		   SQLITE_OK);
	sqlite3_bind_blob(st, 1, k.b, 16, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		hits = sqlite3_column_int64(st, 0);
		if (last_used)
			*last_used = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return hits;
}

struct usage_seen {
	rj_key key;
	uint64_t hits;
	int64_t last_used;
};

static int usage_of_entry(const rocjit_entry *e, void *user)
{
	struct usage_seen *u = user;
	char hex[33];

	rj_key_hex(&u->key, hex);
	if (!strcmp(e->key, hex)) {
		u->hits = e->hits;
		u->last_used = e->last_used;
	}
	return 0;
}

/* Entry i's hits and last use as rocjit's walk reports them (the board folded in). */
static uint64_t usage(int i, int64_t *last_used)
{
	struct usage_seen u = { { { 0 } }, 0, 0 };
	rj_cache *c;

	key_of(&u.key, i);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(rj_cache_foreach(c, NULL, usage_of_entry, &u), 0);
	rj_cache_close(c);
	if (last_used)
		*last_used = u.last_used;
	return u.hits;
}

static uint64_t get_count_and_close(int i);
static int store_one(int i);
static int remove_entry(int i);

/* The hits a process served from the index are recorded on the index's board, in place:
 * the process opens no connection for them, not even at close, and whoever reads usage
 * (rocjit list, stats) writes the board into the database first. */
TEST(hits_from_the_index_are_recorded_on_its_board)
{
	rj_cache *c;
	int64_t last = 0, before = (int64_t)time(NULL);

	store(0, 3, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT(c->deferred);
	ASSERT_INT(get(c, 1, 1), 2);
	ASSERT_INT(get(c, 1, 1), 2);
	ASSERT(!c->db);
	rj_cache_close(c);
	ASSERT_INT(raw_usage(1, NULL), 0); /* the close opened no connection */
	ASSERT_INT(usage(1, &last), 2);    /* readers add the board */
	ASSERT(last >= before && last <= (int64_t)time(NULL));
	ASSERT_INT(usage(0, NULL), 0);
	ASSERT_INT(raw_usage(1, NULL), 0); /* reading changed nothing */

	/* The next index writer folds the board into the database, once. */
	setenv("ROCJIT_CACHE_INDEX_SIZE", "0", 1);
	store(3, 4, 1); /* an entry the index lacks */
	unsetenv("ROCJIT_CACHE_INDEX_SIZE");
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 3, 1), 1);
	rj_cache_close(c); /* writes the index: folds the old one's board */
	ASSERT_INT(raw_usage(1, NULL), 2);
	ASSERT_INT(usage(1, NULL), 2);
	ASSERT_INT(get_count_and_close(3), 2); /* its own hit, now from the new index */
	ASSERT_INT(usage(1, NULL), 2);
}

/* Opens the cache, hits entry i from the index, closes; then entry i's usage. */
static uint64_t get_count_and_close(int i)
{
	rj_cache *c;

	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, i, 1), 2);
	rj_cache_close(c);
	return usage(i, NULL);
}

static int hit_then_die(int n)
{
	rj_cache *c;

	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	for (int i = 0; i < n; i++)
		RJ_CHILD_CHECK(get(c, 2, 1) == 2);
	raise(SIGKILL);
	return 1;
}

static int hit_then_exit(int n)
{
	rj_cache *c;

	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	for (int i = 0; i < n; i++)
		RJ_CHILD_CHECK(get(c, 1, 1) == 2);
	exit(0); /* without closing: the exit handler puts held hits on the board */
}

/* The board is the page cache: a hit of an entry not used for a while is recorded the
 * moment it is served, so a process killed right after (a scheduler's SIGKILL, OOM)
 * leaves it recent.  Hits of an entry used within the last minute change no recency:
 * they are held in memory (no write to the board's page on the request path) and put on
 * the board at exit - lost, as counts only, when the process is killed. */
TEST(hits_survive_the_process_being_killed)
{
	rocjit_counters n;
	rj_cache *c;
	int64_t last = 0, before = (int64_t)time(NULL);

	store(0, 3, 1);
	ASSERT_INT(rj_test_in_child(hit_then_die, 3), 128 + SIGKILL);
	ASSERT_INT(usage(2, &last), 1);   /* the first hit, on the board at once */
	ASSERT(last >= before);
	ASSERT_INT(rj_test_in_child(hit_then_die, 1), 128 + SIGKILL);
	ASSERT_INT(usage(2, NULL), 1);    /* recent already: held, and lost with the process */

	/* A process that exits counts every hit, held or not. */
	ASSERT_INT(rj_test_in_child(hit_then_exit, 3), 0);
	ASSERT_INT(usage(1, NULL), 3);
	ASSERT_INT(rj_test_in_child(hit_then_exit, 2), 0);
	ASSERT_INT(usage(1, NULL), 5);
	memset(&n, 0, sizeof n);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(rj_cache_counters(c, &n), 0);
	ASSERT_INT(n.disk_hits, 6);
	ASSERT(n.saved_ms > 6 * 2.5 - 0.01 && n.saved_ms < 6 * 2.5 + 0.01);
	rj_cache_close(c);
}

static int threads_now(void)
{
	struct stat st;

	return stat("/proc/self/task", &st) == 0 ? (int)st.st_nlink - 2 : -1;
}

static int index_only_process(int n)
{
	rj_cache *c;
	int before = threads_now();

	RJ_CHILD_CHECK(before >= 1);
	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	for (int i = 0; i < n; i++)
		RJ_CHILD_CHECK(get(c, i, 1) == 2);
	RJ_CHILD_CHECK(threads_now() == before); /* no flusher thread was started */
	RJ_CHILD_CHECK(!c->db);
	return 0; /* exits with the cache open: the exit handler opens nothing either */
}

TEST(a_process_served_by_the_index_starts_no_thread_and_opens_no_database)
{
	store(0, 3, 1);
	ASSERT_INT(rj_test_in_child(index_only_process, 3), 0);
	for (int i = 0; i < 3; i++)
		ASSERT_INT(raw_usage(i, NULL), 0);
	for (int i = 0; i < 3; i++)
		ASSERT_INT(usage(i, NULL), 1);
}

/* Hits recorded only on the board count for the size limit: eviction folds them in before
 * it picks the least recently used. */
TEST(eviction_sees_the_hits_on_the_board)
{
	rj_cache *c;
	char code[3000];
	rj_key k;

	store(0, 10, 1);
	sleep(1); /* last_used has seconds: the hits below are a second later */
	ASSERT_INT(rj_test_in_child(index_only_process, 5), 0); /* entries 0..4 */
	/* 10 entries of 210 bytes and one of 3000: down to 90% of 4600 takes 5 entries. */
	setenv("ROCJIT_CACHE_MAXSIZE", "4600", 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	memset(code, 'x', sizeof code);
	key_of(&k, 500);
	ASSERT_INT(rj_cache_put(c, &k, &meta, code, sizeof code), 0); /* evicts */
	unsetenv("ROCJIT_CACHE_MAXSIZE");
	for (int i = 0; i < 5; i++)
		ASSERT_INT(get(c, i, 1), 1);      /* used last: kept */
	for (int i = 5; i < 10; i++)
		ASSERT_INT(get(c, i, 1), 0);      /* the least recently used: gone */
	rj_cache_close(c);
}

/* The board is written by every process that may write the file: values from a damaged
 * or hostile board are bounded when folded (a last use far in the future would keep an
 * entry from ever being evicted). */
TEST(board_values_are_bounded_when_folded)
{
	rocjit_counters n;
	struct stat st;
	unsigned char *m;
	int64_t last = 0;
	rj_cache *c;
	int fd;

	store(0, 2, 1);
	fd = open(cache_file(RJ_INDEX_FILE), O_RDWR);
	ASSERT(fd >= 0 && fstat(fd, &st) == 0);
	m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT(m != MAP_FAILED);
	/* The board: right after the 128-byte header, its own 64 bytes (disk_hits at 8,
	   saved_us at 16), then {hits, last_used} per entry. */
	ASSERT(memcmp(m, "rjindex", 8) == 0);
	{
		uint64_t huge = ~0ull;
		int64_t when = INT64_MAX;
		memcpy(m + 128 + 8, &huge, 8);
		memcpy(m + 128 + 16, &huge, 8);
		for (size_t off = 128 + 64; off < 128 + 64 + 2 * 16; off += 16) {
			memcpy(m + off, &huge, 8);
			memcpy(m + off + 8, &when, 8);
		}
	}
	munmap(m, (size_t)st.st_size);
	close(fd);
	/* Read (added to the database's figures, not written) ... */
	ASSERT(usage(0, &last) <= (1ull << 40));
	ASSERT(last <= (int64_t)time(NULL) + 60);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	memset(&n, 0, sizeof n);
	ASSERT_INT(rj_cache_counters(c, &n), 0);
	ASSERT(n.disk_hits <= (1ull << 40) && n.saved_ms <= (double)(1ull << 52) / 1000.0);
	/* ... and folded into it (removing an entry folds the board first). */
	{
		char hex[33];
		const char *keys[1] = { hex };
		rj_key k;
		key_of(&k, 1);
		rj_key_hex(&k, hex);
		ASSERT_INT(rj_cache_remove(c, keys, 1, NULL), 0);
	}
	rj_cache_close(c);
	ASSERT(raw_usage(0, &last) <= (int64_t)(1ull << 40));
	ASSERT(raw_usage(0, NULL) > 0);
	ASSERT(last <= (int64_t)time(NULL) + 60);
	ASSERT(usage(0, NULL) <= (1ull << 40) + 1);
}

static int hit_n_then_close(int n)
{
	rj_cache *c;

	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	for (int i = 0; i < n; i++)
		RJ_CHILD_CHECK(get(c, 0, 1) == 2);
	rj_cache_close(c);
	return 0;
}

/* Hits held in memory (their entry recent on the board) are counted when the index they
 * came from is replaced by another process's before the close: put on the new index's
 * board, which has the entry. */
TEST(held_hits_survive_the_index_being_replaced)
{
	rj_cache *c;

	store(0, 2, 1);
	ASSERT_INT(rj_test_in_child(hit_n_then_close, 1), 0); /* entry 0 recent on the board */
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	for (int i = 0; i < 10; i++)
		ASSERT_INT(get(c, 0, 1), 2); /* held */
	ASSERT_INT(rj_test_in_child(store_one, 50), 0); /* writes a new index */
	ASSERT_INT(get(c, 1, 1), 2); /* moves to it */
	rj_cache_close(c);
	ASSERT_INT(usage(0, NULL), 11);
	ASSERT_INT(usage(1, NULL), 1);
}

/* ... and when this process removes the index itself (a removal): into the database. */
TEST(held_hits_survive_the_process_removing_the_index)
{
	char hex[33];
	const char *keys[1] = { hex };
	rj_cache *c;
	rj_key k;

	store(0, 3, 1);
	ASSERT_INT(rj_test_in_child(hit_n_then_close, 1), 0);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	for (int i = 0; i < 10; i++)
		ASSERT_INT(get(c, 0, 1), 2);
	key_of(&k, 2);
	rj_key_hex(&k, hex);
	ASSERT_INT(rj_cache_remove(c, keys, 1, NULL), 0); /* the index goes */
	ASSERT(!have_index());
	rj_cache_close(c);
	ASSERT_INT(usage(0, NULL), 11);
}

/* An index is written when a process used entries it lacks: hits from the database (no
 * index yet, or entries stored by a process that wrote none) and stores. */
TEST(index_is_written_with_what_a_process_used)
{
	rj_cache *c;

	setenv("ROCJIT_CACHE_INDEX_SIZE", "0", 1); /* a writer that keeps no index */
	store(0, 4, 1);
	ASSERT(!have_index());
	unsetenv("ROCJIT_CACHE_INDEX_SIZE");
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT(!c->deferred && !c->index);
	ASSERT_INT(get(c, 2, 1), 1);
	rj_cache_close(c);
	ASSERT(have_index());
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT(c->deferred);
	for (int i = 0; i < 4; i++)
		ASSERT_INT(get(c, i, 1), 2); /* every entry fits: all are written */
	rj_cache_close(c);

	/* Entries another process stored later are found in the database, and a process
	   that found them writes them into the index. */
	setenv("ROCJIT_CACHE_INDEX_SIZE", "0", 1);
	store(4, 6, 1);
	unsetenv("ROCJIT_CACHE_INDEX_SIZE");
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 5, 1), 1);
	ASSERT_INT(get(c, 0, 1), 2);
	rj_cache_close(c);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 5, 1), 2);
	ASSERT_INT(get(c, 4, 1), 2);
	rj_cache_close(c);
}

/* ROCJIT_CACHE_INDEX_SIZE=0: no index is read, none written. */
TEST(index_size_zero_turns_the_index_off)
{
	rj_cache *c;

	store(0, 2, 1);
	ASSERT(have_index());
	setenv("ROCJIT_CACHE_INDEX_SIZE", "0", 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT(!c->deferred && !c->index);
	ASSERT_INT(get(c, 0, 1), 1);
	rj_cache_close(c);
}

/* The index keeps the most recently used entries that fit in its size. */
TEST(index_keeps_the_most_recently_used_entries_that_fit)
{
	rj_cache *c;
	int in_index = 0;

	store(0, 40, 1);
	/* Use entries 30..39 last (a second later: last_used has seconds). */
	sleep(1);
	setenv("ROCJIT_CACHE_INDEX_SIZE", "4096", 1); /* about 12 of these entries */
	ASSERT_INT(unlink(cache_file(RJ_INDEX_FILE)), 0);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	for (int i = 30; i < 40; i++)
		ASSERT_INT(get(c, i, 1), 1);
	rj_cache_close(c);
	ASSERT(have_index());
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	for (int i = 30; i < 40; i++)
		ASSERT_INT(get(c, i, 1), 2);
	for (int i = 0; i < 30; i++)
		in_index += get(c, i, 1) == 2;
	ASSERT(in_index < 5);
	rj_cache_close(c);
	{
		struct stat st;
		ASSERT_INT(stat(cache_file(RJ_INDEX_FILE), &st), 0);
		ASSERT(st.st_size <= 4096 + 16 * 1024); /* entries within the size, and the slots */
	}
}

/* ---- Never what the database no longer holds ------------------------------------------------ */

/* Removing entries (rocjit purge, remove) removes the index, in this process too. */
TEST(removing_entries_removes_the_index)
{
	char hex[33];
	const char *keys[1] = { hex };
	size_t removed = 0;
	rj_cache *c;
	rj_key k;

	store(0, 3, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 1, 1), 2);
	key_of(&k, 1);
	rj_key_hex(&k, hex);
	ASSERT_INT(rj_cache_remove(c, keys, 1, &removed), 0);
	ASSERT_INT(removed, 1);
	ASSERT(!have_index());
	ASSERT_INT(get(c, 1, 1), 0); /* not from this process's mapping either */
	ASSERT_INT(get(c, 0, 1), 1);
	rj_cache_close(c);
	/* Written again by the close, without the removed entry. */
	ASSERT(have_index());
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 1, 1), 0);
	ASSERT_INT(get(c, 0, 1), 2);
	rj_cache_close(c);
}

/* The code of an index hit is the caller's copy (issue 27: the file can shrink under the
 * mapping): it outlives the index and the cache, and no index stays mapped for it. */
TEST(code_from_the_index_is_a_copy_that_outlives_the_index)
{
	char hex[33], want[256];
	const char *keys[1] = { hex };
	const void *code;
	void *owned;
	size_t size;
	double ms;
	rj_cache *c;
	rj_key k;
	int gone;

	store(0, 3, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	key_of(&k, 0);
	ASSERT_INT(rj_cache_get(c, &k, &code, &owned, &size, &ms, NULL), 2);
	ASSERT(owned != NULL && code == owned);
	ASSERT_INT(index_mappings(&gone), 1);
	key_of(&k, 2);
	rj_key_hex(&k, hex);
	ASSERT_INT(rj_cache_remove(c, keys, 1, NULL), 0); /* the index goes */
	ASSERT(!c->index);
	ASSERT_INT(index_mappings(&gone), 0); /* unmapped at once, the hit's code held */
	rj_cache_close(c);
	code_of(want, sizeof want, 0, 1);
	ASSERT_INT(size, strlen(want));
	ASSERT(memcmp(code, want, size) == 0);
	free(owned);
}

/* Deletes entry i through a program that does not know the index (the sqlite3 library). */
static void foreign_delete(int i)
{
	sqlite3_stmt *st;
	sqlite3 *db;
	rj_key k;

	key_of(&k, i);
	ASSERT_INT(sqlite3_open(cache_file(RJ_CACHE_FILE), &db), SQLITE_OK);
	ASSERT_INT(sqlite3_prepare_v2(db, "DELETE FROM entries WHERE key = ?1", -1, &st, NULL),
		   SQLITE_OK);
	sqlite3_bind_blob(st, 1, k.b, 16, SQLITE_STATIC);
	ASSERT_INT(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Rows deleted by a program that does not know the index (an older rocjit, the sqlite3
 * shell): the database counts deletions itself, and a process that opens it drops an index
 * written before them. */
TEST(index_written_before_a_foreign_deletion_is_dropped_when_the_database_opens)
{
	rj_cache *c;

	store(0, 4, 1);
	ASSERT(have_index());
	foreign_delete(2);
	ASSERT(have_index()); /* the foreign program left it */

	/* A read-only process stops using it and leaves the folder as it is. */
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 1), 0);
	ASSERT(c->deferred);
	ASSERT_INT(get(c, 100, 1), 0); /* a miss opens the database */
	ASSERT(!c->index);
	ASSERT_INT(get(c, 2, 1), 0);
	ASSERT_INT(get(c, 1, 1), 1);
	rj_cache_close(c);
	ASSERT(have_index());

	/* A writer removes it, and writes a sound one at close. */
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 100, 1), 0);
	ASSERT(!c->index);
	ASSERT_INT(get(c, 2, 1), 0);
	ASSERT_INT(get(c, 3, 1), 1);
	rj_cache_close(c);
	ASSERT(have_index());
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 3, 1), 2);
	ASSERT_INT(get(c, 2, 1), 0);
	ASSERT_INT(get(c, 100, 1), 0);
	ASSERT(c->index); /* still sound after the database opened */
	rj_cache_close(c);
}

/* A process that goes on hitting only its index still learns of a foreign deletion: a hit
 * 2 s or more after the last check has the flusher open the database, in the background,
 * and check the count. */
TEST(flusher_drops_an_index_older_than_a_foreign_deletion)
{
	rj_cache *c;
	int waited = 0;

	store(0, 3, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 0, 1), 2);
	foreign_delete(1);
	ASSERT_INT(get(c, 1, 1), 2); /* stale, until the database is checked */
	sleep(RJ_CHECK_S + 1);
	ASSERT_INT(get(c, 2, 1), 2); /* a hit past the interval: the check is due */
	while (waited++ < 50) {
		int gone;
		pthread_mutex_lock(&c->lock);
		gone = c->index == NULL;
		pthread_mutex_unlock(&c->lock);
		if (gone)
			break;
		usleep(100000);
	}
	ASSERT(waited < 50);
	ASSERT_INT(get(c, 1, 1), 0);
	ASSERT(get(c, 2, 1) > 0); /* from the database, or from the index the flusher wrote */
	rj_cache_close(c);
}

static int remove_entry(int i)
{
	char hex[33];
	const char *keys[1] = { hex };
	size_t removed = 0;
	rj_cache *c;
	rj_key k;

	key_of(&k, i);
	rj_key_hex(&k, hex);
	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	RJ_CHILD_CHECK(rj_cache_remove(c, keys, 1, &removed) == 0 && removed == 1);
	rj_cache_close(c);
	return 0;
}

/* Another process's removal retires the index on its board: a process that has it mapped
 * stops serving from it at its next lookup, not at its next check. */
TEST(removal_by_another_process_is_seen_at_the_next_lookup)
{
	rj_cache *c;

	store(0, 3, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 1, 1), 2);
	ASSERT_INT(rj_test_in_child(remove_entry, 1), 0);
	ASSERT_INT(get(c, 1, 1), 0);
	ASSERT_INT(get(c, 0, 1) > 0, 1);
	rj_cache_close(c);
}

/* A process whose database was removed and made anew while it ran writes its index from
 * the database now in the folder, never from the rows of the one it first opened. */
TEST(index_is_written_from_the_database_now_in_the_folder)
{
	static const char *const files[] = { RJ_CACHE_FILE, RJ_CACHE_FILE "-wal",
					     RJ_CACHE_FILE "-shm" };
	rj_cache *c;

	setenv("ROCJIT_CACHE_INDEX_SIZE", "0", 1);
	store(0, 3, 1);
	unsetenv("ROCJIT_CACHE_INDEX_SIZE");
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 0, 1), 1); /* a hit the (absent) index lacks: written at close */
	for (int i = 0; i < 3; i++)
		unlink(cache_file(files[i]));
	setenv("ROCJIT_CACHE_INDEX_SIZE", "0", 1);
	store(0, 2, 2); /* another database: entries 0 and 1, other code */
	unsetenv("ROCJIT_CACHE_INDEX_SIZE");
	rj_cache_close(c);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	for (int i = 0; i < 2; i++)
		ASSERT(get(c, i, 2) > 0);
	ASSERT_INT(get(c, 2, 1), 0);
	rj_cache_close(c);
}

/* A cache folder given relative to the working folder stays that folder when the process
 * changes its working folder before the connection opens. */
TEST(relative_cache_folder_survives_a_change_of_working_folder)
{
	char other[4400], rel[64];
	rj_cache *c;

	store(0, 2, 1);
	ASSERT_INT(chdir(rj_test_dir), 0);
	snprintf(rel, sizeof rel, "%s", rj_test_cache_dir + strlen(rj_test_dir) + 1);
	ASSERT_INT(rj_cache_open(&c, rel, 0), 0);
	ASSERT(c->deferred);
	snprintf(other, sizeof other, "%s/elsewhere", rj_test_dir);
	ASSERT_INT(mkdir(other, 0700), 0);
	ASSERT_INT(chdir(other), 0);
	ASSERT_INT(get(c, 5, 1), 0); /* a miss: the connection opens now */
	ASSERT_INT(get(c, 1, 1), 2);
	rj_cache_close(c);
	{
		char stray[4500];
		snprintf(stray, sizeof stray, "%s/%s", other, rel);
		ASSERT(access(stray, F_OK) != 0); /* nothing made in the new working folder */
	}
}

/* The size limit's eviction removes the index, and what is written next lacks the evicted. */
TEST(eviction_removes_evicted_entries_from_the_index)
{
	rj_cache *c;
	char code[4096];
	rj_key k;
	int served = 0;

	store(0, 10, 1);
	ASSERT(have_index());
	setenv("ROCJIT_CACHE_MAXSIZE", "6000", 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	memset(code, 'x', sizeof code);
	key_of(&k, 500);
	sleep(1);
	ASSERT_INT(rj_cache_put(c, &k, &meta, code, sizeof code), 0); /* evicts most */
	for (int i = 0; i < 10; i++)
		served += get(c, i, 1) > 0;
	rj_cache_close(c);
	unsetenv("ROCJIT_CACHE_MAXSIZE");
	ASSERT(served < 10);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 1), 0);
	setenv("ROCJIT_CACHE_INDEX_SIZE", "0", 1);
	{
		rj_cache *db;
		ASSERT_INT(rj_cache_open(&db, rj_test_cache_dir, 1), 0);
		for (int i = 0; i < 10; i++)
			ASSERT_INT(get(c, i, 1) > 0, get(db, i, 1) > 0);
		rj_cache_close(db);
	}
	rj_cache_close(c);
}

/* A process writing the index while others remove entries: never an entry in the index
 * that the database lacks. */
static int reader_writer(int rounds)
{
	for (int r = 0; r < rounds; r++) {
		rj_cache *c;
		RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
		for (int i = 0; i < 60; i++)
			RJ_CHILD_CHECK(get(c, i, 1) >= 0);
		rj_cache_close(c); /* writes the index when it lacked a hit */
	}
	return 0;
}

static int remover(int first)
{
	for (int i = first; i < 60; i += 3) {
		char hex[33];
		const char *keys[1] = { hex };
		rj_cache *c;
		rj_key k;
		key_of(&k, i);
		rj_key_hex(&k, hex);
		RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
		RJ_CHILD_CHECK(rj_cache_remove(c, keys, 1, NULL) == 0);
		rj_cache_close(c);
		usleep(2000);
	}
	return 0;
}

/* fn(arg) in a child started now, from this (single-threaded) process: its pid. */
static pid_t start_child(int (*fn)(int), int arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		alarm(60);
		_exit(fn(arg));
	}
	ASSERT(pid > 0);
	return pid;
}

TEST(index_never_holds_an_entry_removed_while_it_was_written)
{
	pid_t pid[4];
	rj_cache *ix, *db;
	int indexed = 0;

	store(0, 60, 1);
	pid[0] = start_child(reader_writer, 15);
	pid[1] = start_child(reader_writer, 15);
	pid[2] = start_child(remover, 0);
	pid[3] = start_child(remover, 1);
	for (int i = 0; i < 4; i++) {
		int status;
		ASSERT(waitpid(pid[i], &status, 0) == pid[i]);
		ASSERT_INT(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), 0);
	}
	/* One more reader, so that an index is there to check. */
	ASSERT_INT(rj_test_in_child(reader_writer, 1), 0);
	ASSERT(have_index());
	ASSERT_INT(rj_cache_open(&ix, rj_test_cache_dir, 1), 0);
	ASSERT(ix->index);
	setenv("ROCJIT_CACHE_INDEX_SIZE", "0", 1);
	ASSERT_INT(rj_cache_open(&db, rj_test_cache_dir, 1), 0);
	for (int i = 0; i < 60; i++) {
		int in_ix = get(ix, i, 1), in_db = get(db, i, 1);
		ASSERT(in_ix >= 0 && in_db >= 0);
		if (in_ix == 2)
			ASSERT_INT(in_db, 1);
		indexed += in_ix == 2;
		if (i % 3 == 2)
			ASSERT_INT(in_db, 1); /* never removed */
	}
	ASSERT(indexed >= 20);
	rj_cache_close(ix);
	rj_cache_close(db);
}

/* An index written from another database file (removed, replaced, moved aside) is not
 * used, even when the new file reuses the old one's inode. */
TEST(index_of_a_replaced_database_is_not_used)
{
	static const char *const files[] = { RJ_CACHE_FILE, RJ_CACHE_FILE "-wal",
					     RJ_CACHE_FILE "-shm" };
	char saved[4400];
	rj_cache *c;

	store(0, 3, 1);
	snprintf(saved, sizeof saved, "%s/saved-index", rj_test_dir);
	ASSERT_INT(rename(cache_file(RJ_INDEX_FILE), saved), 0);
	for (int i = 0; i < 3; i++)
		unlink(cache_file(files[i]));
	setenv("ROCJIT_CACHE_INDEX_SIZE", "0", 1);
	store(0, 3, 2); /* the same keys, other code */
	unsetenv("ROCJIT_CACHE_INDEX_SIZE");
	ASSERT_INT(rename(saved, cache_file(RJ_INDEX_FILE)), 0);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT(!c->deferred && !c->index);
	for (int i = 0; i < 3; i++)
		ASSERT_INT(get(c, i, 2), 1);
	rj_cache_close(c);
	/* The close wrote an index of this file. */
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 1, 2), 2);
	rj_cache_close(c);
}

/* ---- An index not to be trusted or damaged --------------------------------------------------- */

/* Flips the byte at the first occurrence of needle in the index file. */
static void damage_at(const char *needle, size_t len)
{
	size_t size;
	char *data = rj_test_read_file(cache_file(RJ_INDEX_FILE), &size);
	char *at = memmem(data, size, needle, len);
	int fd;

	ASSERT(at);
	at[len - 1] ^= 0x20;
	/* In place, as damage would be (writers replace the file whole). */
	fd = open(cache_file(RJ_INDEX_FILE), O_WRONLY);
	ASSERT(fd >= 0);
	ASSERT_INT(pwrite(fd, at + len - 1, 1, at + len - 1 - data), 1);
	close(fd);
	free(data);
}

TEST(damaged_code_or_kernels_in_the_index_are_not_served)
{
	rj_cache *c;
	char code[256];

	store(0, 3, 1);
	code_of(code, sizeof code, 1, 1);
	damage_at(code, strlen(code)); /* entry 1's code */
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 0, 1), 2);
	ASSERT_INT(get(c, 1, 1), 1); /* from the database, right */
	ASSERT(!c->index);           /* the index is not used again */
	ASSERT_INT(get(c, 2, 1), 1);
	rj_cache_close(c);
	/* Written anew at close. */
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 1, 1), 2);
	rj_cache_close(c);

	damage_at("k1,k2", 5); /* a kernels column: its own checksum */
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	for (int i = 0; i < 3; i++)
		ASSERT(get(c, i, 1) > 0);
	ASSERT(!c->index);
	rj_cache_close(c);
}

/* The description digest the index gave with the last signature asked for. */
static unsigned char index_described[RJ_SIG_DIGEST_BYTES];

/* Entry i's signature as the index holds it, for a hit on it through c (whose code must
 * come from the index): 1 and *sig, 0 when the index holds it unsigned. */
static int index_signature(rj_cache *c, int i, struct rj_stored_sig *sig)
{
	unsigned char d[RJ_SIG_DIGEST_BYTES];
	const void *code = NULL;
	void *owned = NULL;
	size_t size = 0;
	double ms = 0;
	rj_key k;
	int rc;

	key_of(&k, i);
	ASSERT_INT(rj_cache_get(c, &k, &code, &owned, &size, &ms, NULL), 2);
	rc = rj_cache_index_signature(c, &k, code, sig, index_described);
	/* No code, no hit. */
	ASSERT_INT(rj_cache_index_signature(c, &k, NULL, sig + 1, d), 0);
	free(owned);
	return rc;
}

/* Each entry's signature rides in the index, as the database held it, checked with the
 * entry's other fields: read without the database, and a damaged one is never given. */
TEST(index_holds_each_entry_signature_checked_with_its_fields)
{
	struct rj_cache_meta signed_meta = meta;
	struct rj_stored_sig sig[2];
	unsigned char bytes[RJ_SIG_BYTES];
	char code[256];
	rj_cache *c;
	rj_key k;

	for (int i = 0; i < RJ_SIG_BYTES; i++)
		bytes[i] = (unsigned char)(0x80 + i);
	signed_meta.signer = "release-2026";
	signed_meta.sig = bytes;
	store(0, 3, 1);
	/* Entry 1 stored again, signed; the close writes the index with its signature. */
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	key_of(&k, 1);
	code_of(code, sizeof code, 1, 1);
	ASSERT_INT(rj_cache_put(c, &k, &signed_meta, code, strlen(code)), 0);
	rj_cache_close(c);

	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(index_signature(c, 1, sig), 1);
	ASSERT_STR(sig[0].signer, "release-2026");
	ASSERT_INT(sig[0].len, RJ_SIG_BYTES);
	ASSERT(memcmp(sig[0].sig, bytes, RJ_SIG_BYTES) == 0);
	{	/* Beside it, the digest of the texts the signature covers (issue 27). */
		unsigned char want[RJ_SIG_DIGEST_BYTES];
		rj_sig_describe_text(want, meta.options, meta.source_name, meta.headers);
		ASSERT(memcmp(index_described, want, sizeof want) == 0);
	}
	ASSERT_INT(index_signature(c, 0, sig), 0);
	ASSERT_INT(sig[0].len, 0);
	ASSERT(!c->db); /* none of it opened the database */
	rj_cache_close(c);

	/* A byte of the signature changed: the entry is damaged, the index not used. */
	damage_at((const char *)bytes, RJ_SIG_BYTES);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 1, 1), 1);
	ASSERT(!c->index);
	ASSERT_INT(rj_cache_index_signature(c, &k, code, sig, index_described), 0);
	rj_cache_close(c);
	/* Written anew at close, with the database's signature. */
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(index_signature(c, 1, sig), 1);
	ASSERT(memcmp(sig[0].sig, bytes, RJ_SIG_BYTES) == 0);
	rj_cache_close(c);
}

/* An index of an earlier version (3: entries without their signature) is not read, and is
 * written anew. */
TEST(index_of_an_earlier_version_is_written_anew)
{
	size_t size;
	char *data;
	uint32_t version = 3;
	rj_cache *c;

	store(0, 3, 1);
	data = rj_test_read_file(cache_file(RJ_INDEX_FILE), &size);
	memcpy(data + 8, &version, 4);
	unlink(cache_file(RJ_INDEX_FILE));
	rj_test_write_file(cache_file(RJ_INDEX_FILE), data, size);
	chmod(cache_file(RJ_INDEX_FILE), 0600);
	free(data);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT(!c->index);
	ASSERT_INT(get(c, 0, 1), 1);
	rj_cache_close(c);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 0, 1), 2);
	rj_cache_close(c);
}

/* A row damaged in the database is left out of the index written from it; the next read
 * from the database drops it. */
TEST(damaged_database_row_is_left_out_of_the_index)
{
	sqlite3 *db;
	rj_cache *c;

	store(0, 3, 1);
	ASSERT_INT(unlink(cache_file(RJ_INDEX_FILE)), 0);
	ASSERT_INT(sqlite3_open(cache_file(RJ_CACHE_FILE), &db), SQLITE_OK);
	ASSERT_INT(sqlite3_exec(db, "UPDATE entries SET code = CAST(upper(CAST(code AS TEXT)) AS "
				"BLOB) WHERE key = (SELECT key FROM entries ORDER BY created, "
				"rowid LIMIT 1 OFFSET 1)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 0, 1), 1); /* a hit the index lacks: it is written at close */
	rj_cache_close(c);
	ASSERT(have_index());
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 0, 1), 2);
	ASSERT_INT(get(c, 2, 1), 2);
	ASSERT_INT(get(c, 1, 1), 0); /* damaged: not in the index, dropped from the database */
	rj_cache_close(c);
}

/* Truncated, grown, garbage, a header that lies: never used, never a crash. */
TEST(truncated_or_garbage_index_is_not_used)
{
	size_t size;
	char *data;
	rj_cache *c;

	store(0, 5, 1);
	data = rj_test_read_file(cache_file(RJ_INDEX_FILE), &size);
	for (int round = 0; round < 6; round++) {
		char *copy = malloc(size + 64);
		size_t n = size;
		memcpy(copy, data, size);
		switch (round) {
		case 0: n = size / 2; break;                      /* truncated */
		case 1: n = 50; break;                            /* less than a header */
		case 2: memset(copy + 128 + 64 + 16 * 5 + 8, 0xff, 64); break; /* the slots,
		                                                   past header and board */
		case 3: memset(copy + 48, 0x7f, 8); break;        /* the size field */
		case 4: memset(copy, 'x', size); break;           /* garbage */
		case 5: memset(copy + size, 0, 64); n = size + 64; break; /* grown */
		}
		unlink(cache_file(RJ_INDEX_FILE));
		rj_test_write_file(cache_file(RJ_INDEX_FILE), copy, n);
		chmod(cache_file(RJ_INDEX_FILE), 0600);
		ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 1), 0);
		ASSERT(!c->index);
		for (int i = 0; i < 5; i++)
			ASSERT_INT(get(c, i, 1), 1);
		rj_cache_close(c);
		free(copy);
	}
	free(data);
}

/* Every byte of an index changed in turn (every one in the header and the slots, then
 * every 7th): whatever a reader makes of it, each entry it serves is the right code, from
 * the index or from the database, and nothing crashes. */
TEST(index_with_any_byte_changed_serves_only_right_code)
{
	size_t size;
	char *data;
	int from_index = 0, rounds = 0;

	store(0, 5, 1);
	data = rj_test_read_file(cache_file(RJ_INDEX_FILE), &size);
	for (size_t at = 0; at < size; at += at < 1024 ? 1 : 7) {
		rj_cache *c;
		data[at] ^= 0x5a;
		unlink(cache_file(RJ_INDEX_FILE));
		rj_test_write_file(cache_file(RJ_INDEX_FILE), data, size);
		chmod(cache_file(RJ_INDEX_FILE), 0600);
		data[at] ^= 0x5a;
		ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 1), 0);
		for (int i = 0; i < 5; i++) {
			int rc = get(c, i, 1);
			if (rc != 1 && rc != 2)
				rj_test_fail(__FILE__, __LINE__, "byte %zu changed: entry %d: %d", at,
					     i, rc);
			from_index += rc == 2;
		}
		rj_cache_close(c);
		rounds++;
	}
	free(data);
	/* Changes inside code objects' padding or unused slots leave the rest usable. */
	ASSERT(from_index > 0 && rounds > 1000);
}

/* The trust rule of the cache's files: a link is not followed, a file others may write
 * is not read. */
TEST(index_that_is_a_link_or_writable_by_others_is_not_used)
{
	char elsewhere[4400];
	rj_cache *c;

	store(0, 2, 1);
	snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", rj_test_dir);
	ASSERT_INT(rename(cache_file(RJ_INDEX_FILE), elsewhere), 0);
	ASSERT_INT(symlink(elsewhere, cache_file(RJ_INDEX_FILE)), 0);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 1), 0);
	ASSERT(!c->index);
	ASSERT_INT(get(c, 0, 1), 1);
	rj_cache_close(c);
	unlink(cache_file(RJ_INDEX_FILE));
	ASSERT_INT(rename(elsewhere, cache_file(RJ_INDEX_FILE)), 0);
	ASSERT_INT(chmod(cache_file(RJ_INDEX_FILE), 0666), 0);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 1), 0);
	ASSERT(!c->index);
	ASSERT_INT(get(c, 1, 1), 1);
	rj_cache_close(c);
	ASSERT_INT(chmod(cache_file(RJ_INDEX_FILE), 0600), 0);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 1), 0);
	ASSERT(c->index);
	rj_cache_close(c);
}

static int store_one(int i)
{
	char code[256];
	rj_cache *c;
	rj_key k;

	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	key_of(&k, i);
	code_of(code, sizeof code, i, 1);
	RJ_CHILD_CHECK(rj_cache_put(c, &k, &meta, code, strlen(code)) == 0);
	rj_cache_close(c); /* writes the index anew: the old one is retired */
	return 0;
}

/* Hits hand out copies, so a replaced index is unmapped at once: the process follows every
 * new file and keeps no old one mapped. */
TEST(a_process_follows_replaced_indexes_and_keeps_none_mapped)
{
	rj_cache *c;
	int gone;

	store(0, 2, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 0, 1), 2);
	for (int round = 0; round < 8; round++) {
		ASSERT_INT(rj_test_in_child(store_one, 100 + round), 0);
		ASSERT_INT(get(c, 100 + round, 1) > 0, 1); /* stored by the child: found */
		ASSERT_INT(get(c, 0, 1), 2);               /* followed to the new file */
		/* The current file only: every replaced one was unmapped, however many. */
		ASSERT_INT(index_mappings(&gone), 1);
		ASSERT_INT(gone, 0);
	}
	rj_cache_close(c);
}

static ino_t index_inode(void)
{
	struct stat st;

	return stat(cache_file(RJ_INDEX_FILE), &st) == 0 ? st.st_ino : 0;
}

/* A process whose mapping another writer retired, opening the database, checks the folder's
 * current index against the deletions - not its own stale mapping, which would make it
 * drop an index written after the deletion. */
TEST(a_stale_mapping_never_drops_the_current_index)
{
	rj_cache *c;
	ino_t written;

	store(0, 3, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 0, 1), 2);
	ASSERT_INT(rj_test_in_child(remove_entry, 2), 0); /* retires and removes it */
	ASSERT_INT(rj_test_in_child(store_one, 60), 0);   /* writes a new one */
	written = index_inode();
	ASSERT(written != 0);
	/* No lookup in between: the connection opens for another call (the compiler memo),
	   and the deletions are checked while this process still maps the retired file. */
	ASSERT_INT(rj_cache_memo_put(c, "amd", "memo"), 0);
	ASSERT(index_inode() == written);
	ASSERT_INT(get(c, 0, 1), 2);   /* served from the new index */
	ASSERT_INT(get(c, 2, 1), 0);
	rj_cache_close(c);
}

/* fork() closes the connection (and the folder it pinned) while an index is mapped; an
 * index replaced after that is still followed, once the folder is open again. */
TEST(a_replaced_index_is_followed_after_fork)
{
	rj_cache *c;
	int status, served = 0;
	pid_t pid;

	store(0, 2, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 999, 1), 0); /* the connection open */
	ASSERT(c->db != NULL);
	pid = fork();
	if (pid == 0)
		_exit(0);
	ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid);
	ASSERT_INT(rj_test_in_child(store_one, 70), 0); /* a new index */
	for (int i = 0; i < 40 && served != 2; i++) {
		served = get(c, 70, 1);
		ASSERT(served > 0);
		if (served != 2)
			usleep(100000);
	}
	ASSERT_INT(served, 2);
	rj_cache_close(c);
}

/* ---- The compiler memo, fork, a real compile ------------------------------------------------- */

static int memo_without_database(int unused)
{
	rj_cache *c;
	char *memo = NULL;

	(void)unused;
	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	RJ_CHILD_CHECK(c->deferred);
	RJ_CHILD_CHECK(rj_cache_memo_get(c, "amd", &memo) == 1 && !strcmp(memo, "memo-of-amd"));
	free(memo);
	RJ_CHILD_CHECK(rj_cache_memo_get(c, "nvidia", &memo) == 1 && !strcmp(memo, "memo-of-nvidia"));
	free(memo);
	RJ_CHILD_CHECK(!c->db);
	rj_cache_close(c);
	return 0;
}

TEST(compiler_memos_are_served_from_the_index)
{
	rj_cache *c;

	store(0, 1, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(rj_cache_memo_put(c, "amd", "memo-of-amd"), 0);
	ASSERT_INT(rj_cache_memo_put(c, "nvidia", "memo-of-nvidia"), 0);
	rj_cache_close(c);
	ASSERT_INT(rj_test_in_child(memo_without_database, 0), 0);
}

/* A cache opened on its index, then fork(): both processes read and store. */
TEST(cache_opened_on_its_index_works_across_fork)
{
	rj_cache *c;
	int status;
	pid_t pid;

	store(0, 3, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT(c->deferred);
	ASSERT_INT(get(c, 0, 1), 2);
	pid = fork();
	if (pid == 0) {
		char code[256];
		rj_key k;
		int ok = get(c, 1, 1) == 2 && get(c, 9, 1) == 0;
		key_of(&k, 9);
		code_of(code, sizeof code, 9, 1);
		ok = ok && rj_cache_put(c, &k, &meta, code, strlen(code)) == 0;
		rj_cache_close(c);
		_exit(ok ? 0 : 1);
	}
	ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid);
	ASSERT_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	/* The child's close wrote an index with entry 9 and retired this one: the parent
	   moved to the new file. */
	ASSERT_INT(get(c, 9, 1), 2);
	ASSERT_INT(get(c, 2, 1), 2);
	rj_cache_close(c);
}

/* Through the public API with a real hipRTC compile: the second process's hit comes from
 * the index, counted in rocjit_stats. */
TEST(second_process_counts_its_hit_from_the_index)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_stats s;
	const rocjit_code *code;

	rj_test_compile_variant(ctx, "gfx90a", "INDEX_TEST", 1);
	rocjit_close(ctx);
	ASSERT(have_index());
	ctx = rj_test_open();
	code = rj_test_compile_variant(ctx, "gfx90a", "INDEX_TEST", 1);
	ASSERT(code->from_cache);
	memset(&s, 0, sizeof s);
	s.version = ROCJIT_STATS_VERSION;
	ASSERT_INT(rocjit_stats_get(&s, ctx), 0);
	ASSERT_INT(s.disk_hits, 1);
	ASSERT_INT(s.index_hits, 1);
	ASSERT_INT(s.compiles, 0);
	rocjit_close(ctx);
}

/* ---- A file shortened under the mapping (issue 27) ---------------------------------------- */

/* Entries stored for these tests: enough that the index spans many pages (about 90 KB),
 * so that a cut at a page leaves some entries mapped and others past the file's end. */
#define SHORT_N 300

static off_t index_size(void)
{
	struct stat st;

	return stat(cache_file(RJ_INDEX_FILE), &st) == 0 ? st.st_size : -1;
}

/* A cut at a page boundary near the middle, or 0. */
static off_t cut_at(int mid)
{
	return mid ? (index_size() / 2) & ~(off_t)4095 : 0;
}

/* In a second process: the index truncated to `to` bytes. */
static int truncate_index(int to)
{
	RJ_CHILD_CHECK(truncate(cache_file(RJ_INDEX_FILE), to) == 0);
	return 0;
}

/* In a new process: every entry in [0, n) served from the index, right. */
static int all_from_the_index(int n)
{
	rj_cache *c;

	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	for (int i = 0; i < n; i++)
		RJ_CHILD_CHECK(get(c, i, 1) == 2);
	rj_cache_close(c);
	return 0;
}

/* Every entry through c: right code from the index (2) or the database (1), never wrong,
 * never a miss; how many the database served. */
static int all_right(rj_cache *c)
{
	int from_db = 0;

	for (int i = 0; i < SHORT_N; i++) {
		int rc = get(c, i, 1);
		ASSERT(rc == 1 || rc == 2);
		from_db += rc == 1;
	}
	return from_db;
}

/* Truncated to 0 and to mid-file while mapped, by another process and by this one between
 * lookups: the process survives, each entry is served right (the index up to the cut, the
 * database past it), and the index written at close is used again by the next process. */
TEST(index_truncated_while_mapped_is_a_miss_never_a_crash)
{
	store(0, SHORT_N, 1);
	for (int round = 0; round < 4; round++) {
		int mid = round & 1, from_db;
		rj_cache *c;
		off_t cut;

		ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
		ASSERT(c->index);
		ASSERT_INT(get(c, 0, 1), 2);
		cut = cut_at(mid);
		ASSERT(!mid || cut >= 4096);
		if (round < 2)
			ASSERT_INT(rj_test_in_child(truncate_index, (int)cut), 0);
		else
			ASSERT_INT(truncate(cache_file(RJ_INDEX_FILE), cut), 0);
		from_db = all_right(c);
		ASSERT(from_db > 0);
		rj_cache_close(c); /* writes the index anew */
		ASSERT(index_size() > cut);
		ASSERT_INT(rj_test_in_child(all_from_the_index, SHORT_N), 0);
	}
}

static char *cp_data;
static size_t cp_size;

/* As cp over the file does, in another process: O_TRUNC, then the first `upto` bytes;
 * upto < 0: the rest, after them, without truncating. */
static int cp_index(int upto)
{
	int fd = open(cache_file(RJ_INDEX_FILE), upto >= 0 ? O_WRONLY | O_TRUNC : O_WRONLY);
	size_t from = upto >= 0 ? 0 : (size_t)-upto, to = upto >= 0 ? (size_t)upto : cp_size;

	RJ_CHILD_CHECK(fd >= 0);
	RJ_CHILD_CHECK(pwrite(fd, cp_data + from, to - from, (off_t)from) == (ssize_t)(to - from));
	close(fd);
	return 0;
}

/* `cp old-index rocjit-cache.index` while a process has it mapped: cut to nothing, then
 * half written, then whole again.  Each lookup is right or a miss served by the database;
 * the file rewritten whole is used by the next process. */
TEST(index_rewritten_by_cp_while_mapped_serves_only_right_code)
{
	rj_cache *c;
	int half;

	store(0, SHORT_N, 1);
	cp_data = rj_test_read_file(cache_file(RJ_INDEX_FILE), &cp_size);
	half = (int)(cp_size / 2) & ~4095;
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 0, 1), 2);
	ASSERT_INT(rj_test_in_child(cp_index, half), 0);
	ASSERT(all_right(c) > 0);
	ASSERT_INT(rj_test_in_child(cp_index, -half), 0);
	all_right(c);
	rj_cache_close(c);
	ASSERT_INT(rj_test_in_child(all_from_the_index, SHORT_N), 0);
	free(cp_data);
}

/* The usage board (the file's first page, written through the mapping with atomics) cut
 * from under a process: stamping a hit, putting held hits, peeking at it and closing all
 * survive, and the hit after it comes from the database. */
TEST(usage_board_truncated_under_its_mapping_takes_hits_without_crashing)
{
	uint64_t hits = 0;
	int64_t last = 0;
	double saved = 0;
	struct rj_index *peek;
	rj_cache *c;
	rj_key k;

	store(0, SHORT_N, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 0, 1), 2);
	ASSERT_INT(get(c, SHORT_N, 1), 0); /* a miss: the connection opens */
	peek = rj_index_peek_open(c);
	ASSERT(peek && c->index);
	ASSERT_INT(rj_test_in_child(truncate_index, 0), 0);
	key_of(&k, 0);
	ASSERT_INT(rj_index_stamp(c->index, 0, 2.5, 0), 1); /* onto zero pages, no file */
	ASSERT(rj_index_broken(c->index));
	rj_index_put_hits(c->index, &k, 3, (int64_t)time(NULL), 2.5);
	rj_index_peek_entry(peek, &k, &hits, &last);
	rj_index_peek_counters(peek, &hits, &saved);
	ASSERT_INT(hits, 0);
	rj_index_unmap(peek);
	ASSERT_INT(get(c, 1, 1), 1);
	rj_cache_close(c);
	ASSERT_INT(rj_test_in_child(all_from_the_index, SHORT_N), 0);
}

/* In a second process, for about a second: the index cut and written back (as cp does),
 * over and over. */
static int churn_index(int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		RJ_CHILD_CHECK(cp_index((int)(cp_size / 3)) == 0);
		usleep(200);
		RJ_CHILD_CHECK(cp_index(-(int)(cp_size / 3)) == 0);
		usleep(300);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return 0;
}

/* Hits (and board stamps) in one process while another cuts and rewrites the index under
 * it: every lookup is right code or served by the database, whatever moment the cut
 * comes at. */
TEST(hits_while_another_process_cuts_the_index_are_right)
{
	int status, rounds = 0;
	pid_t pid;

	store(0, SHORT_N, 1);
	cp_data = rj_test_read_file(cache_file(RJ_INDEX_FILE), &cp_size);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0)
		_exit(churn_index(1500));
	while (waitpid(pid, &status, WNOHANG) == 0) {
		rj_cache *c;

		/* Read-write every other round: hits stamped on the board. */
		ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, rounds & 1), 0);
		all_right(c);
		rj_cache_close(c);
		rounds++;
	}
	ASSERT_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	ASSERT(rounds > 0);
	free(cp_data);
}

static volatile sig_atomic_t app_faults;

/* An application's own SIGBUS handler: counts the fault and puts a page there. */
static void app_on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t page = (uintptr_t)si->si_addr & ~(uintptr_t)4095;

	(void)sig;
	(void)uc;
	app_faults++;
	mmap((void *)page, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
	     -1, 0);
}

/* A mapping of the test's own, truncated: one touch past its end. */
static int touch_own_truncated_mapping(void)
{
	char path[4400];
	char *p;
	int fd, v;

	snprintf(path, sizeof path, "%s/own.bin", rj_test_dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 8192) != 0)
		return -1;
	p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || ftruncate(fd, 0) != 0)
		return -1;
	v = ((volatile char *)p)[4096];
	munmap(p, 8192);
	close(fd);
	return v;
}

/* An application with its own SIGBUS handler, installed before rocjit's: rocjit survives
 * its index cut, and the application's own faults still reach its handler. */
TEST(an_application_sigbus_handler_still_gets_its_own_faults)
{
	struct sigaction sa;
	rj_cache *c;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = app_on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	ASSERT_INT(sigaction(SIGBUS, &sa, NULL), 0);
	store(0, SHORT_N, 1);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(get(c, 0, 1), 2);
	ASSERT_INT(truncate(cache_file(RJ_INDEX_FILE), 0), 0);
	ASSERT_INT(all_right(c), SHORT_N);
	ASSERT_INT(app_faults, 0); /* rocjit's fault was rocjit's */
	ASSERT_INT(touch_own_truncated_mapping(), 0);
	ASSERT_INT(app_faults, 1);
	rj_cache_close(c);
}

static int fault_outside_rocjit(int unused)
{
	rj_cache *c;

	(void)unused;
	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0 && c->index);
	touch_own_truncated_mapping();
	return 0; /* not reached: the fault is not rocjit's to absorb */
}

/* The handler absorbs faults in rocjit's mappings only: any other still ends the process
 * (with SIGBUS, or a sanitizer's report). */
TEST(a_fault_outside_rocjits_mappings_still_ends_the_process)
{
	store(0, 3, 1);
	ASSERT(rj_test_in_child(fault_outside_rocjit, 0) != 0);
}
