/*
 * driver_nvidia.c - the NVIDIA platform's calls beyond a launch: function attributes,
 * occupancy, device limits, module variables and copies to and from them.
 *
 * Each is one CUDA driver call, looked up at its first use (a process that never asks
 * pays no dlsym) and made in the kernel's device's primary context, the thread's own
 * given back after.  None is on the request path.  Every driver error comes back as
 * ROCJIT_EDEVICE naming the call; request/launch.c turns the likely ones into messages
 * about the kernel.
 */
#include <stddef.h>
#include <stdint.h>

#include "compile/nvidia.h"
#include "compile/platform.h"

#define CU_ATTR_MULTIPROCESSOR_COUNT 16
#define CU_ATTR_SHARED_PER_BLOCK_OPTIN 97

static struct {
	void *_Atomic cuFuncGetAttribute, *_Atomic cuFuncSetAttribute;
	void *_Atomic cuOccupancyMaxActiveBlocksPerMultiprocessor;
	void *_Atomic cuOccupancyMaxPotentialBlockSize;
	void *_Atomic cuModuleGetGlobal_v2;
	void *_Atomic cuMemcpyHtoD_v2, *_Atomic cuMemcpyDtoH_v2;
	void *_Atomic cuMemcpyHtoDAsync_v2, *_Atomic cuMemcpyDtoHAsync_v2;
} late;

/* Sets fn to the driver's name, or fails with ROCJIT_EUNSUPPORTED.  The _v2 names are
 * the 64-bit ones every driver since CUDA 3.2 has. */
#define LATE(fn, name)                                                                  \
	do {                                                                            \
		*(void **)&(fn) = rj_nv_late_sym(&late.name, #name);                    \
		RJ_CHECK(!(fn), ROCJIT_EUNSUPPORTED, "the NVIDIA driver (libcuda.so.1) " \
			 "has no " #name ": update the driver");                        \
	} while (0)

/* Runs call (a CUresult expression) in device's context; fails naming what. */
#define IN_CONTEXT(device, call, what)                                                   \
	do {                                                                            \
		CUcontext prev_;                                                        \
		int switched_;                                                          \
		CUresult r_;                                                            \
                                                                                        \
		RJ_FORWARD(rj_nv_enter((device), &prev_, &switched_));                  \
		r_ = (call);                                                            \
		rj_nv_leave(prev_, switched_);                                          \
		if (r_ != CUDA_SUCCESS)                                                 \
			CU_FAIL(r_, (what));                                            \
	} while (0)

int rj_nv_attribute(void *function, int device, int attr, int *value, int set)
{
	CUresult (*get)(int *, int, CUfunction);
	CUresult (*put)(CUfunction, int, int);

	if (set) {
		LATE(put, cuFuncSetAttribute);
		IN_CONTEXT(device, put((CUfunction)function, attr, *value), "cuFuncSetAttribute");
	} else {
		LATE(get, cuFuncGetAttribute);
		IN_CONTEXT(device, get(value, attr, (CUfunction)function), "cuFuncGetAttribute");
	}
	return 0;
}

int rj_nv_occupancy(void *function, int device, unsigned block, size_t shared, int *blocks)
{
	CUresult (*occ)(int *, CUfunction, int, size_t);

	LATE(occ, cuOccupancyMaxActiveBlocksPerMultiprocessor);
	IN_CONTEXT(device, occ(blocks, (CUfunction)function, (int)block, shared),
		   "cuOccupancyMaxActiveBlocksPerMultiprocessor");
	return 0;
}

int rj_nv_block_size(void *function, int device, size_t shared, unsigned limit, int *block,
		     int *grid)
{
	/* The fourth argument maps a block size to its dynamic shared bytes: NULL, the
	   same for every size. */
	CUresult (*best)(int *, int *, CUfunction, void *, size_t, int);

	LATE(best, cuOccupancyMaxPotentialBlockSize);
	IN_CONTEXT(device, best(grid, block, (CUfunction)function, NULL, shared, (int)limit),
		   "cuOccupancyMaxPotentialBlockSize");
	return 0;
}

int rj_nv_device_limit(int device, int which, int *value)
{
	return rj_nv_device_attribute(device, which == RJ_DEV_MULTIPROCESSORS
						      ? CU_ATTR_MULTIPROCESSOR_COUNT
						      : CU_ATTR_SHARED_PER_BLOCK_OPTIN,
				      value);
}

int rj_nv_global_get(void *module, int device, const char *name, void **address,
		     size_t *size)
{
	CUresult (*get)(CUdeviceptr *, size_t *, CUmodule, const char *);
	CUdeviceptr p = 0;
	CUcontext prev;
	int switched;
	CUresult r;

	LATE(get, cuModuleGetGlobal_v2);
	RJ_FORWARD(rj_nv_enter(device, &prev, &switched));
	r = get(&p, size, (CUmodule)module, name);
	rj_nv_leave(prev, switched);
	if (r == CUDA_ERROR_NOT_FOUND)
		return ROCJIT_ENOTFOUND; /* the caller says which names there are */
	if (r != CUDA_SUCCESS)
		CU_FAIL(r, "cuModuleGetGlobal");
	*address = (void *)(uintptr_t)p;
	return 0;
}

int rj_nv_copy(int device, void *dst, const void *src, size_t bytes, int to_device,
	       void *stream)
{
	CUresult (*htod)(CUdeviceptr, const void *, size_t);
	CUresult (*dtoh)(void *, CUdeviceptr, size_t);
	CUresult (*htod_async)(CUdeviceptr, const void *, size_t, CUstream);
	CUresult (*dtoh_async)(void *, CUdeviceptr, size_t, CUstream);

	if (to_device && stream) {
		LATE(htod_async, cuMemcpyHtoDAsync_v2);
		IN_CONTEXT(device, htod_async((CUdeviceptr)(uintptr_t)dst, src, bytes,
					      (CUstream)stream), "cuMemcpyHtoDAsync");
	} else if (to_device) {
		LATE(htod, cuMemcpyHtoD_v2);
		IN_CONTEXT(device, htod((CUdeviceptr)(uintptr_t)dst, src, bytes),
			   "cuMemcpyHtoD");
	} else if (stream) {
		LATE(dtoh_async, cuMemcpyDtoHAsync_v2);
		IN_CONTEXT(device, dtoh_async(dst, (CUdeviceptr)(uintptr_t)src, bytes,
					      (CUstream)stream), "cuMemcpyDtoHAsync");
	} else {
		LATE(dtoh, cuMemcpyDtoH_v2);
		IN_CONTEXT(device, dtoh(dst, (CUdeviceptr)(uintptr_t)src, bytes),
			   "cuMemcpyDtoH");
	}
	return 0;
}
