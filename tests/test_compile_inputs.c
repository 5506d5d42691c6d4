/*
 * test_compile_inputs.c - everything the compiler reads is in the cache key, or the
 * compile is refused with a message naming the include or the variable and what to do
 * (issue 27, class 6; src/compile/inputs.h says what was measured).
 *
 * Real hipRTC (gfx90a) and NVRTC (sm_90, where it loads) compiles, in real workers.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static const char kernel[] = "extern \"C\" __global__ void k(int *x) { x[0] = VAL; }\n";

static int have_nvrtc(void)
{
	static int have = -1;
	if (have < 0)
		have = rj_test_have_nvrtc();
	return have;
}

static int compile_with(rocjit_ctx *ctx, const char *target, const char *name, const char *src,
			const char *const *opts, size_t nopts, const rocjit_header *h, size_t nh,
			char key[33])
{
	const rocjit_code *code = NULL;
	char log[8192];
	int rc = rj_test_compile(&code, ctx, target, name, src, opts, nopts, h, nh, log,
				 sizeof log);

	if (rc == 0 && key)
		memcpy(key, code->key, 33);
	return rc;
}

/* src (named name) is refused for target, the message naming needle and the remedy. */
static void refused(rocjit_ctx *ctx, const char *target, const char *name, const char *src,
		    const char *const *opts, size_t nopts, const rocjit_header *h, size_t nh,
		    const char *needle)
{
	ASSERT_INT(compile_with(ctx, target, name, src, opts, nopts, h, nh, NULL), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), needle);
	ASSERT_CONTAINS(rocjit_last_error(), "cache key");
}

/* Each target this machine compiles for. */
static const char *targets[] = { "gfx90a", "sm_90" };
#define FOR_TARGETS(t)                                                                     \
	for (size_t ti_ = 0; ti_ < 2; ti_++)                                               \
		for (const char *t = targets[ti_]; t && (ti_ == 0 || have_nvrtc()); t = NULL)

static void write_text(const char *path, const char *text)
{
	rj_test_write_file(path, text, strlen(text));
}

/* A header on disk, in the test's folder, that nothing registers: its path in path. */
static void disk_header(char *path, size_t size, const char *name)
{
	snprintf(path, size, "%s/%s", rj_test_dir, name);
	write_text(path, "#define VAL 1\n");
}

TEST(an_absolute_include_is_refused_on_both_compilers)
{
	rocjit_ctx *ctx = rj_test_open();
	char path[4300], src[8800];

	disk_header(path, sizeof path, "abs.h");
	FOR_TARGETS(t) {
		snprintf(src, sizeof src, "#include \"%s\"\n%s", path, kernel);
		refused(ctx, t, "k.hip", src, NULL, 0, NULL, 0, path);
		ASSERT_CONTAINS(rocjit_last_error(), "k.hip:1:");
		ASSERT_CONTAINS(rocjit_last_error(), "absolute");
		ASSERT_CONTAINS(rocjit_last_error(), "Register the header");
		snprintf(src, sizeof src, "// a comment\n#  include <%s>\n%s", path, kernel);
		refused(ctx, t, "k.hip", src, NULL, 0, NULL, 0, "k.hip:2:");
		/* Split by a line splice, it is the same include. */
		snprintf(src, sizeof src, "#include \\\n \"%s\"\n%s", path, kernel);
		refused(ctx, t, "k.hip", src, NULL, 0, NULL, 0, path);
	}
	/* An in-memory header of that very name is found first: keyed, so it compiles. */
	{
		rocjit_header h = { path, "#define VAL 2\n", 0 };
		snprintf(src, sizeof src, "#include \"%s\"\n%s", path, kernel);
		FOR_TARGETS(t)
			ASSERT_INT(compile_with(ctx, t, "k.hip", src, NULL, 0, &h, 1, NULL), 0);
	}
	rocjit_close(ctx);
}

/* The forms that hide a directive from a line-by-line reading are read and checked: an
 * absolute include behind each is refused as the plain one is. */
TEST(an_absolute_include_in_a_hidden_form_is_refused)
{
	static const char *const forms[][2] = {
		{ "%:include \"", "\"\n" }, { "\xef\xbb\xbf#include \"", "\"\n" },
		{ "// x\r#include \"", "\"\r" }, { "#inc\\ \nlude \"", "\"\n" },
		{ "?\?=include \"", "\"\n" },
		{ "const char *r = R\"(\" /*)\";\n#include \"", "\"\n" },
		{ "int a = 1'0'/*';\n#include \"", "\"\n// */\n" },
	};
	rocjit_ctx *ctx = rj_test_open();
	char path[4300], src[8800];

	disk_header(path, sizeof path, "abs.h");
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		snprintf(src, sizeof src, "%s%s%s%s", forms[i][0], path, forms[i][1], kernel);
		printf("form %zu\n", i);
		refused(ctx, "gfx90a", "k.hip", src, NULL, 0, NULL, 0, "absolute");
	}
	rocjit_close(ctx);
}

TEST(an_include_that_leaves_the_headers_is_refused)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_header in_folder[] = { { "common.h", "#define VAL 3\n", 0 },
				      { "a/h.h", "#include \"../../outside.h\"\n", 0 } };
	char path[4300];

	/* Whether or not the file exists there: the key cannot hold it. */
	disk_header(path, sizeof path, "outside.h");
	ASSERT_INT(chdir(rj_test_dir), 0);
	ASSERT_INT(mkdir("sub", 0700), 0);
	FOR_TARGETS(t) {
		refused(ctx, t, "sub/k.hip", "#include \"../outside.h\"\nextern \"C\" __global__ "
			"void k(int *x) { x[0] = VAL; }\n", NULL, 0, NULL, 0,
			"\"../outside.h\" leaves the registered headers");
		/* From an in-memory header, named with its file and line. */
		refused(ctx, t, "k.hip", "#include \"a/h.h\"\n", NULL, 0, in_folder, 2,
			"a/h.h:1: #include \"../../outside.h\"");
		/* ".." that stays among the headers is not refused (whether the compiler
		   finds it is the include rule's business: request/sources.c). */
		ASSERT(compile_with(ctx, t, "a/k.hip", "#include \"../common.h\"\n"
				    "extern \"C\" __global__ void k(int *x) { x[0] = VAL; }\n",
				    NULL, 0, in_folder, 1, NULL) != ROCJIT_EINVAL);
	}
	rocjit_close(ctx);
}

TEST(probes_next_includes_and_macro_names_are_checked_comments_are_not)
{
	rocjit_ctx *ctx = rj_test_open();
	char src[14000], path[4300];

	disk_header(path, sizeof path, "probe.h");
	FOR_TARGETS(t) {
		snprintf(src, sizeof src, "#if __has_include(\"%s\")\n#define VAL 1\n#else\n"
			 "#define VAL 2\n#endif\n%s", path, kernel);
		refused(ctx, t, "k.hip", src, NULL, 0, NULL, 0, "__has_include");
		snprintf(src, sizeof src, "#include_next <%s>\n%s", path, kernel);
		refused(ctx, t, "k.hip", src, NULL, 0, NULL, 0, "#include_next");
		snprintf(src, sizeof src, "#define H \"%s\"\n#include H\n%s", path, kernel);
		refused(ctx, t, "k.hip", src, NULL, 0, NULL, 0, "made by a macro");
		/* In a comment or a string it reads nothing. */
		snprintf(src, sizeof src, "/* #include \"%s\" */\n// #include \"%s\"\n"
			 "#define TEXT \"#include \\\"%s\\\"\"\n#define VAL 4\n%s", path,
			 path, path, kernel);
		ASSERT_INT(compile_with(ctx, t, "k.hip", src, NULL, 0, NULL, 0, NULL), 0);
	}
	rocjit_close(ctx);
}

/* Writes a header no keyed header answers into a system folder; skips where it cannot. */
static void system_header(char *path, size_t size, const char *dir, char *name, size_t nsize)
{
	snprintf(name, nsize, "rocjit_test_%d.h", (int)getpid());
	snprintf(path, size, "%s/%s", dir, name);
	if (access(dir, W_OK) != 0)
		rj_test_skip("%s is not writable here", dir);
	write_text(path, "#define VAL 5\n");
}

static void system_folder_refused(const char *dir)
{
	rocjit_ctx *ctx = rj_test_open();
	char path[512], name[64], src[1024], error[4096];
	int rc;

	system_header(path, sizeof path, dir, name, sizeof name);
	snprintf(src, sizeof src, "#include <%s>\n%s", name, kernel);
	rc = compile_with(ctx, "gfx90a", "k.hip", src, NULL, 0, NULL, 0, NULL);
	snprintf(error, sizeof error, "%s", rocjit_last_error());
	unlink(path);
	ASSERT_INT(rc, ROCJIT_EINVAL);
	ASSERT_CONTAINS(error, path);
	ASSERT_CONTAINS(error, "a system folder");
	/* Gone, it is not found at all: nothing unkeyed was ever compiled. */
	ASSERT_INT(compile_with(ctx, "gfx90a", "k.hip", src, NULL, 0, NULL, 0, NULL),
		   ROCJIT_ECOMPILE);
	rocjit_close(ctx);
}

TEST(a_header_only_in_usr_local_include_is_refused_on_amd)
{
	system_folder_refused("/usr/local/include");
}

TEST(a_header_only_in_usr_include_is_refused_on_amd)
{
	system_folder_refused("/usr/include");
}

TEST(a_header_beside_the_source_on_disk_is_refused_on_nvidia)
{
	rocjit_ctx *ctx;
	rocjit_header h = { "loc.h", "#define VAL 7\n", 0 };
	const char src[] = "#include \"loc.h\"\nextern \"C\" __global__ void k(int *x) { x[0] = VAL; }\n";

	if (!have_nvrtc())
		rj_test_skip("NVRTC cannot be loaded here");
	ctx = rj_test_open();
	ASSERT_INT(chdir(rj_test_dir), 0);
	ASSERT_INT(mkdir("sub", 0700), 0);
	write_text("sub/loc.h", "#define VAL 6\n");
	/* NVRTC would read sub/loc.h, relative to the working directory. */
	refused(ctx, "sm_90", "sub/k.hip", src, NULL, 0, NULL, 0, "found at sub/loc.h");
	/* Registered, it is keyed and found first. */
	ASSERT_INT(compile_with(ctx, "sm_90", "k.hip", src, NULL, 0, &h, 1, NULL), 0);
	rocjit_close(ctx);
}

/* With var naming a folder that holds the header, workers do not read it, and a compile
 * in this process is refused naming var. */
static void include_variable(const char *var)
{
	rocjit_ctx *ctx = rj_test_open();
	char dir[4300], path[4400], src[256];

	snprintf(dir, sizeof dir, "%s/var", rj_test_dir);
	ASSERT_INT(mkdir(dir, 0700), 0);
	snprintf(path, sizeof path, "%s/rocjit_var.h", dir);
	write_text(path, "#define VAL 8\n");
	snprintf(src, sizeof src, "#include <rocjit_var.h>\n%s", kernel);
	setenv(var, dir, 1);
	ASSERT_INT(compile_with(ctx, "gfx90a", "k.hip", src, NULL, 0, NULL, 0, NULL),
		   ROCJIT_ECOMPILE); /* not found: the worker ran without it */
	setenv("ROCJIT_COMPILE_INPROCESS", "1", 1);
	ASSERT_INT(compile_with(ctx, "gfx90a", "k.hip", src, NULL, 0, NULL, 0, NULL),
		   ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), var);
	ASSERT_CONTAINS(rocjit_last_error(), "is set");
	unsetenv("ROCJIT_COMPILE_INPROCESS");
	unsetenv(var);
	rocjit_close(ctx);
}

TEST(cpath_is_not_read_by_workers_and_refused_in_process)
{
	include_variable("CPATH");
}

TEST(cplus_include_path_is_not_read_by_workers_and_refused_in_process)
{
	include_variable("CPLUS_INCLUDE_PATH");
}

/* hipRTC's clang loads ./hiprtc_runtime.h.pch (or .gch) from the working folder as its
 * runtime header's precompiled form: refused in workers and in process, naming the file;
 * nothing is compiled with it. */
TEST(a_precompiled_runtime_header_in_the_working_folder_is_refused_on_amd)
{
	static const char *const names[] = { "hiprtc_runtime.h.pch", "hiprtc_runtime.h.gch" };
	static const char plain[] = "extern \"C\" __global__ void k(int *p) { *p = 1; }\n";
	rocjit_ctx *ctx = rj_test_open();

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	ASSERT_INT(chdir(rj_test_dir), 0);
	for (int i = 0; i < 2; i++) {
		write_text(names[i], "not a precompiled header\n");
		for (int inproc = 0; inproc < 2; inproc++) {
			if (inproc)
				setenv("ROCJIT_COMPILE_INPROCESS", "1", 1);
			ASSERT_INT(compile_with(ctx, "gfx90a", "k.hip", plain, NULL, 0, NULL, 0,
						NULL), ROCJIT_EINVAL);
			ASSERT_CONTAINS(rocjit_last_error(), names[i]);
			unsetenv("ROCJIT_COMPILE_INPROCESS");
		}
		ASSERT_INT(unlink(names[i]), 0);
	}
	/* Gone: it compiles. */
	ASSERT_INT(compile_with(ctx, "gfx90a", "k.hip", plain, NULL, 0, NULL, 0, NULL), 0);
	rocjit_close(ctx);
}

TEST(an_edit_in_an_include_folder_changes_the_key)
{
	rocjit_ctx *ctx = rj_test_open();
	char dir[4300], opt[4400], path[4400], k1[33], k2[33], k3[33];
	const char *opts[] = { opt };
	const char src[] = "#include \"deep/val.h\"\nextern \"C\" __global__ void k(int *x) { x[0] = VAL; }\n";

	snprintf(dir, sizeof dir, "%s/inc", rj_test_dir);
	ASSERT_INT(mkdir(dir, 0700), 0);
	snprintf(path, sizeof path, "%s/deep", dir);
	ASSERT_INT(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/deep/val.h", dir);
	snprintf(opt, sizeof opt, "-I%s", dir);
	FOR_TARGETS(t) {
		write_text(path, "#define VAL 1\n");
		ASSERT_INT(compile_with(ctx, t, "k.hip", src, opts, 1, NULL, 0, k1), 0);
		write_text(path, "#define VAL 2\n");
		ASSERT_INT(compile_with(ctx, t, "k.hip", src, opts, 1, NULL, 0, k2), 0);
		ASSERT(strcmp(k1, k2) != 0);
		write_text(path, "#define VAL 1\n");
		ASSERT_INT(compile_with(ctx, t, "k.hip", src, opts, 1, NULL, 0, k3), 0);
		ASSERT_STR(k3, k1);
	}
	rocjit_close(ctx);
}

TEST(options_that_read_files_outside_the_key_are_refused)
{
	rocjit_ctx *ctx = rj_test_open();
	/* The option (and its value, where it has one) and what the message names. */
	static const char *const bad[][3] = {
		{ "-isystem", "/usr/include", "-isystem" }, { "-iquote/tmp", NULL, "-iquote" },
		{ "-idirafter", "/tmp", "-idirafter" }, { "-imacros", "/tmp/x.h", "-imacros" },
		{ "-include", "/tmp/x.h", "-include /tmp/x.h" },
		{ "-include", "../x.h", "-include ../x.h" },
		{ "--pre-include=/tmp/x.h", NULL, "--pre-include /tmp/x.h" },
		{ "@/tmp/options", NULL, "@/tmp/options" },
		{ "--options-file=/tmp/o", NULL, "--options-file" }, { "-Xclang", "-include", "-Xclang" },
		{ "-Wp,-include,/tmp/x.h", NULL, "-Wp," }, { "--sysroot=/", NULL, "--sysroot" },
		{ "--hip-device-lib-path=/tmp", NULL, "--hip-device-lib-path" },
		{ "-include-pch", "/tmp/x.pch", "-include-pch" },
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		refused(ctx, "gfx90a", "k.hip", "#define VAL 1\n", bad[i], bad[i][1] ? 2 : 1,
			NULL, 0, bad[i][2]);
	rocjit_close(ctx);
}

TEST(registered_and_served_headers_still_compile)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_header h[] = { { "lib/common.h", "#include <cmath>\n#define VAL 9\n", 0 } };
	const char src[] = "#include <stdint.h>\n#include \"lib/common.h\"\n"
			   "#if __has_include(<cmath>)\n#endif\n"
			   "extern \"C\" __global__ void k(float *x) { x[0] = sqrtf(VAL); }\n";

	FOR_TARGETS(t)
		ASSERT_INT(compile_with(ctx, t, "k.hip", src, NULL, 0, h, 1, NULL), 0);
	rocjit_close(ctx);
}

/* ---- What the compilers expand from outside the texts ------------------------------- */

/* The code object compiled for target from src named name, and its key. */
static const rocjit_code *compiled(rocjit_ctx *ctx, const char *target, const char *name,
				   const char *src, const rocjit_header *h, size_t nh, char key[33])
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code = NULL;

	p.source = src;
	p.name = name;
	p.headers = h;
	p.num_headers = nh;
	ASSERT_INT(rocjit_compile(&code, ctx, target, &p), 0);
	memcpy(key, code->key, 33);
	return code;
}

/*
 * __FILE__ expands to the source's name: a source (or a header it is given) that uses it,
 * directly, through __builtin_FILE or through assert, is keyed by its name, and compiles
 * to the same bytes every time (on AMD hipRTC named it after a random temporary folder);
 * a source that does not is shared across names.
 */
TEST(file_name_is_in_the_key_where_the_texts_expand_it)
{
	static const char *const uses[] = {
		"extern \"C\" __global__ void k(const char **s) { s[0] = __FILE__; }\n",
		"extern \"C\" __global__ void k(const char **s) { s[0] = __builtin_FILE(); }\n",
		"#include <assert.h>\n"
		"extern \"C\" __global__ void k(int *x) { assert(x); x[0] = 1; }\n",
		"#include \"where.h\"\nextern \"C\" __global__ void k(const char **s) { s[0] = WHERE; }\n",
	};
	rocjit_header h = { "where.h", "#define WHERE __FILE__\n", 0 };
	char a[33], b[33], c[33];

	FOR_TARGETS(t) {
		rocjit_ctx *ctx = rj_test_open();
		for (size_t i = 0; i < sizeof uses / sizeof uses[0]; i++) {
			const rocjit_code *x = compiled(ctx, t, "one.hip", uses[i], &h, 1, a);
			const rocjit_code *y = compiled(ctx, t, "two.hip", uses[i], &h, 1, b);
			ASSERT(strcmp(a, b) != 0);
			ASSERT(!y->from_cache);
			ASSERT(x->size > 0);
		}
		/* Without: one key for both names. */
		compiled(ctx, t, "one.hip", "extern \"C\" __global__ void k(int *x) { x[0] = 7; }\n",
			 NULL, 0, a);
		compiled(ctx, t, "two.hip", "extern \"C\" __global__ void k(int *x) { x[0] = 7; }\n",
			 NULL, 0, b);
		ASSERT_STR(a, b);
		rocjit_close(ctx);
		/* The same source and name compiled again, in a fresh cache: the same bytes. */
		{
			rocjit_ctx *one, *two;
			const rocjit_code *x, *y;
			char first[4400], second[4400];
			rocjit_options o = ROCJIT_OPTIONS_INIT;
			snprintf(first, sizeof first, "%s/fresh-%s-1", rj_test_dir, t);
			snprintf(second, sizeof second, "%s/fresh-%s-2", rj_test_dir, t);
			o.cache_dir = first;
			ASSERT_INT(rocjit_open(&one, &o), 0);
			o.cache_dir = second;
			ASSERT_INT(rocjit_open(&two, &o), 0);
			x = compiled(one, t, "same.hip", uses[0], NULL, 0, a);
			y = compiled(two, t, "same.hip", uses[0], NULL, 0, c);
			ASSERT_STR(a, c);
			ASSERT(!x->from_cache && !y->from_cache);
			ASSERT_INT((int)x->size, (int)y->size);
			ASSERT(memcmp(x->data, y->data, x->size) == 0);
			rocjit_close(one);
			rocjit_close(two);
		}
	}
}

/*
 * __DATE__ and __TIME__ expand to when the compile runs: a text that uses __TIME__ is
 * keyed by the second (as ccache does: such an entry is never hit again), one that uses
 * __DATE__ by the day; one that uses neither keeps its key.
 */
TEST(date_and_time_are_in_the_key_where_the_texts_expand_them)
{
	static const char timed[] =
		"extern \"C\" __global__ void k(const char **s) { s[0] = __TIME__; }\n";
	static const char dated[] =
		"extern \"C\" __global__ void k(const char **s) { s[0] = __DATE__; }\n";
	rocjit_ctx *ctx = rj_test_open();
	char a[33], b[33];

	compiled(ctx, "gfx90a", "t.hip", timed, NULL, 0, a);
	usleep(1100 * 1000);
	compiled(ctx, "gfx90a", "t.hip", timed, NULL, 0, b);
	ASSERT(strcmp(a, b) != 0);
	compiled(ctx, "gfx90a", "d.hip", dated, NULL, 0, a);
	compiled(ctx, "gfx90a", "d.hip", dated, NULL, 0, b);
	if (strcmp(a, b) != 0) /* midnight passed between the two: once more */
		compiled(ctx, "gfx90a", "d.hip", dated, NULL, 0, a);
	ASSERT_STR(a, b);
	rocjit_close(ctx);
}
