/*
 * platform.h - the one internal interface to a GPU vendor's compiler and runtime.
 *
 * A platform compiles source for a target id, says which target a device has, and loads
 * and launches code objects.  Vendor libraries are loaded at run time (dlopen), so one
 * build runs on machines with and without them, and needs no vendor header.
 *
 * Callers: the request layer (request/request.c: devices, modules, launches;
 * request/lookup.c: target checks and compiles) and, within compile/, platforms.c (the
 * public calls about compilers and devices) and compiler_id.c (the compiler's files).
 * None of them talks to a vendor library itself.  Implemented by platform_amd.c and
 * platform_nvidia.c; headers.c and diagnostics.c hold the helpers declared at the end.
 */
#ifndef ROCJIT_PLATFORM_H
#define ROCJIT_PLATFORM_H

#include <stddef.h>

#include "key/options.h"
#include "rocjit.h"

/* What to compile: a request after validation and option normalization. */
struct rj_compile_req {
	const char *source;             /* NUL-terminated */
	const char *name;               /* for diagnostics: "axpy.hip" */
	const struct rj_opts *options;  /* normalized */
	const rocjit_header *headers;
	size_t num_headers;
	int language;                   /* ROCJIT_LANG_HIP or _CUDA (resolved): what the
	                                   source is written in; part of the key */
	const char *const *name_expressions; /* to instantiate and lower ("k<float, 4>") */
	size_t num_name_expressions;
	const char *pch_dir; /* where precompiled headers are kept (compile/pch.h); NULL: none */
};

/* What a compile produced. The platform mallocs code, log and lowered; the caller frees
 * them (lowered with rj_vendor_names_free). */
struct rj_compile_out {
	void *code;
	size_t size;
	char *log;     /* NUL-terminated, diagnostics naming req->name; "" when silent */
	char **lowered; /* the lowered (mangled) name of each req->name_expressions[i], or
	                   NULL when there are none */
};

struct rj_platform {
	int id;             /* ROCJIT_PLATFORM_* */
	const char *name;   /* "amd" */

	/*
	 * The compiler's identity and version for the cache key, e.g.
	 * "hiprtc 9.0; hip 50221153; comgr 2.4".  Loads the compiler libraries on first
	 * use.  Returns NULL (with the error recorded) when they cannot be loaded.
	 */
	const char *(*compiler_id)(void);

	/*
	 * After compiler_id succeeded: the paths of the library files the compiler was
	 * loaded from (at most max), for compiler_id.c's fingerprint.  Static strings.
	 */
	size_t (*compiler_files)(const char **paths, size_t max);

	/*
	 * Where the compiler's libraries were loaded from and why there, into buf[size]:
	 * "NAME\tFILE\tRULE\n" per library, then "note\t\tTEXT\n" per place passed over
	 * (rocjit_compiler_libraries_get).  Loads the compiler.  0 or ROCJIT_ENOCOMPILER
	 * (the notes are written either way).
	 */
	int (*libraries)(char *buf, size_t size);

	/*
	 * Refuses a target id the installed compiler does not support, before anything can
	 * abort the process.  The message lists the supported targets.  0,
	 * ROCJIT_EUNSUPPORTED or ROCJIT_ENOCOMPILER.
	 */
	int (*target_check)(const char *target);

	/*
	 * Compiles req for target (normalized, already checked).  Serialized internally
	 * when the vendor compiler is not thread-safe.  On ROCJIT_ECOMPILE out->log holds
	 * the diagnostics.  0, ROCJIT_ECOMPILE, ROCJIT_ENOCOMPILER, ROCJIT_ENOMEM.
	 */
	int (*compile)(const char *target, const struct rj_compile_req *req,
		       struct rj_compile_out *out);

	/* The processors or architectures the compiler supports, space separated; a list
	   cut short ends in " ...".  0 or ROCJIT_ENOCOMPILER. */
	int (*targets)(char *buf, size_t size);

	/* How many devices this machine has: 0 (and 0 returned) without a driver. */
	int (*device_count)(int *count);

	/* Writes device's full target id to out[size]. 0, ROCJIT_ENODEV, ROCJIT_EDEVICE. */
	int (*device_target)(int device, char *out, size_t size);

	/* Loads a code object on device. 0 or ROCJIT_EDEVICE. */
	int (*module_load)(int device, const void *code, size_t size, void **module);
	void (*module_unload)(void *module);
	/* 0, ROCJIT_ENOTFOUND or ROCJIT_EDEVICE. */
	int (*function_get)(void *module, const char *name, void **function);
	/* 0 or ROCJIT_EDEVICE.  device: the ordinal the function's module was loaded on. */
	int (*launch)(void *function, int device, rocjit_dim3 grid, rocjit_dim3 block,
		      unsigned int shared_bytes, void *stream, void **args);
	/* The same as a cooperative launch; also ROCJIT_EUNSUPPORTED (no such driver call).
	   Apart from launch, which stays the one driver call it always was. */
	int (*launch_cooperative)(void *function, int device, rocjit_dim3 grid,
				  rocjit_dim3 block, unsigned int shared_bytes, void *stream,
				  void **args);

	/*
	 * Beyond a launch (request/launch.c).  Thin wrappers of one driver call each, made
	 * in device's context; each returns 0, ROCJIT_EUNSUPPORTED (the driver lacks the
	 * call or the attribute) or ROCJIT_EDEVICE (the driver's error, named).
	 */
	/* Reads function attribute attr (ROCJIT_ATTR_*) into *value, or with set writes it. */
	int (*attribute)(void *function, int device, int attr, int *value, int set);
	/* Resident blocks per multiprocessor for block threads and shared dynamic bytes. */
	int (*occupancy)(void *function, int device, unsigned block, size_t shared,
			 int *blocks);
	/* The block size of highest occupancy at most limit (0: none), and the grid that
	   fills the device at it. */
	int (*block_size)(void *function, int device, size_t shared, unsigned limit,
			  int *block, int *grid);
	/* A device attribute: RJ_DEV_*. */
	int (*device_attribute)(int device, int which, int *value);
	/* A module variable's device address and size; ROCJIT_ENOTFOUND when none. */
	int (*global_get)(void *module, int device, const char *name, void **address,
			  size_t *size);
	/* Copies bytes host to device (to_device) or back; stream NULL: synchronously. */
	int (*copy)(int device, void *dst, const void *src, size_t bytes, int to_device,
		    void *stream);
};

/* platform->device_attribute's which */
#define RJ_DEV_MULTIPROCESSORS 0 /* multiprocessors (compute units) */
#define RJ_DEV_SHARED_MAX 1      /* the most shared memory (LDS) one block may use,
                                    opting in where the platform asks for that */

extern const struct rj_platform rj_platform_amd;
extern const struct rj_platform rj_platform_nvidia;

/* The platform by ROCJIT_PLATFORM_* id (not AUTO), or NULL. */
const struct rj_platform *rj_platform_by_id(int id);

/*
 * A compile worker must load the very compiler files its parent uses, or its compiler
 * differs (serve.c refuses it).  The parent may use AMD libraries the application had
 * loaded (driver_amd.c: rj_amd_loaded_before), which the worker's own search would not
 * find.  rj_worker_libraries_env() gives the worker's environment entry
 * "ROCJIT_WORKER_LIBRARIES=file:file..." naming the AMD libraries (runtime, comgr, hipRTC)
 * this process has loaded now (malloc'ed; NULL when none or out of memory); the worker
 * calls rj_worker_libraries_load() before it loads anything, and so finds them loaded as
 * its parent did.  Any thread.
 */
/*
 * The files of the compiler libraries this process had loaded before rocjit loaded any
 * (driver_amd.c, rj_amd_loaded_before: they come before every search), into files[max];
 * how many.  What the process compiles with depends on them, so the compiler identity's
 * fingerprint names them (compiler_id.c).  Any thread.
 */
size_t rj_loaded_before_files(const char **files, size_t max);

#define RJ_WORKER_LIBRARIES "ROCJIT_WORKER_LIBRARIES"
char *rj_worker_libraries_env(void);
void rj_worker_libraries_load(void);

/* The platform a normalized target id belongs to: "sm_*" NVIDIA, "gfx*" AMD; else NULL
 * with ROCJIT_EUNSUPPORTED recorded. */
const struct rj_platform *rj_platform_for_target(const char *target);

/* A request's headers as vendor compilers take them: first NUL-terminated copies of
 * req->headers, which all lie in text, then the served headers the caller does not
 * supply itself (headers.c). */
struct rj_header_arrays {
	const char **src, **names;
	size_t n;
	char *text;
};

struct rj_served;

/* The arrays for req with served (may be NULL: none) behind the caller's headers.  A
 * served header is left out when one of req->headers has its name or a -I folder of
 * req->options holds a file of its name: the caller's win.  0 or ROCJIT_ENOMEM (then
 * nothing is left allocated). */
int rj_header_arrays_make(struct rj_header_arrays *a, const struct rj_compile_req *req,
			  const struct rj_served *served);
void rj_header_arrays_free(struct rj_header_arrays *a);

/*
 * Rewrites compiler diagnostics so they name the real files: comgr's temporary
 * ".../comgr-<random>/input/CompileSource" becomes source_name and
 * ".../comgr-<random>/include/x.h" becomes "x.h".  Returns a malloc'ed string or NULL.
 */
char *rj_log_map_names(const char *log, const char *source_name);

/*
 * Rewrites NVRTC diagnostics into the compiler form editors read: "name(LINE): error: x"
 * becomes "name:LINE:COL: error: x", the column taken from NVRTC's caret line.  Returns a
 * malloc'ed string or NULL.
 */
char *rj_log_map_nvrtc(const char *log);

/*
 * For a CUDA-dialect source compiled for AMD: one "rocjit: warning:" line for each branch
 * of the source's and in-memory headers' #if/#elif/#else whose __CUDA_ARCH__ test leaves it
 * out at the value in force (-D__CUDA_ARCH__=N in req's options, else 800) while a newer
 * GPU would compile it, naming the kernels in it; and a note on choosing the value.
 * malloc'ed, or NULL when there is nothing to say (arch_gates.c).
 */
char *rj_cuda_arch_notes(const struct rj_compile_req *req);

#endif
