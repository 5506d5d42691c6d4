// coop_tex.cu - CUDA 11/12 device APIs beyond the warp intrinsics, used as kernel code uses
// them: cooperative-groups collectives (cg::reduce, scans, meta_group_rank), asynchronous
// copies (cg::memcpy_async, the __pipeline primitives), texture objects and clock().
// Launch with blockDim.x = 128 (four 32-thread tiles per block).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>
#include <cuda/pipeline>
#include <cuda/barrier>

namespace cg = cooperative_groups;

// libcu++'s __shared__ barrier and pipeline state, as CUDA's guide declares them.
#pragma nv_diag_suppress static_var_with_dynamic_init

#define CT_BLOCK 128

// out[t] = sum of in[32t .. 32t+31], t the tile's index in the grid from meta_group_rank.
extern "C" __global__ void cg_tile_sum_i32(const int *in, int *out)
{
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
	unsigned int i = blockIdx.x * blockDim.x + block.thread_rank();
	int sum = cg::reduce(tile, in[i], cg::plus<int>());
	if (tile.thread_rank() == 0)
		out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = sum;
}

// 16-lane tiles: out[2t] = max, out[2t+1] = min of in[16t .. 16t+15] (exact).
extern "C" __global__ void cg_tile_maxmin_f32(const float *in, float *out)
{
	auto tile = cg::tiled_partition<16>(cg::this_thread_block());
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	float hi = cg::reduce(tile, in[i], cg::greater<float>());
	float lo = cg::reduce(tile, in[i], cg::less<float>());
	if (tile.thread_rank() == 0) {
		out[2 * (i / 16)] = hi;
		out[2 * (i / 16) + 1] = lo;
	}
}

// 8-lane tiles of 32-lane tiles: out[3t..3t+2] = and, or, xor of in[8t .. 8t+7]; the
// sub-tile's meta_group_rank within its 32-lane parent must be (i % 32) / 8.
extern "C" __global__ void cg_subtile_bits_u32(const unsigned int *in, unsigned int *out)
{
	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
	cg::thread_block_tile<8> tile = cg::tiled_partition<8>(warp);
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int v = in[i];
	unsigned int a = cg::reduce(tile, v, cg::bit_and<unsigned int>());
	unsigned int o = cg::reduce(tile, v, cg::bit_or<unsigned int>());
	unsigned int x = cg::reduce(tile, v, cg::bit_xor<unsigned int>());
	if (tile.thread_rank() == 0 && tile.meta_group_rank() == (i % 32) / 8 &&
	    tile.meta_group_size() == 4) {
		out[3 * (i / 8)] = a;
		out[3 * (i / 8) + 1] = o;
		out[3 * (i / 8) + 2] = x;
	}
}

// Per 32-lane tile: inc[i] = in[32t] + ... + in[i], exc[i] = inc[i] - in[i] (rank 0: 0).
extern "C" __global__ void cg_tile_scan_i32(const int *in, int *inc, int *exc)
{
	auto tile = cg::tiled_partition<32>(cg::this_thread_block());
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	inc[i] = cg::inclusive_scan(tile, in[i]);
	int e = cg::exclusive_scan(tile, in[i], cg::plus<int>());
	exc[i] = tile.thread_rank() == 0 ? 0 : e;
}

// Threads with a positive input form a coalesced group per warp (32 lanes, or the 64-lane
// wavefront on gfx9) and count and sum themselves: out[i] = size * 65536 + sum for them,
// -1 for the others.  The host reference groups the active lanes the same way.
extern "C" __global__ void cg_coalesced_sum_i32(const int *in, int *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	int r = -1;
	if (in[i] > 0) {
		cg::coalesced_group active = cg::coalesced_threads();
		int sum = cg::reduce(active, in[i], cg::plus<int>());
		r = (int)active.num_threads() * 65536 + sum;
	}
	out[i] = r;
}

// Partitions of a 32-lane tile by a predicate and by a label (CUDA 11), and match_any:
// out[i] = 65536 * (lanes of the warp with the same sign class: > 0 or not)
//        + 256 * (lanes with the same label v & 3) + (the same count from match_any).
extern "C" __global__ void cg_partition_counts_i32(const int *in, int *out)
{
	auto warp = cg::tiled_partition<32>(cg::this_thread_block());
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	int v = in[i];
	cg::coalesced_group sign = cg::binary_partition(warp, v > 0);
	cg::coalesced_group label = cg::labeled_partition(warp, v & 3);
	unsigned int same = warp.match_any(v & 3);
	out[i] = (int)(65536 * sign.num_threads() + 256 * label.num_threads()) + __popc(same);
}

// The block's slice of in, staged in shared memory by cg::memcpy_async, read reversed:
// out[b * 128 + t] = 2 * in[b * 128 + 127 - t].
extern "C" __global__ void cg_memcpy_async_reverse_f32(const float *in, float *out)
{
	__shared__ float stage[CT_BLOCK];
	cg::thread_block block = cg::this_thread_block();
	cg::memcpy_async(block, stage, in + blockIdx.x * CT_BLOCK, sizeof(float) * CT_BLOCK);
	cg::wait(block);
	out[blockIdx.x * CT_BLOCK + threadIdx.x] = 2.0f * stage[CT_BLOCK - 1 - threadIdx.x];
}

// The same staged with the per-thread pipeline primitives (one float4 per thread for the
// first 32 threads: 512 bytes), then a barrier: out[b*128+t] = in[b*128 + 127 - t] + 1.
extern "C" __global__ void pipeline_reverse_f32(const float *in, float *out)
{
	__shared__ float4 stage[CT_BLOCK / 4];
	const float4 *src = reinterpret_cast<const float4 *>(in + blockIdx.x * CT_BLOCK);
	if (threadIdx.x < CT_BLOCK / 4)
		__pipeline_memcpy_async(&stage[threadIdx.x], &src[threadIdx.x], sizeof(float4));
	__pipeline_commit();
	__pipeline_wait_prior(0);
	__syncthreads();
	const float *s = reinterpret_cast<const float *>(stage);
	out[blockIdx.x * CT_BLOCK + threadIdx.x] = s[CT_BLOCK - 1 - threadIdx.x] + 1.0f;
}

// libcu++'s block pipeline, two stages, as CUDA's programming guide stages batches: the
// block doubles batches b = 0 .. batches-1 of 128 floats at block * 128 + b * grid * 128.
extern "C" __global__ void cuda_pipeline_double_f32(const float *in, float *out, int batches)
{
	constexpr int stages = 2;
	__shared__ float stage[stages][CT_BLOCK];
	__shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
	cg::thread_block block = cg::this_thread_block();
	cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);
	size_t stride = (size_t)gridDim.x * CT_BLOCK, base = (size_t)blockIdx.x * CT_BLOCK;

	for (int compute = 0, fetch = 0; compute < batches; compute++) {
		for (; fetch < batches && fetch < compute + stages; fetch++) {
			pipe.producer_acquire();
			cuda::memcpy_async(block, stage[fetch % stages], in + base + fetch * stride,
					   sizeof(float) * CT_BLOCK, pipe);
			pipe.producer_commit();
		}
		pipe.consumer_wait();
		out[base + compute * stride + threadIdx.x] = 2.0f * stage[compute % stages][threadIdx.x];
		pipe.consumer_release();
	}
}

// libcu++'s block barrier completing a group copy: out[b*128+t] = in[b*128 + 127 - t] - 1,
// then a second phase of the same barrier (its count reset): out[...] += 0 * phase.
extern "C" __global__ void cuda_barrier_reverse_f32(const float *in, float *out)
{
	__shared__ float stage[CT_BLOCK];
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	cg::thread_block block = cg::this_thread_block();

	if (block.thread_rank() == 0)
		init(&bar, block.size());
	block.sync();
	cuda::memcpy_async(block, stage, in + blockIdx.x * CT_BLOCK, sizeof(float) * CT_BLOCK, bar);
	bar.arrive_and_wait();
	float v = stage[CT_BLOCK - 1 - threadIdx.x] - 1.0f;
	bar.arrive_and_wait();
	out[blockIdx.x * CT_BLOCK + threadIdx.x] = v;
}

// A texture object read point-wise: out[i] = 3 * tex1Dfetch(tex, i).
extern "C" __global__ void tex1dfetch_scale_f32(cudaTextureObject_t tex, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 3.0f * tex1Dfetch<float>(tex, i);
}

// Filtered 2D reads and a 2D surface write (compile check: the handles and fetches).
extern "C" __global__ void tex2d_to_surface_f32(cudaTextureObject_t tex, cudaSurfaceObject_t surf,
						int width, int height)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
	if (x < width && y < height) {
		float v = tex2D<float>(tex, x + 0.5f, y + 0.5f);
		float4 w = tex2D<float4>(tex, x + 0.5f, y + 0.5f);
		surf2Dwrite(v + w.x, surf, x * (int)sizeof(float), y, cudaBoundaryModeZero);
	}
}

// Timing as kernels do it: out[i] = 1 when both clocks moved over a loop (clock() is a
// 32-bit counter on NVIDIA: its difference is taken modulo 2^32, as timing code does).
extern "C" __global__ void clock_elapsed(const float *in, int *out, float *sink)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	clock_t start = clock();
	long long start64 = clock64();
	float acc = in[i];
	for (int k = 0; k < 64; k++)
		acc = acc * 0.999f + 1.0f;
	sink[i] = acc;
	clock_t stop = clock();
	long long stop64 = clock64();
	out[i] = ((unsigned int)(stop - start) != 0u && stop64 - start64 > 0) ? 1 : 0;
}
