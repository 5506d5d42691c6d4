/*
 * rocjit_cuda_copy.h - the synchronous copy behind rocjit's stand-ins for CUDA's
 * asynchronous copies on AMD (cooperative_groups/memcpy_async.h, cuda_pipeline.h,
 * <cuda/pipeline>, <cuda/barrier>), and the cuda:: names those APIs share:
 * cuda::aligned_size_t (the size type they take) and cuda::thread_scope.
 */
#ifndef ROCJIT_CUDA_COPY_H
#define ROCJIT_CUDA_COPY_H

namespace cuda {
/* libcu++'s scopes, with its values. */
enum thread_scope {
	thread_scope_system = 0,
	thread_scope_device = 1,
	thread_scope_block = 2,
	thread_scope_thread = 3
};
/* A byte count that the caller promises is a multiple of Align, as are the pointers. */
template <size_t Align> struct aligned_size_t {
	static constexpr size_t align = Align;
	size_t value;
	__host__ __device__ constexpr explicit aligned_size_t(size_t size) : value(size) {}
	__host__ __device__ constexpr operator size_t() const { return value; }
};
} /* namespace cuda */

namespace rocjit_cuda {
/* Copies member `rank` of `count`'s strided share of bytes from src to dst, in the widest
 * words that the pointers and the size allow. */
__device__ inline void copy_share(void *dst, const void *src, size_t bytes, unsigned int rank,
				  unsigned int count)
{
	size_t a = (size_t)dst | (size_t)src | bytes;

	if ((a & 15) == 0) {
		for (size_t i = rank; i < bytes / 16; i += count)
			((uint4 *)dst)[i] = ((const uint4 *)src)[i];
	} else if ((a & 3) == 0) {
		for (size_t i = rank; i < bytes / 4; i += count)
			((unsigned int *)dst)[i] = ((const unsigned int *)src)[i];
	} else {
		for (size_t i = rank; i < bytes; i += count)
			((unsigned char *)dst)[i] = ((const unsigned char *)src)[i];
	}
}
} /* namespace rocjit_cuda */

#endif
