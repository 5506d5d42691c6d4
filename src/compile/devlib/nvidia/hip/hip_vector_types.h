/*
 * hip/hip_vector_types.h as rocjit serves it to NVRTC: the vector types (float2, int4 ...)
 * and make_* functions are NVRTC built-ins with HIP's names, so nothing more is needed.
 */
#pragma once

#include <hip/hip_runtime.h>
