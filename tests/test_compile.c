/*
 * test_compile.c - real hipRTC compiles through the public API, no GPU: targets read back
 * from the code object, compile errors with mapped diagnostics, unsupported targets
 * refused without aborting.
 */
#include <pthread.h>
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
	rocjit_codeobj_info_free(info);
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
	const char *log;

	p.source = "extern \"C\" __global__ void k(float *x)\n{\n\tx[0] = undefined_thing;\n}\n";
	p.name = "broken.hip";
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), ROCJIT_ECOMPILE);
	ASSERT(code == NULL);
	log = rocjit_last_log();
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
	const char *log;

	p.source = "#include \"util.h\"\nextern \"C\" __global__ void k(int *x) { x[0] = TWO; }\n";
	p.name = "main.hip";
	p.headers = &h;
	p.num_headers = 1;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx1030", &p), ROCJIT_ECOMPILE);
	log = rocjit_last_log();
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
	static const char *const opts[] = { "-Wunused-variable" };

	p.source = "extern \"C\" __global__ void k(int *x) { int unused; x[0] = 1; }\n";
	p.name = "warn.hip";
	p.options = opts;
	p.num_options = 1;
	ASSERT_INT(rocjit_compile(&code, ctx, "gfx90a", &p), 0);
	ASSERT_CONTAINS(rocjit_last_log(), "warn.hip:1:");
	ASSERT_CONTAINS(rocjit_last_log(), "warning");
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

/* ---- A const program (issue 17): never written; the log is per thread ------------------ */

#define WARN_SRC "extern \"C\" __global__ void k(int *x) { int unused; x[0] = 1; }\n"
static const char *const warn_opts[] = { "-Wunused-variable" };
/* The deprecated log buffer: rocjit must leave it as it is. */
static char ignored_log[64] = "untouched";
/* In read-only memory: a write by any call would crash the test. */
static const rocjit_program shared_program = {
	ROCJIT_PROGRAM_VERSION, WARN_SRC, 0, "shared.hip", warn_opts, 1, NULL, 0,
	ignored_log, sizeof ignored_log, ROCJIT_LANG_AUTO, NULL, 0, sizeof(rocjit_header)
};

struct sharer {
	rocjit_ctx *ctx;
	pthread_barrier_t *barrier;
	int first_compiled;   /* its first request ran the compiler (its log was not "") */
	int second_compiled;  /* it compiled for the second target */
	int log_kept;         /* its log was unchanged by the other thread's compile */
	int own_log_ok;       /* at the end, its log is its own compile's */
	int hit_clears;       /* a later hit gave "" */
};

static void *share_program(void *arg)
{
	struct sharer *s = arg;
	const rocjit_code *c;
	const char *log;
	char copy[4096];

	/* Both ask for the same key at once: one compiles, the other waits for it (or hits). */
	pthread_barrier_wait(s->barrier);
	ASSERT_INT(rocjit_compile(&c, s->ctx, "gfx90a", &shared_program), 0);
	log = rocjit_last_log();
	s->first_compiled = log[0] != 0;
	snprintf(copy, sizeof copy, "%s", log);
	pthread_barrier_wait(s->barrier);
	/* The one that did not compile compiles for another target, while the other's log
	   stays its own. */
	if (!s->first_compiled) {
		ASSERT_INT(rocjit_compile(&c, s->ctx, "gfx1030", &shared_program), 0);
		s->second_compiled = rocjit_last_log()[0] != 0;
	}
	pthread_barrier_wait(s->barrier);
	if (s->first_compiled)
		s->log_kept = rocjit_last_log() == log && strcmp(log, copy) == 0;
	log = rocjit_last_log();
	s->own_log_ok = strstr(log, "shared.hip:1:") && strstr(log, "warning");
	/* A hit compiles nothing: its log is "". */
	ASSERT_INT(rocjit_compile(&c, s->ctx, "gfx90a", &shared_program), 0);
	s->hit_clears = rocjit_last_log()[0] == 0;
	return NULL;
}

TEST(threads_sharing_one_const_program_each_get_their_own_log)
{
	pthread_barrier_t barrier;
	struct sharer s[2];
	pthread_t t[2];

	pthread_barrier_init(&barrier, NULL, 2);
	memset(s, 0, sizeof s);
	s[0].ctx = s[1].ctx = rj_test_open();
	s[0].barrier = s[1].barrier = &barrier;
	for (int i = 0; i < 2; i++)
		ASSERT(pthread_create(&t[i], NULL, share_program, &s[i]) == 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&barrier);
	ASSERT_INT(s[0].first_compiled + s[1].first_compiled, 1); /* one compile per key */
	ASSERT_INT(s[0].second_compiled + s[1].second_compiled, 1);
	for (int i = 0; i < 2; i++) {
		ASSERT_INT(s[i].own_log_ok, 1);
		ASSERT_INT(s[i].hit_clears, 1);
		if (s[i].first_compiled)
			ASSERT_INT(s[i].log_kept, 1);
	}
	ASSERT_STR(ignored_log, "untouched");
	ASSERT_STR(rocjit_last_log(), ""); /* this thread asked for nothing */
	ASSERT_INT(rj_test_stats(s[0].ctx).compiles, 2);
	rocjit_close(s[0].ctx);
}

/* A failed request before any compile leaves "" too, and so does a request that fails
 * where the compiler failed before: the log is the last request's only. */
TEST(last_log_follows_the_threads_last_request)
{
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *c;

	ASSERT_STR(rocjit_last_log(), "");
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &shared_program), 0);
	ASSERT_CONTAINS(rocjit_last_log(), "shared.hip:1:");
	/* Calls that are not requests leave it alone. */
	rj_test_stats(ctx);
	ASSERT_CONTAINS(rocjit_last_log(), "shared.hip:1:");
	/* A request refused before compiling: "". */
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	ASSERT_STR(rocjit_last_log(), "");
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &shared_program), 0); /* a hit */
	ASSERT_STR(rocjit_last_log(), "");
	rocjit_close(ctx);
}

/* ---- rocjit_program.header_size (issue 17): headers[] read at the caller's stride ---- */

struct header_next {               /* a rocjit_header with fields a later release added */
	const char *name;
	const char *source;
	size_t length;
	const char *added;
	uint64_t more;
};

#define TWO_HEADERS_SRC                                                              \
	"#include \"a.h\"\n#include <b.h>\n"                                             \
	"extern \"C\" __global__ void k(int *x) { x[0] = A_VALUE * B_VALUE; }\n"

TEST(program_header_size_reads_a_larger_header_struct)
{
	static const struct header_next next[2] = {
		{ "a.h", "#define A_VALUE 3\n", 0, "not read", 7 },
		{ "b.h", "#define B_VALUE 4\n", 0, "not read", 9 },
	};
	static const rocjit_header packed[2] = {
		{ "a.h", "#define A_VALUE 3\n", 0 },
		{ "b.h", "#define B_VALUE 4\n", 0 },
	};
	rocjit_ctx *ctx = rj_test_open();
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *wide, *c;

	p.source = TWO_HEADERS_SRC;
	p.name = "two.hip";
	p.headers = (const rocjit_header *)(const void *)next;
	p.num_headers = 2;
	p.header_size = sizeof next[0];
	ASSERT_INT(rocjit_compile(&wide, ctx, "gfx90a", &p), 0);
	ASSERT_INT(wide->from_cache, 0);

	/* The same headers in today's struct: the same key, so the same code object. */
	p.headers = packed;
	p.header_size = sizeof packed[0];
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT(c == wide);
	p.header_size = 0; /* 0: today's struct */
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT(c == wide);
	/* A version 2 program has no header_size: whatever is there is not read. */
	p.version = 2;
	p.header_size = 1;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), 0);
	ASSERT(c == wide);
	/* Smaller than any rocjit_header: refused. */
	p.version = ROCJIT_PROGRAM_VERSION;
	p.header_size = sizeof(rocjit_header) - 1;
	ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_EINVAL);
	ASSERT_CONTAINS(rocjit_last_error(), "header_size");
	/* A header missing its name is found at the caller's stride too. */
	{
		struct header_next broken[2] = { next[0], next[1] };
		broken[1].name = NULL;
		p.headers = (const rocjit_header *)(const void *)broken;
		p.header_size = sizeof broken[0];
		ASSERT_INT(rocjit_compile(&c, ctx, "gfx90a", &p), ROCJIT_EINVAL);
		ASSERT_CONTAINS(rocjit_last_error(), "header 1 has no name");
	}
	ASSERT_INT(rj_test_stats(ctx).compiles, 1);
	rocjit_close(ctx);
}
