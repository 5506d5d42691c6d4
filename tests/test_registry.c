/*
 * test_registry.c - registered (embedded) sources and the ROCJIT_KERNEL_PATH edit loop.
 */
#include <sys/stat.h>

#include "harness.h"

#define SRC_V1 "extern \"C\" __global__ void k(int *x) { x[0] = 1; }\n"
#define SRC_V2 "extern \"C\" __global__ void k(int *x) { x[0] = 2; }\n"
#define OTHER "extern \"C\" __global__ void other(int *x) { x[0] = 3; }\n"

static const rocjit_source_file files[] = { { "k.hip", SRC_V1, sizeof SRC_V1 - 1 },
					     { "sub/other.hip", OTHER, sizeof OTHER - 1 } };
static const rocjit_source_file dup[] = { { "k.hip", SRC_V2, sizeof SRC_V2 - 1 } };

static const rocjit_code *get(rocjit_ctx *ctx, const char *name)
{
	const rocjit_code *c = NULL;
	ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", name, NULL, 0), 0);
	return c;
}

TEST(registered_sources_are_found_by_name)
{
	const rocjit_source_file *f;
	ASSERT_INT(rocjit_register_sources(files, 2), 0);
	ASSERT_INT(rocjit_register_sources(dup, 1), 0);
	ASSERT_INT(rocjit_registered_source(&f, "k.hip"), 0);
	ASSERT_STR(f->text, SRC_V1); /* the first registration wins */
	ASSERT_INT(rocjit_registered_source(&f, "sub/other.hip"), 0);
	ASSERT_INT(rocjit_registered_source(&f, "missing.hip"), ROCJIT_ENOTFOUND);
	ASSERT_CONTAINS(rocjit_last_error(), "missing.hip");
	ASSERT_INT(rocjit_register_sources(NULL, 1), ROCJIT_EINVAL);
}

TEST(registered_source_compiles_and_hits)
{
	rocjit_ctx *ctx;
	const rocjit_code *c;
	rocjit_kernel *k;

	ASSERT_INT(rocjit_register_sources(files, 2), 0);
	ctx = rj_test_open();
	c = get(ctx, "k.hip");
	ASSERT_INT(c->from_cache, 0);
	ASSERT(get(ctx, "k.hip") == c);
	ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", "nope.hip", NULL, 0),
		   ROCJIT_ENOTFOUND);
	ASSERT_INT(rocjit_kernel_get_registered(&k, ctx, "nope.hip", "k", NULL, 0),
		   ROCJIT_ENOTFOUND);
	rocjit_close(ctx);
	ctx = rj_test_open();
	ASSERT_INT(get(ctx, "k.hip")->from_cache, 1);
	rocjit_close(ctx);
}

TEST(registered_and_inline_source_share_the_key)
{
	rocjit_ctx *ctx;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *a, *b;

	ASSERT_INT(rocjit_register_sources(files, 2), 0);
	ctx = rj_test_open();
	a = get(ctx, "k.hip");
	p.source = SRC_V1;
	p.name = "some/other/name.hip"; /* the name labels diagnostics only */
	ASSERT_INT(rocjit_compile(&b, ctx, "gfx90a", &p), 0);
	ASSERT(a == b);
	rocjit_close(ctx);
}

TEST(kernel_path_edit_recompiles_and_unchanged_files_hit)
{
	char dir[4300], path[4400];
	rocjit_ctx *ctx;
	char key_v1[33], key_other[33];

	ASSERT_INT(rocjit_register_sources(files, 2), 0);
	snprintf(dir, sizeof dir, "%s/kernels", rj_test_dir);
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/sub", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/k.hip", dir);
	rj_test_write_file(path, SRC_V1, strlen(SRC_V1));
	snprintf(path, sizeof path, "%s/sub/other.hip", dir);
	rj_test_write_file(path, OTHER, strlen(OTHER));
	setenv("ROCJIT_KERNEL_PATH", dir, 1);

	/* Run 1: both compiled (from the files, same text as embedded). */
	ctx = rj_test_open();
	memcpy(key_v1, get(ctx, "k.hip")->key, 33);
	memcpy(key_other, get(ctx, "sub/other.hip")->key, 33);
	rocjit_close(ctx);

	/* The kernel developer edits k.hip only. */
	snprintf(path, sizeof path, "%s/k.hip", dir);
	rj_test_write_file(path, SRC_V2, strlen(SRC_V2));

	/* Run 2: k.hip is recompiled, other.hip hits. */
	ctx = rj_test_open();
	{
		const rocjit_code *k = get(ctx, "k.hip"), *o = get(ctx, "sub/other.hip");
		rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
		ASSERT_INT(k->from_cache, 0);
		ASSERT(strcmp(k->key, key_v1) != 0);
		ASSERT_INT(o->from_cache, 1);
		ASSERT_STR(o->key, key_other);
		rocjit_stats_get(&st, ctx);
		ASSERT_INT(st.compiles, 1);
		ASSERT_INT(st.disk_hits, 1);
	}
	rocjit_close(ctx);

	/* A file missing from the folder falls back to the embedded text. */
	remove(path);
	ctx = rj_test_open();
	ASSERT_STR(get(ctx, "k.hip")->key, key_v1);
	ASSERT_INT(get(ctx, "k.hip")->from_cache, 1);
	rocjit_close(ctx);
}

TEST(kernel_path_compile_errors_name_the_file_on_disk)
{
	char dir[4300], path[4400];
	rocjit_ctx *ctx;
	const rocjit_code *c;

	ASSERT_INT(rocjit_register_sources(files, 2), 0);
	snprintf(dir, sizeof dir, "%s/kernels", rj_test_dir);
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/k.hip", dir);
	rj_test_write_file(path, "extern \"C\" __global__ void k() { oops; }\n", 41);
	setenv("ROCJIT_KERNEL_PATH", dir, 1);
	ctx = rj_test_open();
	ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", "k.hip", NULL, 0),
		   ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(rocjit_last_error(), path);
	ASSERT_CONTAINS(rocjit_last_error(), ":1:34: error:");
	rocjit_close(ctx);
}

#define COMMON_H "#define SCALE 3\n"
#define USES_COMMON \
	"#include \"common.h\"\nextern \"C\" __global__ void k(int *x) { x[0] = SCALE; }\n"
static const rocjit_source_file with_header[] = {
	{ "uses_common.hip", USES_COMMON, sizeof USES_COMMON - 1 },
	{ "common.h", COMMON_H, sizeof COMMON_H - 1 },
};

TEST(registered_headers_are_includable_and_in_the_key)
{
	char dir[4300], path[4400], key1[33];
	rocjit_ctx *ctx;
	const rocjit_code *c;

	ASSERT_INT(rocjit_register_sources(with_header, 2), 0);
	ctx = rj_test_open();
	c = get(ctx, "uses_common.hip");
	memcpy(key1, c->key, 33);
	rocjit_close(ctx);

	/* Editing only the header (through ROCJIT_KERNEL_PATH) gives a new key. */
	snprintf(dir, sizeof dir, "%s/kernels", rj_test_dir);
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/common.h", dir);
	rj_test_write_file(path, "#define SCALE 4\n", 16);
	setenv("ROCJIT_KERNEL_PATH", dir, 1);
	ctx = rj_test_open();
	c = get(ctx, "uses_common.hip");
	ASSERT(strcmp(c->key, key1) != 0);
	ASSERT_INT(c->from_cache, 0);
	rocjit_close(ctx);

	/* A broken header is reported under its registered name. */
	rj_test_write_file(path, "#define SCALE = ;\n", 18);
	ctx = rj_test_open();
	ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", "uses_common.hip", NULL, 0),
		   ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(rocjit_last_error(), "uses_common.hip:2:");
	rocjit_close(ctx);
}

TEST(unreadable_kernel_path_entry_is_eio_every_time)
{
	char dir[4300], path[4400];
	rocjit_ctx *ctx;
	const rocjit_code *c;

	ASSERT_INT(rocjit_register_sources(with_header, 2), 0);
	snprintf(dir, sizeof dir, "%s/kernels", rj_test_dir);
	mkdir(dir, 0700);
	/* A folder where the header should be: not a file. */
	snprintf(path, sizeof path, "%s/common.h", dir);
	mkdir(path, 0700);
	setenv("ROCJIT_KERNEL_PATH", dir, 1);
	ctx = rj_test_open();
	for (int i = 0; i < 2; i++) {
		ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", "uses_common.hip", NULL, 0),
			   ROCJIT_EIO);
		ASSERT_CONTAINS(rocjit_last_error(), "not a regular file");
	}
	rocjit_close(ctx);
}

/* An extensionless header ("cmath"-style) registered by name, included with <> and "". */
#define MY_LIMITS "#pragma once\n#define MY_MAX 7\n"
#define MY_CMATH "#pragma once\n#define MY_TWICE(x) ((x) * 2)\n"
#define USES_NOEXT                                                                 \
	"#include <mylimits>\n#include \"sub/mycmath\"\n"                          \
	"extern \"C\" __global__ void k(int *x) { x[0] = MY_TWICE(MY_MAX); }\n"
static const rocjit_source_file noext_sources[] = {
	{ "uses_noext.hip", USES_NOEXT, sizeof USES_NOEXT - 1 },
	{ "mylimits", MY_LIMITS, sizeof MY_LIMITS - 1 },
};
static const rocjit_source_file noext_headers[] = {
	{ "mylimits", MY_LIMITS, sizeof MY_LIMITS - 1 },
	{ "sub/mycmath", MY_CMATH, sizeof MY_CMATH - 1 },
};

TEST(extensionless_headers_register_by_name_and_compile)
{
	rocjit_ctx *ctx;

	/* Registered as a source first, then as a header: a header all the same. */
	ASSERT_INT(rocjit_register_sources(noext_sources, 2), 0);
	ASSERT_INT(rocjit_registered_is_header("mylimits"), 0);
	ASSERT_INT(rocjit_register_headers(noext_headers, 2), 0);
	ASSERT_INT(rocjit_registered_is_header("mylimits"), 1);
	ASSERT_INT(rocjit_registered_is_header("sub/mycmath"), 1);
	ASSERT_INT(rocjit_registered_is_header("uses_noext.hip"), 0);
	ASSERT_INT(rocjit_registered_is_header("never_registered.cuh"), 1);
	ASSERT_INT(rocjit_register_headers(NULL, 1), ROCJIT_EINVAL);
	/* Both are in-memory headers of every registered source (and so in its key). */
	ctx = rj_test_open();
	ASSERT_INT(get(ctx, "uses_noext.hip")->from_cache, 0);
	rocjit_close(ctx);
}

/* A registered source's language is its name's (rocjit_program_language, AUTO). */
#define SAME_TEXT "extern \"C\" __global__ void k(int *x) { x[0] = 5; }\n"
static const rocjit_source_file by_language[] = {
	{ "lang/k.cu", SAME_TEXT, sizeof SAME_TEXT - 1 },
	{ "lang/k.hip", SAME_TEXT, sizeof SAME_TEXT - 1 },
};

TEST(registered_sources_take_their_language_from_their_names)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *c;
	rocjit_ctx *ctx;
	char cu[33], hip[33];

	ASSERT_INT(rocjit_register_sources(by_language, 2), 0);
	ctx = rj_test_open();
	memcpy(cu, get(ctx, "lang/k.cu")->key, 33);
	memcpy(hip, get(ctx, "lang/k.hip")->key, 33);
	ASSERT(strcmp(cu, hip) != 0);
	/* The same keys as the text given directly with that language. */
	p.source = SAME_TEXT;
	p.language = ROCJIT_LANG_CUDA;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT_STR(c->key, cu);
	p.language = ROCJIT_LANG_HIP;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT_STR(c->key, hip);
	rocjit_close(ctx);
}

/*
 * rocjit_register_sources_v2 / _headers_v2 read an array of a later release's larger
 * rocjit_source_file by its element size: the fields this library knows, in each
 * element, and the table points at the caller's elements.
 */
struct source_file_next {             /* a rocjit_source_file with fields added after */
	const char *name;
	const char *text;
	size_t length;
	const char *added;
	uint64_t more;
};
#define BIG_DEFS "#define VALUE 5\n"
#define BIG_K "#include <big/defs>\nextern \"C\" __global__ void k(int *x) { x[0] = VALUE; }\n"
static const struct source_file_next big_sources[] = {
	{ "big/k.hip", BIG_K, sizeof BIG_K - 1, "not read", 1 },
	{ "big/other.hip", OTHER, sizeof OTHER - 1, "not read either", 2 },
};
static const struct source_file_next big_headers[] = {
	{ "big/defs", BIG_DEFS, sizeof BIG_DEFS - 1, "not read", 3 },
};
static const struct source_file_next big_bad[] = {
	{ "big/fine.hip", OTHER, sizeof OTHER - 1, NULL, 0 },
	{ NULL, OTHER, sizeof OTHER - 1, NULL, 0 },
};

TEST(register_sources_v2_reads_larger_elements_by_their_size)
{
	const rocjit_source_file *f;
	const rocjit_code *c;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_header h = { "big/defs", BIG_DEFS, 0 };
	rocjit_ctx *ctx;
	const void *arr = big_sources, *hdrs = big_headers, *bad = big_bad;

	ASSERT_INT(rocjit_register_headers_v2(hdrs, 1, sizeof big_headers[0]), 0);
	ASSERT_INT(rocjit_register_sources_v2(arr, 2, sizeof big_sources[0]), 0);
	ASSERT_INT(rocjit_registered_is_header("big/defs"), 1);
	ASSERT_INT(rocjit_registered_is_header("big/k.hip"), 0);
	ASSERT_INT(rocjit_registered_source(&f, "big/other.hip"), 0);
	ASSERT(f == (const void *)&big_sources[1]); /* the caller's element, not a copy */
	ASSERT_STR(f->text, OTHER);
	ASSERT_INT(rocjit_registered_source(&f, "big/k.hip"), 0);
	ASSERT(f == (const void *)&big_sources[0]);

	/* It compiles with its header, under the key the same program gets given directly. */
	ctx = rj_test_open();
	ASSERT_INT(rocjit_compile_registered(&c, ctx, "gfx90a", "big/k.hip", NULL, 0), 0);
	ASSERT_INT(c->from_cache, 0);
	p.source = BIG_K;
	p.headers = &h;
	p.num_headers = 1;
	{
		const rocjit_code *direct;
		ASSERT_INT(rocjit_compile(&direct, ctx, "gfx90a", &p), 0);
		ASSERT(direct == c);
	}
	rocjit_close(ctx);

	/* An element size no rocjit_source_file has is refused, and so is an element that
	   is not whole, found at its stride. */
	ASSERT_INT(rocjit_register_sources_v2(arr, 2, sizeof(rocjit_source_file) - 8),
		   ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "elem_size");
	ASSERT_INT(rocjit_register_sources_v2(arr, 2, sizeof(rocjit_source_file) + 4),
		   ROCJIT_EINVAL);
	ASSERT_INT(rocjit_register_headers_v2(hdrs, 1, 0), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_register_sources_v2(bad, 2, sizeof big_bad[0]), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "file 1 has no name");
	ASSERT_INT(rocjit_registered_source(&f, "big/fine.hip"), ROCJIT_ENOTFOUND);
	/* The first version's size is the plain call. */
	ASSERT_INT(rocjit_register_sources_v2(files, 2, sizeof files[0]), 0);
	ASSERT_INT(rocjit_registered_source(&f, "sub/other.hip"), 0);
	ASSERT(f == &files[1]);
}
