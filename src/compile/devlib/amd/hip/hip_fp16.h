/*
 * hip/hip_fp16.h as rocjit serves it to hipRTC.
 *
 * __half, __half2 and their functions are built into hipRTC 5.2 and 5.7.  5.2 finds HIP's
 * own hip_fp16.h on disk and fails on it ("redefinition of '__half_raw'"); 5.7 finds no
 * file at all (-nogpuinc).  This stand-in adds nothing but <hip/hip_runtime.h>'s macros.
 * Not provided here: what 5.2's built-in fp16 lacks and 5.7 has (__hmax, __hmin,
 * __hmax_nan, __hmin_nan).
 */
#ifndef ROCJIT_DEVLIB_AMD_HIP_FP16_H
#define ROCJIT_DEVLIB_AMD_HIP_FP16_H

#include <hip/hip_runtime.h>

#endif
