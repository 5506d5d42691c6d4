/*
 * hip/hip_fp16.h as rocjit serves it on every platform.  HIP's half API is CUDA's, name for
 * name (__half, __half2, half, half2, __half_raw, __float2half, __hadd, __hmax, hexp ...),
 * so this is <cuda_fp16.h> - CUDA's own on NVIDIA (-I<cuda>/include), rocjit's on AMD
 * (devlib/cuda: what the HIP in use lacks of CUDA's API, over hipRTC's built-in __half) -
 * plus the HIP spellings CUDA lacks.  One file, so the two platforms cannot drift apart.
 *
 * On AMD hipRTC 5.2 would find HIP's own hip_fp16.h on disk and fail on it ("redefinition
 * of '__half_raw'"); 5.7 ships no headers.  <hip/hip_runtime.h> is each platform's own.
 *
 * What stays ambiguous (probed on hipRTC 5.2 and NVRTC 13, with and without the bf16
 * headers; none of it comes from a served header):
 *   - __hadd(h, 1.0f) and h + 1.0f, on both platforms as under nvcc and hipcc: both
 *     declare int __hadd(int, int) beside the half one, and __half converts to and from
 *     float implicitly.  Write __hadd(h, __float2half(1.0f)).
 *   - `h = {}` for a __half, on both (its assignments from __half_raw, float, double ...);
 *     and for a __half2 on AMD only: HIP's __half2, built into hipRTC, has copy, move and
 *     __half2_raw assignments.  `half2 z = {}` and `z = half2{}` work everywhere.
 */
#ifndef ROCJIT_DEVLIB_HIP_FP16_H
#define ROCJIT_DEVLIB_HIP_FP16_H

#include <hip/hip_runtime.h>
#include <cuda_fp16.h>

/* HIP's constants, from their bits (NVRTC 12.3+ does not read cuda_fp16.hpp, where CUDA
 * defines its CUDART_* twins). */
#ifndef HIPRT_INF_FP16
#define HIPRT_INF_FP16 __ushort_as_half((unsigned short)0x7c00u)
#define HIPRT_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7bffu)
#define HIPRT_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001u)
#define HIPRT_NAN_FP16 __ushort_as_half((unsigned short)0x7fffu)
#define HIPRT_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000u)
#define HIPRT_ONE_FP16 __ushort_as_half((unsigned short)0x3c00u)
#define HIPRT_ZERO_FP16 __ushort_as_half((unsigned short)0x0000u)
#endif

#endif
