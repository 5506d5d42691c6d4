/*
 * lean.c - whether a compile for NVIDIA may leave the small float types out of the
 * pre-included prelude (devlib/nvidia/hip/hip_runtime.h and rocjit_hip_nvidia_ext.h).
 *
 * HIP's runtime header gives every kernel __half, __hip_bfloat16 and the fp8 types; on
 * NVRTC that is cuda_fp16.h, cuda_bf16.h and cuda_fp8.h, about two thirds of the header
 * parse of a small kernel (axpy's frontend: 66-152 ms lean, 216-340 ms with them on the
 * loaded CPU box; bench/RESULTS.md, issue 32).  A compile leaves them out only when no
 * text it is given can name anything they declare: no identifier in the source, the
 * headers it reaches, the options or the name expressions holds one of the words below -
 * which every name those headers declare holds (__half, half2, __nv_bfloat16, __hadd,
 * hsqrt, __float2half_rn, CUDART_INF_FP16, __nv_fp8_e4m3 ...).  An overload they add to a
 * built-in (atomicAdd, __shfl_sync, __ldg) takes one of their types, which has such a name.
 * A word in a comment or a string counts too, and so does any ## (a name pasted
 * together could be theirs): the rule errs towards the full prelude, which is only
 * slower.  The served headers that use the types include them themselves
 * (hip/hip_fp16.h, hip/hip_bf16.h, hip/hip_fp8.h), and their names hold the words.
 *
 * The decision is a function of what the key covers, and the prelude's text is in the
 * served headers' digest, so one key is always one compile.
 */
#include <ctype.h>
#include <string.h>

#include "compile/lean.h"

/* Held anywhere in an identifier, case ignored. */
static const char *const words[] = { "half", "bf16", "bfloat", "fp16", "float16", "fp8",
				     "fp6", "fp4", "e4m3", "e5m2", "e2m1", "e2m3", "e3m2",
				     "e8m0", "__nv_", "cudart_", "__low2", "__high2",
				     "__lowhigh2", "__internal_",
				     /* a macro cuda_fp16.hpp leaves defined */
				     "if_device_or_cudacc" };
/* hsqrt, h2exp10 ...: cuda_fp16.h's math functions, "h" or "h2" then the name. */
static const char *const math[] = { "sqrt", "rsqrt", "rcp", "log", "log2", "log10", "exp",
				    "exp2", "exp10", "cos", "sin", "tanh", "tanh_approx",
				    "ceil", "floor", "trunc", "rint", "abs", "max", "min",
				    "fma", "neg" };

static int matches(const char *id, size_t n)
{
	char low[64];
	size_t skip;

	if (n >= sizeof low)
		n = sizeof low - 1; /* long names: their start decides */
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)id[i]);
	low[n] = 0;
	if (n > 3 && !strncmp(low, "__h", 3))
		return 1;
	for (size_t k = 0; k < sizeof words / sizeof *words; k++)
		if (strstr(low, words[k]))
			return 1;
	skip = !strncmp(low, "h2", 2) ? 2 : low[0] == 'h' ? 1 : 0;
	if (skip)
		for (size_t k = 0; k < sizeof math / sizeof *math; k++)
			if (!strcmp(low + skip, math[k]))
				return 1;
	return 0;
}

int rj_lean_names_small_floats(const char *text, size_t len)
{
	size_t i = 0;

	/* A name pasted together with ## could be any of theirs. */
	for (const char *p = text; (p = memchr(p, '#', (size_t)(text + len - p))); p++)
		if (p + 1 < text + len && p[1] == '#')
			return 1;

	while (i < len) {
		size_t start;

		if (!(isalpha((unsigned char)text[i]) || text[i] == '_')) {
			i++;
			continue;
		}
		start = i;
		while (i < len && (isalnum((unsigned char)text[i]) || text[i] == '_'))
			i++;
		/* A digit run before it is a number's suffix (1.0h is no C++), not a name. */
		if (start && isdigit((unsigned char)text[start - 1]))
			continue;
		if (matches(text + start, i - start))
			return 1;
	}
	return 0;
}

int rj_lean_prelude_fits(const struct rj_compile_req *req)
{
	if (rj_lean_names_small_floats(req->source, strlen(req->source)))
		return 0;
	for (size_t i = 0; i < req->num_headers; i++) {
		const rocjit_header *h = &req->headers[i];
		if (rj_lean_names_small_floats(h->name, strlen(h->name)) ||
		    rj_lean_names_small_floats(h->source,
					       h->length ? h->length : strlen(h->source)))
			return 0;
	}
	if (rj_lean_names_small_floats(req->options->buf, req->options->len))
		return 0;
	for (size_t i = 0; i < req->num_name_expressions; i++)
		if (rj_lean_names_small_floats(req->name_expressions[i],
					       strlen(req->name_expressions[i])))
			return 0;
	return 1;
}
