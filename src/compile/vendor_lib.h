/*
 * vendor_lib.h - what both platforms do alike with the vendor libraries they dlopen:
 * load them once per process and give that outcome to every caller, find a library by
 * its names, say which file a symbol came from, and read a compiler's program log.
 *
 * Knows no vendor API: each platform (platform_amd.c, platform_nvidia.c) declares the
 * entry points it uses and passes them in.
 */
#ifndef ROCJIT_VENDOR_LIB_H
#define ROCJIT_VENDOR_LIB_H

#include <pthread.h>
#include <stddef.h>

#include "base/error.h"

/*
 * One set of vendor libraries, loaded once per process.  The first caller runs the load;
 * its outcome, success or the error, is kept and given to every later caller, so a
 * missing library costs one dlopen per process, not one per request.  Static storage,
 * initialized with RJ_VENDOR_LOAD_INIT.
 */
struct rj_vendor_load {
	pthread_once_t once;
	int rc;           /* 0, or the ROCJIT_E* code every caller gets */
	char error[512];  /* why, when rc != 0 */
};
#define RJ_VENDOR_LOAD_INIT { PTHREAD_ONCE_INIT, 0, "" }

/*
 * Runs load() if no thread has yet (the others wait until it returns), then returns 0, or
 * the code load() gave rj_vendor_load_fail() with its message recorded as the calling
 * thread's error.  Any thread.
 */
int rj_vendor_load_ready(struct rj_vendor_load *l, void (*load)(void));

/* For load() only: the libraries cannot be used; every caller gets code and the message. */
void rj_vendor_load_fail(struct rj_vendor_load *l, int code, const char *fmt, ...)
	RJ_PRINTF(3, 4);

/*
 * dlopen()s (RTLD_NOW | RTLD_LOCAL) the first of names (NULL-terminated) that loads: from
 * the folder given by the first dirlen bytes of dir, or where the loader searches when dir
 * is NULL.  A file named by a path is loaded only when it passes the trust rule (checked
 * on a descriptor, then loaded by its own path so that $ORIGIN is its folder, then
 * compared with what was checked).  NULL when none loads.
 */
void *rj_vendor_open(const char *dir, size_t dirlen, const char *const *names);

/*
 * The first of names (sonames, NULL-terminated) that this process has loaded already,
 * whoever loaded it (the application, linked or by dlopen), or NULL; loads nothing.  The
 * loader matches a library named by a path by its file, not its soname: a second copy
 * of a runtime the application uses (another ROCm version's file) would load beside it,
 * and know none of its state.  So a platform asks this before it searches.
 */
void *rj_vendor_loaded(const char *const *names);

/* For tests only (NULL otherwise): called with the path a checked library is about to be
 * loaded by, between its check and its load, to stand for whoever could change the file
 * there meanwhile. */
extern void (*rj_vendor_before_load)(const char *path);

/* Unloads a library rj_vendor_open gave that the caller does not keep (NULL ok). */
void rj_vendor_close(void *handle);

/* handle's symbol name, or NULL when handle is NULL or lacks it. */
void *rj_vendor_sym(void *handle, const char *name);

/*
 * The file of the loaded library that defines symbol (a function pointer the platform
 * loaded, passed as *(void **)&fn), or NULL.  Valid while the library stays loaded, which
 * the platforms' libraries do for the process's life.
 */
const char *rj_vendor_file(void *symbol);

/*
 * A vendor compiler's program handle (hiprtcProgram, nvrtcProgram): opaque, and a
 * pointer in both ABIs.  The platforms declare their handle as this type so that the one
 * log reader below takes either compiler's functions as they are.
 */
typedef struct rj_vendor_program *rj_vendor_program;

/*
 * The program's log as a NUL-terminated malloc'ed string ("" when there is none), or NULL
 * when out of memory.  size and get are the compiler's GetProgramLogSize and
 * GetProgramLog, which return 0 on success in both hipRTC and NVRTC.  Both give a size
 * that may not count a NUL, and write nothing for a size of 0: the buffer is one byte
 * longer and zeroed.
 */
char *rj_vendor_program_log(rj_vendor_program prog, int (*size)(rj_vendor_program, size_t *),
			    int (*get)(rj_vendor_program, char *));

/*
 * Name expressions ("scale<float, 4>"), which both compilers take alike: add() is
 * AddNameExpression (NULL when the compiler lacks it or GetLoweredName: then n > 0 is
 * ROCJIT_ECOMPILE saying so), called for each before the compile; after a successful compile
 * rj_vendor_lowered_names() asks lower() (GetLoweredName) for each and returns a
 * malloc'ed array of n malloc'ed lowered (mangled) names in *out.  A name the compiler
 * cannot lower is ROCJIT_ECOMPILE with a message naming it, the source and why, then
 * fix (the platform's advice).  0, ROCJIT_ECOMPILE or ROCJIT_ENOMEM; on failure nothing
 * stays allocated.
 */
int rj_vendor_add_names(rj_vendor_program prog, int (*add)(rj_vendor_program, const char *),
			const char *const *exprs, size_t n, const char *source_name);
int rj_vendor_lowered_names(char ***out, rj_vendor_program prog,
			    int (*lower)(rj_vendor_program, const char *, const char **),
			    const char *const *exprs, size_t n, const char *source_name,
			    const char *fix);
/*
 * Appends the calling thread's last error to a compile's log as the diagnostic
 * "source_name: error: <message>" (a name expression the compiler could not lower is
 * reported where the compiler's own errors are).  Returns the log (realloc'ed; the old
 * one when out of memory).
 */
char *rj_vendor_log_error(char *log, const char *source_name);
/*
 * Which name expression a failed compile's log blames, or -1.  Both compilers compile
 * each expression as a line of their own after the source (hipRTC a declaration, NVRTC a
 * pragma) and quote the line of an error after it: when the line quoted after the log's
 * first error is not the caller's source (source, length bytes) and holds an expression,
 * that expression is what failed ("nope<int>" naming nothing, "k<double>" matching no
 * template).  The compiler's text mentions the added line only, so the caller's message
 * must name the expression, which the log alone does not make clear.
 */
int rj_vendor_failed_name(const char *log, const char *source, size_t length,
			  const char *const *exprs, size_t n);
/* Frees what rj_vendor_lowered_names returned (NULL ok). */
void rj_vendor_names_free(char **names, size_t n);

#endif
