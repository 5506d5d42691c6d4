/*
 * rocjit_amd.h - the prelude rocjit force-includes (hipRTC `-include`) in front of every
 * source it compiles for an AMD GPU, HIP or CUDA dialect: what hipcc gives device code
 * and hipRTC does not.
 *
 *   - The platform macros.  hipcc passes `hipconfig --cpp_config`, that is
 *     -D__HIP_PLATFORM_AMD__ and the older -D__HIP_PLATFORM_HCC__, and HIP's CMake package
 *     adds both as =1 (with __HIP_ROCclr__=1); hipRTC (5.2, 5.7) defines none of them, so
 *     headers written for HIP take their non-AMD paths (often CUDA's, with cuda.h) and
 *     fail far from the cause, and AMD's own libraries that compile with hipRTC define
 *     them by hand.  Defined as 1, so both `#ifdef` and `#if` tests hold.
 *     __HIP_CLANG_ONLY__ is what HIP's own headers define for clang.
 *
 * Unannotated functions are left as hipRTC treats them (host functions, never emitted for
 * the GPU unless device code calls them, which is an error as with hipcc and nvcc).  The
 * NVIDIA counterpart, NVRTC's -default-device, is needed there only because NVRTC refuses
 * every unannotated definition, called or not.  clang's force_cuda_host_device pragma was
 * tried as an AMD counterpart and dropped: it makes explicit __device__ functions
 * __host__ __device__ as well, which changes overloading against HIP's own functions.
 */
#ifndef ROCJIT_AMD_H
#define ROCJIT_AMD_H

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#ifndef __HIP_PLATFORM_HCC__
#define __HIP_PLATFORM_HCC__ 1
#endif
#ifndef __HIP_ROCclr__
#define __HIP_ROCclr__ 1
#endif
#ifndef __HIP_CLANG_ONLY__
#define __HIP_CLANG_ONLY__ 1
#endif

/* HIP 5.7's clock() and clock64() read s_memtime, which gfx11 does not have ("needs
 * target feature s-memtime-inst", measured on gfx1100): there they read the cycle counter,
 * as later HIP releases do.  __GFX11__ is clang's (hipRTC 5.2 knows no gfx11). */
#if defined(__GFX11__) || defined(__GFX12__)
#define clock64() ((long long)__builtin_readcyclecounter())
#define clock() ((long long)__builtin_readcyclecounter())
#endif

#endif
