/*
 * cuda_pipeline_primitives.h as rocjit serves it to CUDA-dialect sources compiled by
 * hipRTC (AMD): __pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior.
 *
 * On NVIDIA these issue cp.async, a per-thread copy from global to shared memory that
 * completes later.  hipRTC exposes no such copy on AMD, so the calling thread copies at
 * once and commit/wait are no-ops.  That is correct, not just close: CUDA guarantees the
 * data to the *calling thread* only after its wait_prior, and to other threads only after
 * a barrier (__syncthreads) that code already has; a copy finished before the call meets
 * both.  Only the overlap of copy and compute is lost.
 */
#ifndef ROCJIT_CUDA_PIPELINE_PRIMITIVES_H
#define ROCJIT_CUDA_PIPELINE_PRIMITIVES_H

#include <rocjit_cuda_copy.h>

/* size_and_align is 4, 8 or 16 as in CUDA; the last zfill bytes of dst are zeroed. */
__device__ inline void __pipeline_memcpy_async(void *dst_shared, const void *src_global,
					       size_t size_and_align, size_t zfill = 0)
{
	size_t copy = size_and_align - zfill;

	rocjit_cuda::copy_share(dst_shared, src_global, copy, 0, 1);
	for (size_t i = copy; i < size_and_align; i++)
		((unsigned char *)dst_shared)[i] = 0;
}
__device__ inline void __pipeline_commit() {}
__device__ inline void __pipeline_wait_prior(size_t prior) { (void)prior; }

#endif
