/*
 * test_devlib.c - the headers rocjit serves to the compilers (src/compile/devlib/): the
 * device standard library and the HIP stand-ins compile in real kernels for gfx90a,
 * gfx1030 and sm_90 with every kernel in the code object; the caller's headers win over
 * rocjit's; each platform's served set has its own digest, which is part of the key.
 *
 * Fixtures: the .hip files of tests/data/devlib/.  The NVIDIA halves skip (ctest's skip code, 77)
 * where NVRTC is not installed.
 */
#include <sys/stat.h>

#include "harness.h"
#include "compile/devlib.h"

/* Compiles the fixture for target and checks that every kernel of want is in the code
 * object, which is for target. */
static void compile_fixture(rocjit_ctx *ctx, const char *file, const char *target,
			    const char *const *want, size_t nwant)
{
	char path[4096], log[16384];
	const rocjit_code *code = NULL;
	rocjit_codeobj_info *info;
	size_t len;
	char *src;
	int rc;

	snprintf(path, sizeof path, "%s/%s", ROCJIT_TEST_DEVLIB_DATA, file);
	src = rj_test_read_file(path, &len);
	rc = rj_test_compile(&code, ctx, target, file, src, NULL, 0, NULL, 0, log, sizeof log);
	if (rc || log[0])
		printf("%s for %s:\n%s\n", file, target, log);
	ASSERT_INT(rc, 0);
	ASSERT_INT(rocjit_codeobj_inspect(&info, code->data, code->size), 0);
	ASSERT_STR(info->target, target);
	for (size_t w = 0; w < nwant; w++) {
		int found = 0;
		for (size_t k = 0; k < info->num_kernels; k++)
			found |= strcmp(info->kernels[k], want[w]) == 0;
		if (!found)
			printf("kernel %s missing from %s for %s\n", want[w], file, target);
		ASSERT(found);
	}
	rocjit_codeobj_info_free(info);
	free(src);
}

static const char *const std_types_kernels[] = { "std_types_ints", "std_types_math" };
static const char *const std_cpp_kernels[] = { "std_cpp_limits", "std_cpp_utility" };
static const char *const hip_headers_kernels[] = { "hip_headers_half", "hip_headers_groups" };
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The fixture for gfx90a and gfx1030 (nvidia 0), or for sm_90 (skipped without NVRTC). */
static void fixture_on(int nvidia, const char *file, const char *const *want, size_t nwant)
{
	rocjit_ctx *ctx;

	if (nvidia && !rj_test_have_nvrtc())
		rj_test_skip("NVRTC not found");
	ctx = rj_test_open();
	if (nvidia) {
		compile_fixture(ctx, file, "sm_90", want, nwant);
	} else {
		compile_fixture(ctx, file, "gfx90a", want, nwant);
		compile_fixture(ctx, file, "gfx1030", want, nwant);
	}
	rocjit_close(ctx);
}

TEST(devlib_c_headers_compile_for_gfx90a_and_gfx1030)
{
	fixture_on(0, "std_types.hip", std_types_kernels, N(std_types_kernels));
}

TEST(devlib_c_headers_compile_for_sm_90)
{
	fixture_on(1, "std_types.hip", std_types_kernels, N(std_types_kernels));
}

TEST(devlib_cpp_headers_compile_for_gfx90a_and_gfx1030)
{
	fixture_on(0, "std_cpp.hip", std_cpp_kernels, N(std_cpp_kernels));
}

TEST(devlib_cpp_headers_compile_for_sm_90)
{
	fixture_on(1, "std_cpp.hip", std_cpp_kernels, N(std_cpp_kernels));
}

/* The headers tell hipRTC from NVRTC by __clang__, so a CUDA-dialect source on AMD (which
 * may define __CUDACC_RTC__) still gets hipRTC's side: no second std::integral_constant,
 * a std::move. */
TEST(devlib_cpp_headers_compile_on_amd_with_cuda_macros)
{
	static const char *const opts[] = { "-D__CUDACC_RTC__", "-D__CUDACC__" };
	const rocjit_code *code;
	char path[4096], log[16384];
	rocjit_ctx *ctx = rj_test_open();
	size_t len;
	char *src;
	int rc;

	snprintf(path, sizeof path, "%s/std_cpp.hip", ROCJIT_TEST_DEVLIB_DATA);
	src = rj_test_read_file(path, &len);
	rc = rj_test_compile(&code, ctx, "gfx90a", "std_cpp.hip", src, opts, 2, NULL, 0, log,
			 sizeof log);
	if (rc)
		printf("%s\n", log);
	ASSERT_INT(rc, 0);
	free(src);
	rocjit_close(ctx);
}

/* hipRTC 5.2 has hip_fp16.h and cooperative groups built in and rejects HIP's files for
   them; the stand-ins make the includes work (the NVIDIA side serves its own set). */
TEST(devlib_hip_stand_ins_compile_for_gfx90a_and_gfx1030)
{
	fixture_on(0, "hip_headers.hip", hip_headers_kernels, N(hip_headers_kernels));
}

/* assert is re-read at each inclusion: under NDEBUG its argument is not even compiled. */
TEST(devlib_assert_honours_ndebug)
{
	static const char src[] =
		"#define NDEBUG\n"
		"#include <cassert>\n"
		"extern \"C\" __global__ void off(int *p) { assert(no_such_name); *p = 1; }\n"
		"#undef NDEBUG\n"
		"#include <assert.h>\n"
		"extern \"C\" __global__ void on(int *p) { assert(p != nullptr); *p = 2; }\n";
	static const char *const targets[] = { "gfx90a", "sm_90" };
	rocjit_ctx *ctx = rj_test_open();

	for (size_t t = 0; t < 2; t++) {
		const rocjit_code *code;
		char log[8192];

		if (t == 1 && !rj_test_have_nvrtc())
			break;
		ASSERT_INT(rj_test_compile(&code, ctx, targets[t], "ndebug.hip", src, NULL, 0, NULL, 0,
				       log, sizeof log), 0);
	}
	rocjit_close(ctx);
}

/*
 * A header the caller supplies under a served name is the one compiled: an in-memory
 * header (program or registered) of that name, or a file of that name in a -I folder.
 * Both compilers would otherwise find rocjit's in-memory copy first.  (An empty header
 * compiles too: hipRTC 5.2 refuses one of no text unless rocjit passes a line break.)
 */
TEST(devlib_user_header_wins_over_served)
{
	static const char src[] =
		"#include <cstdint>\n"
		"#include <limits>\n"
		"#include \"empty.h\"\n"
		"#ifndef USER_CSTDINT\n#error rocjit's cstdint was compiled\n#endif\n"
		"#ifndef USER_LIMITS\n#error rocjit's limits was compiled\n#endif\n"
		"extern \"C\" __global__ void k(int *p) { *p = USER_CSTDINT + USER_LIMITS; }\n";
	static const rocjit_header mine[] = { { "cstdint", "#define USER_CSTDINT 1\n", 0 },
					      { "empty.h", "", 0 } };
	static const char *const targets[] = { "gfx90a", "sm_90" };
	char inc[4200], file[4300], opt[4300];
	const char *opts[1];
	rocjit_ctx *ctx = rj_test_open();

	snprintf(inc, sizeof inc, "%s/inc", rj_test_dir);
	ASSERT_INT(mkdir(inc, 0700), 0);
	snprintf(file, sizeof file, "%s/limits", inc);
	rj_test_write_file(file, "#define USER_LIMITS 2\n", 22);
	snprintf(opt, sizeof opt, "-I%s", inc);
	opts[0] = opt;
	for (size_t t = 0; t < 2; t++) {
		const rocjit_code *code;
		char log[8192];
		int rc;

		if (t == 1 && !rj_test_have_nvrtc())
			break;
		rc = rj_test_compile(&code, ctx, targets[t], "mine.hip", src, opts, 1, mine, 2, log,
				 sizeof log);
		if (rc)
			printf("%s\n", log);
		ASSERT_INT(rc, 0);
		/* Without them, rocjit's are served: the same source fails. */
		ASSERT_INT(rj_test_compile(&code, ctx, targets[t], "mine.hip", src, NULL, 0, mine + 1,
				       1, log, sizeof log), ROCJIT_ECOMPILE);
		ASSERT_CONTAINS(log, "rocjit's cstdint was compiled");
	}
	rocjit_close(ctx);
}

/* A registered header (an application's embedded kernels) under a served name wins too. */
TEST(devlib_registered_header_wins_over_served)
{
	static const char kernel[] =
		"#include <math.h>\n"
		"#ifndef USER_MATH\n#error rocjit's math.h was compiled\n#endif\n"
		"extern \"C\" __global__ void k(int *p) { *p = USER_MATH; }\n";
	static const char header[] = "#define USER_MATH 3\n";
	static const rocjit_source_file files[] = {
		{ "uses_math.hip", kernel, sizeof kernel - 1 },
		{ "math.h", header, sizeof header - 1 },
	};
	const rocjit_code *code;
	rocjit_ctx *ctx;

	ASSERT_INT(rocjit_register_sources(files, 2), 0);
	ctx = rj_test_open();
	ASSERT_INT(rocjit_compile_registered(&code, ctx, "gfx90a", "uses_math.hip", NULL, 0), 0);
	if (rj_test_have_nvrtc())
		ASSERT_INT(rocjit_compile_registered(&code, ctx, "sm_90", "uses_math.hip", NULL, 0),
			   0);
	rocjit_close(ctx);
}

/* Under NVRTC with libcu++ on the include path, rocjit's <stdint.h> and <climits> come
 * before <cuda/std/cstdint> and <cuda/std/climits> without a macro-redefinition warning. */
TEST(devlib_c_headers_and_libcu_mix_without_warnings_on_sm_90)
{
	static const char src[] =
		"#include <stdint.h>\n"
		"#include <climits>\n"
		"#include <cuda/std/cstdint>\n"
		"#include <cuda/std/climits>\n"
		"extern \"C\" __global__ void k(int64_t *p) { *p = INT64_MAX - INT_MAX; }\n";
	static const char cccl[] = "/usr/local/cuda/include/cccl";
	const char *opts[] = { "-I/usr/local/cuda/include/cccl" };
	const rocjit_code *code;
	char log[16384];
	struct stat st;
	rocjit_ctx *ctx;
	int rc;

	if (!rj_test_have_nvrtc() || stat(cccl, &st) != 0)
		rj_test_skip("NVRTC or %s not found", cccl);
	ctx = rj_test_open();
	rc = rj_test_compile(&code, ctx, "sm_90", "mix.hip", src, opts, 1, NULL, 0, log, sizeof log);
	if (rc || log[0])
		printf("%s\n", log);
	ASSERT_INT(rc, 0);
	ASSERT(!strstr(log, "redefinition"));
	rocjit_close(ctx);
}

static const rocjit_source_file *served_file(const struct rj_served *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->files[i]->name, name) == 0)
			return s->files[i];
	return NULL;
}

/* What each platform serves, by the layout of src/compile/devlib/; notes are not served. */
TEST(devlib_sets_follow_the_folder_layout)
{
	const struct rj_served *amd = rj_devlib_served(ROCJIT_PLATFORM_AMD);
	const struct rj_served *nv = rj_devlib_served(ROCJIT_PLATFORM_NVIDIA);
	static const char *const std_names[] = { "cstdint", "stdint.h", "cmath", "math.h",
						 "limits", "type_traits", "cassert", "climits",
						 "cfloat", "cstddef", "utility", "algorithm" };

	for (size_t i = 0; i < N(std_names); i++) {
		ASSERT(served_file(amd, std_names[i]));
		ASSERT(served_file(nv, std_names[i]));
		ASSERT(served_file(amd, std_names[i]) == served_file(nv, std_names[i]));
	}
	ASSERT(served_file(amd, "hip/hip_fp16.h"));
	ASSERT(served_file(amd, "hip/hip_cooperative_groups.h"));
	/* Each platform has its own hip/hip_runtime.h. */
	ASSERT(served_file(amd, "hip/hip_runtime.h"));
	ASSERT(served_file(nv, "hip/hip_runtime.h"));
	ASSERT(served_file(amd, "hip/hip_runtime.h") != served_file(nv, "hip/hip_runtime.h"));
	for (size_t i = 0; i < amd->n; i++) {
		size_t len = strlen(amd->files[i]->name);
		ASSERT(len < 3 || strcmp(amd->files[i]->name + len - 3, ".md") != 0);
		ASSERT_INT(strlen(amd->files[i]->text), amd->files[i]->length);
	}
	for (size_t i = 0; i < nv->n; i++) {
		size_t len = strlen(nv->files[i]->name);
		ASSERT(len < 3 || strcmp(nv->files[i]->name + len - 3, ".md") != 0);
	}
}

/* Each set's digest is fixed for the process and tells the platforms apart; it enters
 * every key (key.key_changes_with_the_served_headers shows a changed digest changes it). */
TEST(devlib_digests_differ_by_platform)
{
	const struct rj_served *amd = rj_devlib_served(ROCJIT_PLATFORM_AMD);
	const struct rj_served *nv = rj_devlib_served(ROCJIT_PLATFORM_NVIDIA);
	static const rj_digest zero;

	ASSERT(memcmp(amd->digest.b, nv->digest.b, 16) != 0);
	ASSERT(memcmp(amd->digest.b, zero.b, 16) != 0);
	ASSERT(memcmp(nv->digest.b, zero.b, 16) != 0);
	ASSERT(rj_devlib_served(ROCJIT_PLATFORM_AMD) == amd);
	ASSERT(memcmp(rj_devlib_served(ROCJIT_PLATFORM_AMD)->digest.b, amd->digest.b, 16) == 0);
}
