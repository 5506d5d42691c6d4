/*
 * <hipcub/hipcub.hpp> as rocjit serves it to NVRTC: hipCUB's names over CUDA's CUB, as
 * hipCUB's CUDA back end has them (CUB's names in namespace hipcub).  hipcub::Sum, Max and
 * Min are defined here: CUB 3.0 (CUDA 13) dropped cub::Sum and friends for
 * cuda::std::plus<> and cuda::maximum<>, and hipCUB code still names them.
 */
#ifndef ROCJIT_DEVLIB_NVIDIA_HIPCUB_HPP
#define ROCJIT_DEVLIB_NVIDIA_HIPCUB_HPP

#include <cub/cub.cuh>

namespace hipcub {
using namespace ::cub;

struct Sum {
	template <class T> __host__ __device__ __forceinline__ T operator()(const T &a, const T &b) const
	{
		return a + b;
	}
};
struct Max {
	template <class T> __host__ __device__ __forceinline__ T operator()(const T &a, const T &b) const
	{
		return a < b ? b : a;
	}
};
struct Min {
	template <class T> __host__ __device__ __forceinline__ T operator()(const T &a, const T &b) const
	{
		return b < a ? b : a;
	}
};
} // namespace hipcub

#endif
