/*
 * rocjit_hip_nvidia_ext.h - additions to rocjit's pre-included hip/hip_runtime.h for NVRTC
 * (src/compile/nvidia/hip_runtime.h, moving to devlib/nvidia/hip/hip_runtime.h).  They are
 * kept apart so that file can move unchanged; the platform pre-includes this one right
 * after it (or hip_runtime.h includes it at its end).  Device code only.
 *
 * What HIP kernels use that the preamble does not map yet:
 *   - the texture/surface object handle types under HIP's names;
 *   - the __HIP_ARCH_HAS_*__ feature macros (HIP code tests them: an undefined macro is 0
 *     in #if and silently picks the wrong branch), derived from __CUDA_ARCH__;
 *   - __lane_id(), HIP_SYMBOL, __HOST_DEVICE__, HIP's 64-bit clock names;
 *   - HIP's whole-warp __shfl, __shfl_up/down/xor, __ballot, __any, __all as functions: the
 *     preamble maps them with function-like macros, which also rewrite libcu++'s own
 *     `__any(...)` (cuda/std/__functional/invoke.h, reached from <cuda/std/type_traits>
 *     and cooperative_groups.h) into a __any_sync call and break it.  Here each name is an
 *     object-like macro for a rocjit function, a rename that stays consistent wherever the
 *     name appears; CUDA's deprecated built-ins of these names are left alone;
 *   - CUDA's fp8 types next to its fp16/bf16 ones (the preamble includes cuda_fp16.h and
 *     cuda_bf16.h): kernel libraries written for nvcc use __nv_fp8_e4m3 after including
 *     only cuda_bf16.h (Candle's cuda_utils.cuh), as rocjit's AMD cuda_bf16.h allows.
 */
#pragma once

/* The preamble first, whatever order the pre-includes come in (it is #pragma once). */
#include <hip/hip_runtime.h>
#ifndef __ROCJIT_LEAN_PRELUDE__
#include <cuda_fp8.h>
#endif

typedef cudaTextureObject_t hipTextureObject_t;
typedef cudaSurfaceObject_t hipSurfaceObject_t;

/* Feature macros: every NVIDIA GPU NVRTC 13 targets (sm_75 and later) has all of these,
 * except the ones HIP itself reports as absent on every platform. */
#define __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__ 1
#define __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__ 1
#define __HIP_ARCH_HAS_SHARED_INT32_ATOMICS__ 1
#define __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__ 1
#define __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__ 1
#define __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__ 1
#define __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__ 1
#define __HIP_ARCH_HAS_DOUBLES__ 1
#define __HIP_ARCH_HAS_WARP_VOTE__ 1
#define __HIP_ARCH_HAS_WARP_BALLOT__ 1
#define __HIP_ARCH_HAS_WARP_SHUFFLE__ 1
#define __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__ 1
#define __HIP_ARCH_HAS_THREAD_FENCE_SYSTEM__ 1
#define __HIP_ARCH_HAS_SYNC_THREAD_EXT__ 1
#define __HIP_ARCH_HAS_SURFACE_FUNCS__ 1
#define __HIP_ARCH_HAS_3DGRID__ 1
#define __HIP_ARCH_HAS_DYNAMIC_PARALLEL__ 1

#ifndef __HOST_DEVICE__
#define __HOST_DEVICE__ __host__ __device__
#endif
#define HIP_SYMBOL(x) (&(x))

/* HIP's warp functions: implicitly the whole (32-lane) warp.  __ballot returns HIP's
 * 64-bit mask type, the 32-bit CUDA ballot zero-extended. */
#undef __shfl
#undef __shfl_up
#undef __shfl_down
#undef __shfl_xor
#undef __ballot
#undef __any
#undef __all
template <class T> __device__ inline T rocjit_hip_shfl(T var, int src_lane, int width = warpSize)
{
	return __shfl_sync(0xffffffffu, var, src_lane, width);
}
template <class T>
__device__ inline T rocjit_hip_shfl_up(T var, unsigned int delta, int width = warpSize)
{
	return __shfl_up_sync(0xffffffffu, var, delta, width);
}
template <class T>
__device__ inline T rocjit_hip_shfl_down(T var, unsigned int delta, int width = warpSize)
{
	return __shfl_down_sync(0xffffffffu, var, delta, width);
}
template <class T>
__device__ inline T rocjit_hip_shfl_xor(T var, int lane_mask, int width = warpSize)
{
	return __shfl_xor_sync(0xffffffffu, var, lane_mask, width);
}
__device__ inline unsigned long long rocjit_hip_ballot(int predicate)
{
	return __ballot_sync(0xffffffffu, predicate);
}
__device__ inline int rocjit_hip_any(int predicate) { return __any_sync(0xffffffffu, predicate); }
__device__ inline int rocjit_hip_all(int predicate) { return __all_sync(0xffffffffu, predicate); }
#define __shfl rocjit_hip_shfl
#define __shfl_up rocjit_hip_shfl_up
#define __shfl_down rocjit_hip_shfl_down
#define __shfl_xor rocjit_hip_shfl_xor
#define __ballot rocjit_hip_ballot
#define __any rocjit_hip_any
#define __all rocjit_hip_all

/* The lane's index within its warp. */
__device__ inline unsigned int __lane_id()
{
	unsigned int lane;
	asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
	return lane;
}
/* HIP's wall clock: the GPU's global nanosecond timer. */
__device__ inline long long wall_clock64()
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return (long long)t;
}

/* Programmatic dependent launch (sm_90): CUDA's header defines these with inline
 * assembly for nvcc only; NVRTC leaves them undeclared.  The same instructions, where the
 * target has them; elsewhere nothing to wait for.  Templates, so that an NVRTC that
 * declares its own is chosen first. */
template <int rocjit_fallback_ = 0> __device__ inline void cudaGridDependencySynchronize()
{
#if __CUDA_ARCH__ >= 900
	asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
template <int rocjit_fallback_ = 0>
__device__ inline void cudaTriggerProgrammaticLaunchCompletion()
{
#if __CUDA_ARCH__ >= 900
	asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}
