/*
 * driver_nvidia.c - the NVIDIA platform's devices: the CUDA driver API, loaded with dlopen
 * (no CUDA header or library is needed to build), its devices and primary contexts,
 * modules, launches, and the per-kernel calls beyond a launch (function attributes,
 * occupancy, device limits, module variables and copies to and from them).
 *
 * Modules are loaded into each device's primary context, the one the CUDA runtime uses,
 * so rocjit kernels run on the application's streams and buffers without copies.  Every
 * call is made in the kernel's device's context, the thread's own given back after.  Only
 * what the request path needs is looked up when the driver loads; the rest at its first
 * use.  Every driver error comes back as ROCJIT_EDEVICE naming the call; request/launch.c
 * turns the likely ones into messages about the kernel.  platform_nvidia.c (NVRTC) points
 * the platform at these.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "compile/nvidia.h"
#include "compile/platform.h"
#include "compile/vendor_lib.h"

#define CU_ATTR_CC_MAJOR 75
#define CU_ATTR_CC_MINOR 76
#define CU_ATTR_MULTIPROCESSOR_COUNT 16
#define CU_ATTR_SHARED_PER_BLOCK_OPTIN 97
#define MAX_DEVICES 64

static struct {
	struct rj_vendor_load driver;
	void *cuda;
	CUresult (*cuInit)(unsigned int);
	CUresult (*cuDeviceGetCount)(int *);
	CUresult (*cuDeviceGet)(CUdevice *, int);
	CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*cuCtxGetCurrent)(CUcontext *);
	CUresult (*cuCtxSetCurrent)(CUcontext);
	CUresult (*cuModuleLoadData)(CUmodule *, const void *);
	CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
	/* Off a new process's first request, looked up at their first use (late_sym). */
	void *_Atomic cuModuleUnload, *_Atomic cuLaunchKernel, *_Atomic cuGetErrorString;
	void *_Atomic cuLaunchCooperativeKernel;

	int device_count;
	pthread_mutex_t ctx_lock;
	CUcontext primary[MAX_DEVICES]; /* retained once, kept for the process's life */
	/* Beyond a launch, looked up at their first use too. */
	void *_Atomic cuFuncGetAttribute, *_Atomic cuFuncSetAttribute;
	void *_Atomic cuOccupancyMaxActiveBlocksPerMultiprocessor;
	void *_Atomic cuOccupancyMaxPotentialBlockSize;
	void *_Atomic cuModuleGetGlobal_v2;
	void *_Atomic cuMemcpyHtoD_v2, *_Atomic cuMemcpyDtoH_v2;
	void *_Atomic cuMemcpyHtoDAsync_v2, *_Atomic cuMemcpyDtoHAsync_v2;
} nv = { .driver = RJ_VENDOR_LOAD_INIT, .ctx_lock = PTHREAD_MUTEX_INITIALIZER };

#define LOAD(handle, name) (*(void **)&nv.name = rj_vendor_sym((handle), #name))

/*
 * A driver function looked up at its first use and kept in *slot: each dlsym in libcuda's
 * large symbol table costs a new process a few microseconds (the driver's load is on
 * every process's first request), and only what a process calls should cost it.  NULL
 * when the driver lacks it (or is not loaded).
 */
static void *late_sym(void *_Atomic *slot, const char *name)
{
	void *f = atomic_load_explicit(slot, memory_order_acquire);

	if (!f && nv.cuda) {
		f = rj_vendor_sym(nv.cuda, name);
		atomic_store_explicit(slot, f, memory_order_release);
	}
	return f;
}

typedef CUresult (*cu_launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned,
				 unsigned, unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*cu_coop_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
			       unsigned, unsigned, CUstream, void **);

static const char *cu_error(CUresult r)
{
	const char *s = NULL;
	CUresult (*error_string)(CUresult, const char **);

	*(void **)&error_string = late_sym(&nv.cuGetErrorString, "cuGetErrorString");
	if (error_string && error_string(r, &s) == CUDA_SUCCESS && s)
		return s;
	return "unknown CUDA error";
}

#define CU_FAIL(r, what) \
	RJ_FAIL(ROCJIT_EDEVICE, "%s failed: %s (%d)", (what), cu_error(r), (r))

static void load_driver(void)
{
	CUresult r;

	static const char *const names[] = { "libcuda.so.1", NULL };

	nv.cuda = rj_vendor_open(NULL, 0, names);
	if (!nv.cuda) {
		rj_vendor_load_fail(&nv.driver, ROCJIT_ENODEV,
				    "no NVIDIA driver (libcuda.so.1 could not be loaded)");
		return;
	}
	LOAD(nv.cuda, cuInit);
	LOAD(nv.cuda, cuDeviceGetCount);
	LOAD(nv.cuda, cuDeviceGet);
	LOAD(nv.cuda, cuDeviceGetAttribute);
	LOAD(nv.cuda, cuDevicePrimaryCtxRetain);
	LOAD(nv.cuda, cuCtxGetCurrent);
	LOAD(nv.cuda, cuCtxSetCurrent);
	LOAD(nv.cuda, cuModuleLoadData);
	LOAD(nv.cuda, cuModuleGetFunction);
	if (!nv.cuInit || !nv.cuDeviceGetCount || !nv.cuDeviceGet || !nv.cuDeviceGetAttribute ||
	    !nv.cuDevicePrimaryCtxRetain || !nv.cuCtxGetCurrent || !nv.cuCtxSetCurrent ||
	    !nv.cuModuleLoadData || !nv.cuModuleGetFunction) {
		rj_vendor_load_fail(&nv.driver, ROCJIT_ENODEV,
				    "the NVIDIA driver (libcuda.so.1) lacks functions rocjit "
				    "needs");
		return;
	}
	r = nv.cuInit(0);
	if (r == CUDA_SUCCESS)
		r = nv.cuDeviceGetCount(&nv.device_count);
	if (r != CUDA_SUCCESS || nv.device_count <= 0) {
		rj_vendor_load_fail(&nv.driver, ROCJIT_ENODEV, "no NVIDIA GPU found (%s)",
				    r != CUDA_SUCCESS ? cu_error(r) : "0 devices");
	}
}

static int driver_ready(void)
{
	return rj_vendor_load_ready(&nv.driver, load_driver);
}


int rj_nv_device_count(int *count)
{
	*count = driver_ready() == 0 ? nv.device_count : 0;
	rj_error_clear();
	return 0;
}

static int device_attribute(int device, int attr, int *value)
{
	CUdevice dev;
	CUresult r;

	RJ_FORWARD(driver_ready());
	RJ_CHECK(device < 0 || device >= nv.device_count || device >= MAX_DEVICES, ROCJIT_ENODEV,
		 "device %d does not exist: this machine has %d NVIDIA GPU(s)", device,
		 nv.device_count);
	if ((r = nv.cuDeviceGet(&dev, device)) != CUDA_SUCCESS)
		CU_FAIL(r, "cuDeviceGet");
	if ((r = nv.cuDeviceGetAttribute(value, attr, dev)) != CUDA_SUCCESS)
		CU_FAIL(r, "cuDeviceGetAttribute");
	return 0;
}

int rj_nv_device_target(int device, char *out, size_t size)
{
	int major = 0, minor = 0;

	RJ_FORWARD(device_attribute(device, CU_ATTR_CC_MAJOR, &major));
	RJ_FORWARD(device_attribute(device, CU_ATTR_CC_MINOR, &minor));
	snprintf(out, size, "sm_%d%d", major, minor);
	return 0;
}

/* The device's primary context, retained on first use and kept. */
static int primary_context(int device, CUcontext *out)
{
	CUresult r = CUDA_SUCCESS;
	CUdevice dev;

	pthread_mutex_lock(&nv.ctx_lock);
	if (!nv.primary[device]) {
		r = nv.cuDeviceGet(&dev, device);
		if (r == CUDA_SUCCESS)
			r = nv.cuDevicePrimaryCtxRetain(&nv.primary[device], dev);
	}
	*out = nv.primary[device];
	pthread_mutex_unlock(&nv.ctx_lock);
	if (r != CUDA_SUCCESS)
		CU_FAIL(r, "cuDevicePrimaryCtxRetain");
	return 0;
}

static int enter(int device, CUcontext *prev, int *switched)
{
	CUcontext want;
	CUresult r;

	*prev = NULL;
	*switched = 0;
	RJ_FORWARD(primary_context(device, &want));
	if (nv.cuCtxGetCurrent(prev) == CUDA_SUCCESS && *prev == want)
		return 0;
	if ((r = nv.cuCtxSetCurrent(want)) != CUDA_SUCCESS)
		CU_FAIL(r, "cuCtxSetCurrent");
	*switched = 1;
	return 0;
}

/* A thread that had no context keeps the primary. */
static void leave(CUcontext prev, int switched)
{
	if (switched && prev)
		nv.cuCtxSetCurrent(prev);
}

int rj_nv_module_load(int device, const void *code, size_t size, void **module)
{
	CUcontext prev;
	CUresult r;
	int switched;

	(void)size; /* the CUBIN's ELF header gives its extent */
	RJ_FORWARD(driver_ready());
	RJ_FORWARD(enter(device, &prev, &switched));
	r = nv.cuModuleLoadData((CUmodule *)module, code);
	leave(prev, switched);
	if (r != CUDA_SUCCESS)
		CU_FAIL(r, "cuModuleLoadData");
	return 0;
}

void rj_nv_module_unload(void *module)
{
	CUresult (*unload)(CUmodule);

	*(void **)&unload = late_sym(&nv.cuModuleUnload, "cuModuleUnload");
	if (module && unload)
		unload((CUmodule)module);
}

int rj_nv_function_get(void *module, const char *name, void **function)
{
	CUresult r = nv.cuModuleGetFunction((CUfunction *)function, (CUmodule)module, name);

	RJ_CHECK(r == CUDA_ERROR_NOT_FOUND, ROCJIT_ENOTFOUND,
		 "no kernel named \"%s\" in the code object (declare it extern \"C\" or pass "
		 "its mangled name)", name);
	if (r != CUDA_SUCCESS)
		CU_FAIL(r, "cuModuleGetFunction");
	return 0;
}

/*
 * One driver call on the hot path.  When the calling thread's current context is not
 * the kernel's device's (a fresh thread, or one working on another GPU), the launch is
 * retried once inside that device's primary context, and the thread's own is given back.
 */
int rj_nv_launch(void *function, int device, rocjit_dim3 g, rocjit_dim3 b,
		     unsigned int shared_bytes, void *stream, void **args)
{
	cu_launch_fn launch;
	CUresult r;

	*(void **)&launch = late_sym(&nv.cuLaunchKernel, "cuLaunchKernel");
	RJ_CHECK(!launch, ROCJIT_EDEVICE, "the NVIDIA driver (libcuda.so.1) has no "
		 "cuLaunchKernel: update the driver");
	r = launch((CUfunction)function, g.x, g.y, g.z, b.x, b.y, b.z, shared_bytes,
		   (CUstream)stream, args, NULL);
	if (r == CUDA_ERROR_INVALID_CONTEXT || r == CUDA_ERROR_INVALID_HANDLE) {
		CUcontext prev;
		int switched;

		RJ_FORWARD(enter(device, &prev, &switched));
		if (switched)
			r = launch((CUfunction)function, g.x, g.y, g.z, b.x, b.y, b.z,
				   shared_bytes, (CUstream)stream, args, NULL);
		leave(prev, switched);
	}
	if (r != CUDA_SUCCESS)
		CU_FAIL(r, "cuLaunchKernel");
	return 0;
}

/* Rare, so made in the kernel's context from the start rather than retried into it. */
int rj_nv_launch_cooperative(void *function, int device, rocjit_dim3 g, rocjit_dim3 b,
				 unsigned int shared_bytes, void *stream, void **args)
{
	cu_coop_fn coop;
	CUcontext prev;
	int switched;
	CUresult r;

	*(void **)&coop = late_sym(&nv.cuLaunchCooperativeKernel,
					 "cuLaunchCooperativeKernel");
	RJ_CHECK(!coop, ROCJIT_EUNSUPPORTED, "the NVIDIA driver (libcuda.so.1) has no "
		 "cuLaunchCooperativeKernel: update the driver");
	RJ_FORWARD(enter(device, &prev, &switched));
	r = coop((CUfunction)function, g.x, g.y, g.z, b.x, b.y, b.z, shared_bytes,
		 (CUstream)stream, args);
	leave(prev, switched);
	if (r != CUDA_SUCCESS)
		CU_FAIL(r, "cuLaunchCooperativeKernel");
	return 0;
}

/* ---- Beyond a launch ---- */

/* Sets fn to the driver's name, or fails with ROCJIT_EUNSUPPORTED.  The _v2 names are
 * the 64-bit ones every driver since CUDA 3.2 has. */
#define LATE(fn, name)                                                                  \
	do {                                                                            \
		*(void **)&(fn) = late_sym(&nv.name, #name);                            \
		RJ_CHECK(!(fn), ROCJIT_EUNSUPPORTED, "the NVIDIA driver (libcuda.so.1) " \
			 "has no " #name ": update the driver");                        \
	} while (0)

/* Runs call (a CUresult expression) in device's context; fails naming what. */
#define IN_CONTEXT(device, call, what)                                                  \
	do {                                                                            \
		CUcontext prev_;                                                        \
		int switched_;                                                          \
		CUresult r_;                                                            \
                                                                                        \
		RJ_FORWARD(enter((device), &prev_, &switched_));                        \
		r_ = (call);                                                            \
		leave(prev_, switched_);                                                \
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
	return device_attribute(device, which == RJ_DEV_MULTIPROCESSORS
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
	RJ_FORWARD(enter(device, &prev, &switched));
	r = get(&p, size, (CUmodule)module, name);
	leave(prev, switched);
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
