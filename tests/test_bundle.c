/*
 * test_bundle.c - prebuilt bundles: exported from a cache, served where no compiler is
 * installed, other compiler versions used as documented, damaged bundles skipped.
 */
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "harness.h"

static char bundle[4300];

/* Compiles axpy for gfx90a into the test cache and exports it to rj_test_dir/app.rocjit. */
static void make_bundle(char key[33])
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *c;
	const char *keys[1];
	size_t n = 0;

	p.source = rj_test_axpy;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	memcpy(key, c->key, 33);
	keys[0] = key;
	snprintf(bundle, sizeof bundle, "%s/app.rocjit", rj_test_dir);
	ASSERT_INT(rocjit_bundle_export(ctx, bundle, keys, 1, &n), 0);
	ASSERT_INT(n, 1);
	ASSERT_INT(rocjit_bundle_export(ctx, bundle, keys, 1, &n), ROCJIT_EINVAL); /* exists */
	/* No keys: said so, not an SQL constraint's words. */
	ASSERT_INT(rocjit_bundle_export(ctx, bundle, NULL, 0, &n), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "no keys given");
	rocjit_close(ctx);
}

static rocjit_ctx *open_with_bundle(const char *cache)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;

	o.cache_dir = cache;
	o.bundles = bundle;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	return ctx;
}

static int compile_for(rocjit_ctx *ctx, const char *target, const rocjit_code **c)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	p.source = rj_test_axpy;
	return rocjit_compile(c, ctx, target, &p);
}

TEST(bundle_serves_an_empty_user_cache_without_compiling)
{
	char key[33], fresh[4400];
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	const rocjit_code *c;
	rocjit_ctx *ctx;

	make_bundle(key);
	snprintf(fresh, sizeof fresh, "%s/fresh", rj_test_dir);
	ctx = open_with_bundle(fresh);
	ASSERT_INT(compile_for(ctx, "gfx90a", &c), 0);
	ASSERT_INT(c->from_cache, 1);
	ASSERT_STR(c->key, key);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compiles, 0);
	/* A bundle for other targets is not used for this one. */
	ASSERT_INT(compile_for(ctx, "gfx1030", &c), 0);
	ASSERT_INT(c->from_cache, 0);
	rocjit_close(ctx);
}

TEST(application_runs_from_a_bundle_with_no_compiler_installed)
{
	char key[33], fresh[4400], env_bundle[4400], src[4300];
	char *out;
	int status;

	make_bundle(key);
	snprintf(fresh, sizeof fresh, "%s/fresh", rj_test_dir);
	snprintf(env_bundle, sizeof env_bundle, "ROCJIT_BUNDLE_PATH=%s", bundle);
	snprintf(src, sizeof src, "%s/axpy.hip", rj_test_dir);
	rj_test_write_file(src, rj_test_axpy, strlen(rj_test_axpy));
	{
		const char *argv[] = { ROCJIT_TEST_PROBE, "--cache", fresh, "--target", "gfx90a",
				 "--file", src, NULL };
		const char *env[] = { "ROCJIT_HIP_LIBRARY=/nonexistent/libamdhip64.so", env_bundle,
				NULL };
		status = rj_test_run(argv, env, &out);
		printf("%s", out);
		ASSERT_INT(status, 0);
		ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 ");
		free(out);
	}
	{
		/* What the bundle lacks cannot be served: the error says what to do. */
		const char *argv[] = { ROCJIT_TEST_PROBE, "--cache", fresh, "--target", "gfx1030",
				 "--file", src, NULL };
		const char *env[] = { "ROCJIT_HIP_LIBRARY=/nonexistent/libamdhip64.so", env_bundle,
				NULL };
		status = rj_test_run(argv, env, &out);
		printf("%s", out);
		ASSERT_INT(status, 1);
		ASSERT_CONTAINS(out, "no bundle");
		free(out);
	}
}

/* A copy of the probe at path (mode 0755), for an application of the test's own. */
static void copy_probe(const char *path)
{
	size_t size;
	char *bytes = rj_test_read_file(ROCJIT_TEST_PROBE, &size);

	rj_test_write_file(path, bytes, size);
	ASSERT(chmod(path, 0755) == 0);
	free(bytes);
}

/* Runs the application exe (as given) on src for gfx90a with compiling forbidden, on a
 * fresh cache: its exit status, the output checked to say how it was served. */
static int run_app(const char *exe, const char *src, const char *cache)
{
	const char *argv[] = { exe, "--cache", cache, "--target", "gfx90a", "--file", src,
			       NULL };
	const char *env[] = { "ROCJIT_NO_COMPILE=1", NULL };
	char *out;
	int status = rj_test_run(argv, env, &out);

	printf("%s: %s", exe, out);
	if (status == 0)
		ASSERT_CONTAINS(out, "compiles=0 disk_hits=1 ");
	free(out);
	return status;
}

/*
 * <executable>.rocjit serves with nothing configured: run by its path, by a relative
 * path from another working folder, through a link to it (the bundle beside the file
 * itself counts, as /proc/self/exe names it), through a link in a folder above; a bundle
 * beside a link, not beside the file, is not the executable's.
 */
TEST(bundle_beside_the_executable_serves_however_it_is_run)
{
	char key[33], src[4300], dir[4300], exe[4400], link[4400], cache[4400];
	char lonely[4400], lonely_link[4400], stray[4400], updir[4400], via_up[4500];
	char *bytes, cwd[4096];
	size_t size;
	int n = 0;

	{
		struct statvfs fs;
		if (statvfs(rj_test_dir, &fs) == 0 && (fs.f_flag & ST_NOEXEC))
			rj_test_skip("%s is on a file system mounted noexec: this test runs "
				     "programs it copies there (set TMPDIR to another folder)",
				     rj_test_dir);
	}
	make_bundle(key);
	snprintf(src, sizeof src, "%s/axpy.hip", rj_test_dir);
	rj_test_write_file(src, rj_test_axpy, strlen(rj_test_axpy));
	snprintf(dir, sizeof dir, "%s/bin", rj_test_dir);
	ASSERT(mkdir(dir, 0755) == 0);
	snprintf(exe, sizeof exe, "%s/app", dir);
	copy_probe(exe);
	bytes = rj_test_read_file(bundle, &size);
	snprintf(link, sizeof link, "%s/app.rocjit", dir);
	rj_test_write_file(link, bytes, size);

#define FRESH() (snprintf(cache, sizeof cache, "%s/cache%d", rj_test_dir, n++), cache)
	ASSERT_INT(run_app(exe, src, FRESH()), 0);
	ASSERT(getcwd(cwd, sizeof cwd) != NULL);
	ASSERT(chdir(dir) == 0);
	ASSERT_INT(run_app("./app", src, FRESH()), 0);
	ASSERT(chdir(cwd) == 0);
	snprintf(link, sizeof link, "%s/app-link", rj_test_dir);
	ASSERT(symlink(exe, link) == 0);
	ASSERT_INT(run_app(link, src, FRESH()), 0);
	snprintf(updir, sizeof updir, "%s/up", rj_test_dir);
	ASSERT(symlink(dir, updir) == 0);
	snprintf(via_up, sizeof via_up, "%s/app", updir);
	ASSERT_INT(run_app(via_up, src, FRESH()), 0);

	/* Another copy, without a bundle; a link to it with one beside the link only. */
	snprintf(lonely, sizeof lonely, "%s/lonely", dir);
	copy_probe(lonely);
	snprintf(lonely_link, sizeof lonely_link, "%s/stray", rj_test_dir);
	ASSERT(symlink(lonely, lonely_link) == 0);
	snprintf(stray, sizeof stray, "%s/stray.rocjit", rj_test_dir);
	rj_test_write_file(stray, bytes, size);
	ASSERT_INT(run_app(lonely_link, src, FRESH()), 1);
#undef FRESH
	free(bytes);
}

static const char *kernels_of(const rocjit_code *c, char *buf, size_t size)
{
	rocjit_codeobj_info *info;
	ASSERT_INT(rocjit_codeobj_inspect(&info, c->data, c->size), 0);
	snprintf(buf, size, "%s", info->num_kernels ? info->kernels[0] : "");
	rocjit_codeobj_info_free(info);
	return buf;
}

/*
 * Two bundle entries for one program (one portable key): the one the installed compiler
 * made wins over a newer one from another compiler version; alone, the other version's
 * entry is used (it is valid code for the target).
 */
TEST(other_compiler_versions_serve_and_the_current_one_is_preferred)
{
	static const char other_src[] =
		"extern \"C\" __global__ void other(float *x) { x[0] = 2.0f; }\n";
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *a, *b;
	const char *keys[2];
	char ka[33], kb[33], fresh[4400], names[64], sql[512];
	sqlite3 *db;

	p.source = rj_test_axpy;
	ASSERT_INT(rocjit_compile(&a, ctx, "gfx90a", &p), 0);
	p.source = other_src;
	ASSERT_INT(rocjit_compile(&b, ctx, "gfx90a", &p), 0);
	memcpy(ka, a->key, 33);
	memcpy(kb, b->key, 33);
	keys[0] = ka;
	keys[1] = kb;
	snprintf(bundle, sizeof bundle, "%s/app.rocjit", rj_test_dir);
	ASSERT_INT(rocjit_bundle_export(ctx, bundle, keys, 2, NULL), 0);
	rocjit_close(ctx);
	/* b's row becomes a newer entry of a's program, made by another compiler. */
	ASSERT_INT(sqlite3_open(bundle, &db), SQLITE_OK);
	snprintf(sql, sizeof sql,
		 "UPDATE entries SET pkey = (SELECT pkey FROM entries WHERE hex(key) = upper('%s')), "
		 "compiler = 'hiprtc 0.2 (older)', created = created + 1000 "
		 "WHERE hex(key) = upper('%s')", ka, kb);
	ASSERT_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	snprintf(fresh, sizeof fresh, "%s/fresh", rj_test_dir);
	ctx = open_with_bundle(fresh);
	ASSERT_INT(compile_for(ctx, "gfx90a", &a), 0);
	ASSERT_INT(a->from_cache, 1);
	ASSERT_STR(kernels_of(a, names, sizeof names), "axpy");
	rocjit_close(ctx);

	ASSERT_INT(sqlite3_open(bundle, &db), SQLITE_OK);
	snprintf(sql, sizeof sql, "DELETE FROM entries WHERE hex(key) = upper('%s')", ka);
	ASSERT_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	snprintf(fresh, sizeof fresh, "%s/fresh2", rj_test_dir);
	ctx = open_with_bundle(fresh);
	ASSERT_INT(compile_for(ctx, "gfx90a", &a), 0);
	ASSERT_INT(a->from_cache, 1);
	ASSERT_STR(kernels_of(a, names, sizeof names), "other");
	rocjit_close(ctx);
}

TEST(damaged_bundle_is_skipped_with_a_warning)
{
	char fresh[4400], junk[4096];
	const rocjit_code *c;
	rocjit_ctx *ctx;

	snprintf(bundle, sizeof bundle, "%s/junk.rocjit", rj_test_dir);
	memset(junk, 'x', sizeof junk);
	rj_test_write_file(bundle, junk, sizeof junk);
	snprintf(fresh, sizeof fresh, "%s/fresh", rj_test_dir);
	ctx = open_with_bundle(fresh);
	ASSERT_INT(compile_for(ctx, "gfx90a", &c), 0);
	ASSERT_INT(c->from_cache, 0);
	rocjit_close(ctx);
}

TEST(import_copies_a_bundle_into_the_user_cache)
{
	char key[33], fresh[4400];
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	const rocjit_code *c;
	rocjit_ctx *ctx;
	size_t n = 0;

	make_bundle(key);
	snprintf(fresh, sizeof fresh, "%s/fresh", rj_test_dir);
	o.cache_dir = fresh;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(rocjit_bundle_import(ctx, bundle, &n), 0);
	ASSERT_INT(n, 1);
	ASSERT_INT(rocjit_bundle_import(ctx, bundle, &n), 0);
	ASSERT_INT(n, 0); /* already there */
	ASSERT_INT(compile_for(ctx, "gfx90a", &c), 0);
	ASSERT_INT(c->from_cache, 1);
	ASSERT_STR(c->key, key);
	rocjit_close(ctx);
}

/* Code built for a less specific id of the same processor runs on the more specific one. */
TEST(bundle_built_for_a_general_target_serves_its_specific_variants)
{
	rocjit_ctx *ctx = rj_test_open();
	const rocjit_code *c;
	const char *keys[2];
	char k_any[33], k_xnack_off[33], fresh[4400];
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	static const char *const marker[] = { "-DRJ_MARK=1" };

	p.source = rj_test_axpy;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	memcpy(k_any, c->key, 33);
	p.options = marker;
	p.num_options = 1;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a:xnack-", &p), 0);
	memcpy(k_xnack_off, c->key, 33);
	keys[0] = k_any;
	keys[1] = k_xnack_off;
	snprintf(bundle, sizeof bundle, "%s/app.rocjit", rj_test_dir);
	ASSERT_INT(rocjit_bundle_export(ctx, bundle, keys, 2, NULL), 0);
	rocjit_close(ctx);

	snprintf(fresh, sizeof fresh, "%s/fresh", rj_test_dir);
	ctx = open_with_bundle(fresh);
	/* Built for gfx90a (any): serves every gfx90a variant. */
	ASSERT_INT(compile_for(ctx, "gfx90a:sramecc+:xnack-", &c), 0);
	ASSERT_INT(c->from_cache, 1);
	ASSERT_INT(compile_for(ctx, "gfx90a:xnack+", &c), 0);
	ASSERT_INT(c->from_cache, 1);
	/* Built for gfx90a:xnack-: serves xnack- variants only. */
	p.source = rj_test_axpy;
	p.options = marker;
	p.num_options = 1;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a:sramecc-:xnack-", &p), 0);
	ASSERT_INT(c->from_cache, 1);
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a:xnack+", &p), 0);
	ASSERT_INT(c->from_cache, 0);
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT_INT(c->from_cache, 0);
	rocjit_close(ctx);
}

TEST(export_takes_duplicate_keys_and_refuses_malformed_ones)
{
	rocjit_ctx *ctx = rj_test_open();
	const rocjit_code *c;
	const char *keys[2], *bad[1] = { "not-a-key" };
	char path[4400];
	size_t n = 0;

	ASSERT_INT(compile_for(ctx, "gfx90a", &c), 0);
	keys[0] = keys[1] = c->key;
	snprintf(path, sizeof path, "%s/dup.rocjit", rj_test_dir);
	ASSERT_INT(rocjit_bundle_export(ctx, path, keys, 2, &n), 0);
	ASSERT_INT(n, 1);
	snprintf(path, sizeof path, "%s/bad.rocjit", rj_test_dir);
	ASSERT_INT(rocjit_bundle_export(ctx, path, bad, 1, &n), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "not-a-key");
	rocjit_close(ctx);
}

TEST(bundle_writable_by_others_is_not_used)
{
	char key[33], fresh[4400];
	const rocjit_code *c;
	rocjit_ctx *ctx;

	make_bundle(key);
	chmod(bundle, 0666);
	snprintf(fresh, sizeof fresh, "%s/fresh", rj_test_dir);
	ctx = open_with_bundle(fresh);
	ASSERT_INT(compile_for(ctx, "gfx90a", &c), 0);
	ASSERT_INT(c->from_cache, 0); /* compiled: the bundle was refused */
	rocjit_close(ctx);
}

/* A bundle cut short while a context has it open (issue 27: a file others can write never
 * crashes its reader).  Bundles are read with pread through SQLite (sqlite_fd.c), never
 * mapped: the lookup fails, the program is compiled, and the code is the right code. */
TEST(bundle_truncated_under_a_reader_is_a_miss)
{
	char key[33], fresh[4400];
	const rocjit_code *c;
	void *want;
	size_t want_size;

	make_bundle(key);
	{
		rocjit_ctx *ctx = rj_test_open();
		ASSERT_INT(compile_for(ctx, "gfx90a", &c), 0);
		want_size = c->size;
		want = malloc(want_size);
		memcpy(want, c->data, want_size);
		rocjit_close(ctx);
	}
	for (int round = 0; round < 2; round++) {
		struct stat st;
		rocjit_ctx *ctx;

		snprintf(fresh, sizeof fresh, "%s/fresh%d", rj_test_dir, round);
		ctx = open_with_bundle(fresh);
		ASSERT_INT(stat(bundle, &st), 0);
		ASSERT_INT(truncate(bundle, round ? st.st_size / 2 : 0), 0);
		ASSERT_INT(compile_for(ctx, "gfx90a", &c), 0);
		ASSERT_INT(c->size, want_size);
		ASSERT(memcmp(c->data, want, want_size) == 0);
		ASSERT_STR(c->key, key);
		rocjit_close(ctx);
		unlink(bundle);
		make_bundle(key); /* whole again, for the next round */
	}
	free(want);
}
