/*
 * hip/hip_fp8.h as rocjit serves it on every platform.  HIP's OCP fp8 API (__hip_fp8_e4m3,
 * __hip_fp8_e5m2, their x2/x4 forms, __hip_cvt_*) copies CUDA's cuda_fp8.h name for name,
 * so each HIP name is CUDA's: <cuda_fp8.h> is CUDA's own on NVIDIA, rocjit's on AMD
 * (devlib/cuda, bit-exact round to nearest even).  rocjit's AMD cuda_fp8.h has no x2/x4
 * class types and no pair conversions of doubles, halves or bf16s yet: those HIP names
 * exist on NVIDIA only (NVRTC is told from hipRTC by __clang__).  HIP's FNUZ variants
 * (__hip_fp8_e4m3_fnuz, __hip_fp8_e5m2_fnuz: gfx94x's encoding, bias 8/16, one NaN, no -0)
 * have no CUDA twin and are not provided.
 */
#ifndef ROCJIT_DEVLIB_HIP_FP8_H
#define ROCJIT_DEVLIB_HIP_FP8_H

#include <hip/hip_runtime.h>
#include <cuda_fp8.h>

typedef __nv_fp8_storage_t __hip_fp8_storage_t;
typedef __nv_fp8x2_storage_t __hip_fp8x2_storage_t;
typedef __nv_fp8x4_storage_t __hip_fp8x4_storage_t;
typedef __nv_saturation_t __hip_saturation_t;
typedef __nv_fp8_interpretation_t __hip_fp8_interpretation_t;
#define __HIP_NOSAT __NV_NOSAT
#define __HIP_SATFINITE __NV_SATFINITE
#define __HIP_E4M3 __NV_E4M3
#define __HIP_E5M2 __NV_E5M2

typedef __nv_fp8_e4m3 __hip_fp8_e4m3;
typedef __nv_fp8_e5m2 __hip_fp8_e5m2;
#if !defined(__clang__)
typedef __nv_fp8x2_e4m3 __hip_fp8x2_e4m3;
typedef __nv_fp8x2_e5m2 __hip_fp8x2_e5m2;
typedef __nv_fp8x4_e4m3 __hip_fp8x4_e4m3;
typedef __nv_fp8x4_e5m2 __hip_fp8x4_e5m2;
#define __hip_cvt_double2_to_fp8x2 __nv_cvt_double2_to_fp8x2
#define __hip_cvt_halfraw2_to_fp8x2 __nv_cvt_halfraw2_to_fp8x2
#define __hip_cvt_bfloat16raw2_to_fp8x2 __nv_cvt_bfloat16raw2_to_fp8x2
#endif

/* The conversion functions: same arguments, same results. */
#define __hip_cvt_float_to_fp8 __nv_cvt_float_to_fp8
#define __hip_cvt_double_to_fp8 __nv_cvt_double_to_fp8
#define __hip_cvt_float2_to_fp8x2 __nv_cvt_float2_to_fp8x2
#define __hip_cvt_halfraw_to_fp8 __nv_cvt_halfraw_to_fp8
#define __hip_cvt_bfloat16raw_to_fp8 __nv_cvt_bfloat16raw_to_fp8
#define __hip_cvt_fp8_to_halfraw __nv_cvt_fp8_to_halfraw
#define __hip_cvt_fp8x2_to_halfraw2 __nv_cvt_fp8x2_to_halfraw2

#endif
