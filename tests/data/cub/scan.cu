// Block and warp scans written the way kernels use CUB: sums with the block's aggregate,
// a thread's items in blocked order, scans with an operator and an initial value.
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_scan.cuh>

struct MaxOp {
	__device__ __forceinline__ int operator()(int a, int b) const { return a > b ? a : b; }
};

// One item a thread, 256 threads; the block's total to totals[blockIdx.x].
extern "C" __global__ void cub_block_inclusive_sum_i32(const int *in, int *out, int *totals)
{
	typedef cub::BlockScan<int, 256> BlockScanT;
	__shared__ typename BlockScanT::TempStorage temp;
	int i = blockIdx.x * 256 + threadIdx.x;
	int x = in[i], y, total;
	BlockScanT(temp).InclusiveSum(x, y, total);
	out[i] = y;
	if (threadIdx.x == 0)
		totals[blockIdx.x] = total;
}

// Four items a thread in blocked order (128 threads, 512 a block), exclusive.
extern "C" __global__ void cub_block_exclusive_sum_items_i32(const int *in, int *out)
{
	typedef cub::BlockScan<int, 128, cub::BLOCK_SCAN_WARP_SCANS> BlockScanT;
	__shared__ typename BlockScanT::TempStorage temp;
	int items[4];
	int base = blockIdx.x * 512 + threadIdx.x * 4;
	for (int k = 0; k < 4; k++)
		items[k] = in[base + k];
	BlockScanT(temp).ExclusiveSum(items, items);
	for (int k = 0; k < 4; k++)
		out[base + k] = items[k];
}

// A running maximum over the block, seeded with a floor.
extern "C" __global__ void cub_block_exclusive_max_i32(const int *in, int *out, int floor)
{
	typedef cub::BlockScan<int, 256> BlockScanT;
	__shared__ typename BlockScanT::TempStorage temp;
	int i = blockIdx.x * 256 + threadIdx.x;
	int y;
	BlockScanT(temp).ExclusiveScan(in[i], y, floor, MaxOp());
	out[i] = y;
}

// Warp prefix sums, inclusive and exclusive, with each warp's total.
extern "C" __global__ void cub_warp_scans_i32(const int *in, int *incl, int *excl, int *totals)
{
	typedef cub::WarpScan<int> WarpScanT;
	__shared__ typename WarpScanT::TempStorage temp[8];
	int warp = threadIdx.x / 32;
	int i = blockIdx.x * 256 + threadIdx.x;
	int a, b, total;
	WarpScanT(temp[warp]).InclusiveSum(in[i], a);
	__syncwarp();
	WarpScanT(temp[warp]).ExclusiveSum(in[i], b, total);
	incl[i] = a;
	excl[i] = b;
	if (threadIdx.x % 32 == 0)
		totals[blockIdx.x * 8 + warp] = total;
}
