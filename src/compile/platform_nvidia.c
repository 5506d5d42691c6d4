/*
 * platform_nvidia.c - the NVIDIA platform: NVRTC for compiles, the CUDA driver API for
 * devices.
 *
 * Owns every call into libnvrtc and libcuda, both loaded with dlopen so that one build
 * runs on machines without them (NVRTC still compiles for an explicit sm_XY where there
 * is no driver: the prewarm case).  The few driver and NVRTC entry points used are
 * declared here with their C ABI (int results, opaque handles), so no CUDA header is
 * needed to build rocjit.
 *
 * HIP source compiles unchanged through rocjit's own hip/hip_runtime.h (devlib/nvidia/
 * hip/hip_runtime.h, embedded at build time with the rest of devlib/nvidia/ and devlib/std/,
 * devlib.c), served as an in-memory header and pre-included as hipRTC pre-includes its
 * own.  It needs the CUDA headers (cuda_fp16.h), found at run time: $CUDA_PATH,
 * $CUDA_HOME, beside the NVRTC library, /usr/local/cuda.
 *
 * Modules are loaded into each device's primary context, the one the CUDA runtime uses,
 * so rocjit kernels run on the application's streams and buffers without copies.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "compile/devlib.h"
#include "compile/inputs.h"
#include "compile/nvidia.h"
#include "compile/platform.h"
#include "compile/vendor_lib.h"

typedef int nvrtcResult;
typedef rj_vendor_program nvrtcProgram; /* struct _nvrtcProgram * */

#define CU_ATTR_CC_MAJOR 75
#define CU_ATTR_CC_MINOR 76
#define NVRTC_SUCCESS 0
#define NVRTC_ERROR_COMPILATION 6
#define MAX_DEVICES 64

static struct {
	struct rj_vendor_load compiler, driver;
	char id[96];
	char include_opt[4200];
	char cccl_opt[4310];    /* -I<include>/cccl where it exists (CUDA 13), else "" */
	char fp16_header[4300]; /* <include>/cuda_fp16.h: part of the compiler's files */
	void *nvrtc, *cuda;

	nvrtcResult (*nvrtcVersion)(int *, int *);
	nvrtcResult (*nvrtcGetNumSupportedArchs)(int *);
	nvrtcResult (*nvrtcGetSupportedArchs)(int *);
	nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int,
					  const char *const *, const char *const *);
	nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
	nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
	nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
	nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
	nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
	nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
	const char *(*nvrtcGetErrorString)(nvrtcResult);
	nvrtcResult (*nvrtcAddNameExpression)(nvrtcProgram, const char *);
	nvrtcResult (*nvrtcGetLoweredName)(nvrtcProgram, const char *, const char **);

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
} nv = { .compiler = RJ_VENDOR_LOAD_INIT, .driver = RJ_VENDOR_LOAD_INIT,
	 .ctx_lock = PTHREAD_MUTEX_INITIALIZER };

#define LOAD(handle, name) (*(void **)&nv.name = rj_vendor_sym((handle), #name))

/* The first request calls none of the late ones (nvidia.h). */
void *rj_nv_late_sym(void *_Atomic *slot, const char *name)
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

const char *rj_nv_error(CUresult r)
{
	const char *s = NULL;
	CUresult (*error_string)(CUresult, const char **);

	*(void **)&error_string = rj_nv_late_sym(&nv.cuGetErrorString, "cuGetErrorString");
	if (error_string && error_string(r, &s) == CUDA_SUCCESS && s)
		return s;
	return "unknown CUDA error";
}

/* dlopen's search first, then the usual toolkit folders. */
static void *open_nvrtc(void)
{
	static const char *const names[] = { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
					     NULL };
	const char *env = getenv("ROCJIT_NVRTC_LIBRARY");
	const char *const chosen[] = { env, NULL };
	const char *dirs[] = { getenv("CUDA_PATH"), getenv("CUDA_HOME"), "/usr/local/cuda" };
	char lib64[4200];
	void *h;

	if (env && *env)
		return rj_vendor_open(NULL, 0, chosen);
	if ((h = rj_vendor_open(NULL, 0, names)))
		return h;
	for (size_t d = 0; d < 3; d++) {
		if (!dirs[d] || !*dirs[d])
			continue;
		snprintf(lib64, sizeof lib64, "%s/lib64", dirs[d]);
		if ((h = rj_vendor_open(lib64, strlen(lib64), names)))
			return h;
	}
	return NULL;
}

static int has_cuda_headers(const char *dir)
{
	char path[4300];

	snprintf(path, sizeof path, "%s/cuda_fp16.h", dir);
	return access(path, R_OK) == 0;
}

/* The CUDA include folder: $CUDA_PATH, $CUDA_HOME, next to NVRTC, /usr/local/cuda. */
static int find_include_dir(char *out, size_t size)
{
	const char *roots[] = { getenv("CUDA_PATH"), getenv("CUDA_HOME"), NULL,
				"/usr/local/cuda" };
	const char *lib = rj_vendor_file(*(void **)&nv.nvrtcVersion);
	char libdir[4096] = "";

	if (lib) {
		snprintf(libdir, sizeof libdir, "%s", lib);
		if (strrchr(libdir, '/'))
			*strrchr(libdir, '/') = 0;
		roots[2] = libdir;
	}
	for (size_t i = 0; i < 4; i++) {
		static const char *const subs[] = { "include", "../include",
						    "../targets/x86_64-linux/include",
						    "../targets/sbsa-linux/include" };
		if (!roots[i] || !*roots[i])
			continue;
		for (size_t k = 0; k < 4; k++) {
			snprintf(out, size, "%s/%s", roots[i], subs[k]);
			if (has_cuda_headers(out))
				return 0;
		}
	}
	return -1;
}

static void load_compiler(void)
{
	int major = 0, minor = 0;
	char dir[4096];

	nv.nvrtc = open_nvrtc();
	if (!nv.nvrtc) {
		rj_vendor_load_fail(&nv.compiler, ROCJIT_ENOCOMPILER,
				    "NVRTC (libnvrtc.so) could not be loaded: install the CUDA "
				    "toolkit, add its lib64 folder to LD_LIBRARY_PATH, or set "
				    "CUDA_PATH or ROCJIT_NVRTC_LIBRARY");
		return;
	}
	LOAD(nv.nvrtc, nvrtcVersion);
	LOAD(nv.nvrtc, nvrtcGetNumSupportedArchs);
	LOAD(nv.nvrtc, nvrtcGetSupportedArchs);
	LOAD(nv.nvrtc, nvrtcCreateProgram);
	LOAD(nv.nvrtc, nvrtcCompileProgram);
	LOAD(nv.nvrtc, nvrtcGetProgramLogSize);
	LOAD(nv.nvrtc, nvrtcGetProgramLog);
	LOAD(nv.nvrtc, nvrtcGetCUBINSize);
	LOAD(nv.nvrtc, nvrtcGetCUBIN);
	LOAD(nv.nvrtc, nvrtcDestroyProgram);
	LOAD(nv.nvrtc, nvrtcGetErrorString);
	LOAD(nv.nvrtc, nvrtcAddNameExpression);
	LOAD(nv.nvrtc, nvrtcGetLoweredName);
	if (!nv.nvrtcVersion || !nv.nvrtcCreateProgram || !nv.nvrtcCompileProgram ||
	    !nv.nvrtcGetProgramLogSize || !nv.nvrtcGetProgramLog || !nv.nvrtcGetCUBINSize ||
	    !nv.nvrtcGetCUBIN || !nv.nvrtcDestroyProgram || !nv.nvrtcGetNumSupportedArchs ||
	    !nv.nvrtcGetSupportedArchs) {
		rj_vendor_load_fail(&nv.compiler, ROCJIT_ENOCOMPILER,
				    "the NVRTC library lacks functions rocjit needs (CUDA 11.2 "
				    "or newer)");
		return;
	}
	nv.nvrtcVersion(&major, &minor);
	{
		/* NVRTC reports major.minor only: the library's size tells its patch releases
		   apart.  rocjit's own headers (the pre-included hip/hip_runtime.h among them)
		   enter the key by their digest (devlib.c), not through this identity. */
		const char *lib = rj_vendor_file(*(void **)&nv.nvrtcVersion);
		struct stat st;
		long long size = -1;
		if (lib && stat(lib, &st) == 0)
			size = (long long)st.st_size;
		snprintf(nv.id, sizeof nv.id, "nvrtc %d.%d (%lld bytes)", major, minor, size);
	}
	if (find_include_dir(dir, sizeof dir) != 0) {
		rj_vendor_load_fail(&nv.compiler, ROCJIT_ENOCOMPILER,
				    "the CUDA headers (cuda_fp16.h) were not found: set "
				    "CUDA_PATH to the CUDA toolkit (e.g. "
				    "CUDA_PATH=/usr/local/cuda)");
		return;
	}
	snprintf(nv.include_opt, sizeof nv.include_opt, "-I%s", dir);
	{
		/* CUDA 13 keeps libcu++ (<cuda/std/...>, cooperative_groups' own headers) in
		   include/cccl, which nvcc adds to the path itself. */
		char cccl[4300];
		struct stat st;
		snprintf(cccl, sizeof cccl, "%s/cccl", dir);
		if (stat(cccl, &st) == 0 && S_ISDIR(st.st_mode))
			snprintf(nv.cccl_opt, sizeof nv.cccl_opt, "-I%s", cccl);
	}
	snprintf(nv.fp16_header, sizeof nv.fp16_header, "%s/cuda_fp16.h", dir);
}

static int compiler_ready(void)
{
	return rj_vendor_load_ready(&nv.compiler, load_compiler);
}

static const char *nv_compiler_id(void)
{
	return compiler_ready() == 0 ? nv.id : NULL;
}

/* NVRTC's library and the CUDA headers it compiles against. */
static size_t nv_compiler_files(const char **paths, size_t max)
{
	const char *lib;
	size_t n = 0;

	if (compiler_ready() != 0 || max < 2)
		return 0;
	if ((lib = rj_vendor_file(*(void **)&nv.nvrtcCompileProgram)))
		paths[n++] = lib;
	paths[n++] = nv.fp16_header;
	return n;
}

/* "sm_90" -> 90, "sm_90a" -> 90 with suffix 'a'; -1 when it is no sm target. */
static int sm_number(const char *target, char *suffix)
{
	const char *p = target + 3;
	int n = 0;

	if (strncmp(target, "sm_", 3) != 0 || *p < '1' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9' && n < 10000)
		n = n * 10 + (*p++ - '0');
	*suffix = 0;
	if (*p == 'a' || *p == 'f')
		*suffix = *p++;
	return *p ? -1 : n;
}

/* NVRTC's supported architectures into archs[128]; the count, 0 when NVRTC gives none. */
static int supported_archs(int archs[128])
{
	int n = 0;

	if (nv.nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 128 ||
	    nv.nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS)
		n = 0;
	return n;
}

static int nv_targets(char *buf, size_t size)
{
	int archs[128], n;
	size_t len = 0;

	RJ_FORWARD(compiler_ready());
	n = supported_archs(archs);
	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		if (len + 16 >= size) {
			snprintf(buf + len, size - len, " ...");
			break;
		}
		len += (size_t)snprintf(buf + len, size - len, "%ssm_%d", i ? " " : "", archs[i]);
	}
	return 0;
}

static int nv_target_check(const char *target)
{
	int archs[128], n, sm;
	char suffix, list[1024];

	RJ_FORWARD(compiler_ready());
	sm = sm_number(target, &suffix);
	RJ_CHECK(sm < 0, ROCJIT_EUNSUPPORTED,
		 "target \"%s\" is not an NVIDIA target id (sm_XY, e.g. sm_90)", target);
	n = supported_archs(archs);
	for (int i = 0; i < n; i++)
		if (archs[i] == sm)
			return 0;
	nv_targets(list, sizeof list);
	RJ_FAIL(ROCJIT_EUNSUPPORTED,
		"the installed compiler (%s) cannot compile for \"%s\"; supported: %s", nv.id,
		target, n ? list : "(NVRTC gave no list)");
}

/*
 * NVRTC has no -O levels: -O3 (the normalized default) is its default and is dropped,
 * other levels go to ptxas.  The key still holds the normalized -O level.
 * __CUDA_ARCH__ is the target's on NVIDIA: a -D or -U of it (which chooses the value for
 * AMD targets, where no target implies one: devlib/cuda/rocjit_cuda_dialect.h) is dropped,
 * as NVRTC would otherwise let it claim another GPU's features.
 */
static const char *translate_option(const char *opt, char *buf, size_t size)
{
	if ((strncmp(opt, "-D", 2) == 0 || strncmp(opt, "-U", 2) == 0) &&
	    strncmp(opt + 2, "__CUDA_ARCH__", 13) == 0 && (opt[15] == 0 || opt[15] == '='))
		return NULL;
	if (strcmp(opt, "-O3") == 0 || strcmp(opt, "-Os") == 0 || strcmp(opt, "-Oz") == 0)
		return NULL;
	if (strncmp(opt, "-O", 2) == 0 && strlen(opt) == 3) {
		snprintf(buf, size, "--ptxas-options=%s", opt);
		return buf;
	}
	return opt;
}

static int nv_compile(const char *target, const struct rj_compile_req *req,
		      struct rj_compile_out *out)
{
	struct rj_header_arrays h;
	const char **argv;
	char arch[64], olevel[32];
	size_t argc = 0;
	nvrtcProgram prog = NULL;
	nvrtcResult r;
	char *raw;
	int rc;

	memset(out, 0, sizeof *out);
	RJ_FORWARD(compiler_ready());
	/* Nothing read from outside the key (compile/inputs.h). */
	RJ_FORWARD(rj_inputs_env_check(ROCJIT_PLATFORM_NVIDIA));
	RJ_FORWARD(rj_inputs_check(req, rj_devlib_served(ROCJIT_PLATFORM_NVIDIA),
				   ROCJIT_PLATFORM_NVIDIA));
	argv = calloc(req->options->count + 8, sizeof *argv);
	RJ_CHECK(!argv, ROCJIT_ENOMEM, "out of memory compiling %s", req->name);
	/* The caller's headers, then rocjit's: hip/hip_runtime.h (pre-included below, like
	   hipRTC's own), the other HIP headers and the device library (devlib/). */
	if (rj_header_arrays_make(&h, req, rj_devlib_served(ROCJIT_PLATFORM_NVIDIA)) != 0) {
		free(argv);
		return ROCJIT_ENOMEM;
	}
	for (const char *o = rj_opts_next(req->options, NULL); o; o = rj_opts_next(req->options, o)) {
		const char *t = translate_option(o, olevel, sizeof olevel);
		if (t)
			argv[argc++] = t;
	}
	snprintf(arch, sizeof arch, "-arch=%s", target);
	argv[argc++] = arch;
	argv[argc++] = nv.include_opt;
	if (nv.cccl_opt[0])
		argv[argc++] = nv.cccl_opt;
	argv[argc++] = "--pre-include=hip/hip_runtime.h";
	argv[argc++] = "--pre-include=hip/rocjit_hip_nvidia_ext.h";
	/* CUDA source: what nvcc's implicit cuda_runtime.h gives it (devlib/std); HIP
	   source: hipcc's __HIPCC__, which the pre-included header cannot tell apart. */
	if (req->language == ROCJIT_LANG_CUDA)
		argv[argc++] = "--pre-include=rocjit_cuda_implicit.h";
	else
		argv[argc++] = "-D__HIPCC__=1";
	/* Functions without __host__/__device__ are device functions, as a header's helpers
	   are for nvcc's device pass when a kernel calls them; NVRTC otherwise refuses every
	   unannotated definition, called or not ("not allowed in JIT mode").  hipRTC gets
	   the same from devlib/amd/rocjit_amd.h. */
	argv[argc++] = "-default-device";
	r = nv.nvrtcCreateProgram(&prog, req->source, req->name, (int)h.n, h.src, h.names);
	if (r != NVRTC_SUCCESS) {
		rc = rj_error_set(ROCJIT_ECOMPILE, __FILE__, __LINE__,
				  "nvrtcCreateProgram failed (%d)", r);
		goto out;
	}
	rc = rj_vendor_add_names(prog, nv.nvrtcGetLoweredName ? nv.nvrtcAddNameExpression : NULL,
				 req->name_expressions, req->num_name_expressions, req->name);
	if (rc != 0) {
		nv.nvrtcDestroyProgram(&prog);
		goto out;
	}
	/* NVRTC is thread-safe: compiles of different programs run in parallel. */
	r = nv.nvrtcCompileProgram(prog, (int)argc, argv);
	raw = rj_vendor_program_log(prog, nv.nvrtcGetProgramLogSize, nv.nvrtcGetProgramLog);
	out->log = raw ? rj_log_map_nvrtc(raw) : NULL;
	free(raw);
	if (r == NVRTC_SUCCESS) {
		size_t n = 0;
		if (nv.nvrtcGetCUBINSize(prog, &n) == NVRTC_SUCCESS && n)
			out->code = malloc(n);
		if (out->code && nv.nvrtcGetCUBIN(prog, out->code) == NVRTC_SUCCESS) {
			out->size = n;
			rc = rj_vendor_lowered_names(&out->lowered, prog, nv.nvrtcGetLoweredName,
						     req->name_expressions,
						     req->num_name_expressions, req->name,
						     "check that it names a __global__ template "
						     "the source defines");
			if (rc != 0) {
				out->log = rj_vendor_log_error(out->log, req->name);
				free(out->code);
				out->code = NULL;
			}
		} else {
			free(out->code);
			out->code = NULL;
			rc = rj_error_set(ROCJIT_ECOMPILE, __FILE__, __LINE__,
					  "NVRTC produced no CUBIN for %s", req->name);
		}
	} else {
		rc = rj_error_set(ROCJIT_ECOMPILE, __FILE__, __LINE__,
				  "%s did not compile for %s (%s)", req->name, target,
				  nv.nvrtcGetErrorString ? nv.nvrtcGetErrorString(r) : "NVRTC error");
	}
	nv.nvrtcDestroyProgram(&prog);
out:
	rj_header_arrays_free(&h);
	free(argv);
	return rc;
}

/* ---- Devices ------------------------------------------------------------------------------- */

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
				    r != CUDA_SUCCESS ? rj_nv_error(r) : "0 devices");
	}
}

static int driver_ready(void)
{
	return rj_vendor_load_ready(&nv.driver, load_driver);
}


static int nv_device_count(int *count)
{
	*count = driver_ready() == 0 ? nv.device_count : 0;
	rj_error_clear();
	return 0;
}

int rj_nv_device_attribute(int device, int attr, int *value)
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

static int nv_device_target(int device, char *out, size_t size)
{
	int major = 0, minor = 0;

	RJ_FORWARD(rj_nv_device_attribute(device, CU_ATTR_CC_MAJOR, &major));
	RJ_FORWARD(rj_nv_device_attribute(device, CU_ATTR_CC_MINOR, &minor));
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

int rj_nv_enter(int device, CUcontext *prev, int *switched)
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
void rj_nv_leave(CUcontext prev, int switched)
{
	if (switched && prev)
		nv.cuCtxSetCurrent(prev);
}

static int nv_module_load(int device, const void *code, size_t size, void **module)
{
	CUcontext prev;
	CUresult r;
	int switched;

	(void)size; /* the CUBIN's ELF header gives its extent */
	RJ_FORWARD(driver_ready());
	RJ_FORWARD(rj_nv_enter(device, &prev, &switched));
	r = nv.cuModuleLoadData((CUmodule *)module, code);
	rj_nv_leave(prev, switched);
	if (r != CUDA_SUCCESS)
		CU_FAIL(r, "cuModuleLoadData");
	return 0;
}

static void nv_module_unload(void *module)
{
	CUresult (*unload)(CUmodule);

	*(void **)&unload = rj_nv_late_sym(&nv.cuModuleUnload, "cuModuleUnload");
	if (module && unload)
		unload((CUmodule)module);
}

static int nv_function_get(void *module, const char *name, void **function)
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
static int nv_launch(void *function, int device, rocjit_dim3 g, rocjit_dim3 b,
		     unsigned int shared_bytes, void *stream, void **args)
{
	cu_launch_fn launch;
	CUresult r;

	*(void **)&launch = rj_nv_late_sym(&nv.cuLaunchKernel, "cuLaunchKernel");
	RJ_CHECK(!launch, ROCJIT_EDEVICE, "the NVIDIA driver (libcuda.so.1) has no "
		 "cuLaunchKernel: update the driver");
	r = launch((CUfunction)function, g.x, g.y, g.z, b.x, b.y, b.z, shared_bytes,
		   (CUstream)stream, args, NULL);
	if (r == CUDA_ERROR_INVALID_CONTEXT || r == CUDA_ERROR_INVALID_HANDLE) {
		CUcontext prev;
		int switched;

		RJ_FORWARD(rj_nv_enter(device, &prev, &switched));
		if (switched)
			r = launch((CUfunction)function, g.x, g.y, g.z, b.x, b.y, b.z,
				   shared_bytes, (CUstream)stream, args, NULL);
		rj_nv_leave(prev, switched);
	}
	if (r != CUDA_SUCCESS)
		CU_FAIL(r, "cuLaunchKernel");
	return 0;
}

/* Rare, so made in the kernel's context from the start rather than retried into it. */
static int nv_launch_cooperative(void *function, int device, rocjit_dim3 g, rocjit_dim3 b,
				 unsigned int shared_bytes, void *stream, void **args)
{
	cu_coop_fn coop;
	CUcontext prev;
	int switched;
	CUresult r;

	*(void **)&coop = rj_nv_late_sym(&nv.cuLaunchCooperativeKernel,
					 "cuLaunchCooperativeKernel");
	RJ_CHECK(!coop, ROCJIT_EUNSUPPORTED, "the NVIDIA driver (libcuda.so.1) has no "
		 "cuLaunchCooperativeKernel: update the driver");
	RJ_FORWARD(rj_nv_enter(device, &prev, &switched));
	r = coop((CUfunction)function, g.x, g.y, g.z, b.x, b.y, b.z, shared_bytes,
		 (CUstream)stream, args);
	rj_nv_leave(prev, switched);
	if (r != CUDA_SUCCESS)
		CU_FAIL(r, "cuLaunchCooperativeKernel");
	return 0;
}

const struct rj_platform rj_platform_nvidia = {
	.id = ROCJIT_PLATFORM_NVIDIA,
	.name = "nvidia",
	.compiler_id = nv_compiler_id,
	.compiler_files = nv_compiler_files,
	.target_check = nv_target_check,
	.targets = nv_targets,
	.device_count = nv_device_count,
	.compile = nv_compile,
	.device_target = nv_device_target,
	.module_load = nv_module_load,
	.module_unload = nv_module_unload,
	.function_get = nv_function_get,
	.launch = nv_launch,
	.launch_cooperative = nv_launch_cooperative,
	.attribute = rj_nv_attribute,
	.occupancy = rj_nv_occupancy,
	.block_size = rj_nv_block_size,
	.device_attribute = rj_nv_device_limit,
	.global_get = rj_nv_global_get,
	.copy = rj_nv_copy,
};
