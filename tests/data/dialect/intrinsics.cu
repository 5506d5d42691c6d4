// CUDA intrinsics kernels use beyond arithmetic (rocjit's fixture): cache-hinted loads and
// stores, address-space queries, warp matching.
#include <cuda_fp16.h>
#include <memory.h>

// Declarations shared with host code name the runtime's types.
extern cudaError_t rocjit_fixture_last_error(cudaStream_t stream);
struct cudaDeviceProp;
extern const cudaDeviceProp *rocjit_fixture_props;

extern "C" __global__ void hinted_copy(const float *in, float *out, const float4 *in4, float4 *out4,
				       int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = __ldcg(&in[i]) + __ldca(&in[i]) + __ldcs(&in[i]) + __ldlu(&in[i]) +
			  __ldcv(&in[i]);
		__stcs(&out[i], v);
		if (i % 4 == 0) {
			float4 w = __ldcs(&in4[i / 4]);
			__stcg(&out4[i / 4], w);
		}
	}
}

extern "C" __global__ void where_it_points(const float *g, unsigned int *out)
{
	__shared__ float s[32];
	float l[2] = { 0, 1 };
	s[threadIdx.x % 32] = g[0];
	__syncthreads();
	out[threadIdx.x] = __isGlobal(g) | __isShared(s) << 1 | __isGlobal(s) << 2 |
			   (__cvta_generic_to_shared(&s[1]) - __cvta_generic_to_shared(&s[0]) == 4) << 3 |
			   (l[1] > 0) << 4;
}

extern "C" __global__ void match_groups(const int *keys, unsigned int *any, int *all)
{
	int k = keys[threadIdx.x];
	int pred = 0;
	any[threadIdx.x] = __match_any_sync(0xffffffffu, k);
	__match_all_sync(0xffffffffu, k, &pred);
	all[threadIdx.x] = pred;
}

// bf16 with no include of its header, rounded each way; a programmatic-launch wait.
extern "C" __global__ void bf16_directed(const float *x, __nv_bfloat16 *down, __nv_bfloat16 *up,
					 int n)
{
	cudaGridDependencySynchronize();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		down[i] = __float2bfloat16_rd(x[i]);
		up[i] = __float2bfloat16_ru(x[i]);
		memset(&down[n + i], 0, 0);
	}
	cudaTriggerProgrammaticLaunchCompletion();
}
