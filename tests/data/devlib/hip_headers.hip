// Fixture for test_devlib.c: HIP headers hipRTC 5.2 builds in (and 5.7 does not ship),
// through rocjit's stand-ins, with the macros hipRTC's built-in header loses.
#include <hip/hip_runtime.h>
#include <hip/hip_runtime_api.h>
#include <hip/hip_fp16.h>
#include <hip/hip_vector_types.h>
#include <hip/hip_math_constants.h>
#include <hip/hip_cooperative_groups.h>

#ifndef __HIP_PLATFORM_AMD__
#error "__HIP_PLATFORM_AMD__ is not defined"
#endif
#if __HIP_ARCH_HAS_DOUBLES__ != 1
#error "__HIP_ARCH_HAS_DOUBLES__ is not 1"
#endif

namespace cg = cooperative_groups;

extern "C" __global__ void hip_headers_half(const __half *x, __half *y, uint8_t *flags)
{
	unsigned i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
	__half h = __float2half(__half2float(x[i]) * HIP_PI_F);
	y[i] = __hadd(h, x[i]);
	flags[i] = static_cast<uint8_t>(__hisnan(h));
}

extern "C" __global__ void hip_headers_groups(unsigned *out)
{
	cg::thread_block block = cg::this_thread_block();
	HIP_DYNAMIC_SHARED(unsigned, scratch)
	scratch[block.thread_rank()] = block.thread_rank();
	block.sync();
	cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
	out[block.thread_rank()] = scratch[block.size() - 1 - block.thread_rank()] + tile.thread_rank();
}
