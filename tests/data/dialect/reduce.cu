// reduce.cu - warp-level reductions, scans and votes with the *_sync intrinsics.
// Launch with blockDim.x a multiple of 32; "warp" below is a 32-thread group
// (w = global thread index / 32), as CUDA defines it, whatever the GPU's wavefront size:
// shuffles pass width 32 or use offsets below 32 (exact on 64-lane wavefronts too).
#include "dialect.cuh"

// out[w] = sum of in[32w .. 32w+31]; float/double sums in xor-butterfly order.
template <typename T>
__device__ void warp_sum_kernel(const T *in, T *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	T v = dl::warp_sum(in[i]);
	if (threadIdx.x % DL_WARP == 0)
		out[i / DL_WARP] = v;
}

// out[w] = max of in[32w .. 32w+31] in the element type (exact; NaN propagates).
template <typename T>
__device__ void warp_max_kernel(const T *in, T *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	T v = dl::warp_max(in[i]);
	if (threadIdx.x % DL_WARP == 0)
		out[i / DL_WARP] = v;
}

#define WARP_REDUCE_OP(T, SUFFIX)                                                         \
	extern "C" __global__ void warp_sum_##SUFFIX(const T *in, T *out)                \
	{                                                                                 \
		warp_sum_kernel<T>(in, out);                                              \
	}                                                                                 \
	extern "C" __global__ void warp_max_##SUFFIX(const T *in, T *out)                \
	{                                                                                 \
		warp_max_kernel<T>(in, out);                                              \
	}
WARP_REDUCE_OP(float, f32)
WARP_REDUCE_OP(double, f64)
WARP_REDUCE_OP(int, i32)

extern "C" __global__ void warp_max_f16(const __half *in, __half *out)
{
	warp_max_kernel<__half>(in, out);
}
#if DL_HAVE_BF16
extern "C" __global__ void warp_max_bf16(const __nv_bfloat16 *in, __nv_bfloat16 *out)
{
	warp_max_kernel<__nv_bfloat16>(in, out);
}
#endif

// out[w] = sum of a warp's halves, accumulated in float (shfl_down tree: lane 0 holds it).
extern "C" __global__ void warp_sum_f16_as_f32(const __half *in, float *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = __half2float(in[i]);
	for (int offset = DL_WARP / 2; offset > 0; offset /= 2)
		v += __shfl_down_sync(DL_FULL_MASK, v, offset);
	if (threadIdx.x % DL_WARP == 0)
		out[i / DL_WARP] = v;
}

// Inclusive prefix sum within each warp (Hillis-Steele with __shfl_up_sync): exact on ints.
extern "C" __global__ void warp_inclusive_scan_i32(const int *in, int *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	int lane = threadIdx.x % DL_WARP;
	int v = in[i];
	for (int d = 1; d < DL_WARP; d *= 2) {
		int up = __shfl_up_sync(DL_FULL_MASK, v, d);
		if (lane >= d)
			v += up;
	}
	out[i] = v;
}

// out[i] = the value of lane src of i's warp (a broadcast; bf16 moves as 16 bits).  The
// width is given, as kernel libraries do: the default is warpSize, a whole wavefront on
// wave64 AMD GPUs.
extern "C" __global__ void warp_broadcast_bf16(const __nv_bfloat16 *in, const int src,
					       __nv_bfloat16 *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = __shfl_sync(DL_FULL_MASK, in[i], src, DL_WARP);
}

// Votes per warp: out[3w] = number of lanes with in > 0 (popc of the ballot),
// out[3w+1] = any lane > 0, out[3w+2] = all lanes > 0.
extern "C" __global__ void warp_votes(const float *in, unsigned int *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	int pred = in[i] > 0.0f;
	unsigned int ballot = __ballot_sync(DL_FULL_MASK, pred);
	int any = __any_sync(__activemask(), pred);
	int all = __all_sync(DL_FULL_MASK, pred);
	__syncwarp();
	if (threadIdx.x % DL_WARP == 0) {
		out[3 * (i / DL_WARP)] = __popc(ballot);
		out[3 * (i / DL_WARP) + 1] = any;
		out[3 * (i / DL_WARP) + 2] = all;
	}
}

// Block-wide sum (any blockDim.x multiple of 32, up to 1024): warp sums, then the first
// warp sums the per-warp results from shared memory.  out[blockIdx.x] = sum of the block.
extern "C" __global__ void block_sum_f32(const float *in, float *out)
{
	__shared__ float partial[32];
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int warp = threadIdx.x / DL_WARP, lane = threadIdx.x % DL_WARP;
	float v = dl::warp_sum(in[i]);
	if (lane == 0)
		partial[warp] = v;
	__syncthreads();
	if (warp == 0) {
		// min(unsigned, blockDim.x): CUDA's unsigned overload (HIP has none).
		v = lane < min(blockDim.x, 1024u) / DL_WARP ? partial[lane] : 0.0f;
		v = dl::warp_sum(v);
		if (lane == 0)
			out[blockIdx.x] = v;
	}
}
