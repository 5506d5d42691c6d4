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

/* gfx940-gfx942 have no image sampling instructions: a sampled texture fetch there made
 * LLVM abort the compile ("requested image instruction is not supported on this GPU",
 * HIP 5.7, gfx942: tex1D, tex2D, tex3D, tex2Dgather, tex2DLod; tex1Dfetch and the surface
 * reads and writes compile).  There each sampled fetch names instead a function that stops
 * the compile with a message saying so, at the call. */
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
namespace rocjit_amd {
template <class... A> struct no_sampling {
	static const bool value = false;
};
template <class T = void, class... A> __device__ T sampled_fetch(A...)
{
	static_assert(no_sampling<T, A...>::value,
		      "rocjit: sampled texture fetches (tex1D, tex2D, tex3D, layered, cubemap, "
		      "gather, Lod, Grad) do not compile for gfx940, gfx941, gfx942: these GPUs "
		      "have no image sampling instructions; tex1Dfetch and surface reads and "
		      "writes do");
	return T();
}
} /* namespace rocjit_amd */
#define tex1D rocjit_amd::sampled_fetch
#define tex2D rocjit_amd::sampled_fetch
#define tex3D rocjit_amd::sampled_fetch
#define tex1DLayered rocjit_amd::sampled_fetch
#define tex2DLayered rocjit_amd::sampled_fetch
#define texCubemap rocjit_amd::sampled_fetch
#define texCubemapLayered rocjit_amd::sampled_fetch
#define tex2Dgather rocjit_amd::sampled_fetch
#define tex1DLod rocjit_amd::sampled_fetch
#define tex2DLod rocjit_amd::sampled_fetch
#define tex3DLod rocjit_amd::sampled_fetch
#define tex1DLayeredLod rocjit_amd::sampled_fetch
#define tex2DLayeredLod rocjit_amd::sampled_fetch
#define texCubemapLod rocjit_amd::sampled_fetch
#define tex1DGrad rocjit_amd::sampled_fetch
#define tex2DGrad rocjit_amd::sampled_fetch
#define tex3DGrad rocjit_amd::sampled_fetch
#define tex1DLayeredGrad rocjit_amd::sampled_fetch
#define tex2DLayeredGrad rocjit_amd::sampled_fetch
#endif

#endif
