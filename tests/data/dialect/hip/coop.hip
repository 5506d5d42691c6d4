// coop.hip - HIP cooperative groups, compiled for NVIDIA through rocjit's
// hip/hip_cooperative_groups.h (CUDA's cooperative_groups.h).
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

// Sum of 16-lane tiles: out[t] = sum of in[16t .. 16t+15] (integers: exact).
template <unsigned int TileSize>
__device__ int tile_sum(cg::thread_block_tile<TileSize> tile, int v)
{
	for (unsigned int offset = TileSize / 2; offset > 0; offset /= 2)
		v += tile.shfl_down(v, offset);
	return v;
}

extern "C" __global__ void coop_tile_sum_i32(const int *in, int *out)
{
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
	unsigned int i = blockIdx.x * blockDim.x + block.thread_rank();
	int v = tile_sum(tile, in[i]);
	if (tile.thread_rank() == 0)
		out[i / 16] = v;
	block.sync();
}
