/*
 * amd.h - what the AMD platform's two files share: the HIP runtime's C ABI as rocjit
 * uses it (int results, opaque handles; no HIP header is needed to build), and the
 * helpers of platform_amd.c that driver_amd.c calls.  Internal to src/compile/.
 *
 * platform_amd.c loads hipRTC and the runtime, loads modules and launches; driver_amd.c
 * holds the per-kernel runtime calls beyond a launch.  No AMD GPU is within reach of
 * this project: driver_amd.c is kept to one HIP call per operation, each the counterpart
 * of the CUDA driver call driver_nvidia.c makes (which the GPU tests run), and is
 * checked by compiling only.
 */
#ifndef ROCJIT_COMPILE_AMD_H
#define ROCJIT_COMPILE_AMD_H

#include <stdatomic.h>
#include <stddef.h>

#include "base/error.h"

typedef int hipError_t;                           /* enum hipError_t */
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipStream_t *hipStream_t;
#define hipSuccess 0
#define hipErrorNotFound 500

/* A HIP runtime function looked up at its first use and kept in *slot (the runtime
 * loaded first); NULL when the runtime lacks it. */
void *rj_amd_late_sym(void *_Atomic *slot, const char *name);

/* The runtime's name for e. */
const char *rj_amd_error(hipError_t e);

/* Makes device the thread's current device; *prev the one it had, for rj_amd_leave. */
int rj_amd_enter(int device, int *prev);
void rj_amd_leave(int device, int prev);

/* The platform's calls beyond a launch (driver_amd.c; platform.h says what each does). */
int rj_amd_attribute(void *function, int device, int attr, int *value, int set);
int rj_amd_occupancy(void *function, int device, unsigned block, size_t shared, int *blocks);
int rj_amd_block_size(void *function, int device, size_t shared, unsigned limit, int *block,
		      int *grid);
int rj_amd_device_limit(int device, int which, int *value); /* platform_amd.c */
int rj_amd_global_get(void *module, int device, const char *name, void **address,
		      size_t *size);
int rj_amd_copy(int device, void *dst, const void *src, size_t bytes, int to_device,
		void *stream);

#define HIP_FAIL(code, err, what) \
	RJ_FAIL((code), "%s failed: %s (%d)", (what), rj_amd_error(err), (int)(err))

#endif
