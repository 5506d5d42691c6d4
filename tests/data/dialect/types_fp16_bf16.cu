// types_fp16_bf16.cu - CUDA's half and bfloat16 headers included together, the way
// mixed-precision kernels use them: brace-initialised half2/bfloat162 accumulators and
// __hadd on half and on bf16 operands side by side (each overload picked by its type).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// out[i] = (half(x[2i]) + half(x[2i+1]), bf16(x[2i]) + bf16(x[2i+1]) as float).
extern "C" __global__ void mix_fp16_bf16_add(const unsigned int n, const float *x, float2 *out)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		half2 h = {};
		__nv_bfloat162 b = {};
		h = __hadd2(h, __floats2half2_rn(x[2 * i], x[2 * i + 1]));
		b = __hadd2(b, __floats2bfloat162_rn(x[2 * i], x[2 * i + 1]));
		__half hs = __hadd(__low2half(h), __high2half(h));
		__nv_bfloat16 bs = __hadd(__low2bfloat16(b), __high2bfloat16(b));
		out[i] = make_float2(__half2float(hs), __bfloat162float(bs));
	}
}
