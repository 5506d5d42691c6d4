/*
 * cooperative_groups/memcpy_async.h as rocjit serves it to CUDA-dialect sources compiled
 * by hipRTC (AMD): cg::memcpy_async(group, dst, src, bytes), the element-count form, the
 * cuda::aligned_size_t form, and cg::wait / cg::wait_prior<N>.
 *
 * AMD has no asynchronous global-to-shared copy that hipRTC exposes, so the copy is done
 * at once: the members copy a strided share each (16-byte words when both pointers and the
 * size allow, else 4-byte, else bytes), and wait(group) is group.sync().  That is a
 * correct implementation of the contract - the data is only guaranteed to be in dst after
 * wait, and wait is a barrier of the group, which orders every member's stores before every
 * member's later loads - only without the overlap of copy and compute.  wait_prior<N>
 * waits for everything (more than required, never less).
 */
#ifndef ROCJIT_CUDA_CG_MEMCPY_ASYNC_H
#define ROCJIT_CUDA_CG_MEMCPY_ASYNC_H

#include <cooperative_groups.h>
#include <rocjit_cuda_copy.h>

namespace cooperative_groups {
template <class Group>
__device__ inline void memcpy_async(const Group &g, void *dst, const void *src, size_t bytes)
{
	rocjit_cuda::copy_share(dst, src, bytes, (unsigned int)g.thread_rank(),
				(unsigned int)g.size());
}
template <class Group, size_t Align>
__device__ inline void memcpy_async(const Group &g, void *dst, const void *src,
				    cuda::aligned_size_t<Align> bytes)
{
	memcpy_async(g, dst, src, (size_t)bytes);
}
/* Element counts: copies min(dst_count, src_count) elements, as CUDA's layout form. */
template <class Group, class T>
__device__ inline void memcpy_async(const Group &g, T *dst, size_t dst_count, const T *src,
				    size_t src_count)
{
	memcpy_async(g, (void *)dst, (const void *)src,
		     (dst_count < src_count ? dst_count : src_count) * sizeof(T));
}
template <class Group> __device__ inline void wait(const Group &g) { g.sync(); }
template <unsigned int N, class Group> __device__ inline void wait_prior(const Group &g)
{
	g.sync();
}
} /* namespace cooperative_groups */

#endif
