/*
 * hip/hip_runtime.h as rocjit serves it to NVRTC (an in-memory header, pre-included like
 * hipRTC pre-includes its own).  It maps the HIP spellings that kernel code uses onto
 * CUDA's, so unmodified HIP kernels compile for NVIDIA GPUs.  HIP's own nvidia_detail
 * headers cannot be used here: they pull in host headers that NVRTC does not have.
 *
 * Device code only.  Embedded into the library at build time (src/platform_nvidia.c).
 */
#pragma once

/* HIP's __half and __hip_bfloat16 (and, in rocjit_hip_nvidia_ext.h, its fp8 types): left
   out when rocjit defines __ROCJIT_LEAN_PRELUDE__, for a compile none of whose texts can
   name them (src/compile/lean.c), which parses in a third of the time without them. */
#ifndef __ROCJIT_LEAN_PRELUDE__
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#endif

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
#ifndef __ROCJIT_LEAN_PRELUDE__
typedef __nv_bfloat16 __hip_bfloat16;
/* clang's (hipRTC's) native half type, which HIP kernels name directly; NVRTC has none
 * (it would define __FLT16_MAX__ with one): CUDA's __half, with its conversions and
 * arithmetic, stands in. */
#ifndef __FLT16_MAX__
typedef __half _Float16;
#endif
typedef __nv_bfloat162 __hip_bfloat162;
#endif

/* What hipRTC declares for every source, with no include at all (probed one name per
   compile on hipRTC 5.2; HIP 5.7's runtime header has the same lines), so HIP kernels
   use them bare: the four exact-width integers (int64_t is long long, as in rocjit's
   <stdint.h>, which may repeat them), OpenCL's short unsigned names, hipDeviceptr_t (as
   HIP on NVIDIA spells it: CUdeviceptr), std::size_t and the integers in std, and
   abort(), which HIP device code calls to stop the kernel (CUDA's name is __trap).  NULL,
   printf, malloc, memcpy, min/max and the math functions NVRTC has itself.
   Not given: __AMDGCN_WAVEFRONT_SIZE and HIP_VERSION_MAJOR/MINOR/PATCH (hipRTC passes
   them as -D; there is no AMD GPU or HIP release to report here). */
typedef int int32_t;
typedef long long int64_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef unsigned long long ullong;
typedef unsigned long long hipDeviceptr_t;
namespace std {
typedef ::size_t size_t;
typedef ::int32_t int32_t;
typedef ::int64_t int64_t;
typedef ::uint32_t uint32_t;
typedef ::uint64_t uint64_t;
} /* namespace std */
/* hipRTC's type traits in std (integral_constant, enable_if, is_same, is_integral ...):
   rocjit's <type_traits> holds them, and more.  CUDA sources get it anyway, from the
   pre-included rocjit_cuda_implicit.h (what nvcc's cuda_runtime.h brings). */
#include <type_traits>
extern "C" __device__ inline void abort(void) { __trap(); }

/* Misc. */
#define __HIP_CLANG_ONLY__ 0
#define HIP_KERNEL_NAME(...) __VA_ARGS__
