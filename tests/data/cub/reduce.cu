// Block and warp reductions written the way kernels use CUB: a typedef of the primitive,
// its TempStorage in shared memory (a union where phases reuse it), the result taken in
// thread or lane 0.  rocjit serves the cub headers over rocPRIM on AMD; NVRTC reads CCCL's.
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

// A custom reduction operator: the larger magnitude, sign kept.
struct AbsMax {
	__device__ __forceinline__ float operator()(float a, float b) const
	{
		return fabsf(b) > fabsf(a) ? b : a;
	}
};

struct MaxOp {
	__device__ __forceinline__ int operator()(int a, int b) const { return a > b ? a : b; }
};

// One partial sum per block of 256.
extern "C" __global__ void cub_block_sum_f32(const float *in, float *out, int n)
{
	typedef cub::BlockReduce<float, 256> BlockReduceT;
	__shared__ typename BlockReduceT::TempStorage temp;
	int i = blockIdx.x * 256 + threadIdx.x;
	float x = i < n ? in[i] : 0.0f;
	float sum = BlockReduceT(temp).Sum(x);
	if (threadIdx.x == 0)
		out[blockIdx.x] = sum;
}

// The last block is partial: Sum over the valid threads only.
extern "C" __global__ void cub_block_sum_valid_f32(const float *in, float *out, int n)
{
	typedef cub::BlockReduce<float, 256, cub::BLOCK_REDUCE_RAKING> BlockReduceT;
	__shared__ typename BlockReduceT::TempStorage temp;
	int base = blockIdx.x * 256;
	int valid = n - base < 256 ? n - base : 256;
	float x = threadIdx.x < valid ? in[base + threadIdx.x] : 0.0f;
	float sum = BlockReduceT(temp).Sum(x, valid);
	if (threadIdx.x == 0)
		out[blockIdx.x] = sum;
}

// Four items a thread (128 threads, 512 a block), maximum with a custom operator.
extern "C" __global__ void cub_block_max_items_i32(const int *in, int *out)
{
	typedef cub::BlockReduce<int, 128> BlockReduceT;
	__shared__ typename BlockReduceT::TempStorage temp;
	int items[4];
	for (int k = 0; k < 4; k++)
		items[k] = in[blockIdx.x * 512 + threadIdx.x * 4 + k];
	int m = BlockReduceT(temp).Reduce(items, MaxOp());
	if (threadIdx.x == 0)
		out[blockIdx.x] = m;
}

// Warp sums: 8 warps of 32 in a block of 256, one TempStorage each.
extern "C" __global__ void cub_warp_sum_f32(const float *in, float *out)
{
	typedef cub::WarpReduce<float> WarpReduceT;
	__shared__ typename WarpReduceT::TempStorage temp[8];
	int warp = threadIdx.x / 32;
	float s = WarpReduceT(temp[warp]).Sum(in[blockIdx.x * 256 + threadIdx.x]);
	if (threadIdx.x % 32 == 0)
		out[blockIdx.x * 8 + warp] = s;
}

// Logical warps of 16 with a custom operator.
extern "C" __global__ void cub_warp16_absmax_f32(const float *in, float *out)
{
	typedef cub::WarpReduce<float, 16> WarpReduceT;
	__shared__ typename WarpReduceT::TempStorage temp[16];
	int w = threadIdx.x / 16;
	float m = WarpReduceT(temp[w]).Reduce(in[blockIdx.x * 256 + threadIdx.x], AbsMax());
	if (threadIdx.x % 16 == 0)
		out[blockIdx.x * 16 + w] = m;
}

// A partial warp: the first `valid` lanes of each warp of 32.
extern "C" __global__ void cub_warp_sum_valid_i32(const int *in, int *out, int valid)
{
	typedef cub::WarpReduce<int> WarpReduceT;
	__shared__ typename WarpReduceT::TempStorage temp[8];
	int warp = threadIdx.x / 32;
	int x = threadIdx.x % 32 < valid ? in[blockIdx.x * 256 + threadIdx.x] : 0;
	int s = WarpReduceT(temp[warp]).Sum(x, valid);
	if (threadIdx.x % 32 == 0)
		out[blockIdx.x * 8 + warp] = s;
}
