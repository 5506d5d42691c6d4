/*
 * test_open.c - opening the on-disk cache (src/store/cache_db.c): what an open of an
 * existing cache does and does not do, since it is on the path of every new process's
 * first request (bench/RESULTS.md, issue 14).  An existing cache of this format is opened
 * with one read transaction and one prepared statement, writes nothing, and reuses the
 * -wal and -shm the last close left; the statements it no longer prepares at open still
 * work at their first use, in this process and in others at once; new, empty and foreign
 * files are handled as before.  Stores go through the store's own calls (no compiler).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/cache_internal.h"
#include "harness.h"

#define WRITERS 4
#define PER_WRITER 25

/* These tests are about opening the database: without the read index, which lets a
 * process skip that open (test_index.c tests it). */
__attribute__((constructor)) static void without_index(void)
{
	setenv("ROCJIT_CACHE_INDEX_SIZE", "0", 1);
}

static const struct rj_cache_meta meta = { "amd", "gfx90a", "fake", "", "x.hip", "", "k", 1.0,
					   { { 0 } }, NULL, NULL, RJ_ORIGIN_COMPILED, NULL };

static void key_of(rj_key *k, int i)
{
	memset(k, 0, sizeof *k);
	k->b[0] = (unsigned char)(i & 0xff);
	k->b[1] = (unsigned char)(i >> 8);
	k->b[15] = 0x5a;
}

/* <cache>/<name>, e.g. "rocjit-cache.sqlite-wal". */
static const char *cache_file(const char *name)
{
	static char path[4400];

	snprintf(path, sizeof path, "%s/%s", rj_test_cache_dir, name);
	return path;
}

/* A cache with entries 0..n-1 (code "code-<i>"), closed again. */
static void make_cache(int n)
{
	rj_cache *c;
	char code[32];

	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	for (int i = 0; i < n; i++) {
		rj_key k;
		key_of(&k, i);
		snprintf(code, sizeof code, "code-%d", i);
		ASSERT_INT(rj_cache_put(c, &k, &meta, code, strlen(code)), 0);
	}
	rj_cache_close(c);
}

/* Whether entry i reads back with its code: 1, 0 (a miss), or a negative error. */
static int has_entry(rj_cache *c, int i)
{
	char want[32];
	const void *code = NULL;
	void *owned = NULL;
	size_t size = 0;
	double ms;
	rj_key k;
	int rc;

	key_of(&k, i);
	snprintf(want, sizeof want, "code-%d", i);
	rc = rj_cache_get(c, &k, &code, &owned, &size, &ms, NULL);
	if (rc == 1 && (size != strlen(want) || memcmp(code, want, size) != 0))
		rc = -1000;
	free(owned);
	return rc;
}

/* The statements c's connection holds prepared now. */
static int prepared(rj_cache *c)
{
	int n = 0;

	pthread_mutex_lock(&c->lock);
	for (sqlite3_stmt *st = sqlite3_next_stmt(c->db, NULL); st; st = sqlite3_next_stmt(c->db, st))
		n++;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* ---- An existing cache: read, never written, at open and on a hit ------------------------- */

static struct stat before_db, before_wal, before_shm;

/* In a new process: open the cache, hit entry 0, and find every file as it was. */
static int hit_and_compare(int unused)
{
	struct stat st;
	rj_cache *c;

	(void)unused;
	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	RJ_CHILD_CHECK(prepared(c) == 1); /* the lookup alone */
	RJ_CHILD_CHECK(has_entry(c, 0) == 1);
	RJ_CHILD_CHECK(stat(cache_file("rocjit-cache.sqlite"), &st) == 0);
	RJ_CHILD_CHECK(st.st_size == before_db.st_size);
	RJ_CHILD_CHECK(st.st_mtim.tv_sec == before_db.st_mtim.tv_sec &&
	      st.st_mtim.tv_nsec == before_db.st_mtim.tv_nsec);
	/* Every commit in WAL mode lands in the -wal first: empty means nothing written. */
	RJ_CHILD_CHECK(stat(cache_file("rocjit-cache.sqlite-wal"), &st) == 0);
	RJ_CHILD_CHECK(st.st_size == 0 && st.st_ino == before_wal.st_ino);
	RJ_CHILD_CHECK(stat(cache_file("rocjit-cache.sqlite-shm"), &st) == 0);
	RJ_CHILD_CHECK(st.st_ino == before_shm.st_ino);
	RJ_CHILD_CHECK(access(cache_file("rocjit-cache.sqlite-journal"), F_OK) != 0);
	_exit(0); /* without the close that writes the usage record of the hit */
}

TEST(opening_an_existing_cache_and_hitting_writes_nothing_and_reuses_the_wal_files)
{
	make_cache(3);
	ASSERT_INT(stat(cache_file("rocjit-cache.sqlite"), &before_db), 0);
	ASSERT_INT(stat(cache_file("rocjit-cache.sqlite-wal"), &before_wal), 0);
	ASSERT_INT(stat(cache_file("rocjit-cache.sqlite-shm"), &before_shm), 0);
	ASSERT_INT(before_wal.st_size, 0); /* the last close emptied it */
	sleep(1); /* a write now would move the mtime even on a coarse clock */
	ASSERT_INT(rj_test_in_child(hit_and_compare, 0), 0);
}

/* The WAL the last connection leaves is empty however much was written through it. */
TEST(last_close_leaves_an_empty_wal_beside_the_database)
{
	struct stat st;
	static char big[256 * 1024];
	rj_cache *c;
	rj_key k;

	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	for (int i = 0; i < 20; i++) {
		memset(big, 'a' + i, sizeof big);
		key_of(&k, 1000 + i);
		ASSERT_INT(rj_cache_put(c, &k, &meta, big, sizeof big), 0);
	}
	ASSERT_INT(stat(cache_file("rocjit-cache.sqlite-wal"), &st), 0);
	ASSERT(st.st_size > 0);
	rj_cache_close(c);
	ASSERT_INT(stat(cache_file("rocjit-cache.sqlite-wal"), &st), 0);
	ASSERT_INT(st.st_size, 0);
	ASSERT_INT(stat(cache_file("rocjit-cache.sqlite-shm"), &st), 0);
	ASSERT_INT(stat(cache_file("rocjit-cache.sqlite"), &st), 0);
	ASSERT(st.st_size > 20 * (long long)sizeof big); /* checkpointed into the file */
}

/* ---- Statements prepared at first use ------------------------------------------------------ */

TEST(store_and_totals_statements_are_prepared_at_first_use_and_work)
{
	uint64_t entries, bytes;
	rj_cache *c;
	rj_key k;

	make_cache(2);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(prepared(c), 1);
	ASSERT_INT(has_entry(c, 1), 1);
	ASSERT_INT(prepared(c), 1);
	ASSERT_INT(rj_cache_totals(c, &entries, &bytes), 0);
	ASSERT_INT(entries, 2);
	ASSERT_INT(prepared(c), 2);
	key_of(&k, 2);
	ASSERT_INT(rj_cache_put(c, &k, &meta, "code-2", 6), 0);
	ASSERT_INT(prepared(c), 3);
	ASSERT_INT(has_entry(c, 2), 1);
	ASSERT_INT(rj_cache_totals(c, &entries, &bytes), 0);
	ASSERT_INT(entries, 3);
	ASSERT_INT(prepared(c), 3); /* each prepared once */
	rj_cache_close(c);

	/* Read-only: the store is refused, the totals are counted. */
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 1), 0);
	key_of(&k, 3);
	ASSERT_INT(rj_cache_put(c, &k, &meta, "code-3", 6), ROCJIT_EIO);
	ASSERT_INT(rj_cache_totals(c, &entries, &bytes), 0);
	ASSERT_INT(entries, 3);
	ASSERT_INT(has_entry(c, 3), 0);
	rj_cache_close(c);
}

/* A child: opens the existing cache and stores PER_WRITER entries of its own. */
static int store_some(int writer)
{
	rj_cache *c;

	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	for (int i = 0; i < PER_WRITER; i++) {
		int n = 100 + writer * PER_WRITER + i;
		char code[32];
		rj_key k;
		key_of(&k, n);
		snprintf(code, sizeof code, "code-%d", n);
		RJ_CHILD_CHECK(rj_cache_put(c, &k, &meta, code, strlen(code)) == 0);
	}
	RJ_CHILD_CHECK(has_entry(c, 0) == 1);
	rj_cache_close(c);
	return 0;
}

static void *writer_thread(void *arg)
{
	return (void *)(intptr_t)rj_test_in_child(store_some, (int)(intptr_t)arg);
}

/* Processes that open an existing cache at once and each store right away: every store
 * lands, and the file stays whole. */
TEST(writers_in_several_processes_store_after_a_lazy_open)
{
	pthread_t t[WRITERS];
	uint64_t entries, bytes;
	rj_cache *c;
	int ok = 0;

	make_cache(1);
	for (int w = 0; w < WRITERS; w++)
		ASSERT_INT(pthread_create(&t[w], NULL, writer_thread, (void *)(intptr_t)w), 0);
	for (int w = 0; w < WRITERS; w++) {
		void *status;
		pthread_join(t[w], &status);
		ASSERT_INT((intptr_t)status, 0);
	}
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	for (int n = 100; n < 100 + WRITERS * PER_WRITER; n++)
		ok += has_entry(c, n) == 1;
	ASSERT_INT(ok, WRITERS * PER_WRITER);
	ASSERT_INT(rj_cache_totals(c, &entries, &bytes), 0);
	ASSERT_INT(entries, 1 + WRITERS * PER_WRITER);
	{
		int integrity_ok = 0;
		pthread_mutex_lock(&c->lock);
		ASSERT_INT(rj_db_int(c->db, "SELECT count(*) FROM pragma_integrity_check "
				     "WHERE integrity_check = 'ok'", &integrity_ok), SQLITE_OK);
		pthread_mutex_unlock(&c->lock);
		ASSERT_INT(integrity_ok, 1);
	}
	rj_cache_close(c);
}

/* ---- New, empty and foreign files ------------------------------------------------------------ */

/* Bytes 18 and 19 of an SQLite header: 1 rollback journal, 2 WAL. */
static int header_mode(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY), n;

	ASSERT(fd >= 0);
	n = (int)pread(fd, h, sizeof h, 0);
	close(fd);
	ASSERT_INT(n, 20);
	ASSERT_INT(h[18], h[19]);
	return h[18];
}

/* An empty database file (a crash right after it was made): made a cache, in WAL mode. */
TEST(empty_cache_file_becomes_a_cache_in_wal_mode)
{
	rj_cache *c;

	mkdir(rj_test_cache_dir, 0700);
	rj_test_write_file(cache_file("rocjit-cache.sqlite"), "", 0);
	chmod(cache_file("rocjit-cache.sqlite"), 0600);
	make_cache(1);
	ASSERT_INT(header_mode(cache_file("rocjit-cache.sqlite")), 2);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(has_entry(c, 0), 1);
	rj_cache_close(c);
}

/* Another program's database in rollback-journal mode is moved aside exactly as it was:
 * never switched to WAL, no -wal or -shm made for it. */
TEST(foreign_rollback_database_is_moved_aside_unchanged)
{
	char *was, *now, aside[4400] = "";
	size_t was_size, now_size;
	sqlite3 *db;
	rj_cache *c;
	FILE *p;

	mkdir(rj_test_cache_dir, 0700);
	ASSERT_INT(sqlite3_open(cache_file("rocjit-cache.sqlite"), &db), SQLITE_OK);
	ASSERT_INT(sqlite3_exec(db, "CREATE TABLE mine(x); INSERT INTO mine VALUES (42)", NULL,
				NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	chmod(cache_file("rocjit-cache.sqlite"), 0600);
	was = rj_test_read_file(cache_file("rocjit-cache.sqlite"), &was_size);
	ASSERT_INT(header_mode(cache_file("rocjit-cache.sqlite")), 1);

	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0); /* a fresh cache */
	ASSERT_INT(has_entry(c, 0), 0);
	rj_cache_close(c);
	{
		char cmd[4500];
		snprintf(cmd, sizeof cmd, "ls %s | grep '\\.bad-'", rj_test_cache_dir);
		p = popen(cmd, "r");
		ASSERT(p && fgets(aside, sizeof aside, p));
		ASSERT(!fgets(cmd, sizeof cmd, p)); /* the database alone: no -wal, no -shm */
		pclose(p);
	}
	aside[strcspn(aside, "\n")] = 0;
	now = rj_test_read_file(cache_file(aside), &now_size);
	ASSERT_INT(now_size, was_size);
	ASSERT(memcmp(now, was, was_size) == 0);
	free(was);
	free(now);
}
