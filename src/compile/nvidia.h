/*
 * nvidia.h - what the NVIDIA platform's two files share: the CUDA driver's C ABI as
 * rocjit uses it (int results, opaque handles; no CUDA header is needed to build), and
 * the helpers of platform_nvidia.c that driver_nvidia.c calls.  Internal to src/compile/.
 *
 * platform_nvidia.c loads NVRTC and the driver, loads modules and launches;
 * driver_nvidia.c holds the per-kernel driver calls beyond a launch (attributes,
 * occupancy, globals, copies), none of them on the request path.
 */
#ifndef ROCJIT_COMPILE_NVIDIA_H
#define ROCJIT_COMPILE_NVIDIA_H

#include <stdatomic.h>
#include <stddef.h>

#include "base/error.h"

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_SUPPORTED 801
#define CUDA_ERROR_INVALID_CONTEXT 201
#define CUDA_ERROR_INVALID_HANDLE 400
#define CUDA_ERROR_NOT_FOUND 500
#define CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE 720

/*
 * A driver function looked up at its first use and kept in *slot: each dlsym in libcuda's
 * large symbol table costs a new process a few microseconds, and only what a process
 * calls should cost it.  NULL when the driver lacks it (or is not loaded).
 */
void *rj_nv_late_sym(void *_Atomic *slot, const char *name);

/* The driver's name for r ("invalid argument"). */
const char *rj_nv_error(CUresult r);

/* cuDeviceGetAttribute on ordinal device.  0 or ROCJIT_EDEVICE. */
int rj_nv_device_attribute(int device, int attr, int *value);

/*
 * Makes device's primary context current on this thread; *prev receives the context that
 * was current, to give back with rj_nv_leave, *switched whether it changed.  0,
 * ROCJIT_ENODEV or ROCJIT_EDEVICE.
 */
int rj_nv_enter(int device, CUcontext *prev, int *switched);
void rj_nv_leave(CUcontext prev, int switched);

/* The platform's calls beyond a launch (driver_nvidia.c; platform.h says what each does). */
int rj_nv_attribute(void *function, int device, int attr, int *value, int set);
int rj_nv_occupancy(void *function, int device, unsigned block, size_t shared, int *blocks);
int rj_nv_block_size(void *function, int device, size_t shared, unsigned limit, int *block,
		     int *grid);
int rj_nv_device_limit(int device, int which, int *value);
int rj_nv_global_get(void *module, int device, const char *name, void **address,
		     size_t *size);
int rj_nv_copy(int device, void *dst, const void *src, size_t bytes, int to_device,
	       void *stream);

#define CU_FAIL(r, what) \
	RJ_FAIL(ROCJIT_EDEVICE, "%s failed: %s (%d)", (what), rj_nv_error(r), (r))

#endif
