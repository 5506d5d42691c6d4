/*
 * hip/hip_fp16.h as rocjit serves it to NVRTC (HIP source on NVIDIA GPUs).  HIP's half API
 * is CUDA's, name for name (__half, __half2, __half_raw, __float2half, __hadd, hexp ...),
 * so this is CUDA's header plus the HIP spellings CUDA lacks.  Needs -I<cuda>/include.
 */
#pragma once

#include <cuda_fp16.h>

/* HIP's constants, from their bits (NVRTC 12.3+ does not read cuda_fp16.hpp/cuda_bf16.hpp,
 * where CUDA defines its CUDART_* twins). */
#ifndef HIPRT_INF_FP16
#define HIPRT_INF_FP16 __ushort_as_half((unsigned short)0x7c00u)
#define HIPRT_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7bffu)
#define HIPRT_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001u)
#define HIPRT_NAN_FP16 __ushort_as_half((unsigned short)0x7fffu)
#define HIPRT_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000u)
#define HIPRT_ONE_FP16 __ushort_as_half((unsigned short)0x3c00u)
#define HIPRT_ZERO_FP16 __ushort_as_half((unsigned short)0x0000u)
#endif
