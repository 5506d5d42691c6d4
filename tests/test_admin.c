/*
 * test_admin.c - the cache administration API (rocjit_cache_*) and the compiler and device
 * queries, against a real cache filled by real compiles.
 */
#include <sqlite3.h>
#include <sys/stat.h>

#include "harness.h"

static const char *const variants[] = { "-DRJ_VARIANT=1", "-DRJ_VARIANT=2", "-DRJ_VARIANT=3" };

/* Fills the test cache with three entries for gfx90a and one for gfx1030. */
static void fill(void)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *c;

	p.source = rj_test_axpy;
	p.name = "axpy.hip";
	for (int i = 0; i < 3; i++) {
		p.options = &variants[i];
		p.num_options = 1;
		ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	}
	p.num_options = 0;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx1030", &p), 0);
	rocjit_close(ctx);
}

struct walk {
	int n, gfx1030;
	char first_key[33];
	uint64_t bytes;
};

static int count_entry(const rocjit_entry *e, void *user)
{
	struct walk *w = user;
	if (w->n++ == 0)
		memcpy(w->first_key, e->key, 33);
	w->gfx1030 += strcmp(e->target, "gfx1030") == 0;
	w->bytes += e->size;
	ASSERT_STR(e->platform, "amd");
	ASSERT_STR(e->kernels, "axpy");
	ASSERT_STR(e->source_name, "axpy.hip");
	ASSERT(e->created > 0 && e->compile_ms > 0);
	return 0;
}

static int stop_at_two(const rocjit_entry *e, void *user)
{
	(void)e;
	return ++*(int *)user == 2 ? 42 : 0;
}

TEST(foreach_walks_every_entry_and_stops_when_asked)
{
	struct walk w = { 0 };
	rocjit_ctx *ctx;
	int n = 0;

	fill();
	ctx = rj_test_open();
	ASSERT_INT(rocjit_cache_foreach(ctx, count_entry, &w), 0);
	ASSERT_INT(w.n, 4);
	ASSERT_INT(w.gfx1030, 1);
	ASSERT_INT(rocjit_cache_foreach(ctx, stop_at_two, &n), 42);
	ASSERT_INT(n, 2);
	rocjit_close(ctx);
}

static int got_code(const rocjit_entry *e, const void *code, size_t size, void *user)
{
	rocjit_codeobj_info *info;
	(void)user;
	ASSERT(code != NULL);
	ASSERT_INT(size, e->size);
	ASSERT_INT(rocjit_codeobj_inspect(&info, code, size), 0);
	ASSERT_STR(info->target, e->target);
	rocjit_codeobj_info_free(info);
	return 7;
}

TEST(find_by_key_prefix_returns_the_entry_and_its_code)
{
	struct walk w = { 0 };
	rocjit_ctx *ctx;
	char prefix[13];

	fill();
	ctx = rj_test_open();
	rocjit_cache_foreach(ctx, count_entry, &w);
	memcpy(prefix, w.first_key, 12);
	prefix[12] = 0;
	ASSERT_INT(rocjit_cache_find(ctx, prefix, got_code, NULL), 7);
	ASSERT_INT(rocjit_cache_find(ctx, w.first_key, got_code, NULL), 7);
	ASSERT_INT(rocjit_cache_find(ctx, "0000000000000000", got_code, NULL), ROCJIT_ENOTFOUND);
	ASSERT_INT(rocjit_cache_find(ctx, "xyz!", got_code, NULL), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_cache_find(ctx, "ab", got_code, NULL), ROCJIT_EINVAL);
	rocjit_close(ctx);
}

struct keys {
	char k[64][33];
	const char *ptr[64];
	int n;
};

static int collect(const rocjit_entry *e, void *user)
{
	struct keys *ks = user;
	if (ks->n < 64) {
		memcpy(ks->k[ks->n], e->key, 33);
		ks->ptr[ks->n] = ks->k[ks->n];
		ks->n++;
	}
	return 0;
}

TEST(remove_and_compact_shrink_the_file)
{
	static struct keys ks;
	char path[4300];
	struct stat before, after;
	rocjit_ctx *ctx = rj_test_open();
	size_t removed = 99;
	const char *bad[1] = { "nothex" };

	/* Enough entries that removing them frees whole pages. */
	for (int i = 0; i < 16; i++)
		rj_test_compile_variant(ctx, "gfx1030", "PAD", i);
	rocjit_close(ctx);
	ctx = rj_test_open();
	snprintf(path, sizeof path, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	ASSERT_INT(rocjit_cache_compact(ctx), 0);
	ASSERT_INT(stat(path, &before), 0);
	ASSERT_INT(rocjit_cache_foreach(ctx, collect, &ks), 0);
	ASSERT_INT(ks.n, 16);
	ASSERT_INT(rocjit_cache_remove(ctx, ks.ptr, 1, &removed), 0);
	ASSERT_INT(removed, 1);
	ASSERT_INT(rocjit_cache_remove(ctx, ks.ptr, 1, &removed), 0);
	ASSERT_INT(removed, 0);
	ASSERT_INT(rocjit_cache_remove(ctx, bad, 1, &removed), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_cache_remove(ctx, ks.ptr + 1, (size_t)ks.n - 1, &removed), 0);
	ASSERT_INT(removed, 15);
	ASSERT_INT(rocjit_cache_compact(ctx), 0);
	ASSERT_INT(stat(path, &after), 0);
	printf("file %lld -> %lld bytes\n", (long long)before.st_size, (long long)after.st_size);
	ASSERT(after.st_size < before.st_size / 2);
	rocjit_close(ctx);
}

static int nbad_reason[3];
static void on_bad(const rocjit_entry *e, int reason, const char *msg, void *user)
{
	(void)e;
	(void)user;
	printf("bad %s: %s\n", e->key, msg);
	nbad_reason[reason]++;
}

TEST(verify_finds_bad_checksums_and_wrong_targets_and_fix_drops_them)
{
	uint64_t checked = 0, bad = 0;
	rocjit_ctx *ctx;
	char path[4300];
	sqlite3 *db;

	fill();
	ctx = rj_test_open();
	ASSERT_INT(rocjit_cache_verify(ctx, 0, on_bad, NULL, &checked, &bad), 0);
	ASSERT_INT(checked, 4);
	ASSERT_INT(bad, 0);
	rocjit_close(ctx);

	/* One gfx90a row's code is overwritten behind rocjit's back (its checksum stays);
	   the gfx1030 row claims another target. */
	snprintf(path, sizeof path, "%s/rocjit-cache.sqlite", rj_test_cache_dir);
	ASSERT_INT(sqlite3_open(path, &db), SQLITE_OK);
	ASSERT_INT(sqlite3_exec(db, "UPDATE entries SET code = zeroblob(length(code)) WHERE id = "
				"(SELECT min(id) FROM entries WHERE target = 'gfx90a'); "
				"UPDATE entries SET target = 'gfx906' WHERE target = 'gfx1030'",
				NULL, NULL, NULL), SQLITE_OK);
	ASSERT_INT(sqlite3_close(db), SQLITE_OK);

	ctx = rj_test_open();
	ASSERT_INT(rocjit_cache_verify(ctx, 0, on_bad, NULL, &checked, &bad), 0);
	ASSERT_INT(checked, 4);
	ASSERT_INT(bad, 2);
	ASSERT_INT(nbad_reason[ROCJIT_VERIFY_CHECKSUM], 1);
	ASSERT_INT(nbad_reason[ROCJIT_VERIFY_OBJECT], 1);
	/* Verifying changed nothing; fixing drops both. */
	ASSERT_INT(rocjit_cache_verify(ctx, 1, NULL, NULL, &checked, &bad), 0);
	ASSERT_INT(bad, 2);
	ASSERT_INT(rocjit_cache_verify(ctx, 0, NULL, NULL, &checked, &bad), 0);
	ASSERT_INT(checked, 2);
	ASSERT_INT(bad, 0);
	rocjit_close(ctx);
}

TEST(counters_add_up_across_contexts_and_zero)
{
	rocjit_counters n = ROCJIT_COUNTERS_INIT;
	rocjit_ctx *ctx;

	fill(); /* 4 compiles */
	for (int i = 0; i < 2; i++) {
		rocjit_program p = ROCJIT_PROGRAM_INIT;
		const rocjit_code *c;
		ctx = rj_test_open();
		p.source = rj_test_axpy;
		ASSERT_INT(rocjit_compile(&c, ctx, "gfx1030", &p), 0); /* a disk hit */
		rocjit_close(ctx);
	}
	ctx = rj_test_open();
	ASSERT_INT(rocjit_counters_get(&n, ctx), 0);
	ASSERT_INT(n.compiles, 4);
	ASSERT_INT(n.misses, 4);
	ASSERT_INT(n.disk_hits, 2);
	ASSERT(n.compile_ms > 0 && n.saved_ms > 0);
	ASSERT(n.since > 1700000000);
	ASSERT_INT(rocjit_cache_zero(ctx), 0);
	ASSERT_INT(rocjit_counters_get(&n, ctx), 0);
	ASSERT_INT(n.compiles + n.misses + n.disk_hits, 0);
	rocjit_close(ctx);
}

TEST(admin_calls_without_a_cache_say_so)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_counters n = ROCJIT_COUNTERS_INIT;
	rocjit_ctx *ctx;

	o.flags = ROCJIT_OPEN_NO_CACHE;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(rocjit_counters_get(&n, ctx), ROCJIT_EIO);
	ASSERT_CONTAINS(rocjit_last_error(), "no on-disk cache");
	ASSERT_INT(rocjit_cache_compact(ctx), ROCJIT_EIO);
	rocjit_close(ctx);
}

TEST(compiler_and_device_queries)
{
	const char *id;
	char buf[2048];
	int count = -1;

	ASSERT_INT(rocjit_compiler_identity(&id, ROCJIT_PLATFORM_AMD), 0);
	ASSERT_CONTAINS(id, "hiprtc");
	ASSERT_INT(rocjit_compiler_targets_get(buf, sizeof buf, ROCJIT_PLATFORM_AMD), 0);
	ASSERT_CONTAINS(buf, "gfx90a");
	ASSERT_INT(rocjit_compiler_targets_get(buf, 40, ROCJIT_PLATFORM_AMD), 0);
	ASSERT_CONTAINS(buf, " ...");
	ASSERT_INT(rocjit_device_count_get(&count, ROCJIT_PLATFORM_AMD), 0);
	ASSERT_INT(count, 0); /* no GPU on the test machines */
	ASSERT_INT(rocjit_device_target_get(buf, sizeof buf, ROCJIT_PLATFORM_AMD, 0),
		   ROCJIT_ENODEV);
	ASSERT_INT(rocjit_compiler_identity(&id, 9), ROCJIT_EINVAL);
}
