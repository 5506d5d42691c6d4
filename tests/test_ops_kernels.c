/*
 * test_ops_kernels.c - the op set of kernels-src/ops/ without a GPU: every file compiles
 * for gfx90a, gfx1030 and sm_90 (real hipRTC and NVRTC) with every name expression
 * rocjit_ops_foreach_kernel lists, and each code object holds exactly those kernels; the
 * first use of an op compiles its one instantiation alone; and the op library's own logic -
 * views, broadcasting, checks, empty tensors, the launch shapes - which needs no device
 * because it runs before any kernel is fetched; and the set prewarmed and exported with the
 * rocjit tool from the manifest its build writes, then served from that bundle alone.
 */
#include "harness.h"
#include "ops_internal.h"

/* ---- The kernel set --------------------------------------------------------------------- */

#define MAX_FILES 16

struct expected {
	const char *files[MAX_FILES];
	size_t num_files;
	char *names[MAX_FILES][160];
	size_t count[MAX_FILES];
};

static int collect(const char *file, const char *kernel, void *user)
{
	struct expected *e = user;
	size_t f;

	for (f = 0; f < e->num_files && strcmp(e->files[f], file) != 0; f++)
		;
	if (f == e->num_files) {
		ASSERT(f < MAX_FILES);
		e->files[e->num_files++] = file;
	}
	ASSERT(e->count[f] < 160);
	e->names[f][e->count[f]++] = strdup(kernel);
	return 0;
}

/*
 * Compiles every file of the set for target, once, with every name expression the set
 * lists for it, and compares the code object's kernels with those expressions' lowered
 * names: every one present, nothing else.  One compile per file proves each
 * instantiation compiles (an expression that names no kernel fails the compile), at the
 * cost of 7 compiles instead of 436; the launches' own entries, one expression each, are
 * the same templates instantiated alone (first_use_of_an_op_compiles_only_its_kernel).
 *
 * The code objects are kept between runs in a cache of the build folder
 * (ROCJIT_TEST_OPS_CACHE), not the test's temporary one: these compiles were most of the
 * CPU time of the whole suite, and were repeated on every run for unchanged sources.
 * The check is as strong as a fresh compile: rocjit's key covers the file's text, its
 * headers, the options, the name expressions, the target and the compiler's identity,
 * so a hit is the object this compiler makes of this source, and every object is
 * inspected again on every run.  A fresh build folder (CI) starts empty and compiles
 * everything.
 */
static void compile_set_for(const char *target, const char *want_target)
{
	static struct expected e;
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_ctx *ctx;
	size_t total = 0;

	o.cache_dir = ROCJIT_TEST_OPS_CACHE;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);

	if (!e.num_files)
		ASSERT_INT(rocjit_ops_foreach_kernel(collect, &e), 0);
	ASSERT_INT(e.num_files, 7);
	for (size_t f = 0; f < e.num_files; f++) {
		rocjit_registered_options ro = ROCJIT_REGISTERED_OPTIONS_INIT;
		const rocjit_code *code;
		rocjit_codeobj_info *info;

		ro.name_expressions = (const char *const *)e.names[f];
		ro.num_name_expressions = e.count[f];
		if (rocjit_compile_registered_v2(&code, ctx, target, e.files[f], &ro) != 0)
			rj_test_fail(__FILE__, __LINE__, "%s for %s: %s", e.files[f], target,
				     rocjit_last_error());
		ASSERT_INT(rocjit_codeobj_inspect(&info, code->data, code->size), 0);
		ASSERT_STR(info->target, want_target);
		for (size_t k = 0; k < e.count[f]; k++) {
			const char *lowered = NULL;
			size_t j = 0;
			ASSERT_INT(rocjit_code_lowered_name(&lowered, code, e.names[f][k]), 0);
			while (j < info->num_kernels && strcmp(info->kernels[j], lowered) != 0)
				j++;
			if (j == info->num_kernels)
				rj_test_fail(__FILE__, __LINE__, "%s for %s: kernel %s (%s) is missing",
					     e.files[f], target, e.names[f][k], lowered);
		}
		if (info->num_kernels != e.count[f])
			rj_test_fail(__FILE__, __LINE__, "%s for %s: %zu kernels, rocjit_ops "
				     "knows %zu", e.files[f], target, info->num_kernels, e.count[f]);
		/* hipRTC's textual lookup found every lowered name: no second compile, which
		 * would leave its __rocjit_ne_ pointer variables in the object (an expression
		 * naming a typedef, say) and double the cost of every first use. */
		if (memmem(code->data, code->size, "__rocjit_ne_", 12))
			rj_test_fail(__FILE__, __LINE__, "%s for %s: some name expression was lowered "
				     "by a second compile: spell it as the compiler prints it",
				     e.files[f], target);
		printf("%s -> %s: %zu kernels, %zu bytes\n", e.files[f], target, info->num_kernels,
		       code->size);
		total += e.count[f];
		rocjit_codeobj_info_free(info);
	}
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	printf("%zu kernels in %zu files; %llu compiled, %llu from %s\n", total, e.num_files,
	       (unsigned long long)st.compiles, (unsigned long long)st.disk_hits,
	       ROCJIT_TEST_OPS_CACHE);
	ASSERT(total > 400);
	/* Whatever was compiled was stored, so that the next run need not compile it. */
	ASSERT_INT(st.store_failures, 0);
	rocjit_close(ctx);
}

TEST(every_file_compiles_for_gfx90a_with_every_kernel)
{
	compile_set_for("gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack-");
}

TEST(every_file_compiles_for_gfx1030_with_every_kernel)
{
	compile_set_for("gfx1030", "gfx1030");
}

TEST(every_file_compiles_for_sm_90_with_every_kernel)
{
	const char *id;

	if (rocjit_compiler_identity(&id, ROCJIT_PLATFORM_NVIDIA) != 0) {
		rj_test_skip("no NVRTC here (%s)", rocjit_last_error());
	}
	compile_set_for("sm_90", "sm_90");
}

/* ---- One instantiation at a time ------------------------------------------------------ */

/* The first (file, kernel) rocjit_ops_foreach_kernel lists for file. */
struct first_of {
	const char *file;
	char kernel[OPS_EXPR_MAX];
};

static int find_first(const char *file, const char *kernel, void *user)
{
	struct first_of *f = user;

	if (strcmp(file, f->file) != 0)
		return 0;
	snprintf(f->kernel, sizeof f->kernel, "%s", kernel);
	return 1;
}

/* Compiles the first kernel the set lists for file alone, as a launch's first use does;
 * checks its object holds that kernel alone. */
static const rocjit_code *first_use(rocjit_ctx *ctx, const char *file, char *kernel,
				    size_t size)
{
	rocjit_registered_options ro = ROCJIT_REGISTERED_OPTIONS_INIT;
	struct first_of f = { .file = file };
	const char *expr = f.kernel, *lowered = NULL;
	const rocjit_code *code = NULL;
	rocjit_codeobj_info *info;

	ASSERT_INT(rocjit_ops_foreach_kernel(find_first, &f), 1);
	snprintf(kernel, size, "%s", f.kernel);
	ro.name_expressions = &expr;
	ro.num_name_expressions = 1;
	if (rocjit_compile_registered_v2(&code, ctx, "gfx90a", file, &ro) != 0)
		rj_test_fail(__FILE__, __LINE__, "%s: %s", expr, rocjit_last_error());
	ASSERT_INT(rocjit_codeobj_inspect(&info, code->data, code->size), 0);
	ASSERT_INT(rocjit_code_lowered_name(&lowered, code, expr), 0);
	ASSERT_INT(info->num_kernels, 1);
	ASSERT_STR(info->kernels[0], lowered);
	rocjit_codeobj_info_free(info);
	return code;
}

/*
 * What an application's first use of an op costs: one instantiation compiled, into one
 * entry of one kernel; a second op is a second entry; asking again compiles nothing; and
 * the entry is the one the launch path looks up (the key of the registered text with its
 * headers and that one expression, as rocjit_kernel_get_registered_v2 computes it).
 */
TEST(first_use_of_an_op_compiles_only_its_kernel)
{
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_ctx *ctx = rj_test_open();
	const rocjit_code *a, *b, *again, *viaprog = NULL;
	const rocjit_source_file *src;
	char ka[OPS_EXPR_MAX], kb[OPS_EXPR_MAX];
	rocjit_program prog = ROCJIT_PROGRAM_INIT;
	static const rocjit_source_file *hdr;

	a = first_use(ctx, "unary.hip", ka, sizeof ka);
	ASSERT_STR(ka, "unary<rj_op_neg, float>");
	ASSERT_INT(a->from_cache, 0);
	b = first_use(ctx, "binary.hip", kb, sizeof kb);
	ASSERT(strcmp(a->key, b->key) != 0);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compiles, 2);
	ASSERT_INT(st.entries, 2);
	again = first_use(ctx, "unary.hip", ka, sizeof ka);
	ASSERT(again == a);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compiles, 2);

	/* The same program given as text: the same key, served without a compile. */
	const char *expr = ka;
	ASSERT_INT(rocjit_registered_source(&src, "unary.hip"), 0);
	ASSERT_INT(rocjit_registered_source(&hdr, "rj_ops.h"), 0);
	rocjit_header h = { hdr->name, hdr->text, hdr->length };
	prog.source = src->text;
	prog.length = src->length;
	prog.name = "unary.hip";
	prog.headers = &h;
	prog.num_headers = 1;
	prog.name_expressions = &expr;
	prog.num_name_expressions = 1;
	ASSERT_INT(rocjit_compile(&viaprog, ctx, "gfx90a", &prog), 0);
	ASSERT_STR(viaprog->key, a->key);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compiles, 2);
	rocjit_close(ctx);
}

TEST(registered_v2_refuses_bad_options_and_needs_a_device_for_kernels)
{
	rocjit_registered_options ro = ROCJIT_REGISTERED_OPTIONS_INIT;
	const char *bad[] = { "unary<rj_op_neg,\tfloat>" }, *none[] = { NULL };
	const char *ok[] = { "unary<rj_op_neg, float>" };
	rocjit_ctx *ctx = rj_test_open();
	const rocjit_code *code;
	rocjit_kernel *k = (rocjit_kernel *)&ro;

	ro.version = 99;
	ASSERT_INT(rocjit_compile_registered_v2(&code, ctx, "gfx90a", "unary.hip", &ro),
		   ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_REGISTERED_OPTIONS_INIT");
	ro.version = ROCJIT_REGISTERED_OPTIONS_VERSION;
	ro.name_expressions = bad;
	ro.num_name_expressions = 1;
	ASSERT_INT(rocjit_compile_registered_v2(&code, ctx, "gfx90a", "unary.hip", &ro),
		   ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "control character");
	ro.name_expressions = none;
	ASSERT_INT(rocjit_kernel_get_registered_v2(&k, ctx, "unary.hip", "x", &ro),
		   ROCJIT_EINVAL);
	ASSERT(k == NULL);
	ro.name_expressions = NULL;
	ASSERT_INT(rocjit_compile_registered_v2(&code, ctx, "gfx90a", "unary.hip", &ro),
		   ROCJIT_EINVAL);
	ASSERT_INT(rocjit_compile_registered_v2(&code, ctx, "gfx90a", "nothere.hip", NULL),
		   ROCJIT_ENOTFOUND);
	ASSERT_INT(rocjit_kernel_get_registered_v2(NULL, ctx, "unary.hip", ok[0], NULL),
		   ROCJIT_EINVAL);
	/* No GPU here: a kernel needs one, and nothing is compiled to find that out. */
	ro.name_expressions = ok;
	ASSERT_INT(rocjit_kernel_get_registered_v2(&k, ctx, "unary.hip", ok[0], &ro),
		   ROCJIT_ENODEV);
	rocjit_close(ctx);
}

/* ---- Prewarmed and exported from the command line ------------------------------------- */

struct expr_lines {
	char *text; /* the expected "expr=<file>\t<kernel>\n" lines, in the set's order */
	size_t len, cap, count;
};

static int expect_line(const char *file, const char *kernel, void *user)
{
	struct expr_lines *e = user;
	size_t n = strlen(file) + strlen(kernel) + 8;

	if (e->len + n + 1 > e->cap) {
		e->cap = (e->len + n + 1) * 2;
		e->text = realloc(e->text, e->cap);
		ASSERT(e->text != NULL);
	}
	e->len += (size_t)snprintf(e->text + e->len, e->cap - e->len, "expr=%s\t%s\n", file,
				   kernel);
	e->count++;
	return 0;
}

/* The op set's manifest, which its build generates (ops/CMakeLists.txt): format 3, every
 * file it embeds, then one expr= line per kernel the launches fetch, in the same order. */
TEST(op_set_manifest_lists_every_kernel_the_launches_fetch)
{
	struct expr_lines e = { 0 };
	char *text = rj_test_read_file(ROCJIT_TEST_OPS_MANIFEST, NULL), *first;

	ASSERT_INT(rocjit_ops_foreach_kernel(expect_line, &e), 0);
	ASSERT(e.count > 400);
	ASSERT(strncmp(text, "# rocjit-manifest 3\ndir=", 24) == 0);
	ASSERT_CONTAINS(text, "/kernels-src/ops\n");
	ASSERT_CONTAINS(text, "\nfile=unary.hip\n");
	ASSERT_CONTAINS(text, "\nfile=rj_ops.h\n");
	first = strstr(text, "\nexpr=");
	ASSERT(first != NULL);
	ASSERT_STR(first + 1, e.text);
	printf("%s: %zu programs\n", ROCJIT_TEST_OPS_MANIFEST, e.count);
	free(e.text);
	free(text);
}

/*
 * The op set's manifest cut down to the first n expr= lines of each file: the same files
 * and headers, so the same keys, at the cost of 7n compiles instead of 436 (all of them
 * take minutes on a CI machine: README "The op set" gives the measured time).  Written to
 * path; returns how many programs it lists.
 */
static size_t write_subset(const char *path, size_t n)
{
	char *text = rj_test_read_file(ROCJIT_TEST_OPS_MANIFEST, NULL), *line, *save = NULL;
	char files[16][64];
	size_t nfiles = 0, count[16] = { 0 }, kept = 0;
	FILE *out = fopen(path, "w");

	ASSERT(out != NULL);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t f = 0, len = strcspn(line + 5, "\t");
		if (strncmp(line, "expr=", 5) != 0) {
			fprintf(out, "%s\n", line);
			continue;
		}
		while (f < nfiles && (strlen(files[f]) != len || strncmp(files[f], line + 5, len)))
			f++;
		if (f == nfiles) {
			ASSERT(nfiles < 16 && len < 64);
			snprintf(files[nfiles++], 64, "%.*s", (int)len, line + 5);
		}
		if (count[f]++ < n) {
			fprintf(out, "%s\n", line);
			kept++;
		}
	}
	ASSERT_INT(fclose(out), 0);
	ASSERT_INT(nfiles, 7);
	free(text);
	return kept;
}

/* The (n+1)-th kernel rocjit_ops_foreach_kernel lists for a file: one the subset leaves out. */
struct nth_of {
	const char *file;
	size_t n, seen;
	char kernel[OPS_EXPR_MAX];
};

static int find_nth(const char *file, const char *kernel, void *user)
{
	struct nth_of *f = user;

	if (strcmp(file, f->file) != 0 || f->seen++ < f->n)
		return 0;
	snprintf(f->kernel, sizeof f->kernel, "%s", kernel);
	return 1;
}

/*
 * Issue 31: the op set prewarmed and exported with the rocjit tool alone, from the
 * manifest its build writes, then an application of the op set (rocjit_probe_ops, a real
 * second process) served every program from the bundle alone: an empty cache folder,
 * compiling forbidden, no compiler loadable.  A program the bundle lacks is refused, so
 * the hits are the bundle's.
 */
TEST(op_set_prewarmed_and_exported_from_the_cli_serves_a_fresh_process_from_the_bundle)
{
	char subset[4300], bundle[4300], bundle_env[4400], empty[4300], summary[128];
	const char *const app_env[] = { "ROCJIT_NO_COMPILE=1",
					"ROCJIT_HIP_LIBRARY=/nonexistent/libamdhip64.so",
					"ROCJIT_NVRTC_LIBRARY=/nonexistent/libnvrtc.so", bundle_env,
					NULL };
	struct nth_of left_out = { .file = "cast.hip", .n = 2 };
	size_t n;
	char *out;

	rj_test_skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	snprintf(subset, sizeof subset, "%s/ops.rocjit-manifest", rj_test_dir);
	snprintf(bundle, sizeof bundle, "%s/ops.rocjit", rj_test_dir);
	snprintf(bundle_env, sizeof bundle_env, "ROCJIT_BUNDLE_PATH=%s", bundle);
	snprintf(empty, sizeof empty, "%s/empty-cache", rj_test_dir);
	n = write_subset(subset, 2);
	ASSERT_INT(n, 14);
	{
		const char *argv[] = { ROCJIT_TEST_CLI, "--cache", rj_test_cache_dir, "prewarm",
				       "--manifest", subset, "--arch", "gfx90a", "--no-progress",
				       NULL };
		ASSERT_INT(rj_test_run(argv, NULL, &out), 0);
		printf("%s", out);
		snprintf(summary, sizeof summary, "prewarm: %zu compiled, %zu stored, 0 already "
			 "cached, 0 failed; %zu programs x 1 target", n, n, n);
		ASSERT_CONTAINS(out, summary);
		ASSERT(!strstr(out, "0 kernels")); /* no file was compiled whole */
		free(out);
	}
	{
		const char *argv[] = { ROCJIT_TEST_CLI, "--cache", rj_test_cache_dir, "export",
				       "-o", bundle, "--manifest", subset, "--arch", "gfx90a",
				       "--no-progress", NULL };
		ASSERT_INT(rj_test_run(argv, NULL, &out), 0);
		printf("%s", out);
		snprintf(summary, sizeof summary, "%zu already cached", n);
		ASSERT_CONTAINS(out, summary);
		snprintf(summary, sizeof summary, "export: %zu entries written", n);
		ASSERT_CONTAINS(out, summary);
		free(out);
	}
	{
		const char *argv[] = { ROCJIT_TEST_PROBE_OPS, "--cache", empty, "--target",
				       "gfx90a", "--programs", subset, NULL };
		ASSERT_INT(rj_test_run(argv, app_env, &out), 0);
		printf("%s", out);
		snprintf(summary, sizeof summary, "programs=%zu compiles=0 disk_hits=%zu ", n, n);
		ASSERT_CONTAINS(out, summary);
		free(out);
	}
	/* A kernel of the set the bundle lacks: refused, not compiled (no compiler could). */
	ASSERT_INT(rocjit_ops_foreach_kernel(find_nth, &left_out), 1);
	{
		const char *argv[] = { ROCJIT_TEST_PROBE_OPS, "--cache", empty, "--target",
				       "gfx90a", "--registered", "cast.hip", "--name-expr",
				       left_out.kernel, NULL };
		ASSERT_INT(rj_test_run(argv, app_env, &out), 1);
		ASSERT_CONTAINS(out, "cast.hip for gfx90a is in no bundle");
		free(out);
	}
}

/* ---- The library's logic, before any launch -------------------------------------------- */

/* A handle on a context that must never need a device: every call below returns before
 * fetching a kernel. */
static rocjit_ops *open_ops(rocjit_ctx **ctx)
{
	rocjit_ops *ops;

	*ctx = rj_test_open();
	ASSERT_INT(rocjit_ops_create(&ops, *ctx), 0);
	return ops;
}

static rocjit_tensor fake(rocjit_dtype dtype, int ndim, int64_t d0, int64_t d1, int64_t d2)
{
	int64_t dims[3] = { d0, d1, d2 };
	return rocjit_tensor_dense((void *)(uintptr_t)0x1000, dtype, ndim, dims);
}

TEST(dense_views_broadcast_and_merge_into_the_fewest_dims)
{
	rocjit_tensor a = fake(ROCJIT_F32, 3, 2, 3, 4), b, row = fake(ROCJIT_F32, 1, 4, 0, 0);
	int64_t dims[3] = { 2, 3, 4 };
	struct rj_ew s;

	ASSERT_INT(a.strides[0], 12);
	ASSERT_INT(a.strides[2], 1);
	ASSERT_INT(rocjit_tensor_numel(&a), 24);
	ASSERT_INT(rocjit_tensor_broadcast(&b, &row, 3, dims), 0);
	ASSERT_INT(b.strides[0], 0);
	ASSERT_INT(b.strides[1], 0);
	ASSERT_INT(b.strides[2], 1);
	/* (2,3,4) dense with a broadcast row: the two outer dims merge (both operands allow
	 * it), the inner one cannot merge with them (b's stride 0). */
	const rocjit_tensor *three[] = { &a, &b, &a };
	ops_ew_shape(&s, three, 3);
	ASSERT_INT(s.ndim, 2);
	ASSERT_INT(s.dims[0], 6);
	ASSERT_INT(s.dims[1], 4);
	ASSERT_INT(s.contig, 0);
	/* All dense: one dim, linear indexing. */
	const rocjit_tensor *two[] = { &a, &a };
	ops_ew_shape(&s, two, 2);
	ASSERT_INT(s.ndim, 1);
	ASSERT_INT(s.contig, 1);
	ASSERT_INT(s.n, 24);
	/* A transposed view stays two dims, strided. */
	rocjit_tensor t = fake(ROCJIT_F32, 2, 3, 5, 0);
	t.dims[0] = 5;
	t.dims[1] = 3;
	t.strides[0] = 1;
	t.strides[1] = 5;
	rocjit_tensor o = fake(ROCJIT_F32, 2, 5, 3, 0);
	const rocjit_tensor *tr[] = { &t, &o };
	ops_ew_shape(&s, tr, 2);
	ASSERT_INT(s.ndim, 2);
	ASSERT_INT(s.contig, 0);
	/* Extent 3 against 4 does not broadcast. */
	rocjit_tensor bad = fake(ROCJIT_F32, 1, 3, 0, 0);
	ASSERT_INT(rocjit_tensor_broadcast(&b, &bad, 3, dims), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "neither 1 nor");
}

TEST(bad_operands_are_einval_or_eunsupported_with_the_reason)
{
	rocjit_ctx *ctx;
	rocjit_ops *ops = open_ops(&ctx);
	rocjit_tensor f = fake(ROCJIT_F32, 2, 4, 5, 0), g = fake(ROCJIT_F32, 2, 4, 6, 0);
	rocjit_tensor u = fake(ROCJIT_U8, 2, 4, 5, 0), h = fake(ROCJIT_F16, 2, 4, 5, 0);
	rocjit_tensor i64 = fake(ROCJIT_I64, 1, 4, 0, 0), y1 = fake(ROCJIT_F32, 1, 4, 0, 0);

	ASSERT_INT(rocjit_ops_binary(ops, NULL, ROCJIT_ADD, &f, &g, &f), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "along dim 1");
	ASSERT_INT(rocjit_ops_binary(ops, NULL, ROCJIT_ADD, &f, &h, &f), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "dtype f16, expected f32");
	ASSERT_INT(rocjit_ops_binary(ops, NULL, ROCJIT_LT, &f, &f, &f), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "expected u8");
	ASSERT_INT(rocjit_ops_binary(ops, NULL, ROCJIT_POW, &u, &u, &u), ROCJIT_EUNSUPPORTED);
	ASSERT_INT(rocjit_ops_unary(ops, NULL, ROCJIT_EXP, &u, &u), ROCJIT_EUNSUPPORTED);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "unary exp does not exist for u8");
	ASSERT_INT(rocjit_ops_unary(ops, NULL, (rocjit_unary_op)99, &f, &f), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_ops_elu(ops, NULL, &u, &u, 1.0), ROCJIT_EUNSUPPORTED);
	ASSERT_INT(rocjit_ops_softmax(ops, NULL, &u, &u), ROCJIT_EUNSUPPORTED);
	ASSERT_INT(rocjit_ops_reduce(ops, NULL, ROCJIT_MEAN, &u, 1, &u, NULL, 0),
		   ROCJIT_EUNSUPPORTED);
	ASSERT_INT(rocjit_ops_reduce(ops, NULL, ROCJIT_SUM, &f, 2, &y1, NULL, 0), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "dim 2 is outside 0..1");
	ASSERT_INT(rocjit_ops_reduce(ops, NULL, ROCJIT_ARGMAX, &f, 1, &y1, NULL, 0),
		   ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "expected u32");
	ASSERT_INT(rocjit_ops_where(ops, NULL, &f, &f, &f, &f), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "indices are u8, u32 or i64");
	ASSERT_INT(rocjit_ops_index_select(ops, NULL, &f, &f, 0, &f), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_ops_index_select(ops, NULL, &f, &i64, 2, &f), ROCJIT_EINVAL);
	ASSERT_INT(rocjit_ops_arange(ops, NULL, &u, 0.5, 1.0), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "integral start and step");
	ASSERT_INT(rocjit_ops_copy2d(ops, NULL, ROCJIT_F32, (void *)8, (void *)8, 3, 4, 4, 2),
		   ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "overlap");
	/* Outputs that would write one address twice. */
	rocjit_tensor bcast;
	ASSERT_INT(rocjit_tensor_broadcast(&bcast, &y1, 2, (int64_t[]){ 5, 4 }), 0);
	ASSERT_INT(rocjit_ops_unary(ops, NULL, ROCJIT_NEG, &bcast, &bcast), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "stride 0");
	/* argsort rows longer than the shared-memory sort. */
	rocjit_tensor longrow = fake(ROCJIT_F32, 1, 9000, 0, 0), idx = fake(ROCJIT_U32, 1, 9000, 0, 0);
	ASSERT_INT(rocjit_ops_argsort(ops, NULL, &longrow, &idx, 0), ROCJIT_EUNSUPPORTED);
	/* No handle. */
	ASSERT_INT(rocjit_ops_unary(NULL, NULL, ROCJIT_NEG, &f, &f), ROCJIT_EINVAL);
	rocjit_ops_destroy(ops);
	rocjit_close(ctx);
}

TEST(empty_tensors_launch_nothing_and_succeed_without_a_device)
{
	rocjit_ctx *ctx;
	rocjit_ops *ops = open_ops(&ctx);
	rocjit_tensor e = fake(ROCJIT_F32, 2, 0, 5, 0), e2 = fake(ROCJIT_F32, 2, 5, 0, 0);
	rocjit_tensor ids = fake(ROCJIT_U32, 1, 0, 0, 0), row = fake(ROCJIT_F32, 1, 5, 0, 0);
	rocjit_tensor u = fake(ROCJIT_U32, 2, 0, 5, 0);
	float one = 1;

	e.data = e2.data = NULL; /* no memory at all behind an empty tensor */
	ASSERT_INT(rocjit_ops_unary(ops, NULL, ROCJIT_EXP, &e, &e), 0);
	ASSERT_INT(rocjit_ops_binary(ops, NULL, ROCJIT_ADD, &e, &e, &e), 0);
	ASSERT_INT(rocjit_ops_cast(ops, NULL, &e, &e), 0);
	ASSERT_INT(rocjit_ops_fill(ops, NULL, &e, &one), 0);
	ASSERT_INT(rocjit_ops_arange(ops, NULL, &e, 0, 1), 0);
	ASSERT_INT(rocjit_ops_softmax(ops, NULL, &e, &e), 0);
	ASSERT_INT(rocjit_ops_layer_norm(ops, NULL, &e2, NULL, NULL, &e2, 1e-5), 0);
	ASSERT_INT(rocjit_ops_argsort(ops, NULL, &e, &u, 1), 0);
	rocjit_tensor ey = fake(ROCJIT_F32, 1, 0, 0, 0);
	ASSERT_INT(rocjit_ops_reduce(ops, NULL, ROCJIT_SUM, &e, 1, &ey, NULL, 0), 0);
	ASSERT_INT(rocjit_ops_index_select(ops, NULL, &row, &ids, 0, &ids), ROCJIT_EINVAL);
	rocjit_tensor sel = fake(ROCJIT_F32, 1, 0, 0, 0);
	ASSERT_INT(rocjit_ops_index_select(ops, NULL, &row, &ids, 0, &sel), 0);
	ASSERT_INT(rocjit_ops_copy2d(ops, NULL, ROCJIT_F32, NULL, NULL, 0, 4, 4, 4), 0);
	/* min over an empty dim has no value; sum does (0). */
	ASSERT_INT(rocjit_ops_reduce(ops, NULL, ROCJIT_MIN_R, &e2, 1, &row, NULL, 0),
		   ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_ops_last_error(), "empty dim");
	rocjit_ops_destroy(ops);
	rocjit_close(ctx);
}

TEST(reduction_workspace_only_for_few_long_outputs)
{
	rocjit_tensor all = fake(ROCJIT_F32, 1, 64 << 20, 0, 0);
	rocjit_tensor rows = fake(ROCJIT_F32, 2, 4096, 16384, 0);
	rocjit_tensor f64 = fake(ROCJIT_F64, 1, 1 << 20, 0, 0);

	/* One output of 64 Mi elements: 2048 blocks, an f32 and an index each. */
	ASSERT_INT(rocjit_ops_reduce_workspace(ROCJIT_SUM, &all, 0), 2048 * 8);
	ASSERT_INT(rocjit_ops_reduce_workspace(ROCJIT_SUM, &rows, 1), 0);
	/* Over the strided first dim: a thread per output, the 4096 rows split 16 ways. */
	ASSERT_INT(rocjit_ops_reduce_workspace(ROCJIT_SUM, &rows, 0), 16384 * 16 * 8);
	/* 1 Mi f64 elements: 128 blocks of 8192, an f64 and an index each. */
	ASSERT_INT(rocjit_ops_reduce_workspace(ROCJIT_MAX_R, &f64, 0), 128 * 12);
	ASSERT_INT(rocjit_ops_reduce_workspace(ROCJIT_SUM, &all, 3), 0);
}

TEST(names_of_types_and_ops)
{
	ASSERT_STR(rocjit_dtype_name(ROCJIT_BF16), "bf16");
	ASSERT_INT(rocjit_dtype_size(ROCJIT_I64), 8);
	ASSERT(rocjit_dtype_name((rocjit_dtype)7) == NULL);
	ASSERT_STR(rocjit_unary_op_name(ROCJIT_GELU_ERF), "gelu_erf");
	ASSERT_STR(rocjit_binary_op_name(ROCJIT_GE), "ge");
	ASSERT(rocjit_binary_op_name((rocjit_binary_op)13) == NULL);
}
