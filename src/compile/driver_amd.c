/*
 * driver_amd.c - the AMD platform's devices: the HIP runtime (libamdhip64), loaded with
 * dlopen (no HIP header is needed to build), its devices, modules, launches, and the
 * per-kernel calls beyond a launch (function attributes, occupancy, device limits,
 * module variables and copies to and from them).
 *
 * No AMD GPU is within reach of this project: every call here is one HIP runtime call,
 * the counterpart of the CUDA driver call driver_nvidia.c makes where the GPU tests run
 * them, and is checked by compiling only.  Only what the request path needs is looked up
 * when the runtime loads; the rest at its first use.  AMD has no shared-memory opt-in and
 * no L1/shared split: setting either attribute changes nothing (request/launch.c has
 * checked the value against the LDS a block may use).  platform_amd.c (hipRTC, which
 * before ROCm 5.3 lives in this same library) points the platform at these.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/config.h"
#include "base/error.h"
#include "compile/amd.h"
#include "compile/platform.h"
#include "compile/rocm_paths.h"
#include "compile/vendor_lib.h"

typedef void *hipDeviceptr_t;

/*
 * hipDeviceProp_t up to gcnArchName, field for field as HIP 5.2.3's hip_runtime_api.h
 * lays it out.  The unversioned hipGetDeviceProperties fills this layout in every
 * libamdhip64: ROCm 6 keeps it as hipDeviceProp_tR0000 and gives its new layout another
 * symbol (hipGetDevicePropertiesR0600).  The struct is longer than this head and grows
 * between versions, so the caller passes a buffer far larger than any of them.
 */
struct hip_device_prop_head {
	char name[256];
	size_t totalGlobalMem;
	size_t sharedMemPerBlock;
	int regsPerBlock;
	int warpSize;
	int maxThreadsPerBlock;
	int maxThreadsDim[3];
	int maxGridSize[3];
	int clockRate;
	int memoryClockRate;
	int memoryBusWidth;
	size_t totalConstMem;
	int major;
	int minor;
	int multiProcessorCount;
	int l2CacheSize;
	int maxThreadsPerMultiProcessor;
	int computeMode;
	int clockInstructionRate;
	unsigned arch;  /* hipDeviceArch_t: 22 one-bit fields in one unsigned int */
	int concurrentKernels;
	int pciDomainID;
	int pciBusID;
	int pciDeviceID;
	size_t maxSharedMemoryPerMultiProcessor;
	int isMultiGpuBoard;
	int canMapHostMemory;
	int gcnArch;
	char gcnArchName[256];  /* the full target id: "gfx90a:sramecc+:xnack-" */
};
/* offsetof(hipDeviceProp_t, gcnArchName) with HIP 5.2.3's header on x86-64 and aarch64. */
_Static_assert(sizeof(size_t) != 8 || offsetof(struct hip_device_prop_head, gcnArchName) == 396,
	       "hipDeviceProp_t layout");

static struct {
	struct rj_vendor_load runtime;
	void *hip;
	hipError_t (*hipRuntimeGetVersion)(int *);
	hipError_t (*hipGetDeviceCount)(int *);
	hipError_t (*hipGetDeviceProperties)(struct hip_device_prop_head *, int);
	hipError_t (*hipSetDevice)(int);
	hipError_t (*hipGetDevice)(int *);
	hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
	hipError_t (*hipModuleUnload)(hipModule_t);
	hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t, const char *);
	hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,
					    unsigned, unsigned, unsigned, hipStream_t, void **,
					    void **);
	const char *(*hipGetErrorString)(hipError_t);
	/* Beyond a launch, looked up at their first use. */
	void *_Atomic hipModuleLaunchCooperativeKernel, *_Atomic hipFuncGetAttribute;
	void *_Atomic hipModuleOccupancyMaxActiveBlocksPerMultiprocessor;
	void *_Atomic hipModuleOccupancyMaxPotentialBlockSize;
	void *_Atomic hipModuleGetGlobal;
	void *_Atomic hipMemcpyHtoD, *_Atomic hipMemcpyDtoH;
	void *_Atomic hipMemcpyHtoDAsync, *_Atomic hipMemcpyDtoHAsync;
	char found_by[4300];  /* which rule found the runtime (rj_amd_runtime_found_by) */
} amd = { .runtime = RJ_VENDOR_LOAD_INIT };

#define LOAD(handle, name) (*(void **)&amd.name = rj_vendor_sym((handle), #name))

const char *const rj_amd_runtime_names[] = { "libamdhip64.so.6", "libamdhip64.so.5",
					      "libamdhip64.so", NULL };
const char *const rj_amd_rtc_names[] = { "libhiprtc.so.6", "libhiprtc.so.5", "libhiprtc.so",
					 NULL };
const char *const rj_amd_comgr_names[] = { "libamd_comgr.so.3", "libamd_comgr.so.2",
					   "libamd_comgr.so", NULL };

static struct rj_amd_loaded loaded_before;
static pthread_once_t loaded_once = PTHREAD_ONCE_INIT;

static void look_loaded(void)
{
	loaded_before.hip = rj_vendor_loaded(rj_amd_runtime_names);
	loaded_before.rtc = rj_vendor_loaded(rj_amd_rtc_names);
	loaded_before.comgr = rj_vendor_loaded(rj_amd_comgr_names);
}

/* load_runtime and platform_amd.c's load_compiler ask this first, before either loads
 * anything: what it finds is the application's, not a library rocjit pulled in. */
const struct rj_amd_loaded *rj_amd_loaded_before(void)
{
	pthread_once(&loaded_once, look_loaded);
	return &loaded_before;
}

/* The file of a loaded library, as the loader knows it, or NULL. */
static const char *handle_file(void *h)
{
	struct link_map *map = NULL;

	return h && dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name[0] == '/' ?
		       map->l_name : NULL;
}

size_t rj_loaded_before_files(const char **files, size_t max)
{
	const struct rj_amd_loaded *pre = rj_amd_loaded_before();
	void *const h[] = { pre->hip, pre->comgr, pre->rtc };
	size_t n = 0;

	for (size_t i = 0; i < 3 && n < max; i++)
		if ((files[n] = handle_file(h[i])))
			n++;
	return n;
}

/* Parent and worker: the order a loader needs them in (hipRTC needs both by soname). */
static const char *const *const worker_names[] = { rj_amd_runtime_names, rj_amd_comgr_names,
						    rj_amd_rtc_names };

char *rj_worker_libraries_env(void)
{
	size_t len = strlen(RJ_WORKER_LIBRARIES) + 2;
	const char *files[3];
	int n = 0;
	char *out;

	for (int i = 0; i < 3; i++) {
		const char *file = handle_file(rj_vendor_loaded(worker_names[i]));
		if (file && !strchr(file, ':')) {
			files[n] = file;
			len += strlen(files[n++]) + 1;
		}
	}
	if (!n || !(out = malloc(len)))
		return NULL;
	strcpy(out, RJ_WORKER_LIBRARIES "=");
	for (int i = 0; i < n; i++)
		strcat(strcat(out, i ? ":" : ""), files[i]);
	return out;
}

/*
 * The files are code the parent process runs already: loaded as they are, without the
 * trust rule, which could only make the worker's compiler differ from its parent's.  Only
 * a worker calls this, and its parent sets the variable (process.c drops any it inherits).
 */
void rj_worker_libraries_load(void)
{
	const char *env = getenv(RJ_WORKER_LIBRARIES);
	char file[4096];

	while (env && *env) {
		size_t n = strcspn(env, ":");
		if (n < sizeof file) {
			snprintf(file, sizeof file, "%.*s", (int)n, env);
			if (!dlopen(file, RTLD_NOW | RTLD_LOCAL))
				rj_log(RJ_LOG_WARN, "the compile worker cannot load %s, which "
				       "the process that started it uses: %s", file, dlerror());
		}
		env += n + (env[n] == ':');
	}
}

/* The file of the library handle h, which exports hipRuntimeGetVersion, or "?". */
static const char *loaded_file(void *h)
{
	const char *file = rj_vendor_file(rj_vendor_sym(h, "hipRuntimeGetVersion"));

	return file ? file : "?";
}

/* 1 when path names the file of the library handle h (no second copy would load). */
static int names_file(const char *path, void *h)
{
	struct stat a, b;

	return stat(path, &a) == 0 && stat(loaded_file(h), &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * The runtime this process has loaded already, whoever loaded it (rj_amd_loaded_before
 * says why); named by $ROCJIT_HIP_LIBRARY too, it is reported by that rule.  Else
 * $ROCJIT_HIP_LIBRARY, which names the HIP runtime (and, before ROCm 5.3, hipRTC)
 * exactly.  Else the first ROCm folder that holds it (rocm_paths.c: $ROCM_PATH, the
 * standard install folders), the one platform_amd.c takes hipRTC from too, else the
 * loader's search path.
 */
static void load_runtime(void)
{
	const char *env = rj_config("ROCJIT_HIP_LIBRARY", NULL);
	const char *const chosen[] = { env, NULL };

	amd.hip = rj_amd_loaded_before()->hip;
	if (amd.hip && !(env && *env && names_file(env, amd.hip))) {
		snprintf(amd.found_by, sizeof amd.found_by, "%s", RJ_AMD_LOADED_RULE);
		if (env && *env)
			rj_log(RJ_LOG_WARN, "ROCJIT_HIP_LIBRARY=%s is not loaded: this process "
			       "has a HIP runtime loaded already (%s), and the modules a second "
			       "one loads would be unknown to it; unset ROCJIT_HIP_LIBRARY", env,
			       loaded_file(amd.hip));
	} else if (env && *env) {
		amd.hip = rj_vendor_open(NULL, 0, chosen); /* the loaded one, if the same file */
		snprintf(amd.found_by, sizeof amd.found_by, "ROCJIT_HIP_LIBRARY=%s", env);
	} else {
		struct rj_rocm_place p[16];
		size_t n = rj_rocm_places(p, sizeof p / sizeof p[0]);
		for (size_t i = 0; i < n && !amd.hip; i++)
			if (rj_rocm_has_any(p[i].dir, rj_amd_runtime_names) &&
			    (amd.hip = rj_vendor_open(p[i].dir, strlen(p[i].dir),
						      rj_amd_runtime_names)))
				snprintf(amd.found_by, sizeof amd.found_by, "%s", p[i].why);
		if (!amd.hip && (amd.hip = rj_vendor_open(NULL, 0, rj_amd_runtime_names)))
			snprintf(amd.found_by, sizeof amd.found_by,
				 "the loader's search path");
	}
	LOAD(amd.hip, hipRuntimeGetVersion);
	LOAD(amd.hip, hipGetDeviceCount);
	LOAD(amd.hip, hipGetDeviceProperties);
	LOAD(amd.hip, hipSetDevice);
	LOAD(amd.hip, hipGetDevice);
	LOAD(amd.hip, hipModuleLoadData);
	LOAD(amd.hip, hipModuleUnload);
	LOAD(amd.hip, hipModuleGetFunction);
	LOAD(amd.hip, hipModuleLaunchKernel);
	LOAD(amd.hip, hipGetErrorString);
	if (!amd.hip || !amd.hipGetDeviceCount || !amd.hipGetDeviceProperties ||
	    !amd.hipModuleLoadData || !amd.hipModuleGetFunction || !amd.hipModuleLaunchKernel ||
	    !amd.hipSetDevice || !amd.hipGetDevice || !amd.hipModuleUnload ||
	    !amd.hipGetErrorString) {
		rj_vendor_load_fail(&amd.runtime, ROCJIT_ENODEV,
				    "the HIP runtime (libamdhip64.so) could not be loaded: %s; "
				    "install it (Debian: libamdhip64-5) to run kernels on an AMD "
				    "GPU",
				    amd.hip ? "symbols missing" : dlerror());
	}
}

static int runtime_ready(void)
{
	return rj_vendor_load_ready(&amd.runtime, load_runtime);
}

/* Loads the runtime once, whoever asks first; its failure is the devices' concern (the
 * compiler may still load: ROCm 5.3 on). */
const char *rj_amd_runtime_found_by(void)
{
	pthread_once(&amd.runtime.once, load_runtime);
	return amd.hip ? amd.found_by : "";
}

void *rj_amd_runtime(int *version, void **symbol)
{
	pthread_once(&amd.runtime.once, load_runtime);
	if (version && amd.hipRuntimeGetVersion)
		amd.hipRuntimeGetVersion(version);
	if (symbol)
		*symbol = *(void **)&amd.hipRuntimeGetVersion;
	return amd.hip;
}

#define HIP_FAIL(code, err, what) \
	RJ_FAIL((code), "%s failed: %s (%d)", (what), hip_error(err), (int)(err))

static const char *hip_error(hipError_t e)
{
	return amd.hipGetErrorString ? amd.hipGetErrorString(e) : "unknown HIP error";
}

static void *late_sym(void *_Atomic *slot, const char *name)
{
	void *f = atomic_load_explicit(slot, memory_order_acquire);

	if (!f && runtime_ready() == 0) {
		f = rj_vendor_sym(amd.hip, name);
		atomic_store_explicit(slot, f, memory_order_release);
	}
	return f;
}

static int enter(int device, int *prev)
{
	hipError_t e;

	RJ_FORWARD(runtime_ready());
	if (amd.hipGetDevice(prev) != hipSuccess)
		*prev = -1;
	if (*prev != device && (e = amd.hipSetDevice(device)) != hipSuccess)
		HIP_FAIL(ROCJIT_EDEVICE, e, "hipSetDevice");
	return 0;
}

static void leave(int device, int prev)
{
	if (prev >= 0 && prev != device)
		amd.hipSetDevice(prev);
}

/* Room for any HIP version's hipDeviceProp_t; only its head is read (see struct
 * hip_device_prop_head). */
union device_props {
	struct hip_device_prop_head prop;
	char pad[16384];
};

static int device_props(int device, union device_props *u)
{
	int count = 0;
	hipError_t e;

	RJ_FORWARD(runtime_ready());
	e = amd.hipGetDeviceCount(&count);
	RJ_CHECK(e != hipSuccess || count == 0, ROCJIT_ENODEV,
		 "no AMD GPU found (hipGetDeviceCount: %s)",
		 e != hipSuccess ? amd.hipGetErrorString(e) : "0 devices");
	RJ_CHECK(device < 0 || device >= count, ROCJIT_ENODEV,
		 "device %d does not exist: this machine has %d AMD GPU(s)", device, count);
	memset(u, 0, sizeof *u);
	e = amd.hipGetDeviceProperties(&u->prop, device);
	if (e != hipSuccess)
		HIP_FAIL(ROCJIT_EDEVICE, e, "hipGetDeviceProperties");
	return 0;
}

int rj_amd_device_target(int device, char *out, size_t size)
{
	union device_props u;

	RJ_FORWARD(device_props(device, &u));
	u.prop.gcnArchName[sizeof u.prop.gcnArchName - 1] = 0;
	RJ_CHECK(strlen(u.prop.gcnArchName) >= size, ROCJIT_EDEVICE, "device target too long");
	memcpy(out, u.prop.gcnArchName, strlen(u.prop.gcnArchName) + 1);
	return 0;
}

/* From the properties' head, which every HIP version lays out alike: AMD has no opt-in
 * for shared memory, a block may use the target's LDS (sharedMemPerBlock). */
int rj_amd_device_limit(int device, int which, int *value)
{
	union device_props u;

	RJ_FORWARD(device_props(device, &u));
	*value = which == RJ_DEV_MULTIPROCESSORS ? u.prop.multiProcessorCount
						 : (int)u.prop.sharedMemPerBlock;
	return 0;
}

int rj_amd_module_load(int device, const void *code, size_t size, void **module)
{
	hipError_t e;
	int prev;

	(void)size; /* the code object's ELF header gives its extent */
	/* Load on device, then give the thread its own device back (as the NVIDIA side). */
	RJ_FORWARD(enter(device, &prev));
	e = amd.hipModuleLoadData((hipModule_t *)module, code);
	leave(device, prev);
	if (e != hipSuccess)
		HIP_FAIL(ROCJIT_EDEVICE, e, "hipModuleLoadData");
	return 0;
}

void rj_amd_module_unload(void *module)
{
	if (module && amd.hipModuleUnload)
		amd.hipModuleUnload((hipModule_t)module);
}

int rj_amd_function_get(void *module, const char *name, void **function)
{
	hipError_t e = amd.hipModuleGetFunction((hipFunction_t *)function, (hipModule_t)module,
						name);
	RJ_CHECK(e == hipErrorNotFound, ROCJIT_ENOTFOUND,
		 "no kernel named \"%s\" in the code object", name);
	if (e != hipSuccess)
		HIP_FAIL(ROCJIT_EDEVICE, e, "hipModuleGetFunction");
	return 0;
}

/* The stream (or, for NULL, the calling thread's current device) picks the device. */
int rj_amd_launch(void *function, int device, rocjit_dim3 grid, rocjit_dim3 block,
		      unsigned int shared_bytes, void *stream, void **args)
{
	(void)device;
	hipError_t e = amd.hipModuleLaunchKernel((hipFunction_t)function, grid.x, grid.y, grid.z,
						 block.x, block.y, block.z, shared_bytes,
						 (hipStream_t)stream, args, NULL);
	if (e != hipSuccess)
		HIP_FAIL(ROCJIT_EDEVICE, e, "hipModuleLaunchKernel");
	return 0;
}

int rj_amd_launch_cooperative(void *function, int device, rocjit_dim3 grid,
				  rocjit_dim3 block, unsigned int shared_bytes, void *stream,
				  void **args)
{
	hipError_t (*coop)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned,
			   unsigned, unsigned, hipStream_t, void **);
	hipError_t e;

	(void)device;
	*(void **)&coop = late_sym(&amd.hipModuleLaunchCooperativeKernel,
					  "hipModuleLaunchCooperativeKernel");
	RJ_CHECK(!coop, ROCJIT_EUNSUPPORTED, "the HIP runtime has no "
		 "hipModuleLaunchCooperativeKernel: a newer ROCm has it");
	e = coop((hipFunction_t)function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
		 shared_bytes, (hipStream_t)stream, args);
	if (e != hipSuccess)
		HIP_FAIL(ROCJIT_EDEVICE, e, "hipModuleLaunchCooperativeKernel");
	return 0;
}

int rj_amd_device_count(int *count)
{
	*count = 0;
	if (runtime_ready() != 0 || amd.hipGetDeviceCount(count) != hipSuccess)
		*count = 0;
	rj_error_clear();
	return 0;
}

/* ---- Beyond a launch ---- */

#define LATE(fn, name)                                                                  \
	do {                                                                            \
		*(void **)&(fn) = late_sym(&amd.name, #name);                   \
		RJ_CHECK(!(fn), ROCJIT_EUNSUPPORTED, "the HIP runtime (libamdhip64) "    \
			 "has no " #name ": a newer ROCm has it");                      \
	} while (0)

/* Runs call (a hipError_t expression) with device current; fails naming what. */
#define ON_DEVICE(device, call, what)                                                    \
	do {                                                                            \
		int prev_;                                                              \
		hipError_t e_;                                                          \
                                                                                        \
		RJ_FORWARD(enter((device), &prev_));                             \
		e_ = (call);                                                            \
		leave((device), prev_);                                          \
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
	RJ_FORWARD(enter(device, &prev));
	e = get(address, size, (hipModule_t)module, name);
	leave(device, prev);
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
