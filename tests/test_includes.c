/*
 * test_includes.c - a quoted include resolves relative to the including file's folder
 * first, then from the registered root, as a C compiler does: for registered headers
 * (in memory), ROCJIT_KERNEL_PATH and prewarm folders, on hipRTC (gfx90a) and NVRTC
 * (sm_90).  Each kernel is named after the header it saw (k_<WHICH>), so the code
 * object's kernel list shows which file an include reached.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define PRE "#define CAT2(a, b) a##b\n#define CAT(a, b) CAT2(a, b)\n"
#define KERNEL(M) "extern \"C\" __global__ void CAT(k_, " M ")(float *x) { x[0] = 1; }\n"

/* Same text in a/, b/ and at the root: which common.h it gets depends on its folder. */
static const char common_user[] = PRE "#include \"common.h\"\n" KERNEL("WHICH");

static const rocjit_source_file files[] = {
	{ "common.h", "#define WHICH top\n", 0 },
	{ "a/common.h", "#define WHICH a\n", 0 },
	{ "b/common.h", "#define WHICH b\n", 0 },
	{ "a/k.hip", common_user, 0 },
	{ "b/k.hip", common_user, 0 },
	{ "top.hip", common_user, 0 },
	/* Nested: a/sub/x.h's "y.h" is a/sub/y.h, not a/y.h nor a root one. */
	{ "a/sub/x.h", "#include \"y.h\"\n", 0 },
	{ "a/sub/y.h", "#define NESTED sub_y\n", 0 },
	{ "a/y.h", "#define NESTED a_y\n", 0 },
	{ "y.h", "#define NESTED top_y\n", 0 },
	{ "a/nested.hip", PRE "#include \"sub/x.h\"\n" KERNEL("NESTED"), 0 },
	/* Angle brackets: the root only. */
	{ "a/angle.hip", PRE "#include <common.h>\n" KERNEL("WHICH"), 0 },
	/* Up a folder, still inside the set. */
	{ "a/sub/up.hip", PRE "#include \"../common.h\"\n" KERNEL("WHICH"), 0 },
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const rocjit_source_file *)a)->name, ((const rocjit_source_file *)b)->name);
}

/* Registers the files as rocjit_add_kernels does: sorted by their relative path. */
static void register_files(void)
{
	static rocjit_source_file copy[sizeof files / sizeof files[0]];
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		copy[i] = files[i];
		copy[i].length = strlen(files[i].text);
	}
	qsort(copy, sizeof copy / sizeof copy[0], sizeof copy[0], by_name);
	ASSERT_INT(rocjit_register_sources(copy, sizeof copy / sizeof copy[0]), 0);
}

/* The kernel names of what name compiles to for target, comma separated, and its key. */
static void compile_registered(rocjit_ctx *ctx, const char *target, const char *name,
			       char *kernels, size_t size, char key[33])
{
	const rocjit_code *c;
	rocjit_codeobj_info *info;
	size_t n = 0;

	ASSERT_INT(rocjit_compile_registered(&c, ctx, target, name, NULL, 0), 0);
	ASSERT_INT(rocjit_codeobj_inspect(&info, c->data, c->size), 0);
	kernels[0] = 0;
	for (size_t i = 0; i < info->num_kernels; i++)
		n += (size_t)snprintf(kernels + n, size - n, "%s%s", i ? "," : "", info->kernels[i]);
	rocjit_codeobj_info_free(info);
	if (key)
		memcpy(key, c->key, 33);
}

/* Each registered source and the kernel it must compile to (the header it reached). */
static const struct {
	const char *name, *kernel;
} expect[] = {
	{ "a/k.hip", "k_a" },		{ "b/k.hip", "k_b" },
	{ "top.hip", "k_top" },		{ "a/nested.hip", "k_sub_y" },
	{ "a/angle.hip", "k_top" },	{ "a/sub/up.hip", "k_a" },
};

static void check_registered_rule(const char *target)
{
	char k[256], keys[3][33];
	rocjit_ctx *ctx;

	register_files();
	ctx = rj_test_open();
	for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
		compile_registered(ctx, target, expect[i].name, k, sizeof k, i < 3 ? keys[i] : NULL);
		ASSERT_STR(k, expect[i].kernel);
	}
	/* Identical text (a/k.hip, b/k.hip, top.hip), different headers reached: never one
	   key. */
	ASSERT(strcmp(keys[0], keys[1]) != 0);
	ASSERT(strcmp(keys[0], keys[2]) != 0);
	ASSERT(strcmp(keys[1], keys[2]) != 0);
	rocjit_close(ctx);
}

TEST(quoted_include_resolves_in_the_including_folder_first_on_hiprtc)
{
	check_registered_rule("gfx90a");
}

TEST(quoted_include_resolves_in_the_including_folder_first_on_nvrtc)
{
	char buf[64];
	if (rocjit_compiler_targets_get(buf, sizeof buf, ROCJIT_PLATFORM_NVIDIA) != 0) {
		rj_test_skip("NVRTC is not installed: %s", rocjit_last_error());
	}
	check_registered_rule("sm_90");
}

/* The rule itself: what is rewritten, what is left as written. */
TEST(include_rule_rewrites_only_includes_that_reach_a_registered_header)
{
	const char *headers[] = { "ops/rj_ops.h", "ops/detail/d.h", "common.h", "x.h" };
	char *out;
	size_t len;

	/* At the root nothing changes. */
	ASSERT_INT(rocjit_include_resolve(&out, &len, "k.hip", "#include \"common.h\"\n", 0,
					  headers, 4), 0);
	ASSERT(out == NULL);
	/* In a folder: the folder first, spacing kept, every line kept. */
	ASSERT_INT(rocjit_include_resolve(&out, &len, "ops/u.hip",
					  "// one\n  #  include  \"rj_ops.h\" // two\n"
					  "#include <rj_ops.h>\n#include \"common.h\"\n"
					  "#include \"./detail/d.h\"\n#include \"../x.h\"\n"
					  "#include \"../../x.h\"\n#include \"hip/hip_runtime.h\"\n"
					  "#include \"rj_ops.h\"",
					  0, headers, 4), 0);
	ASSERT(out != NULL);
	ASSERT_STR(out, "// one\n  #  include  \"ops/rj_ops.h\" // two\n"
			"#include <rj_ops.h>\n#include \"common.h\"\n"
			"#include \"ops/detail/d.h\"\n#include \"x.h\"\n"
			"#include \"../../x.h\"\n#include \"hip/hip_runtime.h\"\n"
			"#include \"ops/rj_ops.h\"");
	ASSERT_INT(len, strlen(out));
	free(out);
	/* A header in a subfolder: its own folder. */
	ASSERT_INT(rocjit_include_resolve(&out, &len, "ops/detail/d.h",
					  "#include \"../rj_ops.h\"\n", 0, headers, 4), 0);
	ASSERT_STR(out, "#include \"ops/rj_ops.h\"\n");
	free(out);
	ASSERT_INT(rocjit_include_resolve(NULL, &len, "a", "", 0, headers, 4), ROCJIT_EINVAL);
}

/* Runs `rocjit prewarm --arch gfx90a dir` into rj_test_dir/prewarmed (its path into
 * cache), asserting success; returns its output. */
static char *prewarm(char *cache, size_t size, const char *dir)
{
	char *out = NULL;
	int status;

	snprintf(cache, size, "%s/prewarmed", rj_test_dir);
	{
		const char *argv[] = { ROCJIT_TEST_CLI, "--cache", cache, "prewarm", "--arch", "gfx90a",
				 "--no-progress", dir, NULL };
		const char *env[] = { NULL };
		status = rj_test_run(argv, env, &out);
	}
	printf("%s", out);
	ASSERT_INT(status, 0);
	return out;
}

static void copy_tree(const char *from, const char *to)
{
	char cmd[9000];
	snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", from, to);
	ASSERT_INT(system(cmd), 0);
}

/*
 * A folder with the same text in a/ and b/, each with its own common.h, and a root one:
 * prewarm compiles each file with the header its folder gives it (two programs, not one
 * deduplicated), and an application registering the same files hits exactly those keys.
 */
TEST(prewarm_of_a_folder_keys_each_file_with_its_own_folders_header)
{
	char dir[4400], path[4600], cache[4400], *out = NULL;
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	char k[256];
	rocjit_ctx *ctx;

	snprintf(dir, sizeof dir, "%s/kernels", rj_test_dir);
	ASSERT_INT(mkdir(dir, 0700), 0);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *slash;
		snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
		for (slash = strchr(path + strlen(dir) + 1, '/'); slash;
		     slash = strchr(slash + 1, '/')) {
			*slash = 0;
			mkdir(path, 0700);
			*slash = '/';
		}
		rj_test_write_file(path, files[i].text, strlen(files[i].text));
	}
	out = prewarm(cache, sizeof cache, dir);
	/* a/sub/up.hip's "../common.h" and a/k.hip's "common.h" are one program. */
	ASSERT_CONTAINS(out, "5 compiled, 5 stored, 0 already cached, 0 failed; 6 sources x 1 target "
			"(1 identical, done once)");
	free(out);
	/* The application's view of the same files finds every key without compiling. */
	register_files();
	o.cache_dir = cache;
	o.flags = ROCJIT_OPEN_NO_COMPILE;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	compile_registered(ctx, "gfx90a", "a/k.hip", k, sizeof k, NULL);
	ASSERT_STR(k, "k_a");
	compile_registered(ctx, "gfx90a", "b/k.hip", k, sizeof k, NULL);
	ASSERT_STR(k, "k_b");
	compile_registered(ctx, "gfx90a", "a/nested.hip", k, sizeof k, NULL);
	ASSERT_STR(k, "k_sub_y");
	rocjit_close(ctx);
}

/*
 * The project's own kernel folder (ops/ includes "rj_ops.h"): every file compiles, and
 * an application that registered the folder, with stale embedded texts replaced through
 * ROCJIT_KERNEL_PATH, finds each ops/ kernel prewarm stored.
 */
TEST(prewarm_of_the_projects_kernel_folder_compiles_every_file)
{
	static const char *const names[] = { "ops/binary.hip", "ops/cast.hip",
					      "ops/indexing.hip", "ops/reductions.hip",
					      "ops/rj_ops.h", "ops/rows.hip", "ops/sort.hip",
					      "ops/unary.hip" };
	static rocjit_source_file stale[sizeof names / sizeof names[0]];
	char dir[4400], cache[4400], kpath[4500], *out = NULL;
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;

	snprintf(dir, sizeof dir, "%s/kernels-src", rj_test_dir);
	copy_tree(ROCJIT_TEST_KERNELS, dir);
	out = prewarm(cache, sizeof cache, dir);
	ASSERT_CONTAINS(out, " 0 failed");
	ASSERT(!strstr(out, "file not found"));
	free(out);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		stale[i].name = names[i];
		stale[i].text = "#error the embedded text is stale\n";
		stale[i].length = strlen(stale[i].text);
	}
	ASSERT_INT(rocjit_register_sources(stale, sizeof stale / sizeof stale[0]), 0);
	snprintf(kpath, sizeof kpath, "ROCJIT_KERNEL_PATH=%s", dir);
	putenv(kpath);
	o.cache_dir = cache;
	o.flags = ROCJIT_OPEN_NO_COMPILE;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const rocjit_code *c;
		if (strcmp(names[i] + strlen(names[i]) - 2, ".h") == 0)
			continue; /* a header is not compiled alone */
		ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", names[i], NULL, 0), 0);
		ASSERT_INT(c->from_cache, 1);
	}
	rocjit_close(ctx);
}
