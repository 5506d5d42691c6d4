/*
 * hip/hip_vector_types.h as rocjit serves it to hipRTC: float4, int2, make_float2 ... are
 * built into hipRTC 5.2 and 5.7 (the file on disk is skipped by its guard on 5.2 and
 * missing on 5.7).
 */
#ifndef ROCJIT_DEVLIB_AMD_HIP_VECTOR_TYPES_H
#define ROCJIT_DEVLIB_AMD_HIP_VECTOR_TYPES_H

#include <hip/hip_runtime.h>

#endif
