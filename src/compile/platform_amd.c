/*
 * platform_amd.c - the AMD platform: hipRTC for compiles, and rj_platform_amd, whose
 * devices, modules and launches are driver_amd.c's (the HIP module API).
 *
 * Owns every call into libhiprtc and libamd_comgr, loaded with dlopen.  The few types,
 * values and entry points used are declared below with their C ABI, so no AMD header is
 * needed to build rocjit and one build serves both vendors.  hipRTC lives in
 * libhiprtc.so from ROCm 5.3 on and inside libamdhip64.so before (Debian 12 ships HIP
 * 5.2), which driver_amd.c loads.
 *
 * Hazards handled here (measured: the project's platform notes, README "What runs where"):
 *  - comgr ABORTS the process on a target it does not know, so every target is first
 *    checked with amd_comgr_get_isa_metadata, which fails cleanly instead;
 *  - hipRTC 5.2 is not thread-safe, so compiles hold compile_lock;
 *  - the log size has no NUL and nothing is written when it is 0 (vendor_lib.c reads it).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/config.h"
#include "base/error.h"
#include "compile/amd.h"
#include "compile/devlib.h"
#include "compile/inputs.h"
#include "compile/platform.h"
#include "compile/rocm_paths.h"
#include "compile/vendor_lib.h"
#include "codeobj/codeobj.h"

/*
 * The vendor ABI used here, taken from HIP 5.2.3's hip/hiprtc.h and hip/hip_runtime_api.h
 * and comgr 2.4's amd_comgr.h (Debian 12).  Enums are int-sized in the C ABI; handles are
 * opaque pointers.  These values and signatures have not changed since ROCm 5.
 */
typedef int hiprtcResult;                         /* enum hiprtcResult */
typedef rj_vendor_program hiprtcProgram;          /* struct _hiprtcProgram * */
#define HIPRTC_SUCCESS 0
#define HIPRTC_ERROR_OUT_OF_MEMORY 1
#define HIPRTC_ERROR_INTERNAL_ERROR 11


typedef int amd_comgr_status_t;                   /* enum amd_comgr_status_s */
typedef struct { uint64_t handle; } amd_comgr_metadata_node_t;
#define AMD_COMGR_STATUS_SUCCESS 0

#define ISA_PREFIX "amdgcn-amd-amdhsa--"

static struct {
	struct rj_vendor_load compiler;
	char id[128];
	void *rtc, *comgr;
	/* compiler */
	hiprtcResult (*hiprtcVersion)(int *, int *);
	hiprtcResult (*hiprtcCreateProgram)(hiprtcProgram *, const char *, const char *, int,
					    const char **, const char **);
	hiprtcResult (*hiprtcCompileProgram)(hiprtcProgram, int, const char **);
	hiprtcResult (*hiprtcDestroyProgram)(hiprtcProgram *);
	hiprtcResult (*hiprtcGetProgramLogSize)(hiprtcProgram, size_t *);
	hiprtcResult (*hiprtcGetProgramLog)(hiprtcProgram, char *);
	hiprtcResult (*hiprtcGetCodeSize)(hiprtcProgram, size_t *);
	hiprtcResult (*hiprtcGetCode)(hiprtcProgram, char *);
	const char *(*hiprtcGetErrorString)(hiprtcResult);
	hiprtcResult (*hiprtcAddNameExpression)(hiprtcProgram, const char *);
	hiprtcResult (*hiprtcGetLoweredName)(hiprtcProgram, const char *, const char **);
	void (*amd_comgr_get_version)(size_t *, size_t *);
	amd_comgr_status_t (*amd_comgr_get_isa_count)(size_t *);
	amd_comgr_status_t (*amd_comgr_get_isa_name)(size_t, const char **);
	amd_comgr_status_t (*amd_comgr_get_isa_metadata)(const char *, amd_comgr_metadata_node_t *);
	amd_comgr_status_t (*amd_comgr_destroy_metadata)(amd_comgr_metadata_node_t);
	/* which rule found hipRTC and comgr (rocjit targets), and the places passed over */
	char rtc_why[4300], comgr_why[4300], notes[2048];
} amd = { .compiler = RJ_VENDOR_LOAD_INIT };

#define LOADER_RULE "the loader's search path"

static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER;

/* The first of names found in the folder of the library file lib (in the loader's search
 * path, as lib itself, when lib names no folder), or NULL. */
static void *open_beside(const char *lib, const char *const *names)
{
	const char *slash = strrchr(lib, '/');

	return slash ? rj_vendor_open(lib, (size_t)(slash - lib), names)
		     : rj_vendor_open(NULL, 0, names);
}

/* hipRTC and comgr from the folder of the runtime file lib, each unless the process had
 * it loaded already; comgr first (see find_in_rocm).  why: the rule, for the report. */
static void beside(const char *lib, const char *why)
{
	if (!amd.comgr && (amd.comgr = open_beside(lib, rj_amd_comgr_names)))
		snprintf(amd.comgr_why, sizeof amd.comgr_why, "%s", why);
	if (!amd.rtc)
		amd.rtc = open_beside(lib, rj_amd_rtc_names);
	if (amd.rtc && strcmp(amd.rtc_why, RJ_AMD_LOADED_RULE))
		snprintf(amd.rtc_why, sizeof amd.rtc_why, "%s", why);
}

#define LOAD(handle, name) (*(void **)&amd.name = rj_vendor_sym((handle), #name))

/*
 * "; rocprim X.Y.Z" when rocPRIM's headers are where hipRTC looks by itself
 * (/usr/include/rocprim: Debian's librocprim-dev), else "".  rocjit's CUB subset
 * (devlib/cuda/cub) is built on them, so they are an input of every compile that includes
 * it; like the compiler's own headers, they enter the key by their version, read once.
 */
#define ROCPRIM_VERSION_FILE "/usr/include/rocprim/rocprim_version.hpp"
static const char *rocprim_version(void)
{
	static char out[64];
	char line[256];
	int v[3] = { -1, -1, -1 };
	FILE *f = fopen(ROCPRIM_VERSION_FILE, "r");

	if (!f)
		return "";
	while (fgets(line, sizeof line, f)) {
		static const char *const names[] = { "ROCPRIM_VERSION_MAJOR", "ROCPRIM_VERSION_MINOR",
						     "ROCPRIM_VERSION_PATCH" };
		for (int i = 0; i < 3; i++) {
			const char *p = strstr(line, names[i]);
			if (p && strncmp(line, "#define", 7) == 0)
				v[i] = atoi(p + strlen(names[i]));
		}
	}
	fclose(f);
	snprintf(out, sizeof out, "; rocprim %d.%d.%d", v[0], v[1], v[2]);
	return out;
}

/* A place passed over, for `rocjit targets` (and the log at info). */
static void note(const char *fmt, ...) RJ_PRINTF(1, 2);
static void note(const char *fmt, ...)
{
	size_t len = strlen(amd.notes);
	va_list ap;

	if (len + 2 >= sizeof amd.notes)
		return;
	va_start(ap, fmt);
	vsnprintf(amd.notes + len, sizeof amd.notes - len - 1, fmt, ap);
	va_end(ap);
	RJ_LOG(RJ_LOG_INFO, "looking for hipRTC: %s", amd.notes + len);
	strcat(amd.notes, "\n");
}

/*
 * hipRTC from the first ROCm folder that holds it (rocm_paths.c's order: $ROCM_PATH, the
 * standard install folders), with that folder's comgr, loaded first: hipRTC finds comgr
 * by its soname (a dependency from ROCm 5.3 on, a dlopen inside libamdhip64 before), and
 * the loader then takes the copy already loaded, not another installation's.  Before
 * ROCm 5.3 hipRTC is inside libamdhip64.  Nothing found: amd.rtc stays NULL (the
 * loader's search path is next).
 */
static void find_in_rocm(void)
{
	struct rj_rocm_place p[16];
	size_t n = rj_rocm_places(p, sizeof p / sizeof p[0]);

	for (size_t i = 0; i < n && !amd.rtc; i++) {
		int has_rtc = rj_rocm_has_any(p[i].dir, rj_amd_rtc_names);
		int has_hip = rj_rocm_has_any(p[i].dir, rj_amd_runtime_names);
		void *comgr, *h = NULL;
		if (!has_rtc && !has_hip) {
			struct stat st;
			/* A standard folder that is not there is no news; one that is, or a
			   ROCM_PATH someone set, is. */
			if (stat(p[i].dir, &st) == 0 || !strncmp(p[i].why, "ROCM_PATH=", 10))
				note("%s: %s holds no hipRTC (libhiprtc.so, or libamdhip64.so "
				     "before ROCm 5.3): passed over", p[i].why, p[i].dir);
			continue;
		}
		comgr = amd.comgr ? NULL : rj_vendor_open(p[i].dir, strlen(p[i].dir),
							  rj_amd_comgr_names);
		if (has_rtc)
			h = rj_vendor_open(p[i].dir, strlen(p[i].dir), rj_amd_rtc_names);
		if (!h && has_hip && (h = rj_vendor_open(p[i].dir, strlen(p[i].dir),
							 rj_amd_runtime_names)) &&
		    !rj_vendor_sym(h, "hiprtcCompileProgram"))
			h = NULL; /* a runtime without hipRTC: ROCm 5.3 on, libhiprtc missing */
		if (!h) {
			const char *why = dlerror();
			note("%s: %s holds hipRTC's files, but they could not be loaded (%s): "
			     "passed over", p[i].why, p[i].dir, !has_rtc ?
			     "libamdhip64.so without hipRTC" : why ? why : "libhiprtc.so");
			if (comgr)
				rj_vendor_close(comgr); /* not this folder's hipRTC's */
			continue;
		}
		amd.rtc = h;
		snprintf(amd.rtc_why, sizeof amd.rtc_why, "%s", p[i].why);
		if (comgr) {
			amd.comgr = comgr;
			snprintf(amd.comgr_why, sizeof amd.comgr_why, "%s", p[i].why);
		} else if (!amd.comgr)
			note("%s: %s has no libamd_comgr.so: comgr is taken from %s", p[i].why,
			     p[i].dir, LOADER_RULE);
	}
}

static void load_compiler(void)
{
	size_t major = 0, minor = 0;
	int rtc_major = 0, rtc_minor = 0, hip_version = 0;
	void *rtc;

	const char *env = rj_config("ROCJIT_HIP_LIBRARY", NULL);
	const struct rj_amd_loaded *pre = rj_amd_loaded_before();
	void *hip_sym = NULL;

	/* What the process has loaded already comes first (rj_amd_loaded_before). */
	if ((amd.rtc = pre->rtc))
		snprintf(amd.rtc_why, sizeof amd.rtc_why, "%s", RJ_AMD_LOADED_RULE);
	if ((amd.comgr = pre->comgr))
		snprintf(amd.comgr_why, sizeof amd.comgr_why, "%s", RJ_AMD_LOADED_RULE);
	if (amd.rtc && !amd.comgr && rj_vendor_file(rj_vendor_sym(amd.rtc, "hiprtcVersion"))) {
		/* The loaded hipRTC's comgr, from its folder. */
		const char *file = rj_vendor_file(rj_vendor_sym(amd.rtc, "hiprtcVersion"));
		char why[4300];
		snprintf(why, sizeof why, "the folder of hipRTC %s (%s)", file, RJ_AMD_LOADED_RULE);
		beside(file, why);
	}
	if (!strcmp(rj_amd_runtime_found_by(), RJ_AMD_LOADED_RULE) &&
	    rj_amd_runtime(NULL, &hip_sym) && rj_vendor_file(hip_sym)) {
		/* The loaded runtime's own hipRTC and comgr, from its folder, as for
		   ROCJIT_HIP_LIBRARY below. */
		char why[4300];
		snprintf(why, sizeof why, "the folder of the HIP runtime %s (%s)",
			 rj_vendor_file(hip_sym), RJ_AMD_LOADED_RULE);
		beside(rj_vendor_file(hip_sym), why);
	} else if (env && *env) {
		/* The named HIP's own hipRTC and comgr: from ROCm 5.3 on they are separate
		   libraries in its folder; before, hipRTC is inside it.  Never another
		   installation's hipRTC, which would not match the runtime. */
		char why[4300];
		snprintf(why, sizeof why, "ROCJIT_HIP_LIBRARY=%s", env);
		beside(env, why);
	} else {
		/* The runtime first, by the same rules: a libhiprtc that needs libamdhip64
		   (ROCm 5.3 on) is then given the one already loaded, by its soname. */
		rj_amd_runtime(NULL, NULL);
		if (!amd.rtc)
			find_in_rocm();
		if (!amd.rtc && (amd.rtc = rj_vendor_open(NULL, 0, rj_amd_rtc_names)))
			snprintf(amd.rtc_why, sizeof amd.rtc_why, "%s", LOADER_RULE);
	}
	if (!amd.comgr && (amd.comgr = rj_vendor_open(NULL, 0, rj_amd_comgr_names)))
		snprintf(amd.comgr_why, sizeof amd.comgr_why, "%s", LOADER_RULE);
	/* Before ROCm 5.3 hipRTC is part of libamdhip64: found by the runtime's rule. */
	rtc = amd.rtc;
	if (!rtc && (rtc = rj_amd_runtime(NULL, NULL)))
		snprintf(amd.rtc_why, sizeof amd.rtc_why, "%s, inside the HIP runtime",
			 rj_amd_runtime_found_by());
	LOAD(rtc, hiprtcVersion);
	LOAD(rtc, hiprtcCreateProgram);
	LOAD(rtc, hiprtcCompileProgram);
	LOAD(rtc, hiprtcDestroyProgram);
	LOAD(rtc, hiprtcGetProgramLogSize);
	LOAD(rtc, hiprtcGetProgramLog);
	LOAD(rtc, hiprtcGetCodeSize);
	LOAD(rtc, hiprtcGetCode);
	LOAD(rtc, hiprtcGetErrorString);
	LOAD(rtc, hiprtcAddNameExpression);
	LOAD(rtc, hiprtcGetLoweredName);
	LOAD(amd.comgr, amd_comgr_get_version);
	LOAD(amd.comgr, amd_comgr_get_isa_count);
	LOAD(amd.comgr, amd_comgr_get_isa_name);
	LOAD(amd.comgr, amd_comgr_get_isa_metadata);
	LOAD(amd.comgr, amd_comgr_destroy_metadata);
	if (!amd.hiprtcVersion || !amd.hiprtcCreateProgram || !amd.hiprtcCompileProgram ||
	    !amd.hiprtcDestroyProgram || !amd.hiprtcGetProgramLogSize ||
	    !amd.hiprtcGetProgramLog || !amd.hiprtcGetCodeSize || !amd.hiprtcGetCode) {
		rj_vendor_load_fail(&amd.compiler, ROCJIT_ENOCOMPILER,
				    "hipRTC could not be loaded (neither libhiprtc.so nor "
				    "libamdhip64.so %s%s%s provides it); install it (Debian: "
				    "libamdhip64-dev, ROCm: hiprtc)%s",
				    env && *env ? "in the folder of ROCJIT_HIP_LIBRARY=" : "",
				    env && *env ? env : "", env && *env ? "," : "",
				    env && *env ? " or unset ROCJIT_HIP_LIBRARY" :
				    ", or set ROCM_PATH to the ROCm installation (its lib folder "
				    "holds it); searched: $ROCM_PATH/lib, /opt/rocm/lib, "
				    "/opt/rocm-X.Y.Z/lib, the loader's search path");
		return;
	}
	/* Without comgr no target can be checked, and an unchecked one can abort us. */
	if (!amd.amd_comgr_get_isa_metadata || !amd.amd_comgr_get_isa_count ||
	    !amd.amd_comgr_get_isa_name || !amd.amd_comgr_destroy_metadata) {
		rj_vendor_load_fail(&amd.compiler, ROCJIT_ENOCOMPILER,
				    "libamd_comgr.so could not be loaded; hipRTC needs it (Debian: "
				    "libamd-comgr2)");
		return;
	}
	amd.hiprtcVersion(&rtc_major, &rtc_minor);
	if (amd.amd_comgr_get_version)
		amd.amd_comgr_get_version(&major, &minor);
	rj_amd_runtime(&hip_version, NULL);
	snprintf(amd.id, sizeof amd.id, "hiprtc %d.%d; hip %d; comgr %zu.%zu%s", rtc_major,
		 rtc_minor, hip_version, major, minor, rocprim_version());
}

static int compiler_ready(void)
{
	return rj_vendor_load_ready(&amd.compiler, load_compiler);
}

/* One "NAME\tFILE\tRULE" line when the library symbol is in was loaded. */
static size_t library_line(char *buf, size_t size, size_t len, const char *name, void *symbol,
			   const char *why)
{
	const char *file = rj_vendor_file(symbol);

	if (file && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%s\t%s\t%s\n", name, file, why);
	return len;
}

static int amd_libraries(char *buf, size_t size)
{
	void *runtime = NULL;
	size_t len = 0;
	int rc = compiler_ready();

	buf[0] = 0;
	if (rc == 0) {
		rj_amd_runtime(NULL, &runtime);
		len = library_line(buf, size, len, "hiprtc", *(void **)&amd.hiprtcCompileProgram,
				   amd.rtc_why);
		len = library_line(buf, size, len, "comgr",
				   *(void **)&amd.amd_comgr_get_isa_metadata, amd.comgr_why);
		len = library_line(buf, size, len, "hip", runtime, rj_amd_runtime_found_by());
	}
	for (const char *p = amd.notes; *p && len < size;) {
		size_t n = strcspn(p, "\n");
		len += (size_t)snprintf(buf + len, size - len, "note\t\t%.*s\n", (int)n, p);
		p += n + (p[n] != 0);
	}
	return rc;
}

static const char *amd_compiler_id(void)
{
	return compiler_ready() == 0 ? amd.id : NULL;
}

/* Adds the file symbol came from to paths[n] unless it is there already; the new n. */
static size_t add_file(const char **paths, size_t n, size_t max, void *symbol)
{
	const char *file = rj_vendor_file(symbol);

	if (n >= max || !file)
		return n;
	for (size_t i = 0; i < n; i++)
		if (strcmp(paths[i], file) == 0)
			return n;
	paths[n] = file;
	return n + 1;
}

/* hipRTC's library, the HIP runtime's (the same one before ROCm 5.3) and comgr's. */
static size_t amd_compiler_files(const char **paths, size_t max)
{
	void *symbol = NULL;
	size_t n = 0;

	if (compiler_ready() != 0)
		return 0;
	n = add_file(paths, n, max, *(void **)&amd.hiprtcCompileProgram);
	n = add_file(paths, n, max, (rj_amd_runtime(NULL, &symbol), symbol));
	n = add_file(paths, n, max, *(void **)&amd.amd_comgr_get_isa_metadata);
	if (n < max) /* its version is part of the identity (there or not: both are kept) */
		paths[n++] = ROCPRIM_VERSION_FILE;
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

/*
 * hipRTC 5.x instantiates a name expression, but finds its lowered name by comparing the
 * expression's text with the demangled instantiations: "k<16>" for an unsigned
 * parameter (demangled "k<16u>"), a typedef ("int64_t" for "long long") or a constant
 * expression ("2+2") never match.  NVRTC resolves them as the compiler does.  When
 * hipRTC's lookup fails, lower_by_address asks the compiler itself; this message is for
 * an expression that fails both ways.
 */
#define LOWER_FIX                                                                        \
	"neither hipRTC's lookup (which matches the text against the demangled "           \
	"instantiation) nor taking its address found a kernel: check that it names a "     \
	"__global__ template of the source with valid arguments, written as the compiler " \
	"prints it if need be (\"k<16u>\" for an unsigned parameter, \"k<long long>\" for " \
	"int64_t)"

static int compile_locked(const char *target, const struct rj_compile_req *req,
			  struct rj_compile_out *out, const char **argv, int argc,
			  int nheaders, const char **hsrc, const char **hname);

/*
 * The exact lowering, for when hipRTC's textual one failed (research in issue 13,
 * verified on hipRTC 5.2): the source is compiled again with, per expression i,
 *   extern "C" __device__ __attribute__((used)) const void *__rocjit_ne_<i> = &(EXPR);
 * appended.  Taking the address instantiates the template exactly as the compiler reads
 * the expression (typedefs, literal suffixes and constant expressions resolved), and the
 * variable's relocation in the object (R_AMDGPU_RELATIVE64, addend = the kernel's
 * address) names the kernel (rj_codeobj_amd_pointee).  That object replaces the first:
 * the same kernels plus one pointer variable per expression.  Deterministic, so the key
 * (which holds the expressions) still names one object.  Called with compile_lock held;
 * 0 with out->code and out->lowered replaced, or an error with out unchanged.
 */
static int lower_by_address(const char *target, const struct rj_compile_req *req,
			    struct rj_compile_out *out, const char **argv, int argc,
			    int nheaders, const char **hsrc, const char **hname)
{
	static const char line[] = "extern \"C\" __device__ __attribute__((used)) const void "
				   "*__rocjit_ne_%zu = (const void *)&(%s);\n";
	size_t n = req->num_name_expressions, len = strlen(req->source) + 64, pos;
	struct rj_compile_req again = *req;
	struct rj_compile_out o = { 0 };
	char **lowered, *src, var[48];
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		len += sizeof line + 24 + strlen(req->name_expressions[i]);
	src = malloc(len);
	lowered = calloc(n, sizeof *lowered);
	if (!src || !lowered) {
		free(src);
		free(lowered);
		RJ_FAIL(ROCJIT_ENOMEM, "out of memory compiling %s", req->name);
	}
	pos = (size_t)snprintf(src, len, "%s\n#line 1 \"<rocjit name expressions>\"\n",
			       req->source);
	for (size_t i = 0; i < n; i++)
		pos += (size_t)snprintf(src + pos, len - pos, line, i, req->name_expressions[i]);
	again.source = src;
	again.name_expressions = NULL;
	again.num_name_expressions = 0;
	rc = compile_locked(target, &again, &o, argv, argc, nheaders, hsrc, hname);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		snprintf(var, sizeof var, "__rocjit_ne_%zu", i);
		rc = rj_codeobj_amd_pointee(o.code, o.size, var, &lowered[i]);
	}
	free(src);
	free(o.log);
	if (rc != 0) {
		free(o.code);
		rj_vendor_names_free(lowered, n);
		return rc;
	}
	free(out->code);
	out->code = o.code;
	out->size = o.size;
	out->lowered = lowered;
	return 0;
}

/* source after a line "#line 1 \"NAME\"", malloc'ed (NULL: out of memory): name's quotes
 * and backslashes escaped, its control characters as '?' (a #line holds one line). */
static char *line_named(const char *source, const char *name)
{
	size_t n = strlen(name), len = strlen(source), k = 0;
	char *out = malloc(2 * n + len + 16);

	if (!out)
		return NULL;
	k += (size_t)sprintf(out, "#line 1 \"");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c == '"' || c == '\\')
			out[k++] = '\\';
		out[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	out[k++] = '"';
	out[k++] = '\n';
	memcpy(out + k, source, len + 1);
	return out;
}

static int compile_locked(const char *target, const struct rj_compile_req *req,
			  struct rj_compile_out *out, const char **argv, int argc,
			  int nheaders, const char **hsrc, const char **hname)
{
	hiprtcProgram prog = NULL;
	hiprtcResult r;
	char *raw, *named;

	/* hipRTC 5.2 names the source after comgr's temporary folder, so __FILE__ would
	   expand to a random path: the same key, different bytes on every compile.  A #line
	   names it as NVRTC's program name does (the key holds the name where the texts use
	   __FILE__: request/entry.c), and diagnostics then name it too. */
	named = line_named(req->source, req->name);
	RJ_CHECK(!named, ROCJIT_ENOMEM, "out of memory compiling %s", req->name);
	r = amd.hiprtcCreateProgram(&prog, named, req->name, nheaders, hsrc, hname);
	free(named);
	RJ_CHECK(r != HIPRTC_SUCCESS, r == HIPRTC_ERROR_OUT_OF_MEMORY ? ROCJIT_ENOMEM :
		 ROCJIT_ECOMPILE, "hiprtcCreateProgram failed (%d)", (int)r);
	if (rj_vendor_add_names(prog, amd.hiprtcGetLoweredName ? amd.hiprtcAddNameExpression : NULL,
				req->name_expressions, req->num_name_expressions, req->name) != 0) {
		amd.hiprtcDestroyProgram(&prog);
		return ROCJIT_ECOMPILE;
	}
	r = amd.hiprtcCompileProgram(prog, argc, argv);
	raw = rj_vendor_program_log(prog, amd.hiprtcGetProgramLogSize, amd.hiprtcGetProgramLog);
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
	if (r == HIPRTC_SUCCESS && req->num_name_expressions &&
	    rj_vendor_lowered_names(&out->lowered, prog, amd.hiprtcGetLoweredName,
				    req->name_expressions, req->num_name_expressions, req->name,
				    LOWER_FIX) != 0) {
		char why[1024];

		amd.hiprtcDestroyProgram(&prog);
		snprintf(why, sizeof why, "%s", rocjit_last_error());
		if (lower_by_address(target, req, out, argv, argc, nheaders, hsrc, hname) == 0)
			return 0;
		rj_error_set(ROCJIT_ECOMPILE, __FILE__, __LINE__, "%s", why);
		out->log = rj_vendor_log_error(out->log, req->name);
		free(out->code);
		out->code = NULL;
		return ROCJIT_ECOMPILE;
	}
	amd.hiprtcDestroyProgram(&prog);
	if (r == HIPRTC_SUCCESS)
		return 0;
	RJ_FAIL(ROCJIT_ECOMPILE, "%s did not compile for %s (%s)", req->name, target,
		amd.hiprtcGetErrorString ? amd.hiprtcGetErrorString(r) : "hipRTC error");
}

/* log with notes after it (both malloc'ed or NULL; both taken). */
static char *append_notes(char *log, char *notes)
{
	size_t a = log ? strlen(log) : 0, b;
	char *s;

	if (!notes)
		return log;
	b = strlen(notes);
	s = realloc(log, a + (a && log[a - 1] != '\n') + b + 1);
	if (!s) {
		free(notes);
		return log;
	}
	if (a && s[a - 1] != '\n')
		s[a++] = '\n';
	memcpy(s + a, notes, b + 1);
	free(notes);
	return s;
}

/* Whether the options name a language standard (-std=c++20, --std=c++20). */
static int chooses_std(const struct rj_opts *options)
{
	for (const char *o = rj_opts_next(options, NULL); o; o = rj_opts_next(options, o))
		if (strncmp(o, "-std=", 5) == 0 || strncmp(o, "--std=", 6) == 0)
			return 1;
	return 0;
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
	/* Nothing read from outside the key (compile/inputs.h). */
	RJ_FORWARD(rj_inputs_env_check(ROCJIT_PLATFORM_AMD));
	RJ_FORWARD(rj_inputs_check(req, rj_devlib_served(ROCJIT_PLATFORM_AMD),
				   ROCJIT_PLATFORM_AMD));
	argv = calloc(req->options->count + 6, sizeof *argv);
	RJ_CHECK(!argv, ROCJIT_ENOMEM, "out of memory compiling %s", req->name);
	/* The caller's headers, then rocjit's device library and HIP stand-ins (devlib/). */
	if (rj_header_arrays_make(&h, req, rj_devlib_served(ROCJIT_PLATFORM_AMD)) != 0) {
		free(argv);
		return ROCJIT_ENOMEM;
	}
	/* Every source: what hipcc gives device code and hipRTC does not (devlib/amd/
	   rocjit_amd.h: the platform macros; unannotated functions as host and device). */
	argv[argc++] = "-include";
	argv[argc++] = "rocjit_amd.h";
	/* CUDA source: CUDA's names mapped onto HIP's, __CUDA_ARCH__ defined (devlib/cuda/
	   rocjit_cuda_dialect.h says which value and why), before anything of the source;
	   and C++17, NVRTC's default (hipRTC's is C++14), unless the options choose. */
	if (req->language == ROCJIT_LANG_CUDA) {
		argv[argc++] = "-include";
		argv[argc++] = "rocjit_cuda_dialect.h";
		if (!chooses_std(req->options))
			argv[argc++] = "-std=c++17";
	}
	for (const char *o = rj_opts_next(req->options, NULL); o; o = rj_opts_next(req->options, o))
		argv[argc++] = o;
	snprintf(arch, sizeof arch, "--offload-arch=%s", target);
	argv[argc++] = arch;
	pthread_mutex_lock(&compile_lock);
	rc = compile_locked(target, req, out, argv, (int)argc, (int)h.n, h.src, h.names);
	pthread_mutex_unlock(&compile_lock);
	/* What the __CUDA_ARCH__ value left out, said after the compiler's own words. */
	if (rc == 0 && req->language == ROCJIT_LANG_CUDA)
		out->log = append_notes(out->log, rj_cuda_arch_notes(req));
	rj_header_arrays_free(&h);
	free(argv);
	return rc;
}

const struct rj_platform rj_platform_amd = {
	.id = ROCJIT_PLATFORM_AMD,
	.name = "amd",
	.compiler_id = amd_compiler_id,
	.compiler_files = amd_compiler_files,
	.libraries = amd_libraries,
	.target_check = amd_target_check,
	.targets = amd_targets,
	.device_count = rj_amd_device_count,
	.compile = amd_compile,
	.device_target = rj_amd_device_target,
	.module_load = rj_amd_module_load,
	.module_unload = rj_amd_module_unload,
	.function_get = rj_amd_function_get,
	.launch = rj_amd_launch,
	.launch_cooperative = rj_amd_launch_cooperative,
	.attribute = rj_amd_attribute,
	.occupancy = rj_amd_occupancy,
	.block_size = rj_amd_block_size,
	.device_attribute = rj_amd_device_limit,
	.global_get = rj_amd_global_get,
	.copy = rj_amd_copy,
};
