/*
 * platform_nvidia.c - the NVIDIA platform: NVRTC for compiles, and rj_platform_nvidia,
 * whose devices, modules and launches are driver_nvidia.c's (the CUDA driver API).
 *
 * Owns every call into libnvrtc, loaded with dlopen so that one build runs on machines
 * without it (NVRTC compiles for an explicit sm_XY where there is no driver: the prewarm
 * case).  The few NVRTC entry points used are declared here with their C ABI (int
 * results, opaque handles), so no CUDA header is needed to build rocjit.
 *
 * HIP source compiles unchanged through rocjit's own hip/hip_runtime.h (devlib/nvidia/
 * hip/hip_runtime.h, embedded at build time with the rest of devlib/nvidia/ and devlib/std/,
 * devlib.c), served as an in-memory header and pre-included as hipRTC pre-includes its
 * own.  It needs the CUDA headers (cuda_fp16.h), found at run time: $CUDA_PATH,
 * $CUDA_HOME, beside the NVRTC library, /usr/local/cuda.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/env.h"
#include "base/error.h"
#include "compile/devlib.h"
#include "compile/inputs.h"
#include "compile/lean.h"
#include "compile/nvidia.h"
#include "compile/pch.h"
#include "compile/platform.h"
#include "compile/vendor_lib.h"

typedef int nvrtcResult;
typedef rj_vendor_program nvrtcProgram; /* struct _nvrtcProgram * */

#define NVRTC_SUCCESS 0
#define NVRTC_ERROR_COMPILATION 6

static struct {
	struct rj_vendor_load compiler;
	char id[96];
	char include_opt[4200];
	char cccl_opt[4310];    /* -I<include>/cccl where it exists (CUDA 13), else "" */
	char fp16_header[4300]; /* <include>/cuda_fp16.h: part of the compiler's files */
	void *nvrtc;

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
	/* CUDA 12.8+: precompiled headers (compile/pch.c); NULL before. */
	nvrtcResult (*nvrtcGetPCHHeapSize)(size_t *);
	nvrtcResult (*nvrtcGetPCHCreateStatus)(nvrtcProgram);
	int version;          /* major * 100 + minor */
	char found_by[4300];  /* which rule found NVRTC (rocjit targets) */
} nv = { .compiler = RJ_VENDOR_LOAD_INIT };

#define LOAD(handle, name) (*(void **)&nv.name = rj_vendor_sym((handle), #name))

/* dlopen's search first, then the usual toolkit folders. */
static void *open_nvrtc(void)
{
	static const char *const names[] = { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
					     NULL };
	const char *env = rj_config("ROCJIT_NVRTC_LIBRARY", NULL);
	const char *const chosen[] = { env, NULL };
	const char *dirs[] = { getenv("CUDA_PATH"), getenv("CUDA_HOME"), "/usr/local/cuda" };
	static const char *const rules[] = { "CUDA_PATH=", "CUDA_HOME=",
					     "the standard install folder " };
	char lib64[4200];
	void *h;

	if (env && *env) {
		snprintf(nv.found_by, sizeof nv.found_by, "ROCJIT_NVRTC_LIBRARY=%s", env);
		return rj_vendor_open(NULL, 0, chosen);
	}
	snprintf(nv.found_by, sizeof nv.found_by,
		 "the loader's search path");
	if ((h = rj_vendor_open(NULL, 0, names)))
		return h;
	for (size_t d = 0; d < 3; d++) {
		if (!dirs[d] || !*dirs[d])
			continue;
		snprintf(lib64, sizeof lib64, "%s/lib64", dirs[d]);
		snprintf(nv.found_by, sizeof nv.found_by, "%s%s", rules[d], dirs[d]);
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
	LOAD(nv.nvrtc, nvrtcGetPCHHeapSize);
	LOAD(nv.nvrtc, nvrtcGetPCHCreateStatus);
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
	nv.version = major * 100 + minor;
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

static int nv_libraries(char *buf, size_t size)
{
	const char *lib;
	int rc = compiler_ready();

	buf[0] = 0;
	if (rc == 0 && (lib = rj_vendor_file(*(void **)&nv.nvrtcCompileProgram)))
		snprintf(buf, size, "nvrtc\t%s\t%s\n", lib, nv.found_by);
	return rc;
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

/*
 * Threads one compile gives NVRTC's optimizer and ptxas (--split-compile, NVRTC 12.4+), for
 * a program of SPLIT_MIN_KERNELS kernels or more (__global__ in its source, plus its name
 * expressions); a smaller one compiles on one thread, which is faster for it (axpy on the
 * H200: 90 ms with one, 130 with 16).  16, or ROCJIT_COMPILE_THREADS (2 to 256): never a
 * count taken from the machine, and never 1, since the code is the same for any count
 * above 1 (only the option string recorded in the CUBIN names it) but not for 1, so that
 * a key's code never depends on the machine that compiled it (the count is outside the
 * key).  The op set's files compile 3.6x faster with 16 threads on the H200
 * (bench/RESULTS.md, issue 32).
 */
#define SPLIT_MIN_KERNELS 8

static long compile_threads(const struct rj_compile_req *req)
{
	size_t kernels = req->num_name_expressions;

	for (const char *s = req->source; kernels < SPLIT_MIN_KERNELS &&
					  (s = strstr(s, "__global__")); s += 10)
		kernels++;
	if (kernels < SPLIT_MIN_KERNELS)
		return 1;
	return rj_env_long("ROCJIT_COMPILE_THREADS", 16, 2, 256);
}

/* Options that make NVRTC read headers from disk, which a PCH's key does not cover. */
static int reads_disk_headers(const struct rj_opts *opts)
{
	static const char *const prefixes[] = { "-I", "--include-path", "-include",
						"--pre-include", "-isystem" };

	for (const char *o = rj_opts_next(opts, NULL); o; o = rj_opts_next(opts, o))
		for (size_t k = 0; k < sizeof prefixes / sizeof *prefixes; k++)
			if (strncmp(o, prefixes[k], strlen(prefixes[k])) == 0)
				return 1;
	return 0;
}

/*
 * The PCH for this compile (compile/pch.c), in a worker whose NVRTC heap has the fixed
 * address: argv[0..argc) are the options so far, which with the compiler and target make
 * the file's identity.  Adds the PCH options to argv.
 */
static void pch_start(struct rj_pch *p, const struct rj_compile_req *req, const char *target,
		      const struct rj_header_arrays *h, const char **argv, size_t *argc)
{
	char identity[16384], cccl[4400];
	size_t len = 0, heap = 0;
	struct stat st, cv = { 0 };
	int n;

	p->dirfd = -1;
	if (!req->pch_dir || !*req->pch_dir || !rj_pch_heap_arm || !nv.nvrtcGetPCHHeapSize ||
	    !nv.nvrtcGetPCHCreateStatus || reads_disk_headers(req->options) ||
	    nv.nvrtcGetPCHHeapSize(&heap) != NVRTC_SUCCESS || !rj_pch_heap_arm(heap))
		return;
	/* The toolkit's headers: NVRTC's identity, cuda_fp16.h's size and time, and CCCL's
	   version header's (CCCL, which CUB and cooperative groups use, can be upgraded on
	   its own). */
	if (stat(nv.fp16_header, &st) != 0)
		return;
	if (nv.cccl_opt[0]) {
		snprintf(cccl, sizeof cccl, "%.4300s/cuda/version", nv.cccl_opt + 2);
		stat(cccl, &cv);
	}
	n = snprintf(identity, sizeof identity, "%s%c%s%c%lld.%lld%c%lld.%lld%c%s%c%zu", nv.id, 0,
		     target, 0, (long long)st.st_size, (long long)st.st_mtime, 0,
		     (long long)cv.st_size, (long long)cv.st_mtime, 0, nv.include_opt, 0, heap);
	if (n < 0 || (size_t)n >= sizeof identity)
		return;
	len = (size_t)n + 1;
	for (size_t i = 0; i < *argc; i++) {
		size_t k = strlen(argv[i]) + 1;
		if (len + k > sizeof identity)
			return; /* every option or none: no file for this compile */
		memcpy(identity + len, argv[i], k);
		len += k;
	}
	if (rj_pch_begin(p, req->pch_dir, identity, len, h, req->source)) {
		argv[(*argc)++] = p->option;
		argv[(*argc)++] = "--pch-messages=false";
	}
}

/* Whether NVRTC's log says it refused the PCH file named name: its messages about one
   name the file (#626 invalid, #629 options, #20282 heap address), except the
   catastrophic "invalid precompiled header file". */
static int refused_pch(const char *log, const char *name)
{
	return strstr(log, "invalid precompiled header file") ||
	       (strstr(log, "precompiled header") && strstr(log, name));
}

static int nv_compile(const char *target, const struct rj_compile_req *req,
		      struct rj_compile_out *out)
{
	struct rj_pch pch = { .dirfd = -1 };
	char threads[48];
	long nthreads;
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
	{
		/* In a worker, before any compile of this process can map NVRTC's PCH heap,
		   whether this one uses a PCH or not (compile/pch.h). */
		size_t heap = 0;
		if (rj_pch_heap_arm && nv.nvrtcGetPCHHeapSize &&
		    nv.nvrtcGetPCHHeapSize(&heap) == NVRTC_SUCCESS)
			rj_pch_heap_arm(heap);
	}
	/* Nothing read from outside the key (compile/inputs.h). */
	RJ_FORWARD(rj_inputs_env_check(ROCJIT_PLATFORM_NVIDIA));
	RJ_FORWARD(rj_inputs_check(req, rj_devlib_served(ROCJIT_PLATFORM_NVIDIA),
				   ROCJIT_PLATFORM_NVIDIA));
	argv = calloc(req->options->count + 13, sizeof *argv);
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
	if (rj_lean_prelude_fits(req))
		argv[argc++] = "-D__ROCJIT_LEAN_PRELUDE__=1";
	if (nv.version >= 1204 && (nthreads = compile_threads(req)) > 1) {
		snprintf(threads, sizeof threads, "--split-compile=%ld", nthreads);
		argv[argc++] = threads;
	}
	pch_start(&pch, req, target, &h, argv, &argc);
again:
	r = nv.nvrtcCreateProgram(&prog, req->source, req->name, (int)h.n, h.src, h.names);
	if (r != NVRTC_SUCCESS) {
		rc = rj_error_set(ROCJIT_ECOMPILE, __FILE__, __LINE__,
				  "nvrtcCreateProgram failed (%d)", r);
		rj_pch_end(&pch, 0, 0);
		goto out;
	}
	rc = rj_vendor_add_names(prog, nv.nvrtcGetLoweredName ? nv.nvrtcAddNameExpression : NULL,
				 req->name_expressions, req->num_name_expressions, req->name);
	if (rc != 0) {
		nv.nvrtcDestroyProgram(&prog);
		rj_pch_end(&pch, 0, 0);
		goto out;
	}
	/* NVRTC is thread-safe: compiles of different programs run in parallel. */
	r = nv.nvrtcCompileProgram(prog, (int)argc, argv);
	raw = rj_vendor_program_log(prog, nv.nvrtcGetProgramLogSize, nv.nvrtcGetProgramLog);
	if (pch.dirfd >= 0 && !pch.creating && raw && refused_pch(raw, pch.name)) {
		/* A file NVRTC refused (damaged on disk, or made by another build of it):
		   removed, and the compile made again without it, so that neither the
		   code nor the log depends on it. */
		RJ_LOG(RJ_LOG_DEBUG, "pch: %s refused by NVRTC: removed", pch.name);
		rj_pch_discard(&pch);
		free(raw);
		nv.nvrtcDestroyProgram(&prog);
		argc -= 2;
		goto again;
	}
	if (pch.dirfd >= 0)
		rj_pch_end(&pch, r == NVRTC_SUCCESS,
			   pch.creating && r == NVRTC_SUCCESS &&
				   nv.nvrtcGetPCHCreateStatus(prog) == NVRTC_SUCCESS &&
				   rj_pch_heap_placed && rj_pch_heap_placed());
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

const struct rj_platform rj_platform_nvidia = {
	.id = ROCJIT_PLATFORM_NVIDIA,
	.name = "nvidia",
	.compiler_id = nv_compiler_id,
	.compiler_files = nv_compiler_files,
	.libraries = nv_libraries,
	.target_check = nv_target_check,
	.targets = nv_targets,
	.device_count = rj_nv_device_count,
	.compile = nv_compile,
	.device_target = rj_nv_device_target,
	.module_load = rj_nv_module_load,
	.module_unload = rj_nv_module_unload,
	.function_get = rj_nv_function_get,
	.launch = rj_nv_launch,
	.launch_cooperative = rj_nv_launch_cooperative,
	.attribute = rj_nv_attribute,
	.occupancy = rj_nv_occupancy,
	.block_size = rj_nv_block_size,
	.device_attribute = rj_nv_device_limit,
	.global_get = rj_nv_global_get,
	.copy = rj_nv_copy,
};
