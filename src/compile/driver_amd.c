/*
 * driver_amd.c - the AMD platform's calls beyond a launch: function attributes,
 * occupancy, module variables and copies to and from them (device limits are read from
 * the device properties, in platform_amd.c).
 *
 * Each is one HIP runtime call, looked up at its first use, the counterpart of the CUDA
 * driver call driver_nvidia.c makes; amd.h says how far this is checked.  AMD has no
 * shared-memory opt-in and no L1/shared split: setting either attribute changes nothing
 * (request/launch.c has checked the value against the LDS a block may use).
 */
#include <stdint.h>

#include "compile/amd.h"
#include "compile/platform.h"

typedef void *hipDeviceptr_t;

static struct {
	void *_Atomic hipFuncGetAttribute;
	void *_Atomic hipModuleOccupancyMaxActiveBlocksPerMultiprocessor;
	void *_Atomic hipModuleOccupancyMaxPotentialBlockSize;
	void *_Atomic hipModuleGetGlobal;
	void *_Atomic hipMemcpyHtoD, *_Atomic hipMemcpyDtoH;
	void *_Atomic hipMemcpyHtoDAsync, *_Atomic hipMemcpyDtoHAsync;
} late;

#define LATE(fn, name)                                                                  \
	do {                                                                            \
		*(void **)&(fn) = rj_amd_late_sym(&late.name, #name);                   \
		RJ_CHECK(!(fn), ROCJIT_EUNSUPPORTED, "the HIP runtime (libamdhip64) "    \
			 "has no " #name ": a newer ROCm has it");                      \
	} while (0)

/* Runs call (a hipError_t expression) with device current; fails naming what. */
#define ON_DEVICE(device, call, what)                                                    \
	do {                                                                            \
		int prev_;                                                              \
		hipError_t e_;                                                          \
                                                                                        \
		RJ_FORWARD(rj_amd_enter((device), &prev_));                             \
		e_ = (call);                                                            \
		rj_amd_leave((device), prev_);                                          \
		if (e_ != hipSuccess)                                                   \
			HIP_FAIL(ROCJIT_EDEVICE, e_, (what));                           \
	} while (0)

int rj_amd_attribute(void *function, int device, int attr, int *value, int set)
{
	hipError_t (*get)(int *, int, hipFunction_t);

	if (set)
		return 0;
	LATE(get, hipFuncGetAttribute);
	ON_DEVICE(device, get(value, attr, (hipFunction_t)function), "hipFuncGetAttribute");
	return 0;
}

int rj_amd_occupancy(void *function, int device, unsigned block, size_t shared, int *blocks)
{
	hipError_t (*occ)(int *, hipFunction_t, int, size_t);

	LATE(occ, hipModuleOccupancyMaxActiveBlocksPerMultiprocessor);
	ON_DEVICE(device, occ(blocks, (hipFunction_t)function, (int)block, shared),
		  "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor");
	return 0;
}

int rj_amd_block_size(void *function, int device, size_t shared, unsigned limit, int *block,
		      int *grid)
{
	hipError_t (*best)(int *, int *, hipFunction_t, size_t, int);

	LATE(best, hipModuleOccupancyMaxPotentialBlockSize);
	ON_DEVICE(device, best(grid, block, (hipFunction_t)function, shared, (int)limit),
		  "hipModuleOccupancyMaxPotentialBlockSize");
	return 0;
}

int rj_amd_global_get(void *module, int device, const char *name, void **address,
		      size_t *size)
{
	hipError_t (*get)(hipDeviceptr_t *, size_t *, hipModule_t, const char *);
	hipError_t e;
	int prev;

	LATE(get, hipModuleGetGlobal);
	RJ_FORWARD(rj_amd_enter(device, &prev));
	e = get(address, size, (hipModule_t)module, name);
	rj_amd_leave(device, prev);
	if (e == hipErrorNotFound)
		return ROCJIT_ENOTFOUND; /* the caller says which names there are */
	if (e != hipSuccess)
		HIP_FAIL(ROCJIT_EDEVICE, e, "hipModuleGetGlobal");
	return 0;
}

int rj_amd_copy(int device, void *dst, const void *src, size_t bytes, int to_device,
		void *stream)
{
	hipError_t (*htod)(hipDeviceptr_t, const void *, size_t);
	hipError_t (*dtoh)(void *, hipDeviceptr_t, size_t);
	hipError_t (*htod_async)(hipDeviceptr_t, const void *, size_t, hipStream_t);
	hipError_t (*dtoh_async)(void *, hipDeviceptr_t, size_t, hipStream_t);

	if (to_device && stream) {
		LATE(htod_async, hipMemcpyHtoDAsync);
		ON_DEVICE(device, htod_async(dst, src, bytes, (hipStream_t)stream),
			  "hipMemcpyHtoDAsync");
	} else if (to_device) {
		LATE(htod, hipMemcpyHtoD);
		ON_DEVICE(device, htod(dst, src, bytes), "hipMemcpyHtoD");
	} else if (stream) {
		LATE(dtoh_async, hipMemcpyDtoHAsync);
		ON_DEVICE(device, dtoh_async(dst, (hipDeviceptr_t)(uintptr_t)src, bytes, (hipStream_t)stream),
			  "hipMemcpyDtoHAsync");
	} else {
		LATE(dtoh, hipMemcpyDtoH);
		ON_DEVICE(device, dtoh(dst, (hipDeviceptr_t)(uintptr_t)src, bytes), "hipMemcpyDtoH");
	}
	return 0;
}
