/*
 * test_dialect_implicit.c - what nvcc and hipcc give kernel code without being asked, and
 * clear words for what a device compile cannot see (issue 28, classes 2, 4, 7 and 8):
 *   - a CUDA file that includes nothing gets what nvcc's implicit cuda_runtime.h brings
 *     (INFINITY, UINT_MAX, NULL, clock_t, std::is_same_v ...), on AMD and NVIDIA, and
 *     NVIDIA's code object does not grow for it;
 *   - HIP code sees hipcc's platform macros on AMD;
 *   - unannotated helpers of a shared header compile (NVRTC's -default-device), and a
 *     host-only header stops the compile with one message naming it, on every platform;
 *   - code left out by __CUDA_ARCH__ on AMD is reported, and the value can be chosen.
 * Real compiles of the fixtures in tests/data/dialect; each platform's tests skip where
 * its compiler is not installed.
 */

#include <sys/stat.h>

#include "harness.h"
#include "compile/platform.h"
#include "key/options.h"

#define DIR ROCJIT_TEST_DIALECT_DIR

static const char *const amd_targets[] = { "gfx90a", "gfx1030" };

static int have(int platform)
{
	char buf[64];
	return rocjit_compiler_targets_get(buf, sizeof buf, platform) == 0;
}

/* Skips unless at least one of the two compilers is here. */
static void skip_without_any(void)
{
	if (!have(ROCJIT_PLATFORM_AMD) && !have(ROCJIT_PLATFORM_NVIDIA))
		rj_test_skip("neither hipRTC nor NVRTC is installed");
}

/* One target per installed platform (gfx90a, sm_90) into targets[2] (after skipping the
 * test when there is none): how many. */
static size_t one_target_each(const char **targets)
{
	size_t n = 0;

	skip_without_any();
	if (have(ROCJIT_PLATFORM_AMD))
		targets[n++] = "gfx90a";
	if (have(ROCJIT_PLATFORM_NVIDIA))
		targets[n++] = "sm_90";
	return n;
}

/* Compiles a source held in a string; its result, the log in log. */
static int compile_text(rocjit_ctx *ctx, const char *target, const char *name, const char *src,
			const char *const *opts, size_t nopts, char *log, size_t log_size,
			const rocjit_code **code)
{
	return rj_test_compile(code, ctx, target, name, src, opts, nopts, NULL, 0, log, log_size);
}

/* How many times needle occurs in hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

static const char *const implicit_kernels[] = { "implicit_masked_max", "implicit_int_limits",
						"implicit_clock", "implicit_math", NULL };

TEST(cuda_file_without_includes_gets_what_nvccs_runtime_header_brings)
{
	rocjit_ctx *ctx;

	skip_without_any();
	ctx = rj_test_open();
	for (size_t t = 0; have(ROCJIT_PLATFORM_AMD) && t < 2; t++)
		rocjit_codeobj_info_free(rj_test_fixture(ctx, amd_targets[t], DIR, "implicit.cu",
							 NULL, implicit_kernels));
	if (have(ROCJIT_PLATFORM_NVIDIA))
		rocjit_codeobj_info_free(rj_test_fixture(ctx, "sm_90", DIR, "implicit.cu", NULL,
							 implicit_kernels));
	rocjit_close(ctx);
}

/* The implicit headers declare std::numeric_limits, whose constants NVRTC would put in
 * every cubin if they were members of ordinary classes (22 KB each time): a CUDA kernel is
 * no bigger than the same kernel in HIP, which gets no implicit header. */
TEST(cuda_cubin_does_not_grow_with_the_implicit_headers)
{
	static const char src[] = "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n";
	const rocjit_code *cu = NULL, *hip = NULL;
	rocjit_ctx *ctx;

	rj_test_skip_without(ROCJIT_PLATFORM_NVIDIA, "NVRTC");
	ctx = rj_test_open();
	ASSERT_INT(compile_text(ctx, "sm_90", "tiny.cu", src, NULL, 0, NULL, 0, &cu), 0);
	ASSERT_INT(compile_text(ctx, "sm_90", "tiny.hip", src, NULL, 0, NULL, 0, &hip), 0);
	printf("cubin: %zu bytes as CUDA, %zu as HIP\n", cu->size, hip->size);
	ASSERT(cu->size <= hip->size + 1024);
	rocjit_close(ctx);
}

TEST(hip_code_sees_hipccs_platform_macros)
{
	static const char *const on_amd[] = { "platform_on_amd", "platform_rocclr",
					      "platform_hipcc", "platform_bf16", "platform_f16",
					      NULL };
	static const char *const on_nvidia[] = { "platform_on_nvidia", "platform_hipcc",
						 "platform_bf16", "platform_f16", NULL };
	rocjit_codeobj_info *info;
	rocjit_ctx *ctx;

	skip_without_any();
	ctx = rj_test_open();
	for (size_t t = 0; have(ROCJIT_PLATFORM_AMD) && t < 2; t++) {
		info = rj_test_fixture(ctx, amd_targets[t], DIR "/hip", "platform.hip", NULL, on_amd);
		ASSERT(!rj_test_has_kernel(info, "platform_on_nvidia"));
		rocjit_codeobj_info_free(info);
	}
	if (have(ROCJIT_PLATFORM_NVIDIA)) {
		info = rj_test_fixture(ctx, "sm_90", DIR "/hip", "platform.hip", NULL, on_nvidia);
		ASSERT(!rj_test_has_kernel(info, "platform_on_amd"));
		ASSERT(!rj_test_has_kernel(info, "platform_rocclr"));
		rocjit_codeobj_info_free(info);
	}
	rocjit_close(ctx);
}

/* A header shared with host code: unannotated helpers (NVRTC refuses them unless
 * -default-device), a constexpr one the kernel calls, host includes behind
 * #ifndef __HIPCC_RTC__ - which rocjit defines on every platform. */
TEST(shared_header_with_unannotated_helpers_compiles_everywhere)
{
	static const char *const want[] = { "helpers_tile_scale", NULL };
	static const char *const opts[] = { "-I" DIR, NULL };
	rocjit_ctx *ctx;

	skip_without_any();
	ctx = rj_test_open();
	for (size_t t = 0; have(ROCJIT_PLATFORM_AMD) && t < 2; t++)
		rocjit_codeobj_info_free(
			rj_test_fixture(ctx, amd_targets[t], DIR, "host_helpers.cu", opts, want));
	if (have(ROCJIT_PLATFORM_NVIDIA))
		rocjit_codeobj_info_free(
			rj_test_fixture(ctx, "sm_90", DIR, "host_helpers.cu", opts, want));
	rocjit_close(ctx);
}

/* Each kind of header a kernel cannot use - the C++ library's host code, the system's, a
 * host library's API, a standard header rocjit does not serve - stops the compile with
 * one error that names it, in both dialects and on every platform; on AMD, before
 * hipRTC reaches the host's /usr/include. */
TEST(host_only_header_stops_the_compile_with_one_error_naming_it)
{
	static const char *const names[] = { "vector", "mutex", "string", "iostream",
					     "sys/time.h", "cublas_v2.h", "hipblas/hipblas.h" };
	static const char *const kinds[] = { "is host code", "is host code", "is host code",
					     "is host code", "is host code",
					     "declares a host library API",
					     "declares a host library API" };
	const char *targets[2];
	size_t nt = one_target_each(targets);
	rocjit_ctx *ctx;

	ctx = rj_test_open();
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		for (size_t t = 0; t < nt; t++) {
			char src[512], log[16384], want[256];
			const rocjit_code *code = NULL;
			const char *file = i % 2 ? "uses_host.cu" : "uses_host.hip";

			snprintf(src, sizeof src,
				 "#include <%s>\n"
				 "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n"
				 "void host_side() { undeclared_after_the_include(); }\n",
				 names[i]);
			ASSERT_INT(compile_text(ctx, targets[t], file, src, NULL, 0, log, sizeof log,
						&code),
				   ROCJIT_ECOMPILE);
			snprintf(want, sizeof want, "rocjit: <%s> ", names[i]);
			ASSERT_CONTAINS(log, want);
			ASSERT_CONTAINS(log, kinds[i]);
			/* The one error: nothing after it (the compile stopped there). */
			ASSERT(!strstr(log, "undeclared_after_the_include"));
			ASSERT_INT(count(log, "error: "), 1);
			ASSERT(strstr(rocjit_last_error(), names[i]) != NULL);
		}
	}
	rocjit_close(ctx);
}

/* Behind the guard rocjit defines everywhere, the same includes cost nothing. */
TEST(guarded_host_only_includes_compile)
{
	static const char src[] = "#ifndef __HIPCC_RTC__\n#include <vector>\n#include <mutex>\n"
				  "#include <sys/time.h>\n#include <cublas_v2.h>\n#endif\n"
				  "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n";
	const rocjit_code *code = NULL;
	rocjit_ctx *ctx;

	skip_without_any();
	ctx = rj_test_open();
	if (have(ROCJIT_PLATFORM_AMD)) {
		ASSERT_INT(compile_text(ctx, "gfx90a", "guarded.cu", src, NULL, 0, NULL, 0, &code), 0);
		ASSERT_INT(compile_text(ctx, "gfx1030", "guarded.hip", src, NULL, 0, NULL, 0, &code),
			   0);
	}
	if (have(ROCJIT_PLATFORM_NVIDIA))
		ASSERT_INT(compile_text(ctx, "sm_90", "guarded.cu", src, NULL, 0, NULL, 0, &code), 0);
	rocjit_close(ctx);
}

/* On AMD the compile log says which kernels __CUDA_ARCH__ = 800 leaves out, and a
 * -D__CUDA_ARCH__ chooses another value for the program; on NVIDIA the target decides
 * and the option is dropped. */
TEST(cuda_arch_gates_are_reported_on_amd_and_the_value_can_be_chosen)
{
	static const char *const base[] = { "gate_always", NULL };
	static const char *const newer[] = { "gate_always", "gate_sm89_scale", "gate_sm90_only",
					     NULL };
	static const char *const arch900[] = { "-D__CUDA_ARCH__=900", NULL };
	static const char *const arch800[] = { "-D__CUDA_ARCH__=800", NULL };
	rocjit_codeobj_info *info;
	const rocjit_code *code = NULL;
	char log[16384];
	rocjit_ctx *ctx;

	skip_without_any();
	ctx = rj_test_open();
	if (have(ROCJIT_PLATFORM_AMD)) {
		ASSERT_INT(rj_test_fixture_try(ctx, "gfx90a", DIR, "arch_gates.cu", NULL, log,
					       sizeof log, &code),
			   0);
		ASSERT_CONTAINS(log, "rocjit: warning: ");
		ASSERT_CONTAINS(log, "arch_gates.cu:3: `#if defined(__CUDA_ARCH__) && "
				     "__CUDA_ARCH__ >= 890` leaves out kernel gate_sm89_scale");
		ASSERT_CONTAINS(log, "arch_gates.cu:9: `#else of line 7's #if __CUDA_ARCH__ < 900` "
				     "leaves out kernel gate_sm90_only");
		ASSERT_CONTAINS(log, "-D__CUDA_ARCH__=N chooses the value");
		info = rj_test_fixture(ctx, "gfx90a", DIR, "arch_gates.cu", NULL, base);
		ASSERT(!rj_test_has_kernel(info, "gate_sm89_scale"));
		rocjit_codeobj_info_free(info);
		/* Chosen: every kernel is there, and nothing is reported. */
		ASSERT_INT(rj_test_fixture_try(ctx, "gfx1030", DIR, "arch_gates.cu", arch900, log,
					       sizeof log, &code),
			   0);
		ASSERT(!strstr(log, "rocjit: warning"));
		rocjit_codeobj_info_free(
			rj_test_fixture(ctx, "gfx1030", DIR, "arch_gates.cu", arch900, newer));
	}
	if (have(ROCJIT_PLATFORM_NVIDIA)) {
		/* sm_90 is 900 whatever the option says. */
		ASSERT_INT(rj_test_fixture_try(ctx, "sm_90", DIR, "arch_gates.cu", arch800, log,
					       sizeof log, &code),
			   0);
		ASSERT(!strstr(log, "rocjit: warning"));
		rocjit_codeobj_info_free(
			rj_test_fixture(ctx, "sm_90", DIR, "arch_gates.cu", arch800, newer));
	}
	rocjit_close(ctx);
}

/* Toolkit headers kernel code includes for device-side names - <math_constants.h>,
 * <cuComplex.h>, <vector_types.h>, <vector_functions.h>, <cuda.h>, <cuda_runtime.h> -
 * compile on AMD from rocjit's stand-ins and on NVIDIA from the toolkit (cuda.h: rocjit's
 * device-side one). */
TEST(cuda_toolkit_device_headers_compile_everywhere)
{
	static const char *const want[] = { "complex_mul_conj", "complex_div_abs_d",
					    "constants_and_vectors", NULL };
	rocjit_ctx *ctx;

	skip_without_any();
	ctx = rj_test_open();
	for (size_t t = 0; have(ROCJIT_PLATFORM_AMD) && t < 2; t++)
		rocjit_codeobj_info_free(
			rj_test_fixture(ctx, amd_targets[t], DIR, "cuda_headers.cu", NULL, want));
	if (have(ROCJIT_PLATFORM_NVIDIA))
		rocjit_codeobj_info_free(
			rj_test_fixture(ctx, "sm_90", DIR, "cuda_headers.cu", NULL, want));
	rocjit_close(ctx);
}

/* Cache-hinted loads and stores of any type, address-space queries, warp matching; bf16
 * without an include and rounded down and up; the runtime's types in declarations;
 * programmatic dependent launch; <memory.h>. */
TEST(cuda_intrinsics_beyond_arithmetic_compile_everywhere)
{
	static const char *const want[] = { "hinted_copy", "where_it_points", "match_groups",
					    "bf16_directed", NULL };
	rocjit_ctx *ctx;

	skip_without_any();
	ctx = rj_test_open();
	for (size_t t = 0; have(ROCJIT_PLATFORM_AMD) && t < 2; t++)
		rocjit_codeobj_info_free(
			rj_test_fixture(ctx, amd_targets[t], DIR, "intrinsics.cu", NULL, want));
	if (have(ROCJIT_PLATFORM_NVIDIA))
		rocjit_codeobj_info_free(rj_test_fixture(ctx, "sm_90", DIR, "intrinsics.cu", NULL, want));
	rocjit_close(ctx);
}

/* The __CUDA_ARCH__ scan on texts no compiler would take - cut short, unbalanced, deeper
 * than it judges, comparisons without a number - reads nothing beyond them and says
 * nothing wrong; a gate it can read is still found after them. */
TEST(cuda_arch_scan_survives_malformed_texts)
{
	static const char *const texts[] = {
		"#if __CUDA_ARCH__",
		"#if __CUDA_ARCH__ >",
		"#if __CUDA_ARCH__ >= \n#endif\n#endif\n#else\n#elif\n",
		"#if 900 <=",
		"/* unterminated #if __CUDA_ARCH__ >= 900",
		"#if __CUDA_ARCH__ >= 900 \\",
		"__global__ __global__ __launch_bounds__(((",
		"#if __CUDA_ARCH__ >= 99999999999999999999999\n__global__ void k(\n#endif",
	};
	struct rj_opts opts;
	char deep[64 * 40 + 256], *notes;
	size_t n = 0;

	ASSERT_INT(rj_opts_normalize(&opts, NULL, 0), 0);
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		struct rj_compile_req req = { texts[i], "bad.cu", &opts, NULL, 0, ROCJIT_LANG_CUDA,
					      NULL, 0, NULL };
		free(rj_cuda_arch_notes(&req));
	}
	/* 70 levels of #if 1, then a gate: deeper than the scan judges, so it stops. */
	for (int i = 0; i < 70; i++)
		n += (size_t)snprintf(deep + n, sizeof deep - n, "#if 1\n");
	snprintf(deep + n, sizeof deep - n, "#if __CUDA_ARCH__ >= 900\n__global__ void g(int);\n");
	{
		struct rj_compile_req req = { deep, "deep.cu", &opts, NULL, 0, ROCJIT_LANG_CUDA, NULL,
					      0, NULL };
		free(rj_cuda_arch_notes(&req));
	}
	/* Readable again: the gate and its kernel. */
	{
		static const char ok[] = "#if __CUDA_ARCH__ >= 900 // sm_90\n"
					 "template <int N> __global__ void __launch_bounds__(128, 2) "
					 "hopper(float *x) {}\n#endif\n";
		struct rj_compile_req req = { ok, "ok.cu", &opts, NULL, 0, ROCJIT_LANG_CUDA, NULL, 0,
					      NULL };
		notes = rj_cuda_arch_notes(&req);
		ASSERT(notes != NULL);
		ASSERT_CONTAINS(notes, "ok.cu:1: `#if __CUDA_ARCH__ >= 900` leaves out kernel hopper");
		free(notes);
	}
	rj_opts_release(&opts);
}

/* A host-only header that a header of an -I folder includes (the kernel file itself names
 * none) stops the compile with the same one error: the stand-ins are served to every
 * compile whose -I folders could reach them. */
TEST(host_only_header_included_from_an_include_folder_is_named)
{
	char inc[4200], opt[4300], log[16384];
	static const char src[] = "#include \"common_host.h\"\n"
				  "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n";
	const char *opts[] = { opt, NULL };
	const char *targets[2];
	size_t nt = one_target_each(targets);
	const rocjit_code *code = NULL;
	rocjit_ctx *ctx;

	snprintf(inc, sizeof inc, "%s/inc", rj_test_dir);
	ASSERT_INT(mkdir(inc, 0755), 0);
	snprintf(opt, sizeof opt, "%s/common_host.h", inc);
	rj_test_write_file(opt, "#pragma once\n#include <cublas_v2.h>\n", 35);
	snprintf(opt, sizeof opt, "-I%s", inc);
	ctx = rj_test_open();
	for (size_t t = 0; t < nt; t++) {
		ASSERT_INT(compile_text(ctx, targets[t], "indirect.cu", src, opts, 1, log, sizeof log,
					&code),
			   ROCJIT_ECOMPILE);
		ASSERT_CONTAINS(log, "rocjit: <cublas_v2.h> declares a host library API");
		ASSERT_INT(count(log, "error: "), 1);
	}
	rocjit_close(ctx);
}
