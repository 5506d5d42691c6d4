/*
 * nvidia.h - what the NVIDIA platform's two files share: the CUDA driver's C ABI as
 * rocjit uses it (int results, opaque handles; no CUDA header is needed to build), and
 * the driver calls driver_nvidia.c gives the platform.  Internal to src/compile/.
 *
 * platform_nvidia.c compiles with NVRTC and holds rj_platform_nvidia; driver_nvidia.c
 * is the CUDA driver (devices, contexts, modules, launches, and the per-kernel calls
 * beyond a launch).  The driver side knows nothing of NVRTC.
 */
#ifndef ROCJIT_COMPILE_NVIDIA_H
#define ROCJIT_COMPILE_NVIDIA_H

#include <stddef.h>

#include "rocjit.h"

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_CONTEXT 201
#define CUDA_ERROR_INVALID_HANDLE 400
#define CUDA_ERROR_NOT_FOUND 500

/* The platform's device calls (driver_nvidia.c; platform.h says what each does). */
int rj_nv_device_count(int *count);
int rj_nv_device_target(int device, char *out, size_t size);
int rj_nv_module_load(int device, const void *code, size_t size, void **module);
void rj_nv_module_unload(void *module);
int rj_nv_function_get(void *module, const char *name, void **function);
int rj_nv_launch(void *function, int device, rocjit_dim3 g, rocjit_dim3 b,
		 unsigned int shared_bytes, void *stream, void **args);
int rj_nv_launch_cooperative(void *function, int device, rocjit_dim3 g, rocjit_dim3 b,
			     unsigned int shared_bytes, void *stream, void **args);
int rj_nv_attribute(void *function, int device, int attr, int *value, int set);
int rj_nv_occupancy(void *function, int device, unsigned block, size_t shared, int *blocks);
int rj_nv_block_size(void *function, int device, size_t shared, unsigned limit, int *block,
		     int *grid);
int rj_nv_device_limit(int device, int which, int *value);
int rj_nv_global_get(void *module, int device, const char *name, void **address,
		     size_t *size);
int rj_nv_copy(int device, void *dst, const void *src, size_t bytes, int to_device,
	       void *stream);

#endif
