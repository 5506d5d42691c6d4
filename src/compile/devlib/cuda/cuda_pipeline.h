/*
 * cuda_pipeline.h as rocjit serves it to CUDA-dialect sources compiled by hipRTC (AMD):
 * the primitives (cuda_pipeline_primitives.h) and nvcuda::experimental::pipeline with
 * memcpy_async(dst, src, pipe).  The copies are synchronous (see the primitives' header:
 * correct, without the overlap); the pipeline's commit/wait calls have nothing to wait for.
 * For cuda::pipeline / cuda::memcpy_async (<cuda/pipeline>) see the README.
 */
#ifndef ROCJIT_CUDA_PIPELINE_H
#define ROCJIT_CUDA_PIPELINE_H

#include "cuda_pipeline_primitives.h"

namespace nvcuda {
namespace experimental {
class pipeline {
public:
	__device__ pipeline() {}
	__device__ void commit() {}
	__device__ void commit_and_wait() {}
	__device__ void wait_prior_runtime(size_t prior) { (void)prior; }
	template <unsigned int N> __device__ void wait_prior() {}
};
template <class T> __device__ inline void memcpy_async(T &dst, const T &src, pipeline &pipe)
{
	(void)pipe;
	rocjit_cuda::copy_share(&dst, &src, sizeof(T), 0, 1);
}
template <class T, size_t DstN, size_t SrcN>
__device__ inline void memcpy_async(T (*dst)[DstN], const T (*src)[SrcN], pipeline &pipe)
{
	(void)pipe;
	rocjit_cuda::copy_share(dst, src, (DstN < SrcN ? DstN : SrcN) * sizeof(T), 0, 1);
}
} /* namespace experimental */
} /* namespace nvcuda */

#endif
