/*
 * test_cache.c - the on-disk cache and the in-process table: hits across contexts and
 * processes with zero compiles, corruption detected and healed, locations and modes,
 * threads racing for one kernel.
 */
#include <pthread.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/cache.h"
#include "harness.h"


static rocjit_stats stats(rocjit_ctx *ctx)
{
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	return st;
}

static const rocjit_code *compile_axpy(rocjit_ctx *ctx, const char *target)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code = NULL;
	p.source = rj_test_axpy;
	p.name = "axpy.hip";
	ASSERT_INT(rocjit_compile(&code, ctx, target, &p), 0);
	return code;
}

TEST(second_request_is_a_memory_hit)
{
	rocjit_ctx *ctx = rj_test_open();
	const rocjit_code *a = compile_axpy(ctx, "gfx90a"), *b = compile_axpy(ctx, "gfx90a");
	rocjit_stats st = stats(ctx);
	ASSERT(a == b);
	ASSERT_INT(st.compiles, 1);
	ASSERT_INT(st.memory_hits, 1);
	ASSERT_INT(st.entries, 1);
	rocjit_close(ctx);
}

TEST(second_context_hits_disk_with_zero_compiles)
{
	rocjit_ctx *ctx = rj_test_open();
	const rocjit_code *c = compile_axpy(ctx, "gfx90a:sramecc+:xnack-");
	char key[33];
	size_t size = c->size;
	void *bytes = malloc(size);
	rocjit_stats st;

	memcpy(bytes, c->data, size);
	memcpy(key, c->key, sizeof key);
	ASSERT_INT(stats(ctx).compiles, 1);
	rocjit_close(ctx);

	ctx = rj_test_open();
	c = compile_axpy(ctx, "gfx90a:xnack-:sramecc+");
	st = stats(ctx);
	ASSERT_INT(st.compiles, 0);
	ASSERT_INT(st.disk_hits, 1);
	ASSERT_INT(c->from_cache, 1);
	ASSERT_STR(c->key, key);
	ASSERT_INT(c->size, size);
	ASSERT(memcmp(c->data, bytes, size) == 0);
	ASSERT(c->compile_ms > 0);
	free(bytes);
	rocjit_close(ctx);
}

static char *run_probe(const char *target, int *status)
{
	char *out;
	const char *argv[] = { ROCJIT_TEST_PROBE, "--cache", rj_test_cache_dir, "--target", target,
			 "--registered", "axpy.hip", NULL };
	*status = rj_test_run(argv, NULL, &out);
	return out;
}

TEST(second_process_hits_disk_with_zero_compiles)
{
	int status;
	char *out;

	out = run_probe("gfx1030", &status);
	ASSERT_INT(status, 0);
	ASSERT_CONTAINS(out, "compiles=1 ");
	ASSERT_CONTAINS(out, "from_cache=0");
	free(out);
	out = run_probe("gfx1030", &status);
	ASSERT_INT(status, 0);
	ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 ");
	ASSERT_CONTAINS(out, "from_cache=1");
	free(out);
	/* Another target is another entry. */
	out = run_probe("gfx90a", &status);
	ASSERT_CONTAINS(out, "compiles=1 ");
	free(out);
}

TEST(corrupt_blob_is_detected_dropped_and_recompiled)
{
	rocjit_ctx *ctx = rj_test_open();
	char path[4300], key[33];
	unsigned char *db;
	size_t size, flipped = 0;

	memcpy(key, compile_axpy(ctx, "gfx90a")->key, sizeof key);
	rocjit_close(ctx); /* the last connection checkpoints the WAL into the file */

	/* Flip one byte inside the stored code object, in the database file itself. */
	snprintf(path, sizeof path, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	db = (unsigned char *)rj_test_read_file(path, &size);
	for (size_t i = 0; i + 4 < size; i++)
		if (!memcmp(db + i, "\x7f" "ELF", 4)) {
			db[i + 300] ^= 0x40;
			flipped = 1;
			break;
		}
	ASSERT(flipped);
	rj_test_write_file(path, db, size);
	free(db);
	/* The read index holds a sound copy of the entry (the close wrote it); this test is
	   the database's own check (test_index.c damages the index). */
	snprintf(path, sizeof path, "%s/rocjit-cache.index", rj_test_cache_dir);
	ASSERT_INT(unlink(path), 0);

	ctx = rj_test_open();
	{
		const rocjit_code *c = compile_axpy(ctx, "gfx90a");
		rocjit_stats st = stats(ctx);
		ASSERT_INT(c->from_cache, 0);
		ASSERT_INT(st.disk_hits, 0);
		ASSERT_INT(st.compiles, 1);
		ASSERT_STR(c->key, key);
	}
	rocjit_close(ctx);
	/* The fresh compile replaced the bad row. */
	ctx = rj_test_open();
	ASSERT_INT(compile_axpy(ctx, "gfx90a")->from_cache, 1);
	ASSERT_INT(stats(ctx).entries, 1);
	rocjit_close(ctx);
}

TEST(entry_stores_readable_key_fields)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	static const char *const opts[] = { "-D", "N=4" };
	rocjit_header h = { "extra.h", "#define X 1\n", 0 };
	const rocjit_code *code;
	sqlite3 *db;
	sqlite3_stmt *st;
	char path[4300], *src = malloc(strlen(rj_test_axpy) + 32);

	/* The source includes the header: a key holds the headers its source reaches. */
	ASSERT(src != NULL);
	snprintf(src, strlen(rj_test_axpy) + 32, "#include \"extra.h\"\n%s", rj_test_axpy);
	p.source = src;
	p.name = "axpy.hip";
	p.options = opts;
	p.num_options = 2;
	p.headers = &h;
	p.num_headers = 1;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a:xnack+", &p), 0);
	rocjit_close(ctx);
	snprintf(path, sizeof path, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	ASSERT_INT(sqlite3_open(path, &db), SQLITE_OK);
	ASSERT_INT(sqlite3_prepare_v2(db, "SELECT platform, target, compiler, options, "
				      "source_name, headers, kernels, size, hits, compile_ms, "
				      "created, last_used FROM entries", -1, &st, NULL), SQLITE_OK);
	ASSERT_INT(sqlite3_step(st), SQLITE_ROW);
	ASSERT_STR((const char *)sqlite3_column_text(st, 0), "amd");
	ASSERT_STR((const char *)sqlite3_column_text(st, 1), "gfx90a:xnack+");
	ASSERT_CONTAINS((const char *)sqlite3_column_text(st, 2), "hiprtc ");
	ASSERT_CONTAINS((const char *)sqlite3_column_text(st, 2), "comgr ");
	ASSERT_STR((const char *)sqlite3_column_text(st, 3), "-DN=4 -O3");
	ASSERT_STR((const char *)sqlite3_column_text(st, 4), "axpy.hip");
	ASSERT_STR((const char *)sqlite3_column_text(st, 5), "extra.h");
	ASSERT_STR((const char *)sqlite3_column_text(st, 6), "axpy");
	ASSERT(sqlite3_column_int64(st, 7) > 1000);
	ASSERT_INT(sqlite3_column_int(st, 8), 0);
	ASSERT(sqlite3_column_double(st, 9) > 0);
	ASSERT(sqlite3_column_int64(st, 10) > 1700000000);
	ASSERT_INT(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(src);
}

static int hits_of_only_entry(const rocjit_entry *e, void *user)
{
	*(uint64_t *)user += e->hits;
	return 0;
}

/* Each process's disk hit is counted, whether the database holds it or the read index's
 * usage board (rocjit_cache_foreach reports both). */
TEST(disk_hits_are_counted_when_the_context_closes)
{
	rocjit_ctx *ctx = rj_test_open();
	uint64_t hits = 0;

	compile_axpy(ctx, "gfx90a");
	rocjit_close(ctx);
	for (int i = 0; i < 3; i++) {
		ctx = rj_test_open();
		compile_axpy(ctx, "gfx90a");
		rocjit_close(ctx);
	}
	ctx = rj_test_open();
	ASSERT_INT(rocjit_cache_foreach(ctx, hits_of_only_entry, &hits), 0);
	ASSERT_INT(hits, 3);
	rocjit_close(ctx);
	/* Without the index every hit is written to the database itself. */
	setenv("ROCJIT_CACHE_INDEX_SIZE", "0", 1);
	for (int i = 0; i < 2; i++) {
		ctx = rj_test_open();
		compile_axpy(ctx, "gfx90a");
		rocjit_close(ctx);
	}
	ctx = rj_test_open();
	hits = 0;
	ASSERT_INT(rocjit_cache_foreach(ctx, hits_of_only_entry, &hits), 0);
	ASSERT_INT(hits, 5);
	rocjit_close(ctx);
	unsetenv("ROCJIT_CACHE_INDEX_SIZE");
}

TEST(cache_location_follows_environment)
{
	rocjit_ctx *ctx;
	rocjit_stats st;
	char want[4300];

	/* HOME is the test folder (harness.c). */
	ASSERT_INT(rocjit_open(&ctx, NULL), 0);
	st = stats(ctx);
	snprintf(want, sizeof want, "%s/.cache/rocjit/rocjit-cache.sqlite", rj_test_dir);
	ASSERT_STR(st.cache_path, want);
	rocjit_close(ctx);

	snprintf(want, sizeof want, "%s/xdg", rj_test_dir);
	setenv("XDG_CACHE_HOME", want, 1);
	ASSERT_INT(rocjit_open(&ctx, NULL), 0);
	snprintf(want, sizeof want, "%s/xdg/rocjit/rocjit-cache.sqlite", rj_test_dir);
	ASSERT_STR(stats(ctx).cache_path, want);
	rocjit_close(ctx);

	snprintf(want, sizeof want, "%s/env/deeper", rj_test_dir);
	setenv("ROCJIT_CACHE_DIR", want, 1);
	ASSERT_INT(rocjit_open(&ctx, NULL), 0);
	snprintf(want, sizeof want, "%s/env/deeper/rocjit-cache.sqlite", rj_test_dir);
	ASSERT_STR(stats(ctx).cache_path, want);
	rocjit_close(ctx);

	setenv("ROCJIT_DISABLE_CACHE", "1", 1);
	ASSERT_INT(rocjit_open(&ctx, NULL), 0);
	st = stats(ctx);
	ASSERT_INT(st.cache_open, 0);
	ASSERT_STR(st.cache_path, "");
	compile_axpy(ctx, "gfx90a");
	ASSERT_INT(stats(ctx).compiles, 1);
	rocjit_close(ctx);
}

TEST(cache_folder_and_file_are_private)
{
	rocjit_ctx *ctx;
	struct stat sb;
	char path[4300];

	umask(0);
	ctx = rj_test_open();
	compile_axpy(ctx, "gfx90a");
	ASSERT_INT(stat(rj_test_cache_dir, &sb), 0);
	ASSERT_INT(sb.st_mode & 0777, 0700);
	snprintf(path, sizeof path, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	ASSERT_INT(stat(path, &sb), 0);
	ASSERT_INT(sb.st_mode & 0777, 0600);
	rocjit_close(ctx);
}

TEST(unusable_cache_folder_still_serves_kernels)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;
	char file[4300];

	/* The cache "folder" is a file: warn once, run from memory. */
	snprintf(file, sizeof file, "%s/not-a-folder", rj_test_dir);
	rj_test_write_file(file, "x", 1);
	o.cache_dir = file;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(stats(ctx).cache_open, 0);
	compile_axpy(ctx, "gfx90a");
	ASSERT_INT(stats(ctx).compiles, 1);
	rocjit_close(ctx);
}

/* Counts the databases in the cache folder moved aside as damaged (their -wal and -shm,
 * moved along, are not counted). */
static int moved_aside(void)
{
	char cmd[4400];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof cmd, "ls %s | grep -c '\\.bad-[0-9]*-[0-9]*$'", rj_test_cache_dir);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = 0;
	if (p)
		pclose(p);
	return n;
}

/* Each kind of unusable database is moved aside, a fresh one made, the kernel served. */
static void check_moved_aside(void)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_stats st = stats(ctx);

	ASSERT_INT(st.cache_open, 1);
	ASSERT_INT(moved_aside(), 1);
	ASSERT_INT(compile_axpy(ctx, "gfx90a")->from_cache, 0);
	rocjit_close(ctx);
	ctx = rj_test_open();
	ASSERT_INT(compile_axpy(ctx, "gfx90a")->from_cache, 1);
	ASSERT_INT(moved_aside(), 1);
	rocjit_close(ctx);
}

static void db_path(char *path, size_t size)
{
	snprintf(path, size, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
}

TEST(foreign_sqlite_file_is_moved_aside)
{
	char path[4300];
	sqlite3 *db;

	mkdir(rj_test_cache_dir, 0700);
	db_path(path, sizeof path);
	ASSERT_INT(sqlite3_open(path, &db), SQLITE_OK);
	ASSERT_INT(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	check_moved_aside();
}

TEST(future_format_version_is_moved_aside)
{
	char path[4300];
	sqlite3 *db;
	rocjit_ctx *ctx = rj_test_open();

	compile_axpy(ctx, "gfx90a");
	rocjit_close(ctx);
	db_path(path, sizeof path);
	ASSERT_INT(sqlite3_open(path, &db), SQLITE_OK);
	ASSERT_INT(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	check_moved_aside();
}

TEST(garbage_database_file_is_moved_aside)
{
	char path[4300], junk[8192];

	mkdir(rj_test_cache_dir, 0700);
	db_path(path, sizeof path);
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (char)(i * 131 + 7);
	rj_test_write_file(path, junk, sizeof junk);
	check_moved_aside();
}

TEST(truncated_database_file_is_moved_aside)
{
	char path[4300];
	rocjit_ctx *ctx = rj_test_open();
	char *bytes;
	size_t size;

	for (int i = 0; i < 6; i++)
		rj_test_compile_variant(ctx, "gfx90a", "RJ_FILL", i);
	rocjit_close(ctx);
	db_path(path, sizeof path);
	bytes = rj_test_read_file(path, &size);
	rj_test_write_file(path, bytes, size / 2);
	free(bytes);
	check_moved_aside();
}

/* The database at path and the -wal and -shm beside it, where they exist, to mode. */
static void chmod_files(const char *path, mode_t mode)
{
	char side[4400];

	ASSERT_INT(chmod(path, mode), 0);
	snprintf(side, sizeof side, "%s-wal", path);
	chmod(side, mode);
	snprintf(side, sizeof side, "%s-shm", path);
	chmod(side, mode);
}

TEST(cache_writable_by_others_or_owned_by_another_user_is_not_used)
{
	rocjit_ctx *ctx = rj_test_open();
	char path[4300];

	compile_axpy(ctx, "gfx90a");
	rocjit_close(ctx);
	db_path(path, sizeof path);

	chmod(rj_test_cache_dir, 0777);
	ctx = rj_test_open();
	ASSERT_INT(stats(ctx).cache_open, 0);
	ASSERT_INT(compile_axpy(ctx, "gfx90a")->from_cache, 0); /* still served */
	rocjit_close(ctx);
	chmod(rj_test_cache_dir, 0700);

	chmod(path, 0666);
	ctx = rj_test_open();
	ASSERT_INT(stats(ctx).cache_open, 0);
	rocjit_close(ctx);
	/* An operator's shared group cache allows group write, never world write.  The -wal
	   and -shm stay beside the database (cache_db.c): an operator changes all three. */
	chmod_files(path, 0660);
	setenv("ROCJIT_CACHE_SHARED", "1", 1);
	ctx = rj_test_open();
	ASSERT_INT(stats(ctx).cache_open, 1);
	rocjit_close(ctx);
	unsetenv("ROCJIT_CACHE_SHARED");
	ctx = rj_test_open(); /* private again, with a group-writable -wal left: refused */
	ASSERT_INT(stats(ctx).cache_open, 0);
	rocjit_close(ctx);
	chmod_files(path, 0600);

	if (geteuid() == 0) {
		/* Root can give the folder away: owned by someone else, it is not used. */
		ASSERT_INT(chown(rj_test_cache_dir, 65534, 65534), 0);
		ctx = rj_test_open();
		ASSERT_INT(stats(ctx).cache_open, 0);
		rocjit_close(ctx);
		ASSERT_INT(chown(rj_test_cache_dir, 0, 0), 0);
	}
	ctx = rj_test_open();
	ASSERT_INT(compile_axpy(ctx, "gfx90a")->from_cache, 1);
	rocjit_close(ctx);
}

TEST(network_file_systems_are_recognized)
{
	ASSERT(rj_fs_is_network(0x6969));     /* NFS */
	ASSERT(rj_fs_is_network(0x0bd00bd0)); /* Lustre */
	ASSERT(rj_fs_is_network(0xff534d42)); /* CIFS */
	ASSERT(!rj_fs_is_network(0xef53));    /* ext4 */
	ASSERT(!rj_fs_is_network(0x01021994)); /* tmpfs */
	ASSERT(!rj_fs_is_network(0x58465342)); /* XFS */
}

TEST(no_compile_turns_a_miss_into_an_error)
{
	rocjit_ctx *ctx;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;

	setenv("ROCJIT_NO_COMPILE", "1", 1);
	ctx = rj_test_open();
	p.source = rj_test_axpy;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), ROCJIT_ENOTCACHED);
	ASSERT_CONTAINS(rocjit_last_error(), "prewarm");
	rocjit_close(ctx);
	unsetenv("ROCJIT_NO_COMPILE");
	ctx = rj_test_open();
	compile_axpy(ctx, "gfx90a");
	rocjit_close(ctx);
	setenv("ROCJIT_NO_COMPILE", "1", 1);
	ctx = rj_test_open();
	ASSERT_INT(compile_axpy(ctx, "gfx90a")->from_cache, 1);
	rocjit_close(ctx);
}

#define NTHREADS 8
static rocjit_ctx *race_ctx;
static pthread_barrier_t race_barrier;
static const rocjit_code *race_out[NTHREADS];

static void *race(void *arg)
{
	size_t i = (size_t)arg;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	p.source = rj_test_axpy;
	pthread_barrier_wait(&race_barrier);
	ASSERT_INT(rocjit_compile(&race_out[i], race_ctx, "gfx90a", &p), 0);
	return NULL;
}

TEST(threads_racing_for_one_kernel_compile_it_once)
{
	pthread_t t[NTHREADS];
	rocjit_stats st;

	race_ctx = rj_test_open();
	pthread_barrier_init(&race_barrier, NULL, NTHREADS);
	for (size_t i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, race, (void *)i);
	for (size_t i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	st = stats(race_ctx);
	ASSERT_INT(st.compiles, 1);
	ASSERT_INT(st.misses, 1);
	ASSERT_INT(st.memory_hits, NTHREADS - 1);
	for (size_t i = 1; i < NTHREADS; i++)
		ASSERT(race_out[i] == race_out[0]);
	rocjit_close(race_ctx);
}

static void *race_distinct(void *arg)
{
	size_t i = (size_t)arg;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	char def[32];
	const char *opts[1] = { def };
	snprintf(def, sizeof def, "-DVARIANT=%zu", i % 4);
	p.source = rj_test_axpy;
	p.options = opts;
	p.num_options = 1;
	pthread_barrier_wait(&race_barrier);
	for (int r = 0; r < 50; r++)
		ASSERT_INT(rocjit_compile(&race_out[i], race_ctx, "gfx1030", &p), 0);
	return NULL;
}

TEST(threads_compiling_different_kernels_get_the_right_ones)
{
	pthread_t t[NTHREADS];
	rocjit_stats st;

	race_ctx = rj_test_open();
	pthread_barrier_init(&race_barrier, NULL, NTHREADS);
	for (size_t i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, race_distinct, (void *)i);
	for (size_t i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	st = stats(race_ctx);
	ASSERT_INT(st.compiles, 4);
	ASSERT_INT(st.memory_hits, NTHREADS * 50 - 4);
	for (size_t i = 0; i < NTHREADS; i++)
		ASSERT(race_out[i] == race_out[i % 4]);
	ASSERT_INT(st.entries, 4);
	rocjit_close(race_ctx);
}

static char *probe_debug(const char *extra_env, int *status)
{
	char *out;
	const char *argv[] = { ROCJIT_TEST_PROBE, "--cache", rj_test_cache_dir, "--target", "gfx90a",
			 "--registered", "axpy.hip", NULL };
	const char *env[] = { "ROCJIT_LOG=debug", extra_env, NULL };
	*status = rj_test_run(argv, env, &out);
	return out;
}

TEST(hit_in_new_process_loads_no_compiler_while_its_files_are_unchanged)
{
	char dir[4300], ld[4400];
	int status;
	char *out;

	out = probe_debug(NULL, &status);
	ASSERT_INT(status, 0);
	ASSERT_CONTAINS(out, "compiles=1 ");
	free(out);
	/* Same files, same environment: the remembered identity, nothing loaded. */
	out = probe_debug(NULL, &status);
	ASSERT_CONTAINS(out, "(remembered; not loaded)");
	ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 ");
	free(out);
	/* Another LD_LIBRARY_PATH could pick another compiler: load it and look. */
	snprintf(dir, sizeof dir, "%s/libs", rj_test_dir);
	mkdir(dir, 0700);
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s", dir);
	out = probe_debug(ld, &status);
	ASSERT(strstr(out, "remembered") == NULL);
	ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 "); /* same compiler, same key */
	free(out);
	out = probe_debug(ld, &status);
	ASSERT_CONTAINS(out, "(remembered; not loaded)");
	free(out);
	/* A library appearing in an LD_LIBRARY_PATH folder changes its mtime: reload. */
	snprintf(ld, sizeof ld, "%s/libamdhip64.so.5", dir);
	rj_test_write_file(ld, "x", 1);
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s", dir);
	out = probe_debug(ld, &status);
	ASSERT(strstr(out, "remembered") == NULL);
	free(out);
}

TEST(read_only_cache_serves_hits_and_never_writes)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;
	rocjit_ctx *ctx = rj_test_open();
	rocjit_stats st;

	compile_axpy(ctx, "gfx90a");
	rocjit_close(ctx);
	o.cache_dir = rj_test_cache_dir;
	o.flags = ROCJIT_OPEN_READONLY;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(compile_axpy(ctx, "gfx90a")->from_cache, 1);
	/* A miss compiles and is used, but nothing is stored and nothing is an error. */
	p.source = rj_test_axpy;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx1030", &p), 0);
	st = stats(ctx);
	ASSERT_INT(st.cache_errors, 0);
	ASSERT_INT(st.entries, 1);
	rocjit_close(ctx);
}

TEST(size_limit_evicts_least_recently_used_entries)
{
	rocjit_ctx *ctx;
	rocjit_stats st;
	const rocjit_code *first;
	char first_key[33];
	uint64_t n;

	ASSERT_INT(rocjit_parse_size(&n, "2G"), 0);
	ASSERT_INT(n, 2ull << 30);
	ASSERT_INT(rocjit_parse_size(&n, "500MiB"), 0);
	ASSERT_INT(n, 500ull << 20);
	ASSERT_INT(rocjit_parse_size(&n, "64k"), 0);
	ASSERT_INT(n, 65536);
	ASSERT_INT(rocjit_parse_size(&n, "junk"), ROCJIT_EINVAL);
	/* Each axpy object is 4-6 KB: a 20 KB limit holds three or four of the six. */
	setenv("ROCJIT_CACHE_MAXSIZE", "20K", 1);
	ctx = rj_test_open();
	first = compile_axpy(ctx, "gfx90a");
	memcpy(first_key, first->key, 33);
	for (int i = 0; i < 5; i++) {
		rj_test_compile_variant(ctx, "gfx90a", "RJ_EVICT", i);
		st = stats(ctx);
		ASSERT(st.bytes <= 20 * 1024);
	}
	printf("entries %llu, %llu bytes\n", (unsigned long long)st.entries, (unsigned long long)st.bytes);
	ASSERT(st.entries >= 2 && st.entries < 6); /* some were evicted */
	rocjit_close(ctx);
	/* The first (least recently used) entry went first. */
	ctx = rj_test_open();
	ASSERT_INT(compile_axpy(ctx, "gfx90a")->from_cache, 0);
	rocjit_close(ctx);
}

TEST(format_1_database_is_migrated_and_kept)
{
	char path[4300];
	sqlite3 *db;
	rocjit_ctx *ctx = rj_test_open();
	char key[33];

	memcpy(key, compile_axpy(ctx, "gfx90a")->key, 33);
	rocjit_close(ctx);
	/* Make it a format-1 file: no pkey column. */
	snprintf(path, sizeof path, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	ASSERT_INT(sqlite3_open(path, &db), SQLITE_OK);
	ASSERT_INT(sqlite3_exec(db, "DROP INDEX entries_pkey; ALTER TABLE entries DROP COLUMN pkey; "
				"PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	ctx = rj_test_open();
	ASSERT_INT(stats(ctx).cache_open, 1);
	ASSERT_STR(compile_axpy(ctx, "gfx90a")->key, key);
	ASSERT_INT(compile_axpy(ctx, "gfx90a")->from_cache, 1);
	rocjit_close(ctx);
	ASSERT_INT(sqlite3_open(path, &db), SQLITE_OK);
	{
		sqlite3_stmt *st;
		ASSERT_INT(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
		ASSERT_INT(sqlite3_step(st), SQLITE_ROW);
		ASSERT_INT(sqlite3_column_int(st, 0), 2);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
}

TEST(a_file_named_as_the_cache_is_read_only_and_never_moved)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	char path[4300];
	struct stat st;
	rocjit_ctx *ctx;
	sqlite3 *db;

	snprintf(path, sizeof path, "%s/mydata.sqlite", rj_test_dir);
	ASSERT_INT(sqlite3_open(path, &db), SQLITE_OK);
	ASSERT_INT(sqlite3_exec(db, "CREATE TABLE precious(x); INSERT INTO precious VALUES (1)",
				NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	o.cache_dir = path;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(stats(ctx).cache_open, 0);
	compile_axpy(ctx, "gfx90a");
	rocjit_close(ctx);
	ASSERT_INT(stat(path, &st), 0); /* still there, untouched */
}
