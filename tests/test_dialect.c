/*
 * test_dialect.c - the kernel fixtures of tests/data/dialect compile for every target and
 * hold every kernel they define:
 *   - the CUDA-dialect set (*.cu + dialect.cuh) for gfx90a and gfx1030 through the headers
 *     the AMD platform serves for CUDA source (src/compile/devlib/cuda, its prelude
 *     rocjit_cuda_dialect.h pre-included because the names end in .cu), and for sm_90
 *     through CUDA's own headers;
 *   - the HIP set (the .hip files of hip/) for sm_90 through the HIP headers the NVIDIA
 *     platform serves (src/compile/devlib/nvidia).
 * Nothing but the fixtures' own folder is on the include path: everything else is what
 * rocjit serves.  Real compiles; each platform's tests skip where its compiler is not
 * installed.
 */

#include "harness.h"

/* A fixture and the kernels it must hold (NULL-terminated). */
struct fixture {
	const char *file;
	const char *const *kernels;
};

static const char *const convert_kernels[] = {
	"cast_f32_to_f16", "cast_f16_to_f32", "cast_f32_to_bf16", "cast_bf16_to_f32",
	"cast_f32_to_f8e4m3", "cast_f8e4m3_to_f32", "cast_f32_to_f8e5m2", "cast_f8e5m2_to_f32",
	"affine_f32", "affine_f16", "affine_bf16", "relu_f16", "relu_bf16", "cast_f64_to_f16",
	"cast_f64_to_bf16", "fp8_bits_to_f32", "f32_to_fp8_bits_nosat", "cast_bf16_to_i32",
	"cast_u32_to_bf16", "iota_capped_u64", NULL
};
static const char *const reduce_kernels[] = {
	"warp_sum_f32", "warp_max_f32", "warp_sum_f64", "warp_max_f64", "warp_sum_i32",
	"warp_max_i32", "warp_max_f16", "warp_max_bf16", "warp_sum_f16_as_f32",
	"warp_inclusive_scan_i32", "warp_broadcast_bf16", "warp_votes", "block_sum_f32", NULL
};
static const char *const atomics_kernels[] = {
	"atomic_minmax_i64", "atomic_minmax_u64", "atomic_max_f64_bits", "atomic_add_f16",
	"atomic_add_bf16", "atomic_add_f64", "atomic_cas_u16_count", "simd_bytes", NULL
};
static const char *const std_math_kernels[] = {
	"quantize_i8", "row_max_f32", "row_max_bf16", "gelu_erf_f32", "clamp_scale_f32",
	"clamp_scale_f64", "saturate_bf16", "widen_mul_i64", NULL
};
static const char *const hip_types_kernels[] = {
	"hip_half_axpb", "hip_bf16_max", "hip_bfloat16_add", "hip_fp8_roundtrip",
	"hip_texture_scale", "hip_arch_features", NULL
};
static const char *const hip_coop_kernels[] = { "coop_tile_sum_i32", "hip_warp_sum_votes", NULL };

/* The CUDA-dialect files that need no standard-library header. */
static const struct fixture cuda_set[] = {
	{ "convert.cu", convert_kernels },
	{ "reduce.cu", reduce_kernels },
	{ "atomics.cu", atomics_kernels },
};

#define skip_without rj_test_skip_without
#define has_kernel rj_test_has_kernel
#define compile_fixture rj_test_fixture

/* The fixtures' folder, for their own dialect.cuh: all the include path they get. */
#define CUDA_DIALECT_OPTIONS "-I" ROCJIT_TEST_DIALECT_DIR

static void cuda_set_compiles_for_amd(const char *target)
{
	static const char *const options[] = { CUDA_DIALECT_OPTIONS, NULL };
	rocjit_ctx *ctx;

	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	ctx = rj_test_open();
	for (size_t i = 0; i < sizeof cuda_set / sizeof cuda_set[0]; i++) {
		rocjit_codeobj_info *info = compile_fixture(ctx, target, ROCJIT_TEST_DIALECT_DIR,
							    cuda_set[i].file, options,
							    cuda_set[i].kernels);
		/* __CUDA_ARCH__ is 800 there: the sm_89+ inline-PTX kernel stays out. */
		ASSERT(!has_kernel(info, "cast_f32x2_to_f8e4m3_ptx"));
		rocjit_codeobj_info_free(info);
	}
	rocjit_close(ctx);
}

TEST(cuda_dialect_set_compiles_for_gfx90a_with_every_kernel)
{
	cuda_set_compiles_for_amd("gfx90a");
}

TEST(cuda_dialect_set_compiles_for_gfx1030_with_every_kernel)
{
	cuda_set_compiles_for_amd("gfx1030");
}

TEST(cuda_set_compiles_for_sm_90_with_every_kernel)
{
	static const char *const options[] = { "-I" ROCJIT_TEST_DIALECT_DIR, NULL };
	rocjit_ctx *ctx;

	skip_without(ROCJIT_PLATFORM_NVIDIA, "NVRTC");
	ctx = rj_test_open();
	for (size_t i = 0; i < sizeof cuda_set / sizeof cuda_set[0]; i++) {
		rocjit_codeobj_info *info = compile_fixture(ctx, "sm_90", ROCJIT_TEST_DIALECT_DIR,
							    cuda_set[i].file, options,
							    cuda_set[i].kernels);
		/* __CUDA_ARCH__ is 900 there: the sm_89+ kernel is compiled. */
		if (strcmp(cuda_set[i].file, "convert.cu") == 0)
			ASSERT(has_kernel(info, "cast_f32x2_to_f8e4m3_ptx"));
		rocjit_codeobj_info_free(info);
	}
	rocjit_close(ctx);
}

/* Compiles atomics.cu for gfx90a with options in a fresh context; the log in log. */
static int compile_atomics_for_gfx90a(const char *const *options, char *log, size_t log_size)
{
	const rocjit_code *code = NULL;
	rocjit_ctx *ctx;
	int rc;

	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	ctx = rj_test_open();
	rc = rj_test_fixture_try(ctx, "gfx90a", ROCJIT_TEST_DIALECT_DIR, "atomics.cu", options, log,
			  log_size, &code);
	rocjit_close(ctx);
	return rc;
}

/* The old-GPU fallbacks of the fixtures are real traps: with __CUDA_ARCH__ below 600 the
 * dialect header's user atomicAdd(double*) comes in and the compile fails.  (rocjit's
 * 800 is what keeps them out.) */
TEST(cuda_dialect_old_gpu_fallback_fails_to_compile)
{
	static const char *const options[] = { "-D__CUDA_ARCH__=500", CUDA_DIALECT_OPTIONS, NULL };
	char log[16384];

	ASSERT_INT(compile_atomics_for_gfx90a(options, log, sizeof log), ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(log, "redefinition of 'atomicAdd'");
}

/* The prelude's fallbacks yield to a HIP that has the same functions: with HIP 5.7's
 * additions declared first (hip57_builtins.h, as non-templates), the set still compiles
 * and calls them - no ambiguity, no redefinition. */
TEST(cuda_dialect_fallbacks_yield_to_newer_hip_builtins)
{
	static const char *const options[] = { "-include", "hip57_builtins.h", CUDA_DIALECT_OPTIONS,
					       NULL };
	char log[16384];

	ASSERT_INT(compile_atomics_for_gfx90a(options, log, sizeof log), 0);
	ASSERT_CONTAINS(log, "'atomicMax' is deprecated: hip57 built-in chosen");
	ASSERT_CONTAINS(log, "'atomicMin' is deprecated: hip57 built-in chosen");
	ASSERT_CONTAINS(log, "'__hmax_nan' is deprecated: hip57 built-in chosen");
}

/* std_math.cu uses <cstdint>, <cmath>, <limits> and cuda::std: the device standard
 * library rocjit serves (devlib/std, and devlib/cuda's cuda/std on AMD; CUDA's own
 * libcu++ from include/cccl on NVIDIA). */
TEST(cuda_dialect_std_fixture_compiles_with_the_served_standard_library)
{
	static const char *const amd[] = { CUDA_DIALECT_OPTIONS, NULL };
	char targets_nv[4200];
	rocjit_ctx *ctx;

	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	ctx = rj_test_open();
	for (size_t t = 0; t < 2; t++) {
		static const char *const targets[] = { "gfx90a", "gfx1030" };
		rocjit_codeobj_info_free(compile_fixture(ctx, targets[t], ROCJIT_TEST_DIALECT_DIR,
						    "std_math.cu", amd, std_math_kernels));
	}
	/* On NVIDIA <cuda/std/...> is CUDA's own, in include/cccl. */
	if (rocjit_compiler_targets_get(targets_nv, sizeof targets_nv,
					ROCJIT_PLATFORM_NVIDIA) == 0) {
		static const char *const nv[] = { CUDA_DIALECT_OPTIONS, NULL };
		rocjit_codeobj_info_free(compile_fixture(ctx, "sm_90", ROCJIT_TEST_DIALECT_DIR,
						    "std_math.cu", nv, std_math_kernels));
	}
	rocjit_close(ctx);
}

TEST(hip_set_compiles_for_sm_90_through_devlib_nvidia)
{
	static const char *const *options = NULL;
	rocjit_ctx *ctx;

	skip_without(ROCJIT_PLATFORM_NVIDIA, "NVRTC");
	ctx = rj_test_open();
	rocjit_codeobj_info_free(compile_fixture(ctx, "sm_90", ROCJIT_TEST_DIALECT_DIR "/hip",
					    "types.hip", options, hip_types_kernels));
	rocjit_close(ctx);
}

/* Cooperative groups need CUDA's include/cccl folder too (CUDA 13 moved libcu++ there),
 * which the NVIDIA platform puts on the path where it exists. */
TEST(hip_cooperative_groups_compile_for_sm_90)
{
	static const char *const *options = NULL;
	rocjit_ctx *ctx;

	skip_without(ROCJIT_PLATFORM_NVIDIA, "NVRTC");
	ctx = rj_test_open();
	rocjit_codeobj_info_free(compile_fixture(ctx, "sm_90", ROCJIT_TEST_DIALECT_DIR "/hip",
					    "coop.hip", options, hip_coop_kernels));
	rocjit_close(ctx);
}

/*
 * What CUDA code takes from its compiler without asking, on every platform: assert with
 * no include (NVRTC builds it in; -DNDEBUG turns it off) and C++17 (NVRTC's default;
 * hipRTC's is C++14, so `if constexpr` warns there and C++17-only code fails).  HIP
 * source gets assert from <hip/hip_runtime.h>, as from hipcc's.
 */
static const char implicit_src[] =
	"template <int N> __device__ int pick(int x) {\n"
	"  if constexpr (N > 0) return x + N; else return x;\n"
	"}\n"
	"struct P { int a, b; };\n"
	"extern \"C\" __global__ void implicit_things(int *v, int n) {\n"
	"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  assert(n >= 0);\n"
	"  auto [a, b] = P{1, 2};\n" /* structured binding: C++17 */
	"  if (i < n) v[i] = pick<1>(v[i]) + a + b;\n"
	"}\n";

static void compile_implicit(const char *target, const char *name, const char *prefix,
			     const char *const *options, size_t noptions, int want_rc)
{
	char src[2048], log[16384];
	const rocjit_code *code = NULL;
	rocjit_ctx *ctx = rj_test_open();
	int rc;

	snprintf(src, sizeof src, "%s%s", prefix, implicit_src);
	rc = rj_test_compile(&code, ctx, target, name, src, options, noptions, NULL, 0, log,
			     sizeof log);
	printf("%s for %s: rc %d\n%s\n", name, target, rc, log);
	ASSERT_INT(rc, want_rc);
	if (rc == 0) {
		ASSERT(!strstr(log, "C++17 extension"));
		ASSERT(!strstr(log, "assert"));
	}
	rocjit_close(ctx);
}

TEST(cuda_source_gets_assert_and_cxx17_without_asking_on_every_target)
{
	static const char *const ndebug[] = { "-DNDEBUG" };
	static const char *const cxx14[] = { "-std=c++14" };

	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	compile_implicit("gfx90a", "implicit.cu", "", NULL, 0, 0);
	compile_implicit("gfx1030", "implicit.cu", "", ndebug, 1, 0);
	/* The caller's -std wins: C++14 has no structured bindings (a warning in clang), and
	   the compile still says so. */
	{
		char log[16384];
		const rocjit_code *code = NULL;
		rocjit_ctx *ctx = rj_test_open();
		(void)rj_test_compile(&code, ctx, "gfx90a", "implicit.cu", implicit_src, cxx14, 1,
				      NULL, 0, log, sizeof log);
		ASSERT_CONTAINS(log, "C++17 extension");
		rocjit_close(ctx);
	}
	if (rocjit_compiler_targets_get((char[64]){ 0 }, 64, ROCJIT_PLATFORM_NVIDIA) == 0)
		compile_implicit("sm_90", "implicit.cu", "", NULL, 0, 0);
}

TEST(hip_source_gets_assert_from_hip_runtime_h_on_amd)
{
	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	compile_implicit("gfx90a", "implicit.hip",
			 "#include <hip/hip_runtime.h>\n", (const char *const[]){ "-std=c++17" }, 1,
			 0);
}
