// dialect.cuh - shared helpers of rocjit's CUDA-dialect fixtures (tests/data/dialect/*.cu),
// written in the style of a CUDA kernel library: one source for NVIDIA (NVRTC, sm_XY) and,
// through rocjit's CUDA dialect, AMD (hipRTC, gfxNNN).  No standard-library header here:
// those fixtures are in std_*.cu (they need rocjit's device standard library).
#pragma once

#include "cuda_fp16.h"
#include "cuda_bf16.h"
#include <cuda_fp8.h>

#define DL_WARP 32
#define DL_FULL_MASK 0xffffffffu

// Feature gate as kernel libraries write it.  rocjit defines __CUDA_ARCH__ = 800 for AMD
// targets, so the Ampere path is the one compiled there; the old-GPU path would not
// compile anywhere (it names a function that does not exist), so taking it fails loudly.
#if __CUDA_ARCH__ >= 800
#define DL_HAVE_BF16 1
#else
#define DL_HAVE_BF16 0
#define DL_OLD_GPU_ONLY(x) dl_old_gpu_without_bf16_support(x)
#endif

// A fallback the way older libraries wrote one: atomicAdd(double*) for pre-Pascal GPUs.
// On a GPU (or dialect) with __CUDA_ARCH__ >= 600 it must stay out: compiled, it would
// redefine the built-in atomicAdd(double*).
#if __CUDA_ARCH__ < 600
__device__ double atomicAdd(double *address, double val)
{
	return DL_OLD_GPU_ONLY(val);
}
#endif

namespace dl {

// Conversions to and from float for every element type the fixtures use.
template <typename T> __device__ __forceinline__ float to_float(T x) { return static_cast<float>(x); }
template <> __device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
template <> __device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <> __device__ __forceinline__ float to_float(__nv_fp8_e4m3 x)
{
	return __half2float(__nv_cvt_fp8_to_halfraw(x.__x, __NV_E4M3));
}
template <> __device__ __forceinline__ float to_float(__nv_fp8_e5m2 x) { return float(x); }

template <typename T> __device__ __forceinline__ T from_float(float x) { return static_cast<T>(x); }
template <> __device__ __forceinline__ __half from_float(float x) { return __float2half(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float(float x) { return __float2bfloat16(x); }
template <> __device__ __forceinline__ __nv_fp8_e4m3 from_float(float x) { return __nv_fp8_e4m3(x); }
template <> __device__ __forceinline__ __nv_fp8_e5m2 from_float(float x) { return __nv_fp8_e5m2(x); }

// Max that propagates NaN, per type.
template <typename T> __device__ __forceinline__ T max_nan(T a, T b)
{
	return (a != a || b != b) ? (a != a ? a : b) : (a > b ? a : b);
}
template <> __device__ __forceinline__ __half max_nan(__half a, __half b) { return __hmax_nan(a, b); }
template <> __device__ __forceinline__ __nv_bfloat16 max_nan(__nv_bfloat16 a, __nv_bfloat16 b)
{
	return __hmax_nan(a, b);
}

// Sum over the 32 lanes of a warp (every lane gets the sum).
template <typename T> __device__ __forceinline__ T warp_sum(T v)
{
#pragma unroll
	for (int offset = DL_WARP / 2; offset > 0; offset >>= 1)
		v += __shfl_xor_sync(DL_FULL_MASK, v, offset, DL_WARP);
	return v;
}

// Max over the 32 lanes of a warp, in the element type itself (exact for any order).
template <typename T> __device__ __forceinline__ T warp_max(T v)
{
#pragma unroll
	for (int offset = DL_WARP / 2; offset > 0; offset >>= 1)
		v = max_nan(v, __shfl_xor_sync(DL_FULL_MASK, v, offset, DL_WARP));
	return v;
}

} // namespace dl
