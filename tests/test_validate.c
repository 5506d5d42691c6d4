/*
 * test_validate.c - what comes from outside is checked before it is used: a bundle's
 * entries on import (rocjit import, rocjit_bundle_import) and before a context first
 * loads one.  A real bundle is exported, then copies of it are tampered with through
 * SQLite, as whoever writes a bundle can.
 */
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "key/key.h"

/* The variants (-DRJ_VARIANT=i) the bundle holds, and what is done to each. */
enum {
	GOOD,          /* untouched but for usage figures: far-future last_used, huge hits */
	RANDOM_CODE,   /* random bytes, size and checksum recomputed */
	NOT_ELF,       /* text, size and checksum recomputed */
	BAD_SHOFF,     /* ELF whose section table lies past the end, checksum recomputed */
	BOGUS_TARGET,  /* target column gfx90a:bogus+ */
	OTHER_TARGET,  /* a gfx1030 object under the gfx90a row, checksum recomputed */
	SHORT_KEY,     /* a 15-byte key */
	BAD_CHECKSUM,  /* checksum off by one */
	SHORT_PKEY,    /* an 8-byte portable key */
	LYING_KERNELS, /* kernels column names a kernel the code lacks */
	GOOD2,         /* untouched */
	NVARIANTS
};

static char bundle[4300];
static char keys[NVARIANTS][33];

static rocjit_program variant(int i, char *opt, size_t size, const char **opts)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;

	snprintf(opt, size, "-DRJ_VARIANT=%d", i);
	opts[0] = opt;
	p.source = rj_test_axpy;
	p.options = opts;
	p.num_options = 1;
	return p;
}

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		rj_test_fail(__FILE__, __LINE__, "%s: %s", sql, err);
}

/* Sets variant i's code to data, with size and checksum that match it. */
static void set_code(sqlite3 *db, int i, const void *data, size_t size)
{
	sqlite3_stmt *st;

	ASSERT_INT(sqlite3_prepare_v2(db, "UPDATE entries SET code = ?1, size = ?2, checksum = ?3 "
				      "WHERE hex(key) = upper(?4)", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_blob(st, 1, data, (int)size, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)size);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)rj_checksum(data, size));
	sqlite3_bind_text(st, 4, keys[i], -1, SQLITE_STATIC);
	ASSERT_INT(sqlite3_step(st), SQLITE_DONE);
	ASSERT_INT(sqlite3_changes(db), 1);
	sqlite3_finalize(st);
}

static void update(sqlite3 *db, int i, const char *set)
{
	char sql[512];
	snprintf(sql, sizeof sql, "UPDATE entries SET %s WHERE hex(key) = upper('%s')", set,
		 keys[i]);
	exec_sql(db, sql);
	ASSERT_INT(sqlite3_changes(db), 1);
}

/*
 * Compiles every variant for gfx90a (and one for gfx1030), exports the gfx90a ones to a
 * bundle, then tampers with the bundle's rows as the enum says.
 */
static void make_tampered_bundle(void)
{
	rocjit_ctx *ctx = rj_test_open();
	const char *list[NVARIANTS], *opts[1];
	const rocjit_code *c, *other;
	unsigned char *code;
	char opt[32];
	size_t n = 0;
	sqlite3 *db;

	for (int i = 0; i < NVARIANTS; i++) {
		rocjit_program p = variant(i, opt, sizeof opt, opts);
		ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
		memcpy(keys[i], c->key, 33);
		list[i] = keys[i];
	}
	{
		rocjit_program p = variant(OTHER_TARGET, opt, sizeof opt, opts);
		ASSERT_INT(rocjit_compile(&other, ctx, "gfx1030", &p), 0);
	}
	snprintf(bundle, sizeof bundle, "%s/app.rocjit", rj_test_dir);
	ASSERT_INT(rocjit_bundle_export(ctx, bundle, list, NVARIANTS, &n), 0);
	ASSERT_INT(n, NVARIANTS);

	ASSERT_INT(sqlite3_open(bundle, &db), SQLITE_OK);
	exec_sql(db, "PRAGMA ignore_check_constraints = 1");
	update(db, GOOD, "last_used = 4102444800, created = 4102444800, hits = 1000000000");
	code = malloc(4096);
	srand(11);
	for (int i = 0; i < 4096; i++)
		code[i] = (unsigned char)rand();
	set_code(db, RANDOM_CODE, code, 4096);
	set_code(db, NOT_ELF, "#!/bin/sh\necho this is not a code object\n", 42);
	{
		/* The real object with e_shoff (bytes 40..47 of an ELF64 header) far past the end. */
		rocjit_program p = variant(BAD_SHOFF, opt, sizeof opt, opts);
		const rocjit_code *b;
		ASSERT_INT(rocjit_compile(&b, ctx, "gfx90a", &p), 0);
		free(code);
		code = malloc(b->size);
		memcpy(code, b->data, b->size);
		memset(code + 40, 0, 8);
		code[44] = 0x7f; /* 0x7f00000000 */
		set_code(db, BAD_SHOFF, code, b->size);
	}
	update(db, BOGUS_TARGET, "target = 'gfx90a:bogus+'");
	set_code(db, OTHER_TARGET, other->data, other->size);
	update(db, SHORT_KEY, "key = substr(key, 1, 15)");
	update(db, BAD_CHECKSUM, "checksum = checksum + 1");
	update(db, SHORT_PKEY, "pkey = substr(pkey, 1, 8)");
	update(db, LYING_KERNELS, "kernels = 'axpy,steal'");
	sqlite3_close(db);
	free(code);
	rocjit_close(ctx);
}

static int is_good(int i)
{
	return i == GOOD || i == GOOD2;
}

struct seen {
	int present[NVARIANTS];
	size_t n;
	int64_t min_time, max_time;
	uint64_t hits;
};

static int collect(const rocjit_entry *e, void *user)
{
	struct seen *s = user;

	for (int i = 0; i < NVARIANTS; i++)
		if (strcmp(e->key, keys[i]) == 0)
			s->present[i] = 1;
	s->n++;
	s->hits += e->hits;
	if (!s->min_time || e->created < s->min_time)
		s->min_time = e->created;
	if (e->last_used > s->max_time)
		s->max_time = e->last_used;
	if (e->created > s->max_time)
		s->max_time = e->created;
	return 0;
}

static rocjit_ctx *open_fresh(const char *name, const char *with_bundle, unsigned flags)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	char dir[4400];
	rocjit_ctx *ctx;

	snprintf(dir, sizeof dir, "%s/%s", rj_test_dir, name);
	o.cache_dir = dir;
	o.bundles = with_bundle;
	o.flags = flags;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	return ctx;
}

TEST(import_copies_only_entries_whose_code_checks_out_with_fresh_usage)
{
	struct seen s;
	rocjit_ctx *ctx;
	size_t n = 99;
	int64_t t0;

	make_tampered_bundle();
	ctx = open_fresh("fresh", NULL, 0);
	t0 = (int64_t)time(NULL);
	ASSERT_INT(rocjit_bundle_import(ctx, bundle, &n), ROCJIT_EFORMAT);
	ASSERT_CONTAINS(rocjit_last_error(), "2 copied, 9 rejected");
	ASSERT_INT(n, 2);
	memset(&s, 0, sizeof s);
	ASSERT_INT(rocjit_cache_foreach(ctx, collect, &s), 0);
	ASSERT_INT(s.n, 2);
	for (int i = 0; i < NVARIANTS; i++)
		if (i != SHORT_KEY)
			ASSERT_INT(s.present[i], is_good(i));
	/* Usage is this cache's: the bundle's far-future dates and hits are not taken. */
	ASSERT_INT(s.hits, 0);
	ASSERT(s.min_time >= t0);
	ASSERT(s.max_time <= (int64_t)time(NULL) + 1);
	/* Importing again copies nothing new and still reports the bad ones. */
	ASSERT_INT(rocjit_bundle_import(ctx, bundle, &n), ROCJIT_EFORMAT);
	ASSERT_INT(n, 0);
	rocjit_close(ctx);
}

struct reasons {
	int count;
	char all[8192];
};

static void on_reject(const char *key, const char *reason, void *user)
{
	struct reasons *r = user;
	size_t len = strlen(r->all);

	r->count++;
	snprintf(r->all + len, sizeof r->all - len, "[%s] %s\n", key, reason);
}

TEST(import_names_every_rejected_entry_and_why)
{
	struct reasons r = { 0, "" };
	size_t copied = 0, rejected = 0;
	rocjit_ctx *ctx;

	make_tampered_bundle();
	ctx = open_fresh("fresh", NULL, 0);
	ASSERT_INT(rocjit_bundle_import_v2(ctx, bundle, &copied, &rejected, on_reject, &r),
		   ROCJIT_EFORMAT);
	printf("%s", r.all);
	ASSERT_INT(copied, 2);
	ASSERT_INT(rejected, 9);
	ASSERT_INT(r.count, 9);
	for (int i = 0; i < NVARIANTS; i++) {
		char tag[64];
		snprintf(tag, sizeof tag, "[%.32s]", keys[i]);
		if (is_good(i))
			ASSERT(!strstr(r.all, tag));
		else if (i != SHORT_KEY)
			ASSERT_CONTAINS(r.all, tag);
	}
	ASSERT_CONTAINS(r.all, "[] its key is 15 bytes");
	ASSERT_CONTAINS(r.all, "checksum");
	ASSERT_CONTAINS(r.all, "\"gfx90a:bogus+\" is not a target id");
	ASSERT_CONTAINS(r.all, "is for gfx1030");
	ASSERT_CONTAINS(r.all, "portable key is 8 bytes");
	ASSERT_CONTAINS(r.all, "kernel names");
	rocjit_close(ctx);
}

TEST(cli_import_reports_rejected_entries_and_exits_1)
{
	char cache[4400], *out = NULL;
	int status;

	make_tampered_bundle();
	snprintf(cache, sizeof cache, "%s/cli-cache", rj_test_dir);
	{
		const char *argv[] = { ROCJIT_TEST_CLI, "--cache", cache, "import", bundle, NULL };
		const char *env[] = { NULL };
		status = rj_test_run(argv, env, &out);
	}
	printf("%s", out);
	ASSERT_INT(status, 1);
	ASSERT_CONTAINS(out, "import: 2 copied, 9 rejected: ");
	free(out);
}

/* Asks for every variant from a context with the tampered bundle and no way to compile:
 * only the good entries (and the short-key one, whose code is good and is found by its
 * portable key) are served; the others answer `missing`. */
static void check_served(rocjit_ctx *ctx, int missing)
{
	const char *opts[1];
	char opt[32];

	for (int i = 0; i < NVARIANTS; i++) {
		rocjit_program p = variant(i, opt, sizeof opt, opts);
		const rocjit_code *c = NULL;
		int rc = rocjit_compile(&c, ctx, "gfx90a", &p);

		printf("variant %d: %d %s\n", i, rc, rocjit_last_error());
		if (is_good(i) || i == SHORT_KEY) {
			rocjit_codeobj_info *info;
			ASSERT_INT(rc, 0);
			ASSERT_INT(c->from_cache, 1);
			ASSERT_INT(rocjit_codeobj_inspect(&info, c->data, c->size), 0);
			ASSERT_STR(info->target, "gfx90a");
			rocjit_codeobj_info_free(info);
		} else {
			ASSERT_INT(rc, missing);
		}
	}
}

TEST(bundle_entry_with_bad_code_is_a_miss_when_compiling_is_forbidden)
{
	rocjit_ctx *ctx;

	make_tampered_bundle();
	ctx = open_fresh("fresh", bundle, ROCJIT_OPEN_NO_COMPILE);
	check_served(ctx, ROCJIT_ENOTCACHED);
	/* Asked again (the in-process table, or the row already judged): same answers. */
	check_served(ctx, ROCJIT_ENOTCACHED);
	rocjit_close(ctx);
}

/* An application on a machine without a compiler (hipRTC cannot be loaded), in its own
 * process, with the tampered bundle in ROCJIT_BUNDLE_PATH. */
TEST(bundle_entry_with_bad_code_is_a_miss_without_a_compiler)
{
	char fresh[4400], env_bundle[4400], src[4300];

	make_tampered_bundle();
	snprintf(fresh, sizeof fresh, "%s/nocompiler", rj_test_dir);
	snprintf(env_bundle, sizeof env_bundle, "ROCJIT_BUNDLE_PATH=%s", bundle);
	snprintf(src, sizeof src, "%s/axpy.hip", rj_test_dir);
	rj_test_write_file(src, rj_test_axpy, strlen(rj_test_axpy));
	for (int i = 0; i < NVARIANTS; i++) {
		char opt[32], *out = NULL;
		const char *argv[] = { ROCJIT_TEST_PROBE, "--cache", fresh, "--target", "gfx90a",
				 "--file", src, "--option", opt, NULL };
		const char *env[] = { "ROCJIT_HIP_LIBRARY=/nonexistent/libamdhip64.so", env_bundle,
				NULL };
		int status;

		snprintf(opt, sizeof opt, "-DRJ_VARIANT=%d", i);
		status = rj_test_run(argv, env, &out);
		printf("variant %d: %s", i, out);
		if (is_good(i) || i == SHORT_KEY) {
			ASSERT_INT(status, 0);
			ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 ");
		} else {
			ASSERT_INT(status, 1);
			ASSERT_CONTAINS(out, "no compiler is installed");
		}
		free(out);
	}
}

TEST(bundle_entry_with_bad_code_is_replaced_by_a_compile)
{
	const char *opts[1];
	const rocjit_code *c;
	char opt[32];
	rocjit_ctx *ctx;

	make_tampered_bundle();
	ctx = open_fresh("fresh", bundle, 0);
	for (int i = RANDOM_CODE; i <= OTHER_TARGET; i++) {
		rocjit_program p = variant(i, opt, sizeof opt, opts);
		rocjit_codeobj_info *info;
		if (i == BOGUS_TARGET)
			continue;
		ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
		ASSERT_INT(c->from_cache, 0); /* compiled here, not the bundle's code */
		ASSERT_INT(rocjit_codeobj_inspect(&info, c->data, c->size), 0);
		ASSERT_STR(info->target, "gfx90a");
		rocjit_codeobj_info_free(info);
	}
	rocjit_close(ctx);
}
