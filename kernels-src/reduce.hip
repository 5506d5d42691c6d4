/*
 * reduce.hip - block reductions of a float vector to one partial result per block.
 *
 * Kernels
 *   reduce_sum_f32(int n, const float *x, float *partial)  partial[b] = sum of block b's share
 *   reduce_max_f32(int n, const float *x, float *partial)  partial[b] = max of block b's share
 *                                           (fmaxf: NaNs are ignored; -inf for an empty share)
 *
 * Launch contract (both kernels)
 *   block:  1-D, blockDim.x a multiple of warpSize (32 on NVIDIA and RDNA in wave32, 64 on
 *           CDNA/GCN) and at most 1024.  256 works everywhere.  A partial warp is not
 *           allowed: the warp shuffles assume every lane of a warp is running.
 *   grid:   1-D, any size G >= 1.  Each block strides over x with step G * blockDim.x.
 *   shared: 0 bytes of dynamic shared memory (128 bytes static).
 *   output: partial must hold G floats; block b writes partial[b] (n <= 0: the identity,
 *           0 or -inf).
 *   Full result: launch again with n = G, x = partial, grid = 1 (and a different output
 *   buffer, or in place: one block reads all of x before writing partial[0]), or add the G
 *   partials on the host.  The order of additions depends on G and blockDim.x, so sums are
 *   reproducible for a fixed launch configuration only.
 *
 * Portable HIP only: builds with hipRTC (AMD) and with NVRTC behind a HIP preamble that maps
 * __shfl_xor(v, m) to __shfl_xor_sync(0xffffffffu, v, m).
 */
#include <hip/hip_runtime.h>

/* Warps in the largest block (1024 threads) at the smallest warp size (32). */
#define REDUCE_MAX_WARPS 32

struct reduce_op_sum {
	__device__ static float identity() { return 0.0f; }
	__device__ static float apply(float a, float b) { return a + b; }
};

struct reduce_op_max {
	__device__ static float identity() { return __int_as_float((int)0xff800000u); /* -inf */ }
	__device__ static float apply(float a, float b) { return fmaxf(a, b); }
};

/* Butterfly over the warp: every lane ends with the warp's result. */
template <typename Op>
__device__ static float reduce_warp(float v)
{
	for (int mask = warpSize / 2; mask > 0; mask /= 2)
		v = Op::apply(v, __shfl_xor(v, mask));
	return v;
}

template <typename Op>
__device__ static void reduce_block(int n, const float *x, float *partial)
{
	__shared__ float warp_results[REDUCE_MAX_WARPS];
	int tid = (int)threadIdx.x;
	int lane = tid % warpSize;
	int warp = tid / warpSize;
	int nwarps = (int)blockDim.x / warpSize;
	int stride = (int)(blockDim.x * gridDim.x);
	float v = Op::identity();

	for (int i = (int)(blockIdx.x * blockDim.x) + tid; i < n; i += stride)
		v = Op::apply(v, x[i]);

	v = reduce_warp<Op>(v);
	if (lane == 0)
		warp_results[warp] = v;
	__syncthreads();

	/* The first warp folds the per-warp results; all its lanes take part in the shuffles. */
	if (warp == 0) {
		v = lane < nwarps ? warp_results[lane] : Op::identity();
		v = reduce_warp<Op>(v);
		if (lane == 0)
			partial[blockIdx.x] = v;
	}
}

extern "C" __global__ void reduce_sum_f32(int n, const float *x, float *partial)
{
	reduce_block<reduce_op_sum>(n, x, partial);
}

extern "C" __global__ void reduce_max_f32(int n, const float *x, float *partial)
{
	reduce_block<reduce_op_max>(n, x, partial);
}
