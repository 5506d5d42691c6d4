/*
 * hip/hip_runtime_api.h as rocjit serves it to hipRTC: the runtime API is host code;
 * what kernels use of it (types, hipError_t) is in hipRTC's built-in header.  5.2's file
 * on disk would add host declarations; 5.7 has none (-nogpuinc).
 */
#ifndef ROCJIT_DEVLIB_AMD_HIP_RUNTIME_API_H
#define ROCJIT_DEVLIB_AMD_HIP_RUNTIME_API_H

#include <hip/hip_runtime.h>

#endif
