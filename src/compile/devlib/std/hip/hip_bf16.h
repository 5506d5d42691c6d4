/*
 * hip/hip_bf16.h as rocjit serves it on every platform.  HIP's __hip_bfloat16 API copies
 * CUDA's __nv_bfloat16 one (the same functions: __float2bfloat16, __bfloat162float, __hadd,
 * __hmax ...), so the HIP type names are CUDA's types: <cuda_bf16.h> is CUDA's own on
 * NVIDIA, rocjit's on AMD (devlib/cuda: bf16 in float, rounded to nearest even; hipRTC 5.2
 * has no bfloat16 at all and 5.7 ships no headers).
 */
#ifndef ROCJIT_DEVLIB_HIP_BF16_H
#define ROCJIT_DEVLIB_HIP_BF16_H

#include <hip/hip_runtime.h>
#include <cuda_bf16.h>

/* rocjit's NVIDIA hip/hip_runtime.h declares the first two as well: a repeated typedef of
 * the same type is valid C++. */
typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat162 __hip_bfloat162;
typedef __nv_bfloat16_raw __hip_bfloat16_raw;
typedef __nv_bfloat162_raw __hip_bfloat162_raw;

/* HIP's constants, from their bits (NVRTC 12.3+ does not read cuda_bf16.hpp, where CUDA
 * defines its CUDART_* twins). */
#ifndef HIPRT_INF_BF16
#define HIPRT_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7f80u)
#define HIPRT_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7f7fu)
#define HIPRT_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001u)
#define HIPRT_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7fffu)
#define HIPRT_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000u)
#define HIPRT_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3f80u)
#define HIPRT_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000u)
#endif

#endif
