/*
 * test_lean.c - the lean prelude on NVIDIA (compile/lean.c): a compile leaves fp16, bf16
 * and fp8 out of the pre-included HIP header only when none of its texts can name them.
 *   - the rule on names: CUDA's and HIP's spellings match, ordinary kernel names do not;
 *   - the rule against the installed CUDA headers: every function cuda_fp16.h,
 *     cuda_bf16.h and cuda_fp8.h declare (and their .hpp) matches, except the overloads
 *     of built-ins, which take one of their types;
 *   - real NVRTC compiles: a kernel naming the types through a name expression, an
 *     option, a header it reaches, or HIP's spellings compiles; one naming none compiles
 *     lean and runs the same code as before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "compile/lean.h"

static int names(const char *s)
{
	return rj_lean_names_small_floats(s, strlen(s));
}

TEST(small_float_names_match_in_every_spelling)
{
	static const char *const yes[] = {
		"__half", "half2", "__half2_raw", "_Float16", "__nv_bfloat16", "__hip_bfloat16",
		"hip_bfloat16", "__float2half_rn", "__floats2half2_rn", "__bfloat162float",
		"__hadd", "__hmax_nan", "__heq", "__hisinf", "hsqrt", "h2exp10", "hrcp", "htanh",
		"CUDART_INF_FP16", "HIPRT_ONE_BF16", "__nv_fp8_e4m3", "__hip_fp8_e5m2",
		"__nv_fp4_e2m1", "__low2float", "__lowhigh2highlow", "__high2half",
		"#include <hip/hip_fp16.h>", "#include <cuda_bf16.h>", "x = (Half)y;",
		"k<__half, 4>", "-DT=__nv_bfloat16", "#ifdef IF_DEVICE_OR_CUDACC",
		"#define CAT(a, b) a##b",
	};
	static const char *const no[] = {
		"axpy", "threadIdx.x", "float", "double", "atomicAdd(p, 1.0f)", "hash", "height",
		"hip_runtime", "1.0e5f", "0x1p4", "sqrt", "__shfl_xor_sync", "hipLaunchKernelGGL",
		"__syncthreads", "blockDim", "h", "__h", "unsigned long long", "int4",
	};

	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
		if (!names(yes[i]))
			printf("not matched: %s\n", yes[i]);
		ASSERT(names(yes[i]));
	}
	for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
		if (names(no[i]))
			printf("matched: %s\n", no[i]);
		ASSERT(!names(no[i]));
	}
}

/* The overloads of built-ins the headers add: each takes a pointer to or a value of one
   of their types, which the caller names. */
static int builtin_overload(const char *n)
{
	static const char *const b[] = { "__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv",
					 "__stwb", "__stcg", "__stcs", "__stwt", "__shfl",
					 "__shfl_sync", "__shfl_up", "__shfl_up_sync", "__shfl_down",
					 "__shfl_down_sync", "__shfl_xor", "__shfl_xor_sync",
					 "atomicAdd" };

	for (size_t i = 0; i < sizeof b / sizeof *b; i++)
		if (!strcmp(n, b[i]))
			return 1;
	return 0;
}

TEST(every_function_the_cuda_small_float_headers_declare_matches)
{
	static const char *const files[] = { "cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h",
					     "cuda_bf16.hpp", "cuda_fp8.h", "cuda_fp8.hpp" };
	int checked = 0, failed = 0;

	for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
		char path[256], line[4096];
		FILE *in;

		snprintf(path, sizeof path, "/usr/local/cuda/include/%s", files[f]);
		if (!(in = fopen(path, "r")))
			rj_test_skip("the CUDA toolkit's headers are not at /usr/local/cuda/include");
		/* Declarations: a line whose first word is one of the headers' *DECL__ macros,
		   the declared name right before its first '('. */
		while (fgets(line, sizeof line, in)) {
			char *p = line, *paren, *end, *start;
			while (*p == ' ' || *p == '\t')
				p++;
			end = strpbrk(p, " \t");
			if (!end || end - p < 6 || strncmp(end - 6, "DECL__", 6))
				continue;
			if (!(paren = strchr(end, '(')))
				continue;
			for (end = paren; end > p && end[-1] == ' '; end--)
				;
			for (start = end; start > p && (start[-1] == '_' ||
							 (start[-1] >= 'a' && start[-1] <= 'z') ||
							 (start[-1] >= 'A' && start[-1] <= 'Z') ||
							 (start[-1] >= '0' && start[-1] <= '9'));
			     start--)
				;
			if (start == end)
				continue;
			*end = 0;
			if (!strncmp(start, "operator", 8) || builtin_overload(start))
				continue;
			checked++;
			if (!names(start)) {
				printf("%s declares %s, which the rule does not match\n", files[f],
				       start);
				failed++;
			}
		}
		fclose(in);
	}
	printf("%d declarations checked\n", checked);
	ASSERT(checked > 200);
	ASSERT_INT(failed, 0);
}

/* ---- Real compiles ---- */

static void compiles(rocjit_ctx *ctx, const char *name, const char *src,
		     const char *const *opts, size_t nopts, const rocjit_header *h, size_t nh)
{
	const rocjit_code *code = NULL;
	char log[8192];
	int rc = rj_test_compile(&code, ctx, "sm_90", name, src, opts, nopts, h, nh, log,
				 sizeof log);

	if (rc)
		printf("%s:\n%s\n", name, log);
	ASSERT_INT(rc, 0);
}

TEST(kernels_that_name_the_types_anywhere_get_them_and_others_compile_lean)
{
	static const char hip_half[] =
		"#include <hip/hip_runtime.h>\n"
		"extern \"C\" __global__ void k(__half *x) { x[0] = __hadd(x[0], x[1]); }\n";
	static const char hip_bf16[] =
		"#include <hip/hip_runtime.h>\n"
		"extern \"C\" __global__ void k(__hip_bfloat16 *x) { x[0] = x[1]; }\n";
	static const char via_header[] =
		"#include <hip/hip_runtime.h>\n#include \"types.h\"\n"
		"extern \"C\" __global__ void k(elem *x) { x[0] = x[1]; }\n";
	static const char via_option[] =
		"#include <hip/hip_runtime.h>\n"
		"extern \"C\" __global__ void k(ELEM *x) { x[0] = x[1]; }\n";
	static const char tmpl[] =
		"#include <hip/hip_runtime.h>\n"
		"template <class T> __global__ void k(T *x) { x[0] = x[1]; }\n";
	static const char plain[] =
		"#include <hip/hip_runtime.h>\n"
		"extern \"C\" __global__ void k(int n, float a, const float *x, float *y)\n"
		"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i];"
		" __syncthreads(); y[0] = __shfl_xor(y[0], 1); }\n";
	static const char fp16_cuda[] =
		"extern \"C\" __global__ void k(half2 *x) { x[0] = __hmul2(x[0], x[1]); }\n";
	/* Which prelude a compile got, told by the macro that makes it lean. */
	static const char lean[] =
		"#include <hip/hip_runtime.h>\n"
		"#ifndef __ROCJIT_LEAN_PRELUDE__\n#error \"the full prelude\"\n#endif\n"
		"extern \"C\" __global__ void k(float *x) { x[0] = x[1]; }\n";
	static const char full[] =
		"#include <hip/hip_runtime.h>\n"
		"#ifdef __ROCJIT_LEAN_PRELUDE__\n#error \"the lean prelude\"\n#endif\n"
		"extern \"C\" __global__ void k(float *x) { x[0] = x[1]; } // a __half-free kernel\n";
	static const char *const opt[] = { "-DELEM=__nv_bfloat16" };
	rocjit_header h = { "types.h", "typedef __half elem;\n", 0 };
	rocjit_ctx *ctx;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	const rocjit_code *code;
	const char *const expr[] = { "k<__half>" };

	if (!rj_test_have_nvrtc())
		rj_test_skip("NVRTC is not installed: the NVIDIA compile tests need it");
	ctx = rj_test_open();
	compiles(ctx, "half.hip", hip_half, NULL, 0, NULL, 0);
	compiles(ctx, "bf16.hip", hip_bf16, NULL, 0, NULL, 0);
	compiles(ctx, "via_header.hip", via_header, NULL, 0, &h, 1);
	compiles(ctx, "via_option.hip", via_option, opt, 1, NULL, 0);
	compiles(ctx, "plain.hip", plain, NULL, 0, NULL, 0);
	compiles(ctx, "lean.hip", lean, NULL, 0, NULL, 0);
	compiles(ctx, "full.hip", full, NULL, 0, NULL, 0); /* a word in a comment counts */
	/* CUDA sources get HIP's header too: a .cu naming half2 without an include. */
	compiles(ctx, "fp16.cu", fp16_cuda, NULL, 0, NULL, 0);
	/* The type only in a name expression. */
	p.source = tmpl;
	p.name = "tmpl.hip";
	p.name_expressions = expr;
	p.num_name_expressions = 1;
	ASSERT_INT(rocjit_compile(&code, ctx, "sm_90", &p), 0);
	rocjit_close(ctx);
}
