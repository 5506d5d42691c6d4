/*
 * hip/hip_fp8.h as rocjit serves it to NVRTC (HIP source on NVIDIA GPUs).  HIP's OCP fp8
 * API (__hip_fp8_e4m3, __hip_fp8_e5m2, their x2/x4 forms, __hip_cvt_*) copies CUDA's
 * cuda_fp8.h name for name, so each HIP name is CUDA's.  HIP's FNUZ variants
 * (__hip_fp8_e4m3_fnuz, __hip_fp8_e5m2_fnuz: gfx94x's encoding, bias 8/16, one NaN, no -0)
 * have no CUDA twin and are not provided.  Needs -I<cuda>/include.
 */
#pragma once

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
typedef __nv_fp8x2_e4m3 __hip_fp8x2_e4m3;
typedef __nv_fp8x2_e5m2 __hip_fp8x2_e5m2;
typedef __nv_fp8x4_e4m3 __hip_fp8x4_e4m3;
typedef __nv_fp8x4_e5m2 __hip_fp8x4_e5m2;

/* The conversion functions: same arguments, same results. */
#define __hip_cvt_float_to_fp8 __nv_cvt_float_to_fp8
#define __hip_cvt_double_to_fp8 __nv_cvt_double_to_fp8
#define __hip_cvt_float2_to_fp8x2 __nv_cvt_float2_to_fp8x2
#define __hip_cvt_double2_to_fp8x2 __nv_cvt_double2_to_fp8x2
#define __hip_cvt_halfraw_to_fp8 __nv_cvt_halfraw_to_fp8
#define __hip_cvt_halfraw2_to_fp8x2 __nv_cvt_halfraw2_to_fp8x2
#define __hip_cvt_bfloat16raw_to_fp8 __nv_cvt_bfloat16raw_to_fp8
#define __hip_cvt_bfloat16raw2_to_fp8x2 __nv_cvt_bfloat16raw2_to_fp8x2
#define __hip_cvt_fp8_to_halfraw __nv_cvt_fp8_to_halfraw
#define __hip_cvt_fp8x2_to_halfraw2 __nv_cvt_fp8x2_to_halfraw2
