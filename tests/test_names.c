/*
 * test_names.c - name expressions (rocjit_program.name_expressions): real hipRTC and NVRTC
 * compiles instantiate them, their lowered names come back through
 * rocjit_code_lowered_name, are stored with the entry (a hit in a new context, a bundle,
 * an import resolves them without compiling), and are part of the key; hipRTC's textual
 * lowering fails with an error that names the expression and the spelling that works.
 */
#include "harness.h"

static const char templates[] =
	"template <typename T, int N> __global__ void scale(T *y) { y[0] = (T)N; }\n"
	"namespace ns { template <typename T> __global__ void k(T *y) { y[0] = 1; } }\n"
	"template <unsigned B> __global__ void mm(float *y) { y[0] = B; }\n";

static const char *const exprs[] = { "scale<float, 4>", "ns::k<int>" };

static rocjit_program program(const char *const *names, size_t n)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;

	p.source = templates;
	p.name = "templates.hip";
	p.name_expressions = names;
	p.num_name_expressions = n;
	return p;
}

static int have_nvrtc(void)
{
	const char *id;
	return rocjit_compiler_identity(&id, ROCJIT_PLATFORM_NVIDIA) == 0;
}

/* Both expressions lower to the mangled names the compiler gave the instantiations. */
static void check_lowered(const rocjit_code *c)
{
	const char *lowered = NULL;

	ASSERT_INT(rocjit_code_lowered_name(&lowered, c, "scale<float, 4>"), 0);
	ASSERT_STR(lowered, "_Z5scaleIfLi4EEvPT_");
	ASSERT_INT(rocjit_code_lowered_name(&lowered, c, "ns::k<int>"), 0);
	ASSERT_STR(lowered, "_ZN2ns1kIiEEvPT_");
	/* Exactly the string given: another spelling is not looked up. */
	ASSERT_INT(rocjit_code_lowered_name(&lowered, c, "scale<float,4>"), ROCJIT_ENOTFOUND);
	ASSERT(lowered == NULL);
	ASSERT_CONTAINS(rocjit_last_error(), "name_expressions");
	ASSERT_INT(rocjit_code_lowered_name(NULL, c, "ns::k<int>"), ROCJIT_EINVAL);
}

static int entry_names(const rocjit_entry *e, void *user)
{
	snprintf(user, 512, "%s|%s", e->kernels, e->name_expressions);
	return 0;
}

static void lower_and_hit(const char *target)
{
	rocjit_program p = program(exprs, 2);
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	const rocjit_code *c;
	rocjit_ctx *ctx = rj_test_open();
	char seen[512] = "";

	ASSERT_INT(rocjit_compile(&c, ctx, target, &p), 0);
	ASSERT_INT(c->from_cache, 0);
	check_lowered(c);
	/* The entry shows the symbols alone in kernels, and the expressions apart. */
	ASSERT_INT(rocjit_cache_foreach(ctx, entry_names, seen), 0);
	ASSERT_CONTAINS(seen, "|scale<float, 4>\t_Z5scaleIfLi4EEvPT_\nns::k<int>\t_ZN2ns1kIiEEvPT_");
	ASSERT(strchr(seen, '|') && !memchr(seen, '\n', (size_t)(strchr(seen, '|') - seen)));
	rocjit_close(ctx);
	/* A new context, compiling forbidden: the lowered names come from the disk. */
	o.cache_dir = rj_test_cache_dir;
	o.flags = ROCJIT_OPEN_NO_COMPILE;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(rocjit_compile(&c, ctx, target, &p), 0);
	ASSERT_INT(c->from_cache, 1);
	check_lowered(c);
	rocjit_close(ctx);
}

TEST(name_expressions_lower_on_hiprtc_and_hit_from_disk)
{
	lower_and_hit("gfx90a");
}

TEST(name_expressions_lower_on_nvrtc_and_hit_from_disk)
{
	if (!have_nvrtc())
		rj_test_skip("NVRTC is not installed");
	lower_and_hit("sm_90");
}

TEST(nvrtc_lowers_what_hiprtc_matches_only_as_text)
{
	static const char *const hard[] = { "mm<16>", "scale<float, 2+2>" };
	rocjit_program p = program(hard, 2);
	rocjit_ctx *ctx;
	const rocjit_code *c;
	const char *lowered;

	if (!have_nvrtc())
		rj_test_skip("NVRTC is not installed");
	ctx = rj_test_open();
	ASSERT_INT(rocjit_compile(&c, ctx, "sm_90", &p), 0);
	ASSERT_INT(rocjit_code_lowered_name(&lowered, c, "mm<16>"), 0);
	ASSERT_STR(lowered, "_Z2mmILj16EEvPf");
	ASSERT_INT(rocjit_code_lowered_name(&lowered, c, "scale<float, 2+2>"), 0);
	ASSERT_STR(lowered, "_Z5scaleIfLi4EEvPT_");
	rocjit_close(ctx);
}

/* What hipRTC's own (textual) lookup misses, rocjit lowers from the object's relocations. */
TEST(hiprtc_lowers_unsigned_and_constant_expression_arguments_exactly)
{
	static const char *const hard[] = { "mm<16>", "scale<float, 2+2>" };
	rocjit_program p = program(hard, 2);
	rocjit_ctx *ctx = rj_test_open();
	rocjit_codeobj_info *info;
	const rocjit_code *c;
	const char *lowered;

	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT_INT(rocjit_code_lowered_name(&lowered, c, "mm<16>"), 0);
	ASSERT_STR(lowered, "_Z2mmILj16EEvPf");
	ASSERT_INT(rocjit_code_lowered_name(&lowered, c, "scale<float, 2+2>"), 0);
	ASSERT_STR(lowered, "_Z5scaleIfLi4EEvPT_");
	ASSERT_INT(rocjit_codeobj_inspect(&info, c->data, c->size), 0);
	ASSERT_INT(info->num_kernels, 2);
	rocjit_codeobj_info_free(info);
	rocjit_close(ctx);
}

TEST(an_expression_naming_no_kernel_is_a_compile_error_that_names_it)
{
	static const char *const bad[] = { "scale<float, 4>", "nosuch<int>" };
	rocjit_program p = program(bad, 2);
	rocjit_ctx *ctx = rj_test_open();
	const rocjit_code *c;

	/* The compilers instantiate each expression: one naming nothing is their error. */
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(rocjit_last_error(), "templates.hip:");
	ASSERT_CONTAINS(rocjit_last_error(), "error: ");
	ASSERT_CONTAINS(rocjit_last_error(), "nosuch");
	ASSERT_CONTAINS(rocjit_last_log(), "nosuch");
	if (have_nvrtc()) {
		ASSERT_INT(rocjit_compile(&c, ctx, "sm_90", &p), ROCJIT_ECOMPILE);
		ASSERT_CONTAINS(rocjit_last_error(), "nosuch");
		ASSERT_CONTAINS(rocjit_last_log(), "nosuch");
	}
	rocjit_close(ctx);
}

TEST(name_expressions_are_part_of_the_key_in_order)
{
	static const char *const reversed[] = { "ns::k<int>", "scale<float, 4>" };
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = program(NULL, 0);
	const rocjit_code *c;
	char none[33], two[33], one[33];

	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	memcpy(none, c->key, 33);
	p = program(exprs, 2);
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	memcpy(two, c->key, 33);
	p = program(exprs, 1);
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	memcpy(one, c->key, 33);
	ASSERT(strcmp(none, two) != 0 && strcmp(none, one) != 0 && strcmp(one, two) != 0);
	p = program(reversed, 2);
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT(strcmp(c->key, two) != 0);
	/* A v1 program has no name expressions, whatever the fields behind it hold. */
	p = program(exprs, 2);
	p.version = 1;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT_STR(c->key, none);
	rocjit_close(ctx);
}

TEST(malformed_name_expressions_are_refused)
{
	static const char *const tab[] = { "scale<float,\t4>" };
	static const char *const line[] = { "ns::k<int>\n" };
	static const char *const empty[] = { "" };
	static const char *const null[] = { NULL };
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p;
	const rocjit_code *c;

	p = program(tab, 1);
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "control character");
	p = program(line, 1);
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	p = program(empty, 1);
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	p = program(null, 1);
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	p = program(NULL, 2);
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	rocjit_close(ctx);
}

/*
 * p compiled for target, exported to a bundle, then served by the bundle in an empty
 * cache that may not compile, and imported into another (the entry passes the import's
 * checks) and hit from disk: check(c) holds for each.
 */
static void bundle_round_trip(const rocjit_program *p, const char *target,
			      void (*check)(const rocjit_code *))
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	const rocjit_code *c;
	rocjit_ctx *ctx = rj_test_open();
	char key[33], bundle[4300], other[4300], fresh[4300];
	const char *keys[1] = { key };
	size_t n = 0;

	ASSERT_INT(rocjit_compile(&c, ctx, target, p), 0);
	check(c);
	memcpy(key, c->key, 33);
	snprintf(bundle, sizeof bundle, "%s/app-%s.rocjit", rj_test_dir, target);
	ASSERT_INT(rocjit_bundle_export(ctx, bundle, keys, 1, &n), 0);
	ASSERT_INT(n, 1);
	rocjit_close(ctx);

	snprintf(other, sizeof other, "%s/other-%s", rj_test_dir, target);
	o.cache_dir = other;
	o.bundles = bundle;
	o.flags = ROCJIT_OPEN_NO_COMPILE;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(rocjit_compile(&c, ctx, target, p), 0);
	ASSERT_INT(c->from_cache, 1);
	check(c);
	rocjit_close(ctx);

	snprintf(fresh, sizeof fresh, "%s/fresh-%s", rj_test_dir, target);
	o.cache_dir = fresh;
	o.bundles = NULL;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	ASSERT_INT(rocjit_bundle_import(ctx, bundle, &n), 0);
	ASSERT_INT(n, 1);
	ASSERT_INT(rocjit_compile(&c, ctx, target, p), 0);
	ASSERT_INT(c->from_cache, 1);
	check(c);
	rocjit_close(ctx);
}

TEST(bundles_keep_name_expressions_for_lookup_and_import)
{
	rocjit_program p = program(exprs, 2);

	bundle_round_trip(&p, "gfx90a", check_lowered);
}

/* CuPy's get_global spelling: "&var" names a __device__ or __constant__ variable. */
static const char variables[] =
	"namespace ns { __constant__ float table[16]; }\n"
	"__device__ int counter;\n"
	"template <typename T> __global__ void k(T *y)\n"
	"{\n"
	"	y[threadIdx.x] = ns::table[threadIdx.x] + (T)counter;\n"
	"}\n";
static const char *const variable_exprs[] = { "&ns::table", "&counter", "k<float>" };

static void check_variables(const rocjit_code *c)
{
	const char *lowered = NULL;

	ASSERT_INT(rocjit_code_lowered_name(&lowered, c, "&ns::table"), 0);
	ASSERT_STR(lowered, "_ZN2ns5tableE");
	ASSERT_INT(rocjit_code_lowered_name(&lowered, c, "&counter"), 0);
	ASSERT_STR(lowered, "counter");
	ASSERT_INT(rocjit_code_lowered_name(&lowered, c, "k<float>"), 0);
	ASSERT_STR(lowered, "_Z1kIfEvPT_");
}

TEST(variable_name_expressions_lower_and_travel_in_bundles)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;

	p.source = variables;
	p.name = "variables.hip";
	p.name_expressions = variable_exprs;
	p.num_name_expressions = 3;
	bundle_round_trip(&p, "gfx90a", check_variables);
	bundle_round_trip(&p, "gfx1030", check_variables);
	if (have_nvrtc())
		bundle_round_trip(&p, "sm_90", check_variables);
	else
		printf("NVRTC not installed: sm_90 not checked\n");
}
