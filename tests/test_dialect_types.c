/*
 * test_dialect_types.c - the type names kernels take from their compiler or from the type
 * headers are there, and alike, on every platform (issue 28, classes 1, 3 and 5):
 *   - <cuda.h>: rocjit serves a device-side one on both platforms (devlib/std/cuda.h; on
 *     NVIDIA the toolkit's is host driver API that NVRTC refuses) with CUDA_VERSION,
 *     CUdeviceptr and CUtensorMap;
 *   - what hipRTC gives a HIP kernel with no include (uint, ushort, uint64_t, std::size_t,
 *     std::is_same ...) NVIDIA gives it too (devlib/nvidia/hip/hip_runtime.h);
 *   - HIP's type headers (hip_fp16.h, hip_bf16.h, hip_bfloat16.h, hip_fp8.h) exist on AMD as
 *     on NVIDIA - one file each in devlib/std/hip, over each platform's cuda_*.h - and mix
 *     with each other and with CUDA's: half2 brace-initialised, __hadd on half and bf16,
 *     atomicAdd on half and __hip_bfloat16, HIP's hip_bfloat16 class.
 * Real compiles of tests/data/dialect fixtures for gfx90a, gfx1030 and sm_90, each
 * kernel's presence checked; each platform skips where its compiler is missing.
 */

#include "harness.h"

static const char *const cuda_h_kernels[] = { "scale_by_address", "tensor_map_words", NULL };
static const char *const implicit_kernels[] = { "implicit_rotl", "implicit_signed", NULL };
static const char *const mix_hip_kernels[] = { "mix_half2_acc", "mix_bfloat16_bits",
					       "mix_atomic_add_16", NULL };
static const char *const mix_cu_kernels[] = { "mix_fp16_bf16_add", NULL };
/* hip/types.hip: every HIP type header, once NVIDIA-only (test_dialect.c compiles it for
 * sm_90 too). */
static const char *const hip_types_kernels[] = { "hip_half_axpb", "hip_bf16_max",
						 "hip_bfloat16_add", "hip_fp8_roundtrip",
						 "hip_texture_scale", "hip_arch_features", NULL };

static const char *const targets[] = { "gfx90a", "gfx1030", "sm_90" };

static int have(const char *target)
{
	char buf[64];
	int platform = target[0] == 's' ? ROCJIT_PLATFORM_NVIDIA : ROCJIT_PLATFORM_AMD;

	return rocjit_compiler_targets_get(buf, sizeof buf, platform) == 0;
}

/* Compiles the fixture (relative to the dialect folder) for every target whose compiler is
 * installed, asserting success and each kernel of want; skips when neither is. */
static void compiles_everywhere(const char *file, const char *const *want)
{
	int ran = 0;

	for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
		rocjit_ctx *ctx;

		if (!have(targets[t]))
			continue;
		ctx = rj_test_open();
		rocjit_codeobj_info_free(
			rj_test_fixture(ctx, targets[t], ROCJIT_TEST_DIALECT_DIR, file, NULL, want));
		rocjit_close(ctx);
		ran = 1;
	}
	if (!ran)
		rj_test_skip("neither hipRTC nor NVRTC is installed");
}

/* Compiles src as name for target; returns rocjit_compile's result, printing the log. */
static int compile_text(const char *target, const char *name, const char *src)
{
	char log[16384];
	const rocjit_code *code = NULL;
	rocjit_ctx *ctx = rj_test_open();
	int rc = rj_test_compile(&code, ctx, target, name, src, NULL, 0, NULL, 0, log, sizeof log);

	if (rc)
		printf("%s for %s:\n%s\n", name, target, log);
	rocjit_close(ctx);
	return rc;
}

TEST(cuda_h_gives_version_and_device_types_on_every_target)
{
	compiles_everywhere("types_cuda_h.cu", cuda_h_kernels);
}

/* HIP code for NVIDIA includes <cuda.h> too (for CUDA_VERSION, CUdeviceptr): the toolkit's
 * failed there ("host functions are not allowed in JIT mode"). */
TEST(cuda_h_compiles_in_hip_source_for_sm_90)
{
	static const char src[] = "#include <hip/hip_runtime.h>\n#include <cuda.h>\n"
				  "extern \"C\" __global__ void k(CUdeviceptr *v) {\n"
				  "  v[0] = CUDA_VERSION;\n}\n";

	rj_test_skip_without(ROCJIT_PLATFORM_NVIDIA, "NVRTC");
	ASSERT_INT(compile_text("sm_90", "cuda_h.hip", src), 0);
}

TEST(hip_implicit_types_exist_without_include_on_every_target)
{
	compiles_everywhere("hip/implicit_types.hip", implicit_kernels);
}

/* hipRTC's std type traits, with no include: built into hipRTC, served on NVIDIA. */
TEST(hip_std_traits_exist_without_include_on_every_target)
{
	static const char src[] =
		"template <class T>\n"
		"__device__ typename std::enable_if<std::is_integral<T>::value, T>::type\n"
		"twice(T v) { return v + v; }\n"
		"extern \"C\" __global__ void k(uint *p) {\n"
		"  static_assert(std::is_same<int64_t, long long>::value, \"int64_t\");\n"
		"  p[0] = twice(p[0]) + std::integral_constant<uint, 3>::value;\n}\n";
	int ran = 0;

	for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
		if (!have(targets[t]))
			continue;
		ASSERT_INT(compile_text(targets[t], "traits.hip", src), 0);
		ran = 1;
	}
	if (!ran)
		rj_test_skip("neither hipRTC nor NVRTC is installed");
}

TEST(hip_type_headers_compile_on_every_target)
{
	compiles_everywhere("hip/types.hip", hip_types_kernels);
}

TEST(hip_fp16_and_hip_bfloat16_mix_on_every_target)
{
	compiles_everywhere("hip/types_mix.hip", mix_hip_kernels);
}

TEST(cuda_fp16_and_bf16_mix_on_every_target)
{
	compiles_everywhere("types_fp16_bf16.cu", mix_cu_kernels);
}
