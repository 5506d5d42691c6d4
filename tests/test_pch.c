/*
 * test_pch.c - NVRTC's precompiled headers in the cache folder (compile/pch.c, the worker's
 * fixed-address heap in worker/pch_heap.c):
 *   - where a source's header prefix ends (rj_pch_prefix), on texts;
 *   - with real NVRTC compiles in real workers: a leading part compiled once leaves only a
 *     mark; the second compile makes the file, which the next with the same prefix uses,
 *     in another worker process, and the code is the same bytes as without it; options and prefixes that differ make files of their own;
 *     a damaged file is removed and the compile is still right; a folder that is not
 *     this user's alone, -I options, in-process compiles and ROCJIT_PCH_MAX_MB=0 use
 *     none; the folder is kept within ROCJIT_PCH_MAX_MB.
 * The compile tests skip where NVRTC is not installed, or is older than 12.8 (no PCH).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "compile/pch.h"

/* ---- The prefix, on texts ---- */

static size_t prefix_of(const char *s)
{
	return rj_pch_prefix(s);
}

TEST(prefix_ends_before_the_first_token_that_is_no_directive)
{
	static const char a[] = "// a\n#include <x.h>\n/* b\n c */\n#define N 4\nint k;\n";
	static const char b[] = "#include \"a.h\" \\\n  // continued\n#pragma once\n"
				"  template <int N> __global__ void f() {}\n";
	static const char c[] = "\xef\xbb\xbf#include <x.h>\nextern \"C\" __global__ void g() {}";

	ASSERT_INT((int)prefix_of(a), (int)(strstr(a, "int k;") - a));
	ASSERT_INT((int)prefix_of(b), (int)(strstr(b, "  template") - b));
	ASSERT_INT((int)prefix_of(c), (int)(strstr(c, "extern") - c));
}

TEST(prefix_of_texts_without_directives_or_with_odd_ends)
{
	/* Code first: nothing. */
	ASSERT_INT((int)prefix_of("__global__ void f() {}\n#include <x.h>\n"), 0);
	ASSERT_INT((int)prefix_of(""), 0);
	/* Only directives: all of it. */
	ASSERT_INT((int)prefix_of("#include <a.h>\n#include <b.h>"), 29);
	/* An unterminated comment ends the prefix where the last whole line did. */
	ASSERT_INT((int)prefix_of("#include <a.h>\n/* open"), 15);
	/* A # that is not at a line's start is code. */
	ASSERT_INT((int)prefix_of("#define A 1\nint x = 1; #define B\n"), 12);
	/* A comment inside a directive spans lines. */
	ASSERT_INT((int)prefix_of("#include <a.h> /* x\ny */\nint z;\n"), 25);
	/* CR LF line ends, and a continuation written with one. */
	ASSERT_INT((int)prefix_of("#define N \\\r\n  4\r\n#define M 2\r\nint k;\r\n"), 31);
	/* A / * in a directive's string or after its // comment starts no comment. */
	ASSERT_INT((int)prefix_of("#define G \"dir/*\"\n#define H 1\nint k;\n"), 30);
	ASSERT_INT((int)prefix_of("#include <a.h> // see b/*.h\n#define H 1\nint k;\n"), 40);
	/* The digraph %: is a #. */
	ASSERT_INT((int)prefix_of("%:include <a.h>\nint k;\n"), 16);
}

/* ---- Real compiles ---- */

static void skip_without_pch(void)
{
	/* The sanitizers' runtimes intercept mmap themselves: their workers leave NVRTC's
	   heap where it falls and make no file (worker/pch_heap.c).  Said before NVRTC is
	   loaded here, whose unloaded pool LeakSanitizer would report. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	rj_test_skip("a sanitizer build: its workers make no precompiled headers");
#endif
	if (!rj_test_have_nvrtc())
		rj_test_skip("NVRTC is not installed: the NVIDIA compile tests need it");
	/* NVRTC 12.8 added PCH: the first compile tells (no folder appears before it). */
}

#define FP16_SRC                                                                      \
	"#include <cuda_fp16.h>\n"                                                  \
	"#include <cuda_bf16.h>\n"                                                  \
	"extern \"C\" __global__ void k(int n, const __half *x, __nv_bfloat16 *y)\n"  \
	"{\n"                                                                       \
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"                        \
	"\tif (i < n) y[i] = __float2bfloat16(__half2float(x[i]) * %d.0f);\n"      \
	"}\n"

static char *source(int variant)
{
	char *s = malloc(1024);

	snprintf(s, 1024, FP16_SRC, variant);
	return s;
}

static void pch_folder(char *out, size_t size)
{
	snprintf(out, size, "%s/pch-%u", rj_test_cache_dir, (unsigned)geteuid());
}

/* The .pch files in the folder (tmp-* not counted); first[] gets the first one's name. */
static int pch_files(char *first, size_t size)
{
	char dir[4400];
	struct dirent *e;
	int n = 0;
	DIR *d;

	pch_folder(dir, sizeof dir);
	if (first)
		first[0] = 0;
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 4 && !strcmp(e->d_name + len - 4, ".pch") && strncmp(e->d_name, "tmp-", 4)) {
			if (first && !n)
				snprintf(first, size, "%s/%s", dir, e->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}

static const rocjit_code *compile(rocjit_ctx *ctx, int variant, const char *const *opts,
				  size_t nopts)
{
	const rocjit_code *code = NULL;
	char log[8192];
	char *src = source(variant);
	int rc = rj_test_compile(&code, ctx, "sm_90", "k.cu", src, opts, nopts, NULL, 0, log,
				 sizeof log);

	if (rc)
		printf("log:\n%s\n", log);
	ASSERT_INT(rc, 0);
	/* No message about a PCH ever reaches the caller's log. */
	ASSERT(strstr(log, "precompiled") == NULL);
	free(src);
	return code;
}

/* The .seen marks in the folder. */
static int marks(void)
{
	char dir[4400];
	struct dirent *e;
	int n = 0;
	DIR *d;

	pch_folder(dir, sizeof dir);
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d)))
		n += strlen(e->d_name) > 5 && !strcmp(e->d_name + strlen(e->d_name) - 5, ".seen");
	closedir(d);
	return n;
}

/* A file for variant's leading part and options: two compiles, the second makes it. */
static void make_file(rocjit_ctx *ctx, int variant, const char *const *opts, size_t nopts)
{
	compile(ctx, variant, opts, nopts);
	compile(ctx, variant + 1000, opts, nopts);
}

/* Makes the first file and returns its path in path[]; skips where NVRTC makes none. */
static rocjit_ctx *first_file(char *path, size_t size)
{
	rocjit_ctx *ctx;

	skip_without_pch();
	ctx = rj_test_open();
	make_file(ctx, 1, NULL, 0);
	if (pch_files(path, size) == 0) {
		char dir[4400];
		struct stat st;
		pch_folder(dir, sizeof dir);
		rocjit_close(ctx);
		if (stat(dir, &st) != 0)
			rj_test_skip("no precompiled header was made: this NVRTC is older than "
				     "12.8, or the worker could not place its PCH heap");
		ASSERT(!"the PCH folder exists but holds no file");
	}
	return ctx;
}

static void age(const char *path)
{
	struct timespec t[2] = { { time(NULL) - 3600, 0 }, { time(NULL) - 3600, 0 } };

	ASSERT_INT(utimensat(AT_FDCWD, path, t, 0), 0);
}

static int aged(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_mtime < time(NULL) - 1800;
}

TEST(leading_part_compiled_once_leaves_a_mark_and_no_file)
{
	rocjit_ctx *ctx;
	char dir[4400];
	struct stat st;

	skip_without_pch();
	ctx = rj_test_open();
	compile(ctx, 1, NULL, 0);
	pch_folder(dir, sizeof dir);
	if (stat(dir, &st) != 0)
		rj_test_skip("no PCH folder was made: this NVRTC is older than 12.8, or the "
			     "worker could not place its PCH heap");
	ASSERT_INT(pch_files(NULL, 0), 0);
	ASSERT_INT(marks(), 1);
	/* The second makes the file and takes the mark. */
	compile(ctx, 2, NULL, 0);
	ASSERT_INT(pch_files(NULL, 0), 1);
	ASSERT_INT(marks(), 0);
	rocjit_close(ctx);
}

TEST(made_by_one_compile_is_used_by_the_next_and_changes_no_byte)
{
	char path[4600];
	rocjit_ctx *ctx = first_file(path, sizeof path), *plain;
	const rocjit_code *with, *without;
	struct stat st;
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	char dir[4400];

	/* The folder is this user's alone. */
	pch_folder(dir, sizeof dir);
	ASSERT_INT(stat(dir, &st), 0);
	ASSERT_INT((int)(st.st_mode & 0777), 0700);
	/* Another kernel with the same headers: the file is used (touched, and kept: a
	   file NVRTC refused would have been removed), by another worker process. */
	age(path);
	rocjit_close(ctx);
	ctx = rj_test_open();
	with = compile(ctx, 2, NULL, 0);
	ASSERT_INT(pch_files(NULL, 0), 1);
	ASSERT(!aged(path));
	/* The same bytes as a compile without it (in-process compiles use none). */
	o.cache_dir = dir; /* any other folder: the code is compared, not stored */
	snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/../plain");
	o.flags = ROCJIT_OPEN_COMPILE_INPROCESS;
	ASSERT_INT(rocjit_open(&plain, &o), 0);
	without = compile(plain, 2, NULL, 0);
	ASSERT_INT((int)with->size, (int)without->size);
	ASSERT(memcmp(with->data, without->data, with->size) == 0);
	rocjit_close(plain);
	rocjit_close(ctx);
	/* In-process compiles made no file of their own. */
	ASSERT_INT(pch_files(NULL, 0), 1);
}

TEST(other_options_and_prefixes_make_files_of_their_own)
{
	static const char *const def[] = { "-DSCALE=3" };
	char path[4600];
	rocjit_ctx *ctx = first_file(path, sizeof path);
	const rocjit_code *code;
	char *src;
	char log[4096];

	make_file(ctx, 3, def, 1);
	ASSERT_INT(pch_files(NULL, 0), 2);
	/* Another leading include: another prefix. */
	for (int v = 4; v < 6; v++) {
		char *s;
		src = source(v);
		s = malloc(strlen(src) + 64);
		sprintf(s, "#include <cuda_fp16.h>\n#define EXTRA 1\n%s", src);
		ASSERT_INT(rj_test_compile(&code, ctx, "sm_90", "k.cu", s, NULL, 0, NULL, 0, log,
					   sizeof log), 0);
		free(s);
		free(src);
	}
	ASSERT_INT(pch_files(NULL, 0), 3);
	rocjit_close(ctx);
}

TEST(damaged_file_is_removed_and_the_compile_is_right)
{
	char path[4600];
	rocjit_ctx *ctx = first_file(path, sizeof path);
	int fd;

	/* Cut short, as a crash after the rename could leave it. */
	fd = open(path, O_WRONLY);
	ASSERT(fd >= 0);
	ASSERT_INT(ftruncate(fd, 100000), 0);
	close(fd);
	compile(ctx, 5, NULL, 0);
	ASSERT_INT(pch_files(NULL, 0), 0);
	/* Garbage of the full size: removed the same way. */
	make_file(ctx, 6, NULL, 0);
	ASSERT_INT(pch_files(path, sizeof path), 1);
	{
		char junk[65536];
		FILE *f = fopen(path, "wb");
		memset(junk, 0x5a, sizeof junk);
		for (int i = 0; i < 64; i++)
			fwrite(junk, 1, sizeof junk, f);
		fclose(f);
	}
	compile(ctx, 7, NULL, 0);
	ASSERT_INT(pch_files(NULL, 0), 0);
	rocjit_close(ctx);
}

TEST(folder_not_this_users_alone_is_not_used)
{
	char path[4600], dir[4400];
	rocjit_ctx *ctx = first_file(path, sizeof path);

	pch_folder(dir, sizeof dir);
	age(path);
	ASSERT_INT(chmod(dir, 0770), 0);
	make_file(ctx, 8, NULL, 0);
	ASSERT(aged(path));           /* not used */
	ASSERT_INT(pch_files(NULL, 0), 1); /* nor a file made */
	if (geteuid() == 0) {
		/* Owned by someone else. */
		ASSERT_INT(chmod(dir, 0700), 0);
		ASSERT_INT(chown(dir, 65534, 65534), 0);
		make_file(ctx, 9, NULL, 0);
		ASSERT(aged(path));
		ASSERT_INT(chown(dir, 0, 0), 0);
	}
	rocjit_close(ctx);
}

/* The first file made by the tool in a process of its own, so that this process's workers
   start after the environment below is set.  Returns its size; path[] gets its path. */
static off_t first_file_by_the_tool(char *path, size_t size)
{
	char file[4400];
	char *src = source(1);
	const char *argv[] = { ROCJIT_TEST_CLI, "--cache", rj_test_cache_dir, "compile", file,
			       "--arch", "sm_90", NULL };
	/* Whatever this process's limit is (it may be set before its own workers start). */
	const char *env[] = { "ROCJIT_PCH_MAX_MB=2048", NULL };
	struct stat st;

	skip_without_pch();
	snprintf(file, sizeof file, "%s/k.cu", rj_test_dir);
	rj_test_write_file(file, src, strlen(src));
	free(src);
	ASSERT_INT(rj_test_run(argv, env, NULL), 0);
	/* The second compile of the leading part makes the file. */
	src = source(1001);
	rj_test_write_file(file, src, strlen(src));
	free(src);
	ASSERT_INT(rj_test_run(argv, env, NULL), 0);
	if (pch_files(path, size) == 0)
		rj_test_skip("no precompiled header was made: this NVRTC is older than 12.8, "
			     "or the worker could not place its PCH heap");
	ASSERT_INT(stat(path, &st), 0);
	return st.st_size;
}

TEST(zero_limit_turns_it_off)
{
	char path[4600];
	rocjit_ctx *ctx;

	first_file_by_the_tool(path, sizeof path);
	age(path);
	/* ROCJIT_PCH_MAX_MB=0: none made or used. */
	setenv("ROCJIT_PCH_MAX_MB", "0", 1);
	ctx = rj_test_open();
	make_file(ctx, 10, NULL, 0);
	ASSERT(aged(path));
	ASSERT_INT(pch_files(NULL, 0), 1);
	rocjit_close(ctx);
}

TEST(include_path_options_turn_it_off)
{
	char path[4600], opt[4400];
	const char *const inc[] = { opt };
	rocjit_ctx *ctx = first_file(path, sizeof path);

	/* Headers from disk are not in the key: no PCH is made or used. */
	age(path);
	snprintf(opt, sizeof opt, "-I%s", rj_test_dir);
	make_file(ctx, 11, inc, 1);
	ASSERT(aged(path));
	ASSERT_INT(pch_files(NULL, 0), 1);
	rocjit_close(ctx);
}

TEST(folder_is_kept_within_the_limit_least_recently_used_first)
{
	static const char *const d1[] = { "-DRJ_PCH_TEST_A=1" }, *const d2[] = { "-DRJ_PCH_TEST_A=2" };
	char path[4600], mb[32];
	off_t size = first_file_by_the_tool(path, sizeof path);
	rocjit_ctx *ctx;
	struct stat st;

	/* Room for two files of this size, not three. */
	snprintf(mb, sizeof mb, "%lld", (long long)((size * 5 / 2) >> 20) + 1);
	setenv("ROCJIT_PCH_MAX_MB", mb, 1);
	age(path); /* the least recently used */
	ctx = rj_test_open();
	make_file(ctx, 12, d1, 1);
	ASSERT_INT(pch_files(NULL, 0), 2);
	make_file(ctx, 13, d2, 1);
	ASSERT_INT(pch_files(NULL, 0), 2);
	ASSERT(stat(path, &st) != 0);
	rocjit_close(ctx);
}

TEST(purge_all_removes_the_precompiled_headers_too)
{
	char path[4600], *out = NULL;
	const char *argv[] = { ROCJIT_TEST_CLI, "--cache", rj_test_cache_dir, "purge", "--all",
			       NULL };

	first_file_by_the_tool(path, sizeof path);
	ASSERT_INT(rj_test_run(argv, NULL, &out), 0);
	ASSERT_CONTAINS(out, "1 precompiled headers");
	ASSERT_INT(pch_files(NULL, 0), 0);
	free(out);
}

TEST(a_link_in_place_of_the_folder_is_not_followed)
{
	char dir[4400], elsewhere[4400];
	rocjit_ctx *ctx;
	struct stat st;

	skip_without_pch();
	/* Another member of a group-shared cache could put it there, to a folder of ours. */
	snprintf(elsewhere, sizeof elsewhere, "%s/private", rj_test_dir);
	ASSERT_INT(mkdir(elsewhere, 0700), 0);
	ASSERT_INT(mkdir(rj_test_cache_dir, 0700), 0);
	pch_folder(dir, sizeof dir);
	ASSERT_INT(symlink(elsewhere, dir), 0);
	ctx = rj_test_open();
	make_file(ctx, 1, NULL, 0);
	compile(ctx, 2, NULL, 0);
	rocjit_close(ctx);
	/* Nothing was written through it; it is still the link. */
	{
		DIR *d = opendir(elsewhere);
		struct dirent *e;
		int n = 0;
		ASSERT(d != NULL);
		while ((e = readdir(d)))
			n += e->d_name[0] != '.';
		closedir(d);
		ASSERT_INT(n, 0);
	}
	ASSERT_INT(lstat(dir, &st), 0);
	ASSERT(S_ISLNK(st.st_mode));
}

TEST(a_file_over_the_limit_is_not_made_again_and_a_failed_compile_tries_again)
{
	char path[4600], dir[4400], mark[4600];
	rocjit_ctx *ctx;
	struct stat st;
	static const char bad[] = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
				  "extern \"C\" __global__ void k(int n) { undeclared(n); }\n";
	const rocjit_code *code;
	char log[4096];

	/* This process's workers keep no file larger than 1 MiB. */
	setenv("ROCJIT_PCH_MAX_MB", "1", 1);
	first_file_by_the_tool(path, sizeof path);
	ASSERT_INT(unlink(path), 0);
	pch_folder(dir, sizeof dir);
	/* A compile error where the file would be made: no file, and the next compile of the
	   leading part tries again (its mark is back). */
	ctx = rj_test_open();
	compile(ctx, 20, NULL, 0); /* leaves the mark */
	ASSERT(rj_test_compile(&code, ctx, "sm_90", "k.cu", bad, NULL, 0, NULL, 0, log,
			       sizeof log) != 0);
	ASSERT_INT(pch_files(NULL, 0), 0);
	ASSERT_INT(marks(), 1);
	rocjit_close(ctx);
	/* One file larger than the limit: made, evicted, and marked not to be made again. */
	ctx = rj_test_open();
	compile(ctx, 21, NULL, 0);
	ASSERT_INT(pch_files(NULL, 0), 0);
	snprintf(mark, sizeof mark, "%s", path);
	strcpy(mark + strlen(mark) - 4, ".skip");
	ASSERT_INT(stat(mark, &st), 0);
	compile(ctx, 22, NULL, 0);
	compile(ctx, 23, NULL, 0);
	ASSERT_INT(pch_files(NULL, 0), 0);
	ASSERT_INT(marks(), 0);
	rocjit_close(ctx);
}
