// coop.hip - HIP cooperative groups and HIP's whole-warp functions next to libcu++,
// compiled for NVIDIA through rocjit's hip/hip_cooperative_groups.h (CUDA's
// cooperative_groups.h, which reaches libcu++'s own `__any`).
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cuda/std/type_traits>

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

// HIP's implicit-mask warp functions over a 32-lane warp: out[w] = sum of the warp's in
// (xor butterfly), out[n/32 + w] = 1 if any lane is > 0, and 2 more if all are.
extern "C" __global__ void hip_warp_sum_votes(const unsigned int n, const int *in, int *out)
{
	static_assert(cuda::std::is_same<decltype(__ballot(1)), unsigned long long>::value,
		      "HIP's ballot is 64-bit");
	unsigned int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
	int v = in[i];
	for (int offset = 16; offset > 0; offset /= 2)
		v += __shfl_xor(v, offset);
	int votes = __any(in[i] > 0) + 2 * __all(in[i] > 0);
	if (i % 32 == 0) {
		out[i / 32] = v;
		out[n / 32 + i / 32] = votes;
	}
}
