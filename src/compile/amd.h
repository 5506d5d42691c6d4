/*
 * amd.h - what the AMD platform's two files share: the HIP runtime's C ABI as rocjit
 * uses it (int results, opaque handles; no HIP header is needed to build), and the
 * runtime calls driver_amd.c gives the platform.  Internal to src/compile/.
 *
 * platform_amd.c compiles with hipRTC and holds rj_platform_amd; driver_amd.c is the HIP
 * runtime (devices, modules, launches, and the per-kernel calls beyond a launch).  The
 * runtime side knows nothing of hipRTC; hipRTC asks it for the runtime's library, which
 * before ROCm 5.3 is hipRTC's too.
 */
#ifndef ROCJIT_COMPILE_AMD_H
#define ROCJIT_COMPILE_AMD_H

#include <stddef.h>

#include "rocjit.h"

typedef int hipError_t;                           /* enum hipError_t */
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipStream_t *hipStream_t;
#define hipSuccess 0
#define hipErrorNotFound 500

/*
 * The HIP runtime library ($ROCJIT_HIP_LIBRARY, else libamdhip64), loaded once, or NULL
 * when it cannot be; *version (may be NULL) gets hipRuntimeGetVersion's answer when there
 * is one, *symbol (may be NULL) an address inside the library, for naming its file.
 */
void *rj_amd_runtime(int *version, void **symbol);
/* Which rule found the runtime, in words (after rj_amd_runtime; "" when none did). */
const char *rj_amd_runtime_found_by(void);
/* The file names (sonames) of the runtime, hipRTC and comgr, newest first
 * (NULL-terminated). */
extern const char *const rj_amd_runtime_names[];
extern const char *const rj_amd_rtc_names[];
extern const char *const rj_amd_comgr_names[];

/*
 * The AMD libraries this process had loaded before rocjit loaded any (the application's,
 * linked or dlopen'ed; NULL each that was not), looked up by soname once, before the
 * first AMD library rocjit loads.  They come before every rule that searches: a second
 * HIP runtime (another ROCm version's file) would load beside the application's, and the
 * modules rocjit loads would be nothing to the application's runtime.  hipRTC and comgr
 * follow the runtime: beside the runtime loaded, never another installation's.
 */
struct rj_amd_loaded {
	void *hip, *rtc, *comgr;
};
const struct rj_amd_loaded *rj_amd_loaded_before(void);
/* The rule that found a library of theirs, in words. */
#define RJ_AMD_LOADED_RULE "already loaded by the process"

/* The platform's device calls (driver_amd.c; platform.h says what each does). */
int rj_amd_device_count(int *count);
int rj_amd_device_target(int device, char *out, size_t size);
int rj_amd_module_load(int device, const void *code, size_t size, void **module);
void rj_amd_module_unload(void *module);
int rj_amd_function_get(void *module, const char *name, void **function);
int rj_amd_launch(void *function, int device, rocjit_dim3 grid, rocjit_dim3 block,
		  unsigned int shared_bytes, void *stream, void **args);
int rj_amd_launch_cooperative(void *function, int device, rocjit_dim3 grid,
			      rocjit_dim3 block, unsigned int shared_bytes, void *stream,
			      void **args);
int rj_amd_attribute(void *function, int device, int attr, int *value, int set);
int rj_amd_occupancy(void *function, int device, unsigned block, size_t shared, int *blocks);
int rj_amd_block_size(void *function, int device, size_t shared, unsigned limit, int *block,
		      int *grid);
int rj_amd_device_limit(int device, int which, int *value);
int rj_amd_global_get(void *module, int device, const char *name, void **address,
		      size_t *size);
int rj_amd_copy(int device, void *dst, const void *src, size_t bytes, int to_device,
		void *stream);

#endif
