/*
 * rocjit_cuda_implicit.h - what nvcc's implicit cuda_runtime.h gives a CUDA kernel file
 * that includes nothing, pre-included by rocjit in front of every CUDA-dialect source, on
 * every platform (NVRTC: --pre-include; hipRTC: from rocjit_cuda_dialect.h).
 *
 * nvcc pre-includes cuda_runtime.h, which pulls in the C and C++ headers its math and
 * launch code use (math.h and cmath, stdlib.h, limits.h, string.h, time.h, and through
 * libstdc++'s cmath the type traits).  Kernels written for nvcc rely on that without
 * knowing: INFINITY, UINT_MAX, NULL, size_t, uint32_t, clock_t, std::is_same_v,
 * std::numeric_limits, std::min appear with no include.  NVRTC and hipRTC give none of it
 * (only size_t, and NVRTC ptrdiff_t).  Here are the device parts of the same headers, as
 * rocjit serves them (devlib/std): device code only, nothing of the host runtime.
 * HIP-dialect sources do not get this file: hipRTC gives HIP kernels nothing of the sort,
 * and rocjit's HIP on NVIDIA matches hipRTC.
 */
#ifndef ROCJIT_CUDA_IMPLICIT_H
#define ROCJIT_CUDA_IMPLICIT_H

#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <utility>
#include <algorithm>

#endif
