// types.hip - HIP's 16- and 8-bit float headers and names, compiled for NVIDIA through
// rocjit's devlib/nvidia/hip stand-ins (HIP names mapped onto CUDA's types).
// Each kernel: one thread per element, i < n.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <hip/hip_bfloat16.h>
#include <hip/hip_fp8.h>
#include <hip/hip_math_constants.h>
#include <hip/hip_vector_types.h>
#include <hip/hip_runtime_api.h>

// out = half(x) * 2 + 1, back to float.
extern "C" __global__ void hip_half_axpb(const unsigned int n, const float *x, float *out)
{
	unsigned int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
	if (i < n) {
		__half h = __float2half(x[i]);
		h = __hfma(h, __float2half(2.0f), HIPRT_ONE_FP16);
		out[i] = __half2float(h);
	}
}

// out = bf16 max(x, y) (NaN propagating), and the old hip_bfloat16 class's sum.
extern "C" __global__ void hip_bf16_max(const unsigned int n, const __hip_bfloat16 *x,
					const __hip_bfloat16 *y, __hip_bfloat16 *out)
{
	unsigned int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
	if (i < n)
		out[i] = __hmax_nan(x[i], y[i]);
}
extern "C" __global__ void hip_bfloat16_add(const unsigned int n, const hip_bfloat16 *x,
					    const hip_bfloat16 *y, hip_bfloat16 *out)
{
	unsigned int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
	if (i < n)
		out[i] = x[i] + y[i];
}

// float -> OCP fp8 (satfinite) -> float, both formats: out[2i] e4m3, out[2i+1] e5m2.
extern "C" __global__ void hip_fp8_roundtrip(const unsigned int n, const float *x, float *out)
{
	unsigned int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
	if (i < n) {
		__hip_fp8_e4m3 a(x[i]);
		__hip_fp8_e5m2 b(x[i]);
		out[2 * i] = float(a);
		__hip_fp8_storage_t raw = __hip_cvt_float_to_fp8(x[i], __HIP_SATFINITE, __HIP_E5M2);
		out[2 * i + 1] = __half2float(__half(__hip_cvt_fp8_to_halfraw(raw, __HIP_E5M2))) + 0.0f * float(b);
	}
}

// Texture object handle under HIP's name: out = tex1Dfetch(tex, i) * HIP_PI_F.
extern "C" __global__ void hip_texture_scale(const unsigned int n, hipTextureObject_t tex, float *out)
{
	unsigned int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
	if (i < n)
		out[i] = tex1Dfetch<float>(tex, (int)i) * HIP_PI_F;
}

// Feature macros HIP code tests: the kernel writes 1 only if all are set.
extern "C" __global__ void hip_arch_features(int *out)
{
#if __HIP_ARCH_HAS_DOUBLES__ == 1 && __HIP_ARCH_HAS_WARP_SHUFFLE__ == 1 && __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__ == 1
	out[0] = 1;
#else
	out[0] = 0;
#endif
	out[1] = (int)__lane_id();
}
