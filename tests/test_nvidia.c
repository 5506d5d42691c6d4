/*
 * test_nvidia.c - the NVIDIA platform without a GPU: real NVRTC compiles of HIP source
 * (the kernels-src set and HIP-only spellings) for explicit sm targets, diagnostics,
 * unsupported targets, and keys that never cross platforms.
 *
 * Every test skips (ctest's skip code, 77) where NVRTC is not installed.
 */
#include "harness.h"

static int have_nvrtc(void)
{
	if (!rj_test_have_nvrtc())
		rj_test_skip("NVRTC not found");
	return 1;
}

static const rocjit_code *compile(rocjit_ctx *ctx, const char *target, const char *src,
				  const char *name, char *log, size_t log_size, int *rc)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code = NULL;
	p.source = src;
	p.name = name;
	*rc = rocjit_compile(&code, ctx, target, &p);
	snprintf(log, log_size, "%s", rocjit_last_log());
	return code;
}

TEST(nvidia_compiles_the_bundled_kernels_for_sm_90_and_sm_80)
{
	static const char *const files[] = { "axpy.hip", "binary_strided.hip", "reduce.hip" };
	static const char *const want[] = { "axpy_f32", "binary_add_f32", "reduce_sum_f32" };
	rocjit_ctx *ctx;

	if (!have_nvrtc())
		return;
	ctx = rj_test_open();
	for (size_t i = 0; i < 3; i++) {
		static const char *const targets[] = { "sm_90", "sm_80" };
		char path[4096], log[8192];
		size_t len;
		char *src;

		snprintf(path, sizeof path, "%s/%s", ROCJIT_TEST_KERNELS, files[i]);
		src = rj_test_read_file(path, &len);
		for (size_t t = 0; t < 2; t++) {
			rocjit_codeobj_info *info;
			int rc, found = 0;
			const rocjit_code *c = compile(ctx, targets[t], src, files[i], log,
						       sizeof log, &rc);
			if (rc)
				printf("%s\n", log);
			ASSERT_INT(rc, 0);
			ASSERT_STR(c->target, targets[t]);
			ASSERT_INT(rocjit_codeobj_inspect(&info, c->data, c->size), 0);
			ASSERT_INT(info->platform, ROCJIT_PLATFORM_NVIDIA);
			ASSERT_STR(info->target, targets[t]);
			for (size_t k = 0; k < info->num_kernels; k++)
				found |= strcmp(info->kernels[k], want[i]) == 0;
			ASSERT(found);
			rocjit_codeobj_info_free(info);
		}
		free(src);
	}
	rocjit_close(ctx);
}

TEST(nvidia_accepts_hip_spellings)
{
	static const char src[] =
		"#include <hip/hip_runtime.h>\n"
		"extern \"C\" __global__ void k(float *x, unsigned *b, __half *h, __hip_bfloat16 *bf)\n"
		"{\n"
		"\tHIP_DYNAMIC_SHARED(float, smem)\n"
		"\tint i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;\n"
		"\tfloat v = x[i];\n"
		"\tsmem[hipThreadIdx_x] = v;\n"
		"\t__syncthreads();\n"
		"\tv += __shfl_xor(v, 1);\n"
		"\tv += __shfl_down(v, 2);\n"
		"\tb[i] = (unsigned)__ballot(v > 0.0f);\n"
		"\th[i] = __float2half(v + smem[0]);\n"
		"\tbf[i] = __float2bfloat16(v);\n"
		"\tatomicAdd(&x[0], (float)warpSize);\n"
		"}\n";
	/* Without the include: hip_runtime.h is pre-included, as hipRTC does. */
	static const char bare[] =
		"extern \"C\" __global__ void k(int *x) { x[hipThreadIdx_x] = hipGridDim_x; }\n";
	char log[8192];
	rocjit_ctx *ctx;
	int rc;

	if (!have_nvrtc())
		return;
	ctx = rj_test_open();
	compile(ctx, "sm_90", src, "hipisms.hip", log, sizeof log, &rc);
	if (rc)
		printf("%s\n", log);
	ASSERT_INT(rc, 0);
	compile(ctx, "sm_75", bare, "bare.hip", log, sizeof log, &rc);
	ASSERT_INT(rc, 0);
	rocjit_close(ctx);
}

TEST(nvidia_compile_error_has_file_line_col)
{
	char log[8192];
	rocjit_ctx *ctx;
	int rc;

	if (!have_nvrtc())
		return;
	ctx = rj_test_open();
	compile(ctx, "sm_90", "extern \"C\" __global__ void k(float *x)\n{\n\tx[0] = nope;\n}\n",
		"broken.hip", log, sizeof log, &rc);
	ASSERT_INT(rc, ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(log, "broken.hip:3:9: error: identifier \"nope\" is undefined");
	ASSERT_CONTAINS(rocjit_last_error(), "broken.hip:3:9: error:");
	rocjit_close(ctx);
}

TEST(nvidia_unsupported_targets_are_refused)
{
	char log[256];
	rocjit_ctx *ctx;
	int rc;

	if (!have_nvrtc())
		return;
	ctx = rj_test_open();
	compile(ctx, "sm_30", rj_test_axpy, "a.hip", log, sizeof log, &rc);
	ASSERT_INT(rc, ROCJIT_EUNSUPPORTED);
	ASSERT_CONTAINS(rocjit_last_error(), "sm_90");
	compile(ctx, "sm_9x", rj_test_axpy, "a.hip", log, sizeof log, &rc);
	ASSERT_INT(rc, ROCJIT_EUNSUPPORTED);
	compile(ctx, "vulkan_1", rj_test_axpy, "a.hip", log, sizeof log, &rc);
	ASSERT_INT(rc, ROCJIT_EUNSUPPORTED);
	ASSERT_CONTAINS(rocjit_last_error(), "no platform");
	rocjit_close(ctx);
}

TEST(nvidia_and_amd_entries_never_share_a_key)
{
	char log[256];
	rocjit_ctx *ctx;
	const rocjit_code *a, *n;
	int rc;

	if (!have_nvrtc())
		return;
	ctx = rj_test_open();
	a = compile(ctx, "gfx90a", rj_test_axpy, "a.hip", log, sizeof log, &rc);
	ASSERT_INT(rc, 0);
	n = compile(ctx, "sm_90", rj_test_axpy, "a.hip", log, sizeof log, &rc);
	ASSERT_INT(rc, 0);
	ASSERT(strcmp(a->key, n->key) != 0);
	rocjit_close(ctx);
	/* Both come back from disk in a new context, each for its own platform. */
	ctx = rj_test_open();
	n = compile(ctx, "sm_90", rj_test_axpy, "a.hip", log, sizeof log, &rc);
	ASSERT_INT(n->from_cache, 1);
	{
		rocjit_codeobj_info *info;
		ASSERT_INT(rocjit_codeobj_inspect(&info, n->data, n->size), 0);
		ASSERT_INT(info->platform, ROCJIT_PLATFORM_NVIDIA);
		rocjit_codeobj_info_free(info);
	}
	rocjit_close(ctx);
}

TEST(nvidia_missing_nvrtc_is_enocompiler)
{
	char log[256];
	rocjit_ctx *ctx;
	int rc;

	setenv("ROCJIT_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so", 1);
	setenv("ROCJIT_DISABLE_CACHE", "1", 1);
	ctx = rj_test_open();
	compile(ctx, "sm_90", rj_test_axpy, "a.hip", log, sizeof log, &rc);
	ASSERT_INT(rc, ROCJIT_ENOCOMPILER);
	ASSERT_CONTAINS(rocjit_last_error(), "NVRTC");
	ASSERT_CONTAINS(rocjit_last_error(), "CUDA_PATH");
	rocjit_close(ctx);
}

TEST(nvidia_platform_without_gpu_says_so)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_kernel *k;
	rocjit_ctx *ctx;

	o.platform = ROCJIT_PLATFORM_NVIDIA;
	o.flags = ROCJIT_OPEN_NO_CACHE;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	p.source = rj_test_axpy;
	/* This machine has no NVIDIA GPU (the stub driver's cuInit fails). */
	if (rocjit_kernel_get(&k, ctx, &p, "axpy") == 0) {
		rocjit_close(ctx);
		rj_test_skip("an NVIDIA GPU is present");
	}
	ASSERT_CONTAINS(rocjit_last_error(), "NVIDIA");
	ASSERT_CONTAINS(rocjit_last_error(), "ROCJIT_ARCH");
	rocjit_close(ctx);
}
