/*
 * hip/hip_runtime.h as rocjit serves it to hipRTC.
 *
 * hipRTC pre-includes its own built-in hip_runtime.h, so every HIP type and function is
 * already declared when a kernel includes this header.  What this stand-in adds:
 *  - hipRTC 5.7 compiles with -nogpuinc and ships no HIP headers: without it,
 *    `#include <hip/hip_runtime.h>` fails there ("file not found");
 *  - hipRTC 5.2's built-in header is preprocessed text, so the macros of HIP's headers
 *    are gone (5.7 loses them too): the platform macros, hipThreadIdx_x and friends,
 *    HIP_DYNAMIC_SHARED, HIP_KERNEL_NAME, HIP_SYMBOL, __HIP_ARCH_HAS_*__, HIP_VERSION.
 *    Each is defined here only where the compiler left it undefined;
 *  - the fixed-width integer types, as hipcc's hip_runtime.h gives them (hipRTC builds in
 *    only int32_t, uint32_t, int64_t, uint64_t), and assert, which hipcc's header brings
 *    with <assert.h> and kernels call without including it (NVRTC builds it in).
 * On 5.2 this header replaces /usr/include/hip/hip_runtime.h, whose guard the built-in
 * header defines: that file would have added nothing.
 */
#ifndef ROCJIT_DEVLIB_AMD_HIP_RUNTIME_H
#define ROCJIT_DEVLIB_AMD_HIP_RUNTIME_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

/* The platform macros (__HIP_PLATFORM_AMD__ ...) come before any source: rocjit_amd.h. */
#ifndef __HOST_DEVICE__
#define __HOST_DEVICE__ __host__ __device__
#endif

#if !defined(HIP_VERSION) && defined(HIP_VERSION_MAJOR) && defined(HIP_VERSION_MINOR) && \
	defined(HIP_VERSION_PATCH)
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)
#endif

#ifndef hipThreadIdx_x
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)
#endif

#ifndef HIP_DYNAMIC_SHARED
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#endif
#ifndef HIP_KERNEL_NAME
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#endif
#ifndef HIP_SYMBOL
#define HIP_SYMBOL(x) x
#endif

/* What every gfx target hipRTC compiles for has (as HIP's hip_common.h defines them for
   device code); the four zeros are HIP's own zeros. */
#ifndef __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__
#define __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__ 1
#define __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__ 1
#define __HIP_ARCH_HAS_SHARED_INT32_ATOMICS__ 1
#define __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__ 1
#define __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__ 1
#define __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__ 1
#define __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__ 1
#define __HIP_ARCH_HAS_DOUBLES__ 1
#define __HIP_ARCH_HAS_WARP_VOTE__ 1
#define __HIP_ARCH_HAS_WARP_BALLOT__ 1
#define __HIP_ARCH_HAS_WARP_SHUFFLE__ 1
#define __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__ 0
#define __HIP_ARCH_HAS_THREAD_FENCE_SYSTEM__ 1
#define __HIP_ARCH_HAS_SYNC_THREAD_EXT__ 0
#define __HIP_ARCH_HAS_SURFACE_FUNCS__ 0
#define __HIP_ARCH_HAS_3DGRID__ 1
#define __HIP_ARCH_HAS_DYNAMIC_PARALLEL__ 0
#endif

/* bf16 with the runtime header, as on NVIDIA (where rocjit's hip/hip_runtime.h brings
 * it) and as HIP code guarded for bf16-capable GPUs (gfx90a, gfx94x) expects: Candle's HIP
 * kernels use __hip_bfloat16 after including only hip/hip_runtime.h. */
#include <hip/hip_bf16.h>

#endif
