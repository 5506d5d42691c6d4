/*
 * hip/hip_runtime.h as rocjit serves it to NVRTC (an in-memory header, pre-included like
 * hipRTC pre-includes its own).  It maps the HIP spellings that kernel code uses onto
 * CUDA's, so unmodified HIP kernels compile for NVIDIA GPUs.  HIP's own nvidia_detail
 * headers cannot be used here: they pull in host headers that NVRTC does not have.
 *
 * Device code only.  Embedded into the library at build time (src/platform_nvidia.c).
 */
#pragma once

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define __HIP_PLATFORM_NVIDIA__ 1
#define __HIP_PLATFORM_NVCC__ 1
#define __HIP_DEVICE_COMPILE__ 1
#define __HIPCC_RTC__ 1
#define __HIP__ 1

/* Work-item ids and sizes. */
#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z

/* Dynamic shared memory. */
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

/* Warp-wide operations: HIP's are implicitly whole-warp, CUDA's take a mask.  Defined
   after the CUDA headers, which declare deprecated functions of the same names. */
#define __shfl(...) __shfl_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_up(...) __shfl_up_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_down(...) __shfl_down_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_xor(...) __shfl_xor_sync(0xffffffffu, __VA_ARGS__)
#define __ballot(pred) __ballot_sync(0xffffffffu, (pred))
#define __any(pred) __any_sync(0xffffffffu, (pred))
#define __all(pred) __all_sync(0xffffffffu, (pred))

/* Types. */
typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat162 __hip_bfloat162;

/* Misc. */
#define __HIP_CLANG_ONLY__ 0
#define HIP_KERNEL_NAME(...) __VA_ARGS__
