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

#endif
