/*
 * rocjit_cuda_texture.h - CUDA's texture and surface objects for CUDA-dialect sources
 * compiled by hipRTC (AMD).  The prelude includes it, because NVRTC and nvcc give kernel
 * code these names without an include; the headers CUDA code may still include by name
 * (texture_indirect_functions.h, cuda_texture_types.h, ...) include it too.
 *
 * hipRTC builds in HIP's texture and surface objects and their fetch functions under
 * CUDA's names (tex1Dfetch<T>, tex1D, tex2D, tex3D, tex1DLayered, tex2DLayered,
 * texCubemap, tex2Dgather, surf1Dread/write, surf2Dread/write ...), taking
 * hipTextureObject_t / hipSurfaceObject_t.  What is missing is the CUDA names of the
 * handle types, which are the same opaque handles (a host that creates a texture object
 * with hipCreateTextureObject passes it as is), and the surface boundary modes with
 * CUDA's values (HIP's fetch functions accept and ignore the mode).
 * Not provided: the texture references of CUDA 11 and earlier (texture<T, dim, mode>,
 * removed in CUDA 12).
 */
#ifndef ROCJIT_CUDA_TEXTURE_H
#define ROCJIT_CUDA_TEXTURE_H

/* Spelled as HIP's typedefs (not through their names) so that this holds whichever HIP
 * version builds what in: the same type where HIP declares it, a declaration otherwise. */
typedef struct __hip_texture *cudaTextureObject_t;
typedef struct __hip_surface *cudaSurfaceObject_t;

enum cudaSurfaceBoundaryMode {
	cudaBoundaryModeZero = 0,
	cudaBoundaryModeClamp = 1,
	cudaBoundaryModeTrap = 2
};

/* CUDA's surface calls take the boundary mode last.  HIP 5.2's take it too (and ignore
 * it); HIP 5.7's have no such parameter.  For each, an overload with the mode that calls
 * HIP's without it, enabled only where HIP's own takes no mode (the trait asks the
 * compiler), so that neither HIP version sees two candidates.  The mode is ignored, as
 * HIP 5.2 ignores it. */
namespace rocjit_cuda {
template <class T> T declval_() noexcept;
#define ROCJIT_SURFACE_TAKES_MODE(NAME, DATA, ...)                                         \
	template <class T, class = void> struct NAME##_takes_mode {                         \
		static const bool value = false;                                           \
	};                                                                                 \
	template <class T>                                                                 \
	struct NAME##_takes_mode<T, decltype(NAME(declval_<DATA>(), hipSurfaceObject_t(),  \
						  __VA_ARGS__, 0))> {                       \
		static const bool value = true;                                            \
	};
ROCJIT_SURFACE_TAKES_MODE(surf1Dread, T *, 0)
ROCJIT_SURFACE_TAKES_MODE(surf1Dwrite, T, 0)
ROCJIT_SURFACE_TAKES_MODE(surf2Dread, T *, 0, 0)
ROCJIT_SURFACE_TAKES_MODE(surf2Dwrite, T, 0, 0)
ROCJIT_SURFACE_TAKES_MODE(surf3Dread, T *, 0, 0, 0)
ROCJIT_SURFACE_TAKES_MODE(surf3Dwrite, T, 0, 0, 0)
#undef ROCJIT_SURFACE_TAKES_MODE
} /* namespace rocjit_cuda */

#define ROCJIT_SURFACE_IF(NAME)                                                            \
	template <class T>                                                                 \
	__device__ static inline                                                           \
		typename std::enable_if<!rocjit_cuda::NAME##_takes_mode<T>::value>::type
ROCJIT_SURFACE_IF(surf1Dread)
surf1Dread(T *d, cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode)
{
	surf1Dread(d, s, x);
}
ROCJIT_SURFACE_IF(surf1Dwrite)
surf1Dwrite(T d, cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode)
{
	surf1Dwrite(d, s, x);
}
ROCJIT_SURFACE_IF(surf2Dread)
surf2Dread(T *d, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode)
{
	surf2Dread(d, s, x, y);
}
ROCJIT_SURFACE_IF(surf2Dwrite)
surf2Dwrite(T d, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode)
{
	surf2Dwrite(d, s, x, y);
}
ROCJIT_SURFACE_IF(surf3Dread)
surf3Dread(T *d, cudaSurfaceObject_t s, int x, int y, int z, cudaSurfaceBoundaryMode)
{
	surf3Dread(d, s, x, y, z);
}
ROCJIT_SURFACE_IF(surf3Dwrite)
surf3Dwrite(T d, cudaSurfaceObject_t s, int x, int y, int z, cudaSurfaceBoundaryMode)
{
	surf3Dwrite(d, s, x, y, z);
}
#undef ROCJIT_SURFACE_IF

#endif
