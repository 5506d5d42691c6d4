/*
 * test_compiler_id.c - the compiler memo (src/compile/compiler_id.c): a new process uses
 * the remembered compiler identity only while every part of its fingerprint holds - the
 * environment that picks the compiler, the loader's cache, each LD_LIBRARY_PATH folder and
 * each library file (path, device, inode, size, modification time) - and loads the
 * compiler otherwise.  The memo's text is pinned: caches written by earlier versions keep
 * serving without loading.  A fake platform stands for the compiler; each look is made by
 * a fresh process (a process settles its identity once).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compile/compiler_id.h"
#include "compile/rocm_paths.h"
#include "store/cache_internal.h"
#include "harness.h"

static char files_held[2][4300];
static char outcome_file[4300];
static int loads;

static const char *fake_id(void)
{
	loads++;
	return "fake 1.0";
}

static size_t fake_files(const char **paths, size_t max)
{
	if (max < 2)
		return 0;
	paths[0] = files_held[0];
	paths[1] = files_held[1];
	return 2;
}

static const struct rj_platform fake = {
	.id = ROCJIT_PLATFORM_AMD,
	.name = "fake",
	.compiler_id = fake_id,
	.compiler_files = fake_files,
};

/* The fake compiler's files, and an LD_LIBRARY_PATH with a folder, an empty part and a
 * missing folder (its line has no stat). */
static void set_up(void)
{
	char dir[4300], ld[9000];

	snprintf(files_held[0], sizeof files_held[0], "%s/libfake.so", rj_test_dir);
	snprintf(files_held[1], sizeof files_held[1], "%s/fake.h", rj_test_dir);
	rj_test_write_file(files_held[0], "library", 7);
	rj_test_write_file(files_held[1], "header", 6);
	/* Apart: writing it changes its folder's mtime, and no LD_LIBRARY_PATH names it. */
	snprintf(outcome_file, sizeof outcome_file, "%s/out", rj_test_dir);
	mkdir(outcome_file, 0700);
	snprintf(outcome_file, sizeof outcome_file, "%s/out/outcome", rj_test_dir);
	snprintf(dir, sizeof dir, "%s/libs2", rj_test_dir);
	mkdir(dir, 0700);
	snprintf(dir, sizeof dir, "%s/libs", rj_test_dir);
	mkdir(dir, 0700);
	snprintf(ld, sizeof ld, "%s::%s/missing:", dir, rj_test_dir);
	setenv("LD_LIBRARY_PATH", ld, 1);
	unsetenv("CUDA_PATH");
}

/* In a fresh process: the identity, and whether the compiler was loaded for it. */
static int look(int preload)
{
	rj_cache *c;
	const char *id;
	FILE *f;

	/* 1: the process has a hipRTC loaded already (the application's), which it would
	   compile with (driver_amd.c). */
	RJ_CHILD_CHECK(!preload || dlopen(ROCJIT_TEST_FAKE_HIPRTC, RTLD_NOW | RTLD_LOCAL));
	RJ_CHILD_CHECK(rj_cache_open(&c, rj_test_cache_dir, 0) == 0);
	id = rj_compiler_id(&fake, c);
	RJ_CHILD_CHECK(id && strcmp(id, "fake 1.0") == 0);
	rj_cache_close(c);
	RJ_CHILD_CHECK((f = fopen(outcome_file, "w")) != NULL);
	fputs(loads ? "loaded" : "remembered", f);
	fclose(f);
	return 0;
}

/* Whether a fresh process (with a hipRTC loaded before rocjit when preload is set) used
 * the memo (1) or loaded the compiler (0). */
static int remembered_when(int preload)
{
	char *text;
	int yes;

	ASSERT_INT(rj_test_in_child(look, preload), 0);
	text = rj_test_read_file(outcome_file, NULL);
	ASSERT(text);
	yes = strcmp(text, "remembered") == 0;
	ASSERT(yes || strcmp(text, "loaded") == 0);
	free(text);
	unlink(outcome_file);
	return yes;
}

static int remembered(void)
{
	return remembered_when(0);
}

static char *memo_now(void)
{
	rj_cache *c;
	char *memo = NULL;

	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(rj_cache_memo_get(c, "fake", &memo), 1);
	rj_cache_close(c);
	return memo;
}

static void memo_set(const char *memo)
{
	rj_cache *c;

	ASSERT_INT(rj_cache_open(&c, rj_test_cache_dir, 0), 0);
	ASSERT_INT(rj_cache_memo_put(c, "fake", memo), 0);
	rj_cache_close(c);
}

/* A line as rocjit 0.1 wrote it (snprintf), for the pinned text. */
static size_t line(char *out, size_t size, const char *tag, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return (size_t)snprintf(out, size, "%s=%s\n", tag, path);
	return (size_t)snprintf(out, size, "%s=%s:%llu:%llu:%llu:%lld.%09ld\n", tag, path,
				(unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
				(unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec,
				st.st_mtim.tv_nsec);
}

TEST(memo_text_is_the_one_earlier_versions_wrote_and_read)
{
	static const char *const vars[] = { "CUDA_PATH", "CUDA_HOME", "ROCM_PATH",
					    "ROCJIT_NVRTC_LIBRARY", "ROCJIT_HIP_LIBRARY" };
	/* A modification time before 1970 and one with few nanoseconds: the sign and the
	   nine digits. */
	struct timespec old[2] = { { 0, UTIME_OMIT }, { -7, 250000000 } };
	struct timespec small[2] = { { 0, UTIME_OMIT }, { 1700000000, 1234 } };
	char want[8192], dir[4300];
	struct rj_rocm_place place[16];
	size_t n, places;
	char *memo;

	set_up();
	setenv("ROCM_PATH", "/opt/rocm", 1);
	ASSERT_INT(utimensat(AT_FDCWD, files_held[0], old, 0), 0);
	ASSERT_INT(utimensat(AT_FDCWD, files_held[1], small, 0), 0);
	ASSERT_INT(remembered(), 0);
	n = (size_t)snprintf(want, sizeof want, "rocjit-compiler-memo-3\nid=fake 1.0\n"
			     "LD_LIBRARY_PATH=%s\n", getenv("LD_LIBRARY_PATH"));
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		n += (size_t)snprintf(want + n, sizeof want - n, "%s=%s\n", vars[i],
				      getenv(vars[i]) ? getenv(vars[i]) : "");
	n += line(want + n, sizeof want - n, "ldcache", "/etc/ld.so.cache");
	/* Version 3: where ROCm may be (rocm_paths.h): ROCM_PATH's lib is /opt/rocm/lib, once. */
	n += line(want + n, sizeof want - n, "rocmroot", rj_rocm_root);
	places = rj_rocm_places(place, sizeof place / sizeof place[0]);
	ASSERT_STR(place[0].dir, "/opt/rocm/lib");
	for (size_t i = 0; i < places; i++)
		n += line(want + n, sizeof want - n, "rocmdir", place[i].dir);
	snprintf(dir, sizeof dir, "%s/libs", rj_test_dir);
	n += line(want + n, sizeof want - n, "lddir", dir);
	snprintf(dir, sizeof dir, "%s/missing", rj_test_dir);
	n += line(want + n, sizeof want - n, "lddir", dir);
	n += line(want + n, sizeof want - n, "file", files_held[0]);
	line(want + n, sizeof want - n, "file", files_held[1]);
	memo = memo_now();
	ASSERT_STR(memo, want);
	free(memo);
	/* The text written the earlier way is read: nothing loaded. */
	memo_set(want);
	ASSERT_INT(remembered(), 1);
}

TEST(memo_is_used_while_the_files_and_the_environment_hold)
{
	set_up();
	ASSERT_INT(remembered(), 0);
	ASSERT_INT(remembered(), 1);
	ASSERT_INT(remembered(), 1);
}

/* A ROCm installed where the AMD platform looks (issue 31) may hold another hipRTC: a new
 * versioned folder, or a library added to one, makes the memo stale. */
TEST(memo_is_stale_after_a_rocm_install_appears)
{
	char root[4300], dir[4400];

	snprintf(root, sizeof root, "%s/opt", rj_test_dir);
	ASSERT_INT(mkdir(root, 0700), 0);
	rj_rocm_root = root;
	set_up();
	ASSERT_INT(remembered(), 0);
	ASSERT_INT(remembered(), 1);
	snprintf(dir, sizeof dir, "%s/rocm-6.0.0", root);
	ASSERT_INT(mkdir(dir, 0700), 0);
	ASSERT_INT(remembered(), 0);
	ASSERT_INT(remembered(), 1);
	snprintf(dir, sizeof dir, "%s/rocm-6.0.0/lib", root);
	ASSERT_INT(mkdir(dir, 0700), 0);
	ASSERT_INT(remembered(), 0);
	ASSERT_INT(remembered(), 1);
	snprintf(dir, sizeof dir, "%s/rocm-6.0.0/lib/libhiprtc.so.6", root);
	rj_test_write_file(dir, "x", 1);
	ASSERT_INT(remembered(), 0);
}

/* LD_LIBRARY_PATH as rj_test_dir followed by rest. */
static void set_ld(const char *rest)
{
	char ld[9000];

	snprintf(ld, sizeof ld, "%s%s", rj_test_dir, rest);
	setenv("LD_LIBRARY_PATH", ld, 1);
}

/* What was just changed is seen: the next process loads, and the one after remembers. */
static void change_is_seen(void)
{
	ASSERT_INT(remembered(), 0);
	ASSERT_INT(remembered(), 1);
}

TEST(memo_is_refused_when_the_environment_changes)
{
	char lib[4400];

	set_up();
	change_is_seen();
	/* LD_LIBRARY_PATH: another folder, then one more part. */
	set_ld("/libs2");
	change_is_seen();
	set_ld("/libs2:/usr/lib");
	change_is_seen();
	/* Unset and empty are the same line ("LD_LIBRARY_PATH="). */
	unsetenv("LD_LIBRARY_PATH");
	change_is_seen();
	setenv("LD_LIBRARY_PATH", "", 1);
	ASSERT_INT(remembered(), 1);
	/* A library appearing in an LD_LIBRARY_PATH folder (its mtime). */
	set_ld("/libs2");
	change_is_seen();
	snprintf(lib, sizeof lib, "%s/libs2/libnew.so", rj_test_dir);
	rj_test_write_file(lib, "x", 1);
	change_is_seen();
	/* A variable that picks the compiler. */
	setenv("CUDA_PATH", "/opt/cuda", 1);
	change_is_seen();
}

TEST(memo_is_refused_when_a_library_changes)
{
	struct timespec later[2] = { { 0, UTIME_OMIT }, { 1800000000, 5 } };
	char moved[4400];

	set_up();
	ASSERT_INT(remembered(), 0);
	/* Its size. */
	rj_test_write_file(files_held[0], "library!", 8);
	change_is_seen();
	/* Its modification time alone (same size, same bytes). */
	ASSERT_INT(utimensat(AT_FDCWD, files_held[1], later, 0), 0);
	change_is_seen();
	/* Another file of the same size and time under the name (another inode). */
	snprintf(moved, sizeof moved, "%s.new", files_held[1]);
	rj_test_write_file(moved, "header", 6);
	ASSERT_INT(utimensat(AT_FDCWD, moved, later, 0), 0);
	ASSERT_INT(rename(moved, files_held[1]), 0);
	ASSERT_INT(remembered(), 0);
	/* Gone. */
	ASSERT_INT(remembered(), 1);
	unlink(files_held[1]);
	ASSERT_INT(remembered(), 0);
}

/* A memo changed anywhere is refused (and rewritten by the load). */
TEST(memo_with_a_line_changed_added_or_cut_is_refused)
{
	char *memo, *bad;
	size_t len;

	set_up();
	ASSERT_INT(remembered(), 0);
	memo = memo_now();
	len = strlen(memo);
	bad = malloc(len + 200);
	ASSERT(bad);
	/* The last character cut. */
	memcpy(bad, memo, len - 1);
	bad[len - 1] = 0;
	memo_set(bad);
	ASSERT_INT(remembered(), 0);
	/* A line added after the files; a file line that is not the file's. */
	snprintf(bad, len + 200, "%sextra=1\n", memo);
	memo_set(bad);
	ASSERT_INT(remembered(), 0);
	snprintf(bad, len + 200, "%sfile=/etc/ld.so.cache\n", memo); /* it exists: no stat */
	memo_set(bad);
	ASSERT_INT(remembered(), 0);
	/* A digit changed; the version; the identity line. */
	memcpy(bad, memo, len + 1);
	bad[len - 2] = bad[len - 2] == '1' ? '2' : '1';
	memo_set(bad);
	ASSERT_INT(remembered(), 0);
	memcpy(bad, memo, len + 1);
	bad[strlen("rocjit-compiler-memo-")] = '9';
	memo_set(bad);
	ASSERT_INT(remembered(), 0);
	snprintf(bad, len + 200, "rocjit-compiler-memo-3\nid=%0200d\n%s", 7,
		 strchr(strchr(memo, '\n') + 1, '\n') + 1);
	memo_set(bad);
	ASSERT_INT(remembered(), 0); /* an identity too long for the key's field */
	free(bad);
	free(memo);
}

/* At most RJ_COMPILER_MAX_FILES files: a memo listing more is refused. */
TEST(memo_listing_more_files_than_the_bound_is_refused)
{
	char *memo, *bad;
	char add[4400];
	size_t len;

	set_up();
	ASSERT_INT(remembered(), 0);
	memo = memo_now();
	len = strlen(memo);
	bad = malloc(len + RJ_COMPILER_MAX_FILES * 4400);
	ASSERT(bad);
	memcpy(bad, memo, len + 1);
	for (int i = 2; i < RJ_COMPILER_MAX_FILES; i++) {
		line(add, sizeof add, "file", files_held[i % 2]);
		strcat(bad, add);
	}
	memo_set(bad);
	ASSERT_INT(remembered(), 1); /* exactly the bound: held */
	strcat(bad, add);
	memo_set(bad);
	ASSERT_INT(remembered(), 0);
	free(bad);
	free(memo);
}

/* A process that has a compiler library loaded already compiles with it, not with what the
 * memo's files say: the memo of a process without it does not serve it, nor the reverse. */
TEST(memo_is_refused_where_a_compiler_library_was_loaded_before_rocjit)
{
	char *memo;

	set_up();
	ASSERT_INT(remembered_when(0), 0);
	ASSERT_INT(remembered_when(0), 1);
	ASSERT_INT(remembered_when(1), 0);
	memo = memo_now();
	ASSERT_CONTAINS(memo, "loaded=" ROCJIT_TEST_FAKE_HIPRTC);
	free(memo);
	ASSERT_INT(remembered_when(1), 1);
	ASSERT_INT(remembered_when(0), 0);
}
