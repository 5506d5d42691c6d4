// hipCUB's spelling, as HIP kernels write it: one header, names in namespace hipcub,
// the classic operators (hipcub::Max).  rocjit serves it over rocPRIM on AMD and over
// CUDA's CUB on NVIDIA.
#include <hip/hip_runtime.h>
#include <hipcub/hipcub.hpp>

// Per block of 256: the maximum (block), and each warp of 32's sum (warp).
extern "C" __global__ void hipcub_block_max_warp_sums_i32(const int *in, int *block_max,
							   int *warp_sums)
{
	typedef hipcub::BlockReduce<int, 256> BlockReduceT;
	typedef hipcub::WarpReduce<int> WarpReduceT;
	__shared__ typename BlockReduceT::TempStorage tb;
	__shared__ typename WarpReduceT::TempStorage tw[8];
	int x = in[blockIdx.x * 256 + threadIdx.x];
	int m = BlockReduceT(tb).Reduce(x, hipcub::Max());
	int s = WarpReduceT(tw[threadIdx.x / 32]).Sum(x);
	if (threadIdx.x == 0)
		block_max[blockIdx.x] = m;
	if (threadIdx.x % 32 == 0)
		warp_sums[blockIdx.x * 8 + threadIdx.x / 32] = s;
}

// An inclusive block scan through hipcub::BlockScan.
extern "C" __global__ void hipcub_block_inclusive_sum_i32(const int *in, int *out)
{
	typedef hipcub::BlockScan<int, 256> BlockScanT;
	__shared__ typename BlockScanT::TempStorage t;
	int i = blockIdx.x * 256 + threadIdx.x, y;
	BlockScanT(t).InclusiveSum(in[i], y);
	out[i] = y;
}
