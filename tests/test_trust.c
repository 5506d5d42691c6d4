/*
 * test_trust.c - what rocjit opens when a file it uses is hostile or careless: symbolic
 * links planted in the cache folder are never followed (no mode changed, no file created
 * where they point), FIFOs given as a cache input fail at once instead of hanging, one
 * trust rule guards every source of GPU code (a cache given as a file, an SQLite URI
 * spelled as a folder), shared mode never loosens a private cache, and the messages say
 * what is wrong and what to do.
 *
 * Real files, real processes (the rocjit tool, bounded by timeout(1)), real compiles.
 * Tests that could block arm alarm(): a regression fails instead of hanging.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/cache.h"
#include "harness.h"

/* Paths here are short test folders; snprintf cuts nothing. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define MAX_ARGS 32
#define DB "rocjit-cache.sqlite"

/* Runs the rocjit tool (killed after 30 s) with extra environment entries; returns its
 * exit status; stdout+stderr in *out (malloc'ed). */
/* path holds exactly text (the file is read, compared and freed). */
static void assert_file_holds(const char *path, const char *text)
{
	char *got = rj_test_read_file(path, NULL);
	ASSERT_STR(got, text);
	free(got);
}

static int cli_run(char **out, const char *const env[], ...)
{
	const char *argv[MAX_ARGS];
	va_list ap;
	int n = 0, rc;

	argv[n++] = "/usr/bin/timeout";
	argv[n++] = "-s";
	argv[n++] = "KILL";
	argv[n++] = "30";
	argv[n++] = ROCJIT_TEST_CLI;
	va_start(ap, env);
	while (n < MAX_ARGS - 1 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	rc = rj_test_run(argv, env, out);
	printf("$ rocjit");
	for (int i = 5; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("\n%s(exit %d)\n", *out ? *out : "", rc);
	fflush(stdout);
	return rc;
}

static void path_in(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", rj_test_dir, name);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	ASSERT_INT(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static rocjit_stats stats(rocjit_ctx *ctx)
{
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	return st;
}

static rocjit_ctx *open_on(const char *cache)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;
	o.cache_dir = cache;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	return ctx;
}

/* Fills the test cache with variant i and closes it; the database's path into db. */
static void make_cache(char *db, size_t size, int i)
{
	rocjit_ctx *ctx = rj_test_open();
	ASSERT_INT(rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", i)->from_cache, 0);
	rocjit_close(ctx);
	snprintf(db, size, "%s/" DB, rj_test_cache_dir);
}

static void write_text(const char *path, const char *text)
{
	rj_test_write_file(path, text, strlen(text));
}

/* ---- 1. Files in the cache folder -------------------------------------------------------- */

TEST(symlinked_database_is_not_followed_and_its_target_keeps_its_mode)
{
	char victim[4300], db[4300], *out = NULL;
	rocjit_ctx *ctx;

	path_in(victim, sizeof victim, "victim");
	write_text(victim, "a private file of the victim\n");
	chmod(victim, 0644);
	mkdir(rj_test_cache_dir, 0700);
	snprintf(db, sizeof db, "%s/" DB, rj_test_cache_dir);
	ASSERT_INT(symlink(victim, db), 0);
	for (int shared = 0; shared < 2; shared++) {
		if (shared)
			setenv("ROCJIT_CACHE_SHARED", "1", 1);
		ctx = rj_test_open();
		ASSERT_INT(stats(ctx).cache_open, 0);
		/* Still served: compiled, kept in memory. */
		ASSERT_INT(rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 1)->from_cache, 0);
		rocjit_close(ctx);
		ASSERT_INT(mode_of(victim), 0644);
		assert_file_holds(victim, "a private file of the victim\n");
	}
	unsetenv("ROCJIT_CACHE_SHARED");
	ASSERT_INT(cli_run(&out, NULL, "--cache", rj_test_cache_dir, "stats", NULL), 1);
	ASSERT_CONTAINS(out, "symbolic link");
	ASSERT_CONTAINS(out, "remove it");
	free(out);
}

TEST(symlinked_database_leading_to_another_cache_is_not_used)
{
	char other[4300], db[4300];
	rocjit_ctx *ctx;

	/* A real cache elsewhere, with an entry. */
	path_in(other, sizeof other, "other");
	ctx = open_on(other);
	rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 7);
	rocjit_close(ctx);
	mkdir(rj_test_cache_dir, 0700);
	snprintf(db, sizeof db, "%s/" DB, rj_test_cache_dir);
	strcat(other, "/" DB);
	ASSERT_INT(symlink(other, db), 0);
	ctx = rj_test_open();
	ASSERT_INT(stats(ctx).cache_open, 0);
	ASSERT_INT(rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 7)->from_cache, 0);
	rocjit_close(ctx);
}

/* A link to nothing, planted as the database of a new cache: refused as a link, and
 * nothing is created where it points (the database is created O_EXCL | O_NOFOLLOW). */
TEST(dangling_symlinked_database_creates_nothing_where_it_points)
{
	char target[4300], db[4300], *out = NULL;
	struct stat st;
	rocjit_ctx *ctx;

	path_in(target, sizeof target, "not-yet");
	mkdir(rj_test_cache_dir, 0700);
	snprintf(db, sizeof db, "%s/" DB, rj_test_cache_dir);
	ASSERT_INT(symlink(target, db), 0);
	ctx = rj_test_open();
	ASSERT_INT(stats(ctx).cache_open, 0);
	ASSERT_INT(rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 3)->from_cache, 0);
	rocjit_close(ctx);
	ASSERT(lstat(target, &st) != 0 && errno == ENOENT);
	ASSERT_INT(cli_run(&out, NULL, "--cache", rj_test_cache_dir, "stats", NULL), 1);
	ASSERT_CONTAINS(out, "symbolic link");
	ASSERT_CONTAINS(out, "remove it");
	free(out);
}

/* A symlink planted as the -wal or -shm: refused with a clear message, target untouched. */
static void check_side_link(const char *side)
{
	char db[4300], link[4400], victim[4300], *out = NULL;
	rocjit_ctx *ctx;

	make_cache(db, sizeof db, 1);
	path_in(victim, sizeof victim, "victim");
	write_text(victim, "victim\n");
	chmod(victim, 0600);
	snprintf(link, sizeof link, "%s%s", db, side);
	unlink(link);
	ASSERT_INT(symlink(victim, link), 0);
	ctx = rj_test_open();
	ASSERT_INT(stats(ctx).cache_open, 0);
	rocjit_close(ctx);
	assert_file_holds(victim, "victim\n");
	ASSERT_INT(mode_of(victim), 0600);
	ASSERT_INT(cli_run(&out, NULL, "--cache", rj_test_cache_dir, "stats", NULL), 1);
	ASSERT_CONTAINS(out, side);
	ASSERT_CONTAINS(out, "symbolic link");
	free(out);
}

TEST(symlinked_wal_is_not_followed)
{
	check_side_link("-wal");
}

TEST(symlinked_shm_is_not_followed)
{
	check_side_link("-shm");
}

/* A garbage database makes rocjit take locks/open.lock before moving it aside. */
static void make_garbage_cache(void)
{
	char db[4300];

	mkdir(rj_test_cache_dir, 0700);
	snprintf(db, sizeof db, "%s/" DB, rj_test_cache_dir);
	write_text(db, "this is no SQLite database, and long enough to look like one.......");
}

/*
 * Plants link (relative to the cache folder) pointing at target (relative to a folder
 * only root may write), damages the database so that rocjit takes locks/open.lock, and
 * checks that planted (relative to that folder) was not created.
 */
static void check_lock_link(const char *link, const char *target, const char *planted)
{
	char rootonly[4300], from[4400], to[4400];

	path_in(rootonly, sizeof rootonly, "rootonly");
	mkdir(rootonly, 0755);
	make_garbage_cache();
	snprintf(from, sizeof from, "%s/locks", rj_test_cache_dir);
	if (strchr(link, '/'))
		mkdir(from, 0700);
	snprintf(from, sizeof from, "%s/%s", rj_test_cache_dir, link);
	snprintf(to, sizeof to, "%s%s", rootonly, target);
	ASSERT_INT(symlink(to, from), 0);
	rocjit_close(rj_test_open());
	snprintf(to, sizeof to, "%s/%s", rootonly, planted);
	ASSERT(!exists(to));
}

TEST(symlinked_locks_folder_creates_no_file_where_it_points)
{
	check_lock_link("locks", "", "open.lock");
}

TEST(symlinked_open_lock_creates_no_file_where_it_points)
{
	/* Dangling: O_CREAT through it would make the file. */
	check_lock_link("locks/open.lock", "/made-by-rocjit", "made-by-rocjit");
}

TEST(export_through_a_symlink_creates_nothing_and_changes_nothing)
{
	char dangling[4300], target[4300], existing[4300], link2[4300], *out = NULL;
	const char *keys[1];
	rocjit_ctx *ctx = rj_test_open();
	const rocjit_code *code = rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 1);

	keys[0] = code->key;
	path_in(target, sizeof target, "target.rocjit");
	path_in(dangling, sizeof dangling, "dangling.rocjit");
	ASSERT_INT(symlink(target, dangling), 0);
	ASSERT(rocjit_bundle_export(ctx, dangling, keys, 1, NULL) != 0);
	ASSERT_CONTAINS(rocjit_last_error(), "symbolic link");
	ASSERT(!exists(target));

	path_in(existing, sizeof existing, "existing");
	write_text(existing, "keep me\n");
	path_in(link2, sizeof link2, "link2.rocjit");
	ASSERT_INT(symlink(existing, link2), 0);
	ASSERT(rocjit_bundle_export(ctx, link2, keys, 1, NULL) != 0);
	assert_file_holds(existing, "keep me\n");
	rocjit_close(ctx);

	/* The tool refuses before compiling anything. */
	ASSERT(cli_run(&out, NULL, "--cache", rj_test_cache_dir, "export", "-o", dangling,
		       "--arch", "gfx90a", ROCJIT_TEST_KERNELS "/axpy.hip", NULL) != 0);
	ASSERT(!exists(target));
	free(out);
}

static void make_fifo(char *path, size_t size, const char *name)
{
	path_in(path, size, name);
	ASSERT_INT(mkfifo(path, 0644), 0);
}

TEST(fifo_as_bundle_is_refused_without_blocking)
{
	char fifo[4300];
	rocjit_ctx *ctx;

	alarm(60);
	make_fifo(fifo, sizeof fifo, "app.rocjit");
	setenv("ROCJIT_BUNDLE_PATH", fifo, 1);
	ctx = rj_test_open();
	ASSERT_INT(rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 1)->from_cache, 0);
	rocjit_close(ctx);
}

TEST(fifo_as_import_argument_is_refused_without_blocking)
{
	char fifo[4300];
	rocjit_ctx *ctx;

	alarm(60);
	make_fifo(fifo, sizeof fifo, "in.rocjit");
	ctx = rj_test_open();
	ASSERT(rocjit_bundle_import(ctx, fifo, NULL) != 0);
	ASSERT_CONTAINS(rocjit_last_error(), "FIFO");
	rocjit_close(ctx);
}

TEST(fifo_in_kernel_path_is_refused_without_blocking)
{
	static const char text[] = "extern \"C\" __global__ void k(int *x) { x[0] = 1; }\n";
	static const rocjit_source_file files[] = { { "trust_k.hip", text, sizeof text - 1 } };
	char dir[4300], fifo[4400];
	const rocjit_code *c = NULL;
	rocjit_ctx *ctx;

	alarm(60);
	ASSERT_INT(rocjit_register_sources(files, 1), 0);
	path_in(dir, sizeof dir, "kernels");
	mkdir(dir, 0700);
	snprintf(fifo, sizeof fifo, "%s/trust_k.hip", dir);
	ASSERT_INT(mkfifo(fifo, 0644), 0);
	setenv("ROCJIT_KERNEL_PATH", dir, 1);
	ctx = rj_test_open();
	ASSERT(rocjit_compile_registered(&c, ctx, "gfx90a", "trust_k.hip", NULL, 0) != 0);
	ASSERT_CONTAINS(rocjit_last_error(), "FIFO");
	rocjit_close(ctx);
}

TEST(fifo_as_cli_kernel_file_or_manifest_member_is_refused_without_blocking)
{
	char fifo[4300], manifest[4300], text[8800], *out = NULL;

	make_fifo(fifo, sizeof fifo, "k.hip");
	ASSERT_INT(cli_run(&out, NULL, "--cache", rj_test_cache_dir, "compile", "--arch",
			   "gfx90a", fifo, NULL), 1);
	ASSERT_CONTAINS(out, "FIFO");
	free(out);
	ASSERT_INT(cli_run(&out, NULL, "--cache", rj_test_cache_dir, "prewarm", "--arch",
			   "gfx90a", fifo, NULL), 1);
	ASSERT_CONTAINS(out, "FIFO");
	free(out);
	path_in(manifest, sizeof manifest, "app.rocjit-manifest");
	snprintf(text, sizeof text, "# rocjit-manifest 1\ndir=%s\nk.hip\n", rj_test_dir);
	write_text(manifest, text);
	ASSERT_INT(cli_run(&out, NULL, "--cache", rj_test_cache_dir, "prewarm", "--arch",
			   "gfx90a", "--manifest", manifest, NULL), 1);
	ASSERT_CONTAINS(out, "FIFO");
	free(out);
}

TEST(fifo_in_a_prewarm_folder_is_refused_without_blocking)
{
	char dir[4300], fifo[4400], good[4400], *out = NULL;

	path_in(dir, sizeof dir, "kernels");
	mkdir(dir, 0700);
	snprintf(good, sizeof good, "%s/a.hip", dir);
	write_text(good, rj_test_axpy);
	snprintf(fifo, sizeof fifo, "%s/b.hip", dir);
	ASSERT_INT(mkfifo(fifo, 0644), 0);
	ASSERT_INT(cli_run(&out, NULL, "--cache", rj_test_cache_dir, "prewarm", "--arch",
			   "gfx90a", dir, NULL), 1);
	ASSERT_CONTAINS(out, "b.hip");
	ASSERT_CONTAINS(out, "FIFO");
	free(out);
}

/* ---- 2. One trust rule ------------------------------------------------------------------- */

/* A cache file that fails the trust rule, named as the cache three ways: never served. */
static void check_file_cache_refused(const char *db, const char *why)
{
	char env[4400], *out = NULL;
	const char *envs[] = { env, NULL };
	rocjit_ctx *ctx = open_on(db);

	ASSERT_INT(stats(ctx).cache_open, 0);
	ASSERT_INT(rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 1)->from_cache, 0);
	rocjit_close(ctx);
	setenv("ROCJIT_CACHE_DIR", db, 1);
	ASSERT_INT(rocjit_open(&ctx, NULL), 0);
	ASSERT_INT(stats(ctx).cache_open, 0);
	ASSERT_INT(rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 1)->from_cache, 0);
	rocjit_close(ctx);
	unsetenv("ROCJIT_CACHE_DIR");
	ASSERT_INT(cli_run(&out, NULL, "--cache", db, "ls", NULL), 1);
	ASSERT_CONTAINS(out, why);
	free(out);
	snprintf(env, sizeof env, "ROCJIT_CACHE_DIR=%s", db);
	ASSERT_INT(cli_run(&out, envs, "ls", NULL), 1);
	ASSERT_CONTAINS(out, why);
	free(out);
}

TEST(cache_file_writable_by_everyone_is_never_served)
{
	char db[4300];

	make_cache(db, sizeof db, 1);
	chmod(db, 0666);
	check_file_cache_refused(db, "mode 0666");
}

TEST(cache_file_owned_by_another_user_is_never_served)
{
	char db[4300];

	if (geteuid() != 0) {
		printf("SKIP: giving a file to another user needs root\n");
		exit(77);
	}
	make_cache(db, sizeof db, 1);
	chmod(db, 0644);
	ASSERT_INT(chown(db, 65534, 65534), 0);
	/* The folder stays ours: only the file's owner is wrong. */
	check_file_cache_refused(db, "owned by user 65534");
}

TEST(file_uri_spelled_as_cache_dir_never_touches_the_absolute_path)
{
	char abs[4300], value[4400], local[4500], db[4400];
	rocjit_ctx *ctx;

	path_in(abs, sizeof abs, "victim-cache");
	mkdir(abs, 0700);
	ASSERT_INT(chdir(rj_test_dir), 0);
	snprintf(value, sizeof value, "file:%s", abs);
	setenv("ROCJIT_CACHE_DIR", value, 1);
	ASSERT_INT(rocjit_open(&ctx, NULL), 0);
	ASSERT_INT(stats(ctx).cache_open, 1);
	rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 1);
	rocjit_close(ctx);
	/* The folder it names, relative: ./file:/abs/... - and nothing in /abs. */
	snprintf(db, sizeof db, "%s/" DB, abs);
	ASSERT(!exists(db));
	snprintf(local, sizeof local, "%s/file:%s/" DB, rj_test_dir, abs);
	ASSERT(exists(local));
	/* Same for a value SQLite would read with a query. */
	snprintf(value, sizeof value, "file:%s?mode=memory", abs);
	setenv("ROCJIT_CACHE_DIR", value, 1);
	ASSERT_INT(rocjit_open(&ctx, NULL), 0);
	rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 2);
	rocjit_close(ctx);
	ASSERT(!exists(db));
	snprintf(local, sizeof local, "%s/file:%s?mode=memory/" DB, rj_test_dir, abs);
	ASSERT(exists(local));
}

TEST(bundle_writable_by_its_group_is_skipped_with_its_full_mode)
{
	char bundle[4300];
	const char *keys[1];
	rocjit_ctx *ctx = rj_test_open();
	const rocjit_code *code = rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 3);

	keys[0] = code->key;
	path_in(bundle, sizeof bundle, "app.rocjit");
	ASSERT_INT(rocjit_bundle_export(ctx, bundle, keys, 1, NULL), 0);
	ASSERT_INT(mode_of(bundle), 0644);
	rocjit_close(ctx);
	chmod(bundle, 02664);
	ctx = rj_test_open();
	ASSERT(rocjit_bundle_import(ctx, bundle, NULL) != 0);
	ASSERT_CONTAINS(rocjit_last_error(), "mode 2664");
	rocjit_close(ctx);
}

/* ---- 5. Shared mode and messages ---------------------------------------------------------- */

TEST(shared_mode_empty_or_off_keeps_a_new_cache_private)
{
	static const char *const values[] = { "", "0", "off", "maybe" };
	char db[4400];

	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		rocjit_ctx *ctx;
		snprintf(rj_test_cache_dir, sizeof rj_test_cache_dir, "%s/cache%zu", rj_test_dir,
			 i);
		setenv("ROCJIT_CACHE_SHARED", values[i], 1);
		ctx = rj_test_open();
		ASSERT_INT(stats(ctx).cache_open, 1);
		rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 1);
		rocjit_close(ctx);
		snprintf(db, sizeof db, "%s/" DB, rj_test_cache_dir);
		ASSERT_INT(mode_of(db), 0600);
		ASSERT_INT(mode_of(rj_test_cache_dir), 0700);
	}
}

TEST(shared_mode_never_loosens_an_existing_private_cache)
{
	char db[4300];
	rocjit_ctx *ctx;

	make_cache(db, sizeof db, 1);
	setenv("ROCJIT_CACHE_SHARED", "1", 1);
	ctx = rj_test_open();
	ASSERT_INT(stats(ctx).cache_open, 1);
	ASSERT_INT(rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 1)->from_cache, 1);
	rocjit_close(ctx);
	ASSERT_INT(mode_of(db), 0600);
	ASSERT_INT(mode_of(rj_test_cache_dir), 0700);
	unsetenv("ROCJIT_CACHE_SHARED");
	ctx = rj_test_open();
	ASSERT_INT(rj_test_compile_variant(ctx, "gfx90a", "RJ_TRUST", 1)->from_cache, 1);
	rocjit_close(ctx);
}

TEST(new_shared_cache_is_group_writable_and_a_private_run_says_what_to_do)
{
	char db[4300], shared[] = "ROCJIT_CACHE_SHARED=1", *out = NULL;
	const char *envs[] = { shared, NULL };
	rocjit_ctx *ctx;

	umask(022);
	setenv("ROCJIT_CACHE_SHARED", "1", 1);
	make_cache(db, sizeof db, 1);
	ASSERT_INT(mode_of(db), 0660);
	ASSERT_INT(mode_of(rj_test_cache_dir), 0770);
	unsetenv("ROCJIT_CACHE_SHARED");
	ctx = rj_test_open();
	ASSERT_INT(stats(ctx).cache_open, 0);
	rocjit_close(ctx);
	ASSERT_INT(cli_run(&out, NULL, "--cache", rj_test_cache_dir, "stats", NULL), 1);
	ASSERT_CONTAINS(out, "mode 0770");
	ASSERT_CONTAINS(out, "ROCJIT_CACHE_SHARED=1");
	ASSERT_CONTAINS(out, "chmod go-w");
	free(out);
	/* Nothing was changed behind the user's back; with the flag it works again. */
	ASSERT_INT(mode_of(db), 0660);
	ASSERT_INT(cli_run(&out, envs, "--cache", rj_test_cache_dir, "stats", NULL), 0);
	free(out);
}

TEST(import_of_a_missing_file_says_it_does_not_exist)
{
	char missing[4300], *out = NULL;
	rocjit_ctx *ctx = rj_test_open();

	path_in(missing, sizeof missing, "nonexistent.rocjit");
	ASSERT(rocjit_bundle_import(ctx, missing, NULL) != 0);
	ASSERT_CONTAINS(rocjit_last_error(), "No such file");
	ASSERT(!strstr(rocjit_last_error(), "owned"));
	rocjit_close(ctx);
	ASSERT_INT(cli_run(&out, NULL, "--cache", rj_test_cache_dir, "import", missing, NULL), 1);
	ASSERT_CONTAINS(out, "No such file");
	free(out);
}

TEST(world_writable_sticky_folder_is_shown_with_all_mode_bits)
{
	rj_cache *c = NULL;

	mkdir(rj_test_cache_dir, 0700);
	chmod(rj_test_cache_dir, 01777);
	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), ROCJIT_EIO);
	ASSERT_CONTAINS(rocjit_last_error(), "mode 1777");
	ASSERT_CONTAINS(rocjit_last_error(), "chmod go-w");
}
