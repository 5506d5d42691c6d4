/*
 * half_math.cu - a header-heavy benchmark kernel set (issue 32): fp16 and bf16 arithmetic
 * through cuda_fp16.h and cuda_bf16.h, written as a CUDA project writes it.
 *
 * Kernels (extern "C", 1-D grid-stride loops, any block size):
 *   scale_bias_h2(int n2, __half2 s, __half2 b, const __half2 *x, __half2 *y)
 *   gelu_bf16(int n, const __nv_bfloat16 *x, __nv_bfloat16 *y)
 *   mixed_dot(int n, const __half *a, const __nv_bfloat16 *b, float *out)  (atomicAdd)
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void scale_bias_h2(int n2, __half2 s, __half2 b, const __half2 *x,
					 __half2 *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += gridDim.x * blockDim.x)
		y[i] = __hfma2(x[i], s, b);
}

extern "C" __global__ void gelu_bf16(int n, const __nv_bfloat16 *x, __nv_bfloat16 *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		float v = __bfloat162float(x[i]);
		float g = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
		y[i] = __float2bfloat16_rn(g);
	}
}

extern "C" __global__ void mixed_dot(int n, const __half *a, const __nv_bfloat16 *b,
				     float *out)
{
	float acc = 0.0f;

	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		acc += __half2float(a[i]) * __bfloat162float(b[i]);
	for (int o = 16; o > 0; o >>= 1)
		acc += __shfl_down_sync(0xffffffffu, acc, o);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(out, acc);
}
