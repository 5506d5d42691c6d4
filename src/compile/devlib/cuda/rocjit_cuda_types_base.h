/*
 * rocjit_cuda_types_base.h - what rocjit's CUDA type headers (cuda_fp16.h, cuda_bf16.h,
 * cuda_fp8.h) build on, apart from the CUDA-dialect prelude.  They are included two ways on
 * AMD: by CUDA-dialect sources, after the force-included prelude (rocjit_cuda_dialect.h),
 * and by HIP sources through HIP's type headers (hip/hip_fp16.h, hip/hip_bf16.h,
 * hip/hip_fp8.h are CUDA's types under HIP's names, on AMD as on NVIDIA).  A HIP source
 * must not get the prelude: it would define __CUDA_ARCH__ and __CUDACC__ there and send
 * portable code down its NVIDIA paths.  So the type headers include this instead.
 *
 * Owns: ROCJIT_CUDA_FALLBACK where the prelude has not defined it (the same text), and
 * namespace rocjit_cuda_types.  The prelude's rocjit_cuda::cas_update is the same loop;
 * the prelude could use this one (it is kept apart so neither header redefines the other's
 * names, whatever order a source includes them in).
 */
#ifndef ROCJIT_CUDA_TYPES_BASE_H
#define ROCJIT_CUDA_TYPES_BASE_H

/* See rocjit_cuda_dialect.h: a template that yields to a HIP built-in of the same
 * signature. */
#ifndef ROCJIT_CUDA_FALLBACK
#define ROCJIT_CUDA_FALLBACK template <int rocjit_fallback_ = 0>
#endif

namespace rocjit_cuda_types {
/* Applies next(old) to *address until no other thread wrote in between; returns the old
 * word.  16- and 32-bit words: clang's HIP atomic builtin takes both (LLVM widens a 16-bit
 * compare-and-swap to a 32-bit loop where the GPU has none), so HIP sources get the 16-bit
 * atomics (atomicAdd on __half, bf16) without the prelude's 16-bit atomicCAS. */
template <class W, class F> __device__ inline W cas_loop(W *address, F next)
{
	W seen = __hip_atomic_load(address, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
	/* On failure the builtin stores the word it found in seen: try again from there. */
	while (!__hip_atomic_compare_exchange_strong(address, &seen, next(seen), __ATOMIC_RELAXED,
						     __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT))
		;
	return seen;
}
} /* namespace rocjit_cuda_types */

#endif
