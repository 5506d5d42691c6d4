// HIP code that picks its path by the platform macros hipcc defines (rocjit's fixture).
#include <hip/hip_runtime.h>

#if defined(__HIP_PLATFORM_AMD__) && defined(__HIP_PLATFORM_HCC__) && __HIP_PLATFORM_AMD__
#define PLATFORM_WAVE 64
extern "C" __global__ void platform_on_amd(int *out) { out[0] = warpSize; }
#elif defined(__HIP_PLATFORM_NVIDIA__)
#define PLATFORM_WAVE 32
extern "C" __global__ void platform_on_nvidia(int *out) { out[0] = warpSize; }
#else
#error neither platform macro is defined
#endif

#ifdef __HIP_ROCclr__
extern "C" __global__ void platform_rocclr(int *out) { out[0] = PLATFORM_WAVE; }
#endif

#if defined(__HIPCC__) && defined(__HIP__) || defined(__HIP_PLATFORM_NVIDIA__) && defined(__HIPCC__)
extern "C" __global__ void platform_hipcc(int *out) { out[0] = 1; }
#endif

// bf16 after including only hip/hip_runtime.h, as HIP kernel libraries use it.
extern "C" __global__ void platform_bf16(const __hip_bfloat16 *x, float *y)
{
	y[threadIdx.x] = __bfloat162float(x[threadIdx.x]);
}

// clang's native half type by its own name, as HIP kernels write it.
extern "C" __global__ void platform_f16(const _Float16 *x, float *y)
{
	_Float16 two = (_Float16)2.0f;
	y[threadIdx.x] = (float)(x[threadIdx.x] * two);
}
