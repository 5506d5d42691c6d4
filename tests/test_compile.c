/*
 * test_compile.c - real hipRTC compiles through the public API, no GPU: targets read back
 * from the code object, compile errors with mapped diagnostics, unsupported targets
 * refused without aborting.
 */
#include <sys/stat.h>

#include "harness.h"

/* Two kernels in one file. */
static const char axpy[] =
	"#include <hip/hip_runtime.h>\n"
	"extern \"C\" __global__ void axpy(int n, float a, const float *x, float *y)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] = a * x[i] + y[i];\n"
	"}\n"
	"extern \"C\" __global__ void scale(int n, float a, float *y)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] *= a;\n"
	"}\n";


static void check_target(const char *target, const char *want)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;
	rocjit_codeobj_info *info;

	p.source = axpy;
	p.name = "axpy.hip";
	ASSERT_INT(rocjit_compile(&code, ctx, target, &p), 0);
	ASSERT_STR(code->target, want);
	ASSERT_INT(code->from_cache, 0);
	ASSERT(code->size > 1000);
	ASSERT_INT(rocjit_codeobj_inspect(&info, code->data, code->size), 0);
	ASSERT_STR(info->target, want);
	ASSERT_STR(info->flags_target, want);
	ASSERT_INT(info->num_kernels, 2);
	ASSERT((!strcmp(info->kernels[0], "axpy") && !strcmp(info->kernels[1], "scale")) ||
	       (!strcmp(info->kernels[1], "axpy") && !strcmp(info->kernels[0], "scale")));
	rocjit_codeobj_free(info);
	rocjit_close(ctx);
}

TEST(compile_gfx90a_with_features_reads_back_target)
{
	check_target("gfx90a:xnack-:sramecc+", "gfx90a:sramecc+:xnack-");
}

TEST(compile_gfx1030_reads_back_target)
{
	check_target("gfx1030", "gfx1030");
}

TEST(compile_gfx906_and_gfx908_read_back_target)
{
	check_target("gfx906:sramecc-", "gfx906:sramecc-");
	check_target("gfx908", "gfx908");
}

TEST(compile_error_returns_log_with_file_line_and_stores_nothing)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	const rocjit_code *code = (const rocjit_code *)&p;
	char log[4096];

	p.source = "extern \"C\" __global__ void k(float *x)\n{\n\tx[0] = undefined_thing;\n}\n";
	p.name = "broken.hip";
	p.log = log;
	p.log_size = sizeof log;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), ROCJIT_ECOMPILE);
	ASSERT(code == NULL);
	ASSERT_CONTAINS(log, "broken.hip:3:9: error:");
	ASSERT_CONTAINS(log, "undefined_thing");
	ASSERT(strstr(log, "CompileSource") == NULL);
	ASSERT(strstr(log, "comgr-") == NULL);
	/* The one-line message carries the first error too. */
	ASSERT_CONTAINS(rocjit_last_error(), "broken.hip:3:9: error:");
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.compile_errors, 1);
	ASSERT_INT(st.entries, 0);
	/* A second try compiles again (failures are not cached) and fails the same way. */
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), ROCJIT_ECOMPILE);
	rocjit_close(ctx);
}

TEST(compile_error_in_header_names_the_header)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_header h = { "util.h", "#define TWO 2\nint bad = ;\n", 0 };
	const rocjit_code *code;
	char log[4096];

	p.source = "#include \"util.h\"\nextern \"C\" __global__ void k(int *x) { x[0] = TWO; }\n";
	p.name = "main.hip";
	p.headers = &h;
	p.num_headers = 1;
	p.log = log;
	p.log_size = sizeof log;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx1030", &p), ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(log, "util.h:2:11: error:");
	ASSERT_CONTAINS(log, "main.hip:1:");
	ASSERT(strstr(log, "comgr-") == NULL);
	rocjit_close(ctx);
}

TEST(in_memory_headers_compile)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_header h[2] = { { "util.h", "#include <inner.h>\n#define TWO (ONE + ONE)\n", 0 },
			       { "inner.h", "#define ONE 1", 13 } };
	const rocjit_code *code;

	p.source = "#include \"util.h\"\nextern \"C\" __global__ void k(int *x) { x[0] = TWO; }\n";
	p.headers = h;
	p.num_headers = 2;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), 0);
	rocjit_close(ctx);
}

TEST(unsupported_targets_are_refused_without_aborting)
{
	/* comgr 5.2 aborts the process on these if asked to compile for them. */
	static const char *const bad[] = { "gfx940", "gfx942", "gfx1100", "gfx1200",
					   "gfx1030:xnack-", "gfx900:sramecc-", "gfx9999" };
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;

	p.source = axpy;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ASSERT_INT(rocjit_compile(&code, ctx, bad[i], &p), ROCJIT_EUNSUPPORTED);
		ASSERT_CONTAINS(rocjit_last_error(), "supported processors:");
		ASSERT_CONTAINS(rocjit_last_error(), "gfx90a");
	}
	ASSERT_INT(rocjit_compile(&code, ctx, "r600", &p), ROCJIT_EUNSUPPORTED);
	ASSERT_CONTAINS(rocjit_last_error(), "no platform");
	/* Still alive, and a good target still works. */
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), 0);
	rocjit_close(ctx);
}

TEST(no_device_and_no_target_says_how_to_set_one)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;
	rocjit_kernel *k;

	p.source = axpy;
	ASSERT_INT(rocjit_compile(&code, ctx, NULL, &p), ROCJIT_ENODEV);
	ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_ARCH");
	ASSERT_INT(rocjit_kernel_get(&k, ctx, &p, "axpy"), ROCJIT_ENODEV);
	ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_ARCH");
	rocjit_close(ctx);
}

TEST(rocjit_arch_sets_the_default_target)
{
	rocjit_ctx *ctx;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;

	setenv("ROCJIT_ARCH", "gfx1030", 1);
	setenv("ROCJIT_DISABLE_CACHE", "1", 1);
	ctx = rj_test_open();
	p.source = axpy;
	ASSERT_INT(rocjit_compile(&code, ctx, NULL, &p), 0);
	ASSERT_STR(code->target, "gfx1030");
	rocjit_close(ctx);
	setenv("ROCJIT_ARCH", "gfx90a:bogus", 1);
	{
		rocjit_ctx *bad;
		ASSERT_INT(rocjit_open(&bad, NULL), ROCJIT_EINVAL);
		ASSERT(bad == NULL);
		ASSERT_CONTAINS(rocjit_last_error(), "gfx90a:bogus");
	}
}

TEST(warnings_alone_compile_and_fill_the_log)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;
	char log[4096];

	p.source = "extern \"C\" __global__ void k(int *x) { int unused; x[0] = 1; }\n";
	p.name = "warn.hip";
	p.log = log;
	p.log_size = sizeof log;
	static const char *const opts[] = { "-Wunused-variable" };
	p.options = opts;
	p.num_options = 1;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), 0);
	ASSERT_CONTAINS(log, "warn.hip:1:");
	ASSERT_CONTAINS(log, "warning");
	rocjit_close(ctx);
}

TEST(source_with_nul_byte_is_refused)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;
	static const char src[] = "extern \"C\" __global__ void k() {}\0junk";

	p.source = src;
	p.length = sizeof src - 1;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "NUL");
	rocjit_close(ctx);
}

TEST(a_code_object_without_kernels_is_counted_and_warned_of)
{
	static const char tmpl[] =
		"template <unsigned B> __global__ void tk(float *y) { y[0] = B; }\n";
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	const rocjit_code *c;

	p.source = tmpl;
	p.name = "tmpl.hip";
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.empty_objects, 1);
	p.source = axpy;
	p.name = "axpy.hip";
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	ASSERT_INT(st.empty_objects, 1);
	rocjit_close(ctx);
}
