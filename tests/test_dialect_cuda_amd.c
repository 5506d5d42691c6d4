/*
 * test_dialect_cuda_amd.c - the CUDA device APIs past the warp intrinsics that rocjit's CUDA
 * dialect serves on AMD (src/compile/devlib/cuda and amd/hip/rocjit_cooperative_groups.h):
 * cooperative-groups collectives (cooperative_groups/reduce.h, scan.h, memcpy_async.h,
 * meta_group_rank, partitions, coalesced groups), cuda_pipeline.h, libcu++'s cuda::pipeline
 * and cuda::barrier, texture and surface objects,
 * clock()/clock64() with clock_t, and the refusal of mma.h (WMMA).  The same fixtures
 * compile for sm_90 through CUDA's own headers.  Real compiles; each platform's tests skip
 * where its compiler is not installed.  What the kernels compute is checked on a GPU by
 * tests/gpu/test_dialect_gpu.c.
 */

#include "harness.h"

static const char *const coop_tex_kernels[] = {
	"cg_tile_sum_i32", "cg_tile_maxmin_f32", "cg_subtile_bits_u32", "cg_tile_scan_i32",
	"cg_coalesced_sum_i32", "cg_partition_counts_i32", "cg_memcpy_async_reverse_f32", "pipeline_reverse_f32",
	"cuda_pipeline_double_f32", "cuda_barrier_reverse_f32", "tex1dfetch_scale_f32", "tex2d_to_surface_f32", "clock_elapsed", NULL
};

static void skip_without(int platform, const char *what)
{
	char buf[64];
	if (rocjit_compiler_targets_get(buf, sizeof buf, platform) != 0)
		rj_test_skip("%s is not installed: %s", what, rocjit_last_error());
}

/* Compiles src (named name) for target with -I the fixtures' folder, and -include
 * pre_include unless NULL; the log in log. */
static int compile_with(rocjit_ctx *ctx, const char *target, const char *name, const char *src,
			const char *pre_include, char *log, size_t log_size,
			const rocjit_code **code)
{
	const char *const options[] = { "-I" ROCJIT_TEST_DIALECT_DIR, "-include", pre_include };
	return rj_test_compile(code, ctx, target, name, src, options, pre_include ? 3 : 1, NULL,
			       0, log, log_size);
}
static int compile_src(rocjit_ctx *ctx, const char *target, const char *name, const char *src,
		       char *log, size_t log_size, const rocjit_code **code)
{
	return compile_with(ctx, target, name, src, NULL, log, log_size, code);
}

/* Compiles the fixture file for target (after pre_include, unless NULL) and asserts every
 * kernel of want is in it. */
static void fixture_compiles_with(const char *target, const char *file, const char *pre_include,
				  const char *const *want)
{
	char path[4096], log[16384];
	const rocjit_code *code = NULL;
	rocjit_codeobj_info *info = NULL;
	rocjit_ctx *ctx = rj_test_open();
	size_t len;
	char *src;
	int rc;

	snprintf(path, sizeof path, "%s/%s", ROCJIT_TEST_DIALECT_DIR, file);
	src = rj_test_read_file(path, &len);
	rc = compile_with(ctx, target, path, src, pre_include, log, sizeof log, &code);
	if (rc)
		printf("%s for %s:\n%s\n", file, target, log);
	ASSERT_INT(rc, 0);
	info = rj_test_assert_kernels(code, file, target, want);
	rocjit_codeobj_info_free(info);
	free(src);
	rocjit_close(ctx);
}
static void fixture_compiles(const char *target, const char *file, const char *const *want)
{
	fixture_compiles_with(target, file, NULL, want);
}

TEST(cuda_dialect_coop_tex_compiles_for_gfx90a_with_every_kernel)
{
	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	fixture_compiles("gfx90a", "coop_tex.cu", coop_tex_kernels);
}

/* gfx1030 runs 32-lane wavefronts: tiles and coalesced groups are sized by it. */
TEST(cuda_dialect_coop_tex_compiles_for_gfx1030_with_every_kernel)
{
	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	fixture_compiles("gfx1030", "coop_tex.cu", coop_tex_kernels);
}

/* HIP 5.7 builds its own (older) groups into namespace cooperative_groups; rocjit's groups
 * for CUDA source must not collide with them.  hip57_cg_builtins.h plays that HIP. */
TEST(cuda_dialect_coop_tex_compiles_beside_hip57_builtin_groups)
{
	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	fixture_compiles_with("gfx90a", "coop_tex.cu", "hip57_cg_builtins.h", coop_tex_kernels);
}

TEST(cuda_coop_tex_compiles_for_sm_90_through_cuda_headers)
{
	skip_without(ROCJIT_PLATFORM_NVIDIA, "NVRTC");
	fixture_compiles("sm_90", "coop_tex.cu", coop_tex_kernels);
}

/* The WMMA fixture is NVIDIA-only code: it compiles for sm_90 ... */
TEST(cuda_wmma_compiles_for_sm_90)
{
	static const char *const want[] = { "wmma_16x16x16_f16_f32", NULL };
	skip_without(ROCJIT_PLATFORM_NVIDIA, "NVRTC");
	fixture_compiles("sm_90", "wmma.cu", want);
}

/* ... and on AMD stops with one fatal error that names the header, says why and what to
 * do, instead of an error per wmma use. */
TEST(cuda_dialect_mma_h_is_refused_with_one_message_naming_it)
{
	char path[4096], log[16384];
	const rocjit_code *code = NULL;
	rocjit_ctx *ctx;
	size_t len;
	char *src;

	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	ctx = rj_test_open();
	snprintf(path, sizeof path, "%s/wmma.cu", ROCJIT_TEST_DIALECT_DIR);
	src = rj_test_read_file(path, &len);
	ASSERT_INT(compile_src(ctx, "gfx90a", path, src, log, sizeof log, &code),
		   ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(log, "fatal error: \"rocjit: <mma.h> (nvcuda::wmma");
	ASSERT_CONTAINS(log, "rocWMMA");
	ASSERT_CONTAINS(log, "ROCJIT_CUDA_DIALECT");
	ASSERT_CONTAINS(log, "1 error generated");
	ASSERT(strstr(log, "wmma::") == NULL);	/* nothing past the include was compiled */
	free(src);
	rocjit_close(ctx);
}

/* The advice works: the same kernel file with its WMMA path guarded compiles on AMD. */
TEST(cuda_dialect_guarded_wmma_path_compiles_for_gfx90a)
{
	static const char src[] =
		"#ifndef ROCJIT_CUDA_DIALECT\n"
		"#include <mma.h>\n"
		"#endif\n"
		"extern \"C\" __global__ void gemm_tile(const float *a, float *c)\n"
		"{\n"
		"#ifndef ROCJIT_CUDA_DIALECT\n"
		"\tnvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> f;\n"
		"\tnvcuda::wmma::fill_fragment(f, a[0]);\n"
		"\tnvcuda::wmma::store_matrix_sync(c, f, 16, nvcuda::wmma::mem_row_major);\n"
		"#else\n"
		"\tc[threadIdx.x] = a[0];\n"
		"#endif\n"
		"}\n";
	const char *const targets[] = { "gfx90a", "sm_90" };

	for (size_t t = 0; t < 2; t++) {
		const rocjit_code *code = NULL;
		char log[8192];
		rocjit_ctx *ctx;
		char buf[64];

		if (rocjit_compiler_targets_get(buf, sizeof buf,
						t ? ROCJIT_PLATFORM_NVIDIA : ROCJIT_PLATFORM_AMD))
			continue;
		ctx = rj_test_open();
		if (compile_src(ctx, targets[t], "gemm_tile.cu", src, log, sizeof log, &code))
			printf("%s\n", log);
		ASSERT(code != NULL);
		rocjit_close(ctx);
	}
}

/* HIP code on AMD gets the same groups through <hip/hip_cooperative_groups.h>: what CUDA 11
 * added and HIP 5.2 lacks (meta_group_rank/size, num_threads, tile votes, this_grid's
 * block_rank), tiles of tiles, and the run-time partitions, for both wavefront sizes. */
TEST(hip_cooperative_groups_have_meta_group_rank_on_gfx90a_and_gfx1030)
{
	static const char src[] =
		"#include <hip/hip_runtime.h>\n"
		"#include <hip/hip_cooperative_groups.h>\n"
		"namespace cg = cooperative_groups;\n"
		"extern \"C\" __global__ void tiles(const int *in, int *out)\n"
		"{\n"
		"\tcg::thread_block block = cg::this_thread_block();\n"
		"\tcg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);\n"
		"\tcg::thread_block_tile<4> quad = cg::tiled_partition<4>(warp);\n"
		"\tint v = in[block.thread_rank()];\n"
		"\tfor (unsigned int o = 16; o > 0; o /= 2)\n"
		"\t\tv += warp.shfl_xor(v, o);\n"
		"\tif (warp.thread_rank() == 0)\n"
		"\t\tout[warp.meta_group_rank()] = v + (int)warp.num_threads() +\n"
		"\t\t\t(int)quad.meta_group_size() + (int)warp.ballot(v > 0) + warp.any(v) + warp.all(v);\n"
		"\tcg::thread_group g = cg::tiled_partition(block, 8);\n"
		"\tg.sync();\n"
		"\tif (v > 2) {\n"
		"\t\tcg::coalesced_group active = cg::coalesced_threads();\n"
		"\t\tout[64 + active.thread_rank()] = active.shfl(v, 0) + (int)active.meta_group_rank();\n"
		"\t}\n"
		"\tout[128] = (int)cg::this_grid().block_rank() + (int)g.thread_rank();\n"
		"}\n";
	const char *const targets[] = { "gfx90a", "gfx1030" };

	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	for (size_t t = 0; t < 2; t++) {
		const rocjit_code *code = NULL;
		char log[8192];
		rocjit_ctx *ctx = rj_test_open();

		if (compile_src(ctx, targets[t], "tiles.hip", src, log, sizeof log, &code))
			printf("%s\n", log);
		ASSERT(code != NULL);
		rocjit_close(ctx);
	}
}

/* A tile larger than the wavefront is refused by a message that says so (gfx1030: 32). */
TEST(cuda_dialect_tile_wider_than_the_wavefront_is_refused_clearly)
{
	static const char src[] =
		"#include <cooperative_groups.h>\n"
		"namespace cg = cooperative_groups;\n"
		"extern \"C\" __global__ void wide(int *out)\n"
		"{\n"
		"\tauto t = cg::tiled_partition<64>(cg::this_thread_block());\n"
		"\tout[0] = (int)t.thread_rank();\n"
		"}\n";
	const rocjit_code *code = NULL;
	char log[8192];
	rocjit_ctx *ctx;

	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	ctx = rj_test_open();
	ASSERT_INT(compile_src(ctx, "gfx1030", "wide.cu", src, log, sizeof log, &code),
		   ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(log, "no larger than the wavefront");
	/* The same source fits gfx90a's 64-lane wavefront. */
	ASSERT_INT(compile_src(ctx, "gfx90a", "wide.cu", src, log, sizeof log, &code), 0);
	rocjit_close(ctx);
}

/* A partitioned cuda::pipeline (producers and consumers calling different members) cannot
 * be made correct from synchronous copies and group barriers: refused, by name. */
TEST(cuda_dialect_partitioned_pipeline_is_refused_clearly)
{
	static const char src[] =
		"#include <cooperative_groups.h>\n"
		"#include <cuda/pipeline>\n"
		"namespace cg = cooperative_groups;\n"
		"extern \"C\" __global__ void split(const float *in, float *out)\n"
		"{\n"
		"\t__shared__ float s[128];\n"
		"\t__shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;\n"
		"\tauto block = cg::this_thread_block();\n"
		"\tauto role = threadIdx.x < 32 ? cuda::pipeline_role::producer\n"
		"\t\t\t\t      : cuda::pipeline_role::consumer;\n"
		"\tauto pipe = cuda::make_pipeline(block, &state, role);\n"
		"\tcuda::memcpy_async(block, s, in, sizeof s, pipe);\n"
		"\tout[threadIdx.x] = s[threadIdx.x];\n"
		"}\n";
	const rocjit_code *code = NULL;
	char log[8192];
	rocjit_ctx *ctx;

	skip_without(ROCJIT_PLATFORM_AMD, "hipRTC");
	ctx = rj_test_open();
	ASSERT_INT(compile_src(ctx, "gfx90a", "split.cu", src, log, sizeof log, &code),
		   ROCJIT_ECOMPILE);
	ASSERT_CONTAINS(log, "partitioned cuda::pipeline");
	rocjit_close(ctx);
}
