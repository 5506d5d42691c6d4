/*
 * platform_amd.c - the AMD platform: hipRTC for compiles, the HIP module API for devices.
 *
 * Owns every call into libamdhip64, libhiprtc and libamd_comgr, all loaded with dlopen:
 * the vendor headers give the types, no symbol is linked.  hipRTC lives in libhiprtc.so
 * from ROCm 5.3 on and inside libamdhip64.so before (Debian 12 ships HIP 5.2).
 *
 * Hazards handled here (measured: shared/NOTES.md):
 *  - comgr ABORTS the process on a target it does not know, so every target is first
 *    checked with amd_comgr_get_isa_metadata, which fails cleanly instead;
 *  - hipRTC 5.2 is not thread-safe, so compiles hold compile_lock;
 *  - the log size has no NUL and nothing is written when it is 0.
 *
 * The device half (device_target, module_*, launch) cannot run on any machine this
 * project can reach (no AMD GPU); it is kept thin, one vendor call each, and mirrors
 * the NVIDIA platform's path, which does run on a GPU.
 */
#define __HIP_PLATFORM_AMD__ 1
#include <amd_comgr.h>
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "compile/platform.h"

#define ISA_PREFIX "amdgcn-amd-amdhsa--"

#define SYM(name) __typeof__(&name) name
static struct {
	pthread_once_t compiler_once, runtime_once;
	int compiler_rc, runtime_rc;
	char compiler_error[512], runtime_error[512];
	char id[128];
	void *hip, *rtc, *comgr;
	/* compiler */
	SYM(hiprtcVersion);
	SYM(hiprtcCreateProgram);
	SYM(hiprtcCompileProgram);
	SYM(hiprtcDestroyProgram);
	SYM(hiprtcGetProgramLogSize);
	SYM(hiprtcGetProgramLog);
	SYM(hiprtcGetCodeSize);
	SYM(hiprtcGetCode);
	SYM(hiprtcGetErrorString);
	SYM(amd_comgr_get_version);
	SYM(amd_comgr_get_isa_count);
	SYM(amd_comgr_get_isa_name);
	SYM(amd_comgr_get_isa_metadata);
	SYM(amd_comgr_destroy_metadata);
	/* runtime */
	SYM(hipRuntimeGetVersion);
	SYM(hipGetDeviceCount);
	SYM(hipGetDeviceProperties);
	SYM(hipSetDevice);
	SYM(hipGetDevice);
	SYM(hipModuleLoadData);
	SYM(hipModuleUnload);
	SYM(hipModuleGetFunction);
	SYM(hipModuleLaunchKernel);
	SYM(hipGetErrorString);
} amd = { .compiler_once = PTHREAD_ONCE_INIT, .runtime_once = PTHREAD_ONCE_INIT };
#undef SYM

static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER;

static void *open_first(const char *const *names)
{
	for (; *names; names++) {
		void *h = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
		if (h)
			return h;
	}
	return NULL;
}

/* The first of names found in the folder of the library file lib (in the loader's search
 * path, as lib itself, when lib names no folder), or NULL. */
static void *open_beside(const char *lib, const char *const *names)
{
	const char *slash = strrchr(lib, '/');
	char path[4096];

	if (!slash)
		return open_first(names);
	for (; *names; names++) {
		void *h;
		if (snprintf(path, sizeof path, "%.*s/%s", (int)(slash - lib), lib, *names) >=
		    (int)sizeof path)
			return NULL;
		if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
			return h;
	}
	return NULL;
}

#define LOAD(handle, name) (*(void **)&amd.name = (handle) ? dlsym((handle), #name) : NULL)

static void load_runtime(void)
{
	static const char *const hip_names[] = { "libamdhip64.so.6", "libamdhip64.so.5",
						 "libamdhip64.so", NULL };
	const char *env = getenv("ROCJIT_HIP_LIBRARY");
	const char *const chosen[] = { env, NULL };

	/* $ROCJIT_HIP_LIBRARY names the HIP runtime (and, before ROCm 5.3, hipRTC) exactly. */
	amd.hip = open_first(env && *env ? chosen : hip_names);
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
		amd.runtime_rc = ROCJIT_ENODEV;
		snprintf(amd.runtime_error, sizeof amd.runtime_error,
			 "the HIP runtime (libamdhip64.so) could not be loaded: %s; install it "
			 "(Debian: libamdhip64-5) to run kernels on an AMD GPU",
			 amd.hip ? "symbols missing" : dlerror());
	}
}

static void load_compiler(void)
{
	static const char *const rtc_names[] = { "libhiprtc.so.6", "libhiprtc.so.5",
						 "libhiprtc.so", NULL };
	static const char *const comgr_names[] = { "libamd_comgr.so.3", "libamd_comgr.so.2",
						   "libamd_comgr.so", NULL };
	size_t major = 0, minor = 0;
	int rtc_major = 0, rtc_minor = 0, hip_version = 0;
	void *rtc;

	const char *env = getenv("ROCJIT_HIP_LIBRARY");

	pthread_once(&amd.runtime_once, load_runtime);
	if (env && *env) {
		/* The named HIP's own hipRTC and comgr: from ROCm 5.3 on they are separate
		   libraries in its folder; before, hipRTC is inside it.  Never another
		   installation's hipRTC, which would not match the runtime. */
		amd.rtc = open_beside(env, rtc_names);
		amd.comgr = open_beside(env, comgr_names);
	} else {
		amd.rtc = open_first(rtc_names);
	}
	if (!amd.comgr)
		amd.comgr = open_first(comgr_names);
	/* Before ROCm 5.3 hipRTC is part of libamdhip64. */
	rtc = amd.rtc ? amd.rtc : amd.hip;
	LOAD(rtc, hiprtcVersion);
	LOAD(rtc, hiprtcCreateProgram);
	LOAD(rtc, hiprtcCompileProgram);
	LOAD(rtc, hiprtcDestroyProgram);
	LOAD(rtc, hiprtcGetProgramLogSize);
	LOAD(rtc, hiprtcGetProgramLog);
	LOAD(rtc, hiprtcGetCodeSize);
	LOAD(rtc, hiprtcGetCode);
	LOAD(rtc, hiprtcGetErrorString);
	LOAD(amd.comgr, amd_comgr_get_version);
	LOAD(amd.comgr, amd_comgr_get_isa_count);
	LOAD(amd.comgr, amd_comgr_get_isa_name);
	LOAD(amd.comgr, amd_comgr_get_isa_metadata);
	LOAD(amd.comgr, amd_comgr_destroy_metadata);
	if (!amd.hiprtcVersion || !amd.hiprtcCreateProgram || !amd.hiprtcCompileProgram ||
	    !amd.hiprtcDestroyProgram || !amd.hiprtcGetProgramLogSize ||
	    !amd.hiprtcGetProgramLog || !amd.hiprtcGetCodeSize || !amd.hiprtcGetCode) {
		amd.compiler_rc = ROCJIT_ENOCOMPILER;
		snprintf(amd.compiler_error, sizeof amd.compiler_error,
			 "hipRTC could not be loaded (neither libhiprtc.so nor libamdhip64.so "
			 "%s%s%s provides it); install it (Debian: libamdhip64-dev, ROCm: hiprtc)%s",
			 env && *env ? "in the folder of ROCJIT_HIP_LIBRARY=" : "",
			 env && *env ? env : "", env && *env ? "," : "",
			 env && *env ? " or unset ROCJIT_HIP_LIBRARY" : "");
		return;
	}
	/* Without comgr no target can be checked, and an unchecked one can abort us. */
	if (!amd.amd_comgr_get_isa_metadata || !amd.amd_comgr_get_isa_count ||
	    !amd.amd_comgr_get_isa_name || !amd.amd_comgr_destroy_metadata) {
		amd.compiler_rc = ROCJIT_ENOCOMPILER;
		snprintf(amd.compiler_error, sizeof amd.compiler_error,
			 "libamd_comgr.so could not be loaded; hipRTC needs it (Debian: "
			 "libamd-comgr2)");
		return;
	}
	amd.hiprtcVersion(&rtc_major, &rtc_minor);
	if (amd.amd_comgr_get_version)
		amd.amd_comgr_get_version(&major, &minor);
	if (amd.hipRuntimeGetVersion)
		amd.hipRuntimeGetVersion(&hip_version);
	snprintf(amd.id, sizeof amd.id, "hiprtc %d.%d; hip %d; comgr %zu.%zu", rtc_major,
		 rtc_minor, hip_version, major, minor);
}

static int compiler_ready(void)
{
	pthread_once(&amd.compiler_once, load_compiler);
	RJ_CHECK(amd.compiler_rc, amd.compiler_rc, "%s", amd.compiler_error);
	return 0;
}

static int runtime_ready(void)
{
	pthread_once(&amd.runtime_once, load_runtime);
	RJ_CHECK(amd.runtime_rc, amd.runtime_rc, "%s", amd.runtime_error);
	return 0;
}

static const char *amd_compiler_id(void)
{
	return compiler_ready() == 0 ? amd.id : NULL;
}

static size_t add_file(const char **paths, size_t n, size_t max, void *symbol)
{
	Dl_info info;

	if (n >= max || !symbol || !dladdr(symbol, &info) || !info.dli_fname)
		return n;
	for (size_t i = 0; i < n; i++)
		if (strcmp(paths[i], info.dli_fname) == 0)
			return n;
	paths[n] = info.dli_fname;
	return n + 1;
}

/* hipRTC's library, the HIP runtime's (the same one before ROCm 5.3) and comgr's. */
static size_t amd_compiler_files(const char **paths, size_t max)
{
	size_t n = 0;

	if (compiler_ready() != 0)
		return 0;
	n = add_file(paths, n, max, *(void **)&amd.hiprtcCompileProgram);
	n = add_file(paths, n, max, *(void **)&amd.hipRuntimeGetVersion);
	n = add_file(paths, n, max, *(void **)&amd.amd_comgr_get_isa_metadata);
	return n;
}

/* The processors this comgr knows, space-separated, into buf. */
static void list_targets(char *buf, size_t size)
{
	size_t n = 0, len = 0;

	buf[0] = 0;
	if (amd.amd_comgr_get_isa_count(&n) != AMD_COMGR_STATUS_SUCCESS)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *name = NULL;
		if (amd.amd_comgr_get_isa_name(i, &name) != AMD_COMGR_STATUS_SUCCESS || !name)
			continue;
		if (strncmp(name, ISA_PREFIX, sizeof ISA_PREFIX - 1) == 0)
			name += sizeof ISA_PREFIX - 1;
		if (len + strlen(name) + 5 >= size) {
			snprintf(buf + len, size - len, " ...");
			break;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "", name);
	}
}

/*
 * comgr knows an ISA name with its features ("...--gfx90a:sramecc+:xnack-") exactly when
 * it can compile for it; asking for the ISA's metadata fails cleanly where a compile would
 * abort.
 */
static int amd_target_check(const char *target)
{
	char isa[128], known[2048];
	amd_comgr_metadata_node_t md;

	RJ_FORWARD(compiler_ready());
	RJ_CHECK(strncmp(target, "gfx", 3) != 0, ROCJIT_EUNSUPPORTED,
		 "target \"%s\" is not an AMD GPU target id (gfxNNN[:feature+|-])", target);
	snprintf(isa, sizeof isa, ISA_PREFIX "%s", target);
	if (amd.amd_comgr_get_isa_metadata(isa, &md) == AMD_COMGR_STATUS_SUCCESS) {
		amd.amd_comgr_destroy_metadata(md);
		return 0;
	}
	list_targets(known, sizeof known);
	RJ_FAIL(ROCJIT_EUNSUPPORTED,
		"the installed compiler (%s) cannot compile for \"%s\" (an unknown processor, "
		"or a feature it does not have); supported processors: %s", amd.id, target,
		known);
}

static int amd_targets(char *buf, size_t size)
{
	RJ_FORWARD(compiler_ready());
	list_targets(buf, size);
	return 0;
}

static int amd_device_count(int *count)
{
	*count = 0;
	if (runtime_ready() != 0 || amd.hipGetDeviceCount(count) != hipSuccess)
		*count = 0;
	rj_error_clear();
	return 0;
}

/* The program's log, NUL-terminated (hipRTC's size has no NUL and 0 writes nothing). */
static char *program_log(hiprtcProgram prog)
{
	size_t n = 0;
	char *log;

	if (amd.hiprtcGetProgramLogSize(prog, &n) != HIPRTC_SUCCESS)
		n = 0;
	log = calloc(1, n + 1);
	if (log && n && amd.hiprtcGetProgramLog(prog, log) != HIPRTC_SUCCESS)
		log[0] = 0;
	return log;
}

static int compile_locked(const char *target, const struct rj_compile_req *req,
			  struct rj_compile_out *out, const char **argv, int argc,
			  const char **hsrc, const char **hname)
{
	hiprtcProgram prog = NULL;
	hiprtcResult r;
	char *raw;

	r = amd.hiprtcCreateProgram(&prog, req->source, req->name, (int)req->num_headers,
				    hsrc, hname);
	RJ_CHECK(r != HIPRTC_SUCCESS, r == HIPRTC_ERROR_OUT_OF_MEMORY ? ROCJIT_ENOMEM :
		 ROCJIT_ECOMPILE, "hiprtcCreateProgram failed (%d)", (int)r);
	r = amd.hiprtcCompileProgram(prog, argc, argv);
	raw = program_log(prog);
	out->log = raw ? rj_log_map_names(raw, req->name) : NULL;
	free(raw);
	if (r == HIPRTC_SUCCESS) {
		size_t n = 0;
		if (amd.hiprtcGetCodeSize(prog, &n) == HIPRTC_SUCCESS && n)
			out->code = malloc(n);
		if (out->code && amd.hiprtcGetCode(prog, out->code) == HIPRTC_SUCCESS) {
			out->size = n;
		} else {
			free(out->code);
			out->code = NULL;
			r = HIPRTC_ERROR_INTERNAL_ERROR;
		}
	}
	amd.hiprtcDestroyProgram(&prog);
	if (r == HIPRTC_SUCCESS)
		return 0;
	RJ_FAIL(ROCJIT_ECOMPILE, "%s did not compile for %s (%s)", req->name, target,
		amd.hiprtcGetErrorString ? amd.hiprtcGetErrorString(r) : "hipRTC error");
}

static int amd_compile(const char *target, const struct rj_compile_req *req,
		       struct rj_compile_out *out)
{
	struct rj_header_arrays h;
	const char **argv;
	char arch[160];
	size_t argc = 0;
	int rc;

	memset(out, 0, sizeof *out);
	RJ_FORWARD(compiler_ready());
	argv = calloc(req->options->count + 1, sizeof *argv);
	RJ_CHECK(!argv, ROCJIT_ENOMEM, "out of memory compiling %s", req->name);
	if (rj_header_arrays_make(&h, req, 0) != 0) {
		free(argv);
		return ROCJIT_ENOMEM;
	}
	for (const char *o = rj_opts_next(req->options, NULL); o; o = rj_opts_next(req->options, o))
		argv[argc++] = o;
	snprintf(arch, sizeof arch, "--offload-arch=%s", target);
	argv[argc++] = arch;
	pthread_mutex_lock(&compile_lock);
	rc = compile_locked(target, req, out, argv, (int)argc, h.src, h.names);
	pthread_mutex_unlock(&compile_lock);
	rj_header_arrays_free(&h);
	free(argv);
	return rc;
}

#define HIP_FAIL(code, err, what) \
	RJ_FAIL((code), "%s failed: %s (%d)", (what), amd.hipGetErrorString(err), (int)(err))

static int amd_device_target(int device, char *out, size_t size)
{
	/* Room for any HIP version's hipDeviceProp_t: the layout of the fields we read is
	   the one every libamdhip64 keeps for the unversioned hipGetDeviceProperties. */
	union {
		hipDeviceProp_t prop;
		char pad[16384];
	} u;
	int count = 0;
	hipError_t e;

	RJ_FORWARD(runtime_ready());
	e = amd.hipGetDeviceCount(&count);
	RJ_CHECK(e != hipSuccess || count == 0, ROCJIT_ENODEV,
		 "no AMD GPU found (hipGetDeviceCount: %s)",
		 e != hipSuccess ? amd.hipGetErrorString(e) : "0 devices");
	RJ_CHECK(device < 0 || device >= count, ROCJIT_ENODEV,
		 "device %d does not exist: this machine has %d AMD GPU(s)", device, count);
	memset(&u, 0, sizeof u);
	e = amd.hipGetDeviceProperties(&u.prop, device);
	if (e != hipSuccess)
		HIP_FAIL(ROCJIT_EDEVICE, e, "hipGetDeviceProperties");
	u.prop.gcnArchName[sizeof u.prop.gcnArchName - 1] = 0;
	RJ_CHECK(strlen(u.prop.gcnArchName) >= size, ROCJIT_EDEVICE, "device target too long");
	memcpy(out, u.prop.gcnArchName, strlen(u.prop.gcnArchName) + 1);
	return 0;
}

static int amd_module_load(int device, const void *code, size_t size, void **module)
{
	hipError_t e;
	int prev;

	(void)size; /* the code object's ELF header gives its extent */
	RJ_FORWARD(runtime_ready());
	/* Load on device, then give the thread its own device back (as the NVIDIA side). */
	if (amd.hipGetDevice(&prev) != hipSuccess)
		prev = -1;
	e = amd.hipSetDevice(device);
	if (e != hipSuccess)
		HIP_FAIL(ROCJIT_EDEVICE, e, "hipSetDevice");
	e = amd.hipModuleLoadData((hipModule_t *)module, code);
	if (prev >= 0 && prev != device)
		amd.hipSetDevice(prev);
	if (e != hipSuccess)
		HIP_FAIL(ROCJIT_EDEVICE, e, "hipModuleLoadData");
	return 0;
}

static void amd_module_unload(void *module)
{
	if (module && amd.hipModuleUnload)
		amd.hipModuleUnload((hipModule_t)module);
}

static int amd_function_get(void *module, const char *name, void **function)
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
static int amd_launch(void *function, int device, rocjit_dim3 grid, rocjit_dim3 block,
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

const struct rj_platform rj_platform_amd = {
	.id = ROCJIT_PLATFORM_AMD,
	.name = "amd",
	.compiler_id = amd_compiler_id,
	.compiler_files = amd_compiler_files,
	.target_check = amd_target_check,
	.targets = amd_targets,
	.device_count = amd_device_count,
	.compile = amd_compile,
	.device_target = amd_device_target,
	.module_load = amd_module_load,
	.module_unload = amd_module_unload,
	.function_get = amd_function_get,
	.launch = amd_launch,
};
