/*
 * test_cub.c - kernels written against CUB's block and warp primitives (tests/data/cub)
 * compile for every target and hold every kernel they define:
 *   - for sm_90 through CUDA's own CUB (CCCL, include/cccl on NVRTC's path), its umbrella
 *     <cub/cub.cuh> through the device-only one rocjit serves (devlib/nvidia/cub: CCCL's
 *     pulls host code NVRTC refuses);
 *   - for gfx90a and gfx1030 through rocjit's CUB subset over rocPRIM (devlib/cuda/cub),
 *     which needs Debian's librocprim-dev: those tests skip, saying so, without it;
 *   - hipCUB's spelling (<hipcub/hipcub.hpp>) for HIP sources, over either.
 * Real compiles; each platform's tests skip where its compiler is not installed.
 */

#include <unistd.h>

#include "harness.h"

/* Every fixture and the kernels it must hold (NULL-terminated lists). */
static const char *const reduce_kernels[] = {
	"cub_block_sum_f32", "cub_block_sum_valid_f32", "cub_block_max_items_i32",
	"cub_warp_sum_f32", "cub_warp16_absmax_f32", "cub_warp_sum_valid_i32", NULL
};
static const char *const scan_kernels[] = {
	"cub_block_inclusive_sum_i32", "cub_block_exclusive_sum_items_i32",
	"cub_block_exclusive_max_i32", "cub_warp_scans_i32", NULL
};
static const char *const load_store_kernels[] = {
	"cub_load_store_direct_f32", "cub_load_striped_scale_i32",
	"cub_direct_blocked_negate_i32", NULL
};
static const char *const radix_sort_kernels[] = {
	"cub_block_sort_i32", "cub_block_argsort_u32", "cub_block_sort_desc_f32", NULL
};

static const char *const hipcub_kernels[] = {
	"hipcub_block_max_warp_sums_i32", "hipcub_block_inclusive_sum_i32", NULL
};

static const struct {
	const char *file;
	const char *const *kernels;
} fixtures[] = {
	{ "reduce.cu", reduce_kernels },
	{ "scan.cu", scan_kernels },
	{ "load_store.cu", load_store_kernels },
	{ "radix_sort.cu", radix_sort_kernels },
	{ "hipcub.hip", hipcub_kernels }, /* hipCUB's spelling, served on both platforms */
};

static void skip_without(int platform, const char *what)
{
	char buf[64];
	if (rocjit_compiler_targets_get(buf, sizeof buf, platform) != 0)
		rj_test_skip("%s is not installed: %s", what, rocjit_last_error());
}

/* rocjit's CUB on AMD is rocPRIM's primitives: hipRTC finds them in /usr/include. */
static void skip_without_rocprim(void)
{
	if (access("/usr/include/rocprim/rocprim.hpp", R_OK) != 0)
		rj_test_skip("rocPRIM is not installed (apt-get install librocprim-dev): "
			     "CUB on AMD is built on it");
}

/* Compiles src (named name) for target; asserts success and that every kernel of want is
 * in the code object. */
static void compile_has_kernels(rocjit_ctx *ctx, const char *target, const char *name,
				const char *src, const char *const *want)
{
	char log[16384];
	const rocjit_code *code = NULL;
	rocjit_codeobj_info *info = NULL;
	int rc = rj_test_compile(&code, ctx, target, name, src, NULL, 0, NULL, 0, log, sizeof log);

	if (rc)
		printf("%s for %s:\n%s\n", name, target, log);
	ASSERT_INT(rc, 0);
	info = rj_test_assert_kernels(code, name, target, want);
	rocjit_codeobj_info_free(info);
}

/* Every fixture for target: nothing on the include path but what rocjit serves. */
static void fixtures_compile_for(const char *target)
{
	rocjit_ctx *ctx = rj_test_open();

	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		char path[4096];
		size_t len;
		char *src;

		snprintf(path, sizeof path, "%s/%s", ROCJIT_TEST_CUB_DIR, fixtures[i].file);
		src = rj_test_read_file(path, &len);
		compile_has_kernels(ctx, target, path, src, fixtures[i].kernels);
		free(src);
	}
	rocjit_close(ctx);
}

TEST(cub_fixtures_compile_for_sm_90_with_every_kernel)
{
	skip_without(ROCJIT_PLATFORM_NVIDIA, "NVRTC");
	fixtures_compile_for("sm_90");
}

TEST(cub_fixtures_compile_for_gfx90a_over_rocprim)
{
	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	skip_without_rocprim();
	fixtures_compile_for("gfx90a");
}

TEST(cub_fixtures_compile_for_gfx1030_over_rocprim)
{
	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	skip_without_rocprim();
	fixtures_compile_for("gfx1030");
}

/* The subset is served for HIP sources too (devlib/cuda is part of the AMD set), and CUB's
 * CUDA 13 spellings of the operators are not needed: the older cub::Sum/Max/Min are there. */
TEST(cub_subset_serves_hip_sources_and_the_classic_operators_on_amd)
{
	static const char src[] =
		"#include <hip/hip_runtime.h>\n"
		"#include <cub/block/block_reduce.cuh>\n"
		"#include <cub/warp/warp_reduce.cuh>\n"
		"extern \"C\" __global__ void block_max_min(const int *in, int *out)\n"
		"{\n"
		"\ttypedef cub::BlockReduce<int, 64> BR;\n"
		"\ttypedef cub::WarpReduce<int> WR;\n"
		"\t__shared__ typename BR::TempStorage tb;\n"
		"\t__shared__ typename WR::TempStorage tw[2];\n"
		"\tint x = in[threadIdx.x];\n"
		"\tint m = BR(tb).Reduce(x, cub::Max());\n"
		"\tint w = WR(tw[threadIdx.x / 32]).Reduce(x, cub::Min());\n"
		"\tif (threadIdx.x == 0) out[0] = m;\n"
		"\tif (threadIdx.x % 32 == 0) out[1 + threadIdx.x / 32] = w;\n"
		"}\n";
	static const char *const want[] = { "block_max_min", NULL };
	rocjit_ctx *ctx;

	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	skip_without_rocprim();
	ctx = rj_test_open();
	compile_has_kernels(ctx, "gfx90a", "cub_classic.hip", src, want);
	rocjit_close(ctx);
}
