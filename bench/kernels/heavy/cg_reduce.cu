/*
 * cg_reduce.cu - a header-heavy benchmark kernel set (issue 32): cooperative groups, their
 * reduce and scan collectives, and tiled partitions.
 *
 * Kernels (extern "C", 1-D, block size a multiple of 32, at most 1024):
 *   cg_sum(int n, const float *x, float *out)        block sum, one atomicAdd per block
 *   cg_max_i32(int n, const int *x, int *out)         block max, one atomicMax per block
 *   cg_tile_scan(int n, const float *x, float *y)     inclusive scan within each 32-tile
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_sum(int n, const float *x, float *out)
{
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
	float v = 0.0f;

	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		v += x[i];
	v = cg::reduce(warp, v, cg::plus<float>());
	if (warp.thread_rank() == 0)
		atomicAdd(out, v);
}

extern "C" __global__ void cg_max_i32(int n, const int *x, int *out)
{
	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
	int v = -2147483647 - 1;

	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		v = max(v, x[i]);
	v = cg::reduce(warp, v, cg::greater<int>());
	if (warp.thread_rank() == 0)
		atomicMax(out, v);
}

extern "C" __global__ void cg_tile_scan(int n, const float *x, float *y)
{
	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? x[i] : 0.0f;

	v = cg::inclusive_scan(warp, v);
	if (i < n)
		y[i] = v;
}
