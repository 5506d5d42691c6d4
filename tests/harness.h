/*
 * harness.h - the test harness: a test is `TEST(name) { ... }` in a tests/test_*.c file;
 * CMake reads the names from the source and registers each as its own ctest test, run as
 * `test_foo name`.  Each test runs in a fresh process with a fresh temporary folder
 * (rj_test_dir) that is removed afterwards when the test passes.
 *
 * Asserts print file:line and the failing expression, then exit 1.
 */
#ifndef ROCJIT_TEST_HARNESS_H
#define ROCJIT_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocjit.h"

typedef void (*rj_test_fn)(void);
struct rj_test {
	const char *name;
	rj_test_fn fn;
	struct rj_test *next;
};
extern struct rj_test *rj_tests;
/* A fresh private folder for this test (mkdtemp under $TMPDIR or /tmp). */
extern char rj_test_dir[4096];

#define TEST(name)                                                        \
	static void test_##name(void);                                    \
	static struct rj_test rj_t_##name = { #name, test_##name, NULL }; \
	__attribute__((constructor)) static void rj_reg_##name(void)      \
	{                                                                 \
		rj_t_##name.next = rj_tests;                              \
		rj_tests = &rj_t_##name;                                  \
	}                                                                 \
	static void test_##name(void)

void rj_test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

#define ASSERT(cond)                                                  \
	do {                                                          \
		if (!(cond))                                          \
			rj_test_fail(__FILE__, __LINE__, "%s", #cond); \
	} while (0)
#define ASSERT_INT(a, b)                                                                 \
	do {                                                                             \
		long long rj_a_ = (long long)(a), rj_b_ = (long long)(b);                \
		if (rj_a_ != rj_b_)                                                      \
			rj_test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld (%s)", #a, \
				     #b, rj_a_, rj_b_, rocjit_last_error());             \
	} while (0)
#define ASSERT_STR(a, b)                                                                 \
	do {                                                                             \
		const char *rj_a_ = (a), *rj_b_ = (b);                                   \
		if (!rj_a_ || !rj_b_ || strcmp(rj_a_, rj_b_) != 0)                       \
			rj_test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, \
				     rj_a_ ? rj_a_ : "(null)", rj_b_ ? rj_b_ : "(null)"); \
	} while (0)
#define ASSERT_CONTAINS(hay, needle)                                                     \
	do {                                                                             \
		const char *rj_h_ = (hay), *rj_n_ = (needle);                            \
		if (!rj_h_ || !strstr(rj_h_, rj_n_))                                     \
			rj_test_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", \
				     rj_h_ ? rj_h_ : "(null)", rj_n_);                   \
	} while (0)

/* Marks the test skipped: prints "SKIP: <why>" and exits 77, which ctest reports as a
 * skip (SKIP_RETURN_CODE in tests/CMakeLists.txt).  Never return 0 for a test that could
 * not run. */
void rj_test_skip(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Runs fn(arg) in a forked child, a second process on the same files, bounded to 60 s:
 * its exit status (0: every RJ_CHILD_CHECK held), or 128 + the signal that ended it. */
int rj_test_in_child(int (*fn)(int), int arg);
/* A check inside such a child's function: prints the line and returns non-zero. */
#define RJ_CHILD_CHECK(cond)                                                           \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "child: line %d: %s (%s)\n", __LINE__, #cond,  \
				rocjit_last_error());                               \
			return __LINE__ % 250 + 1;                                  \
		}                                                                   \
	} while (0)

/* Helpers (tests/harness.c) */
/* The test's cache folder: rj_test_dir/cache. */
extern char rj_test_cache_dir[4200];
/* Opens a context on rj_test_cache_dir (asserting success). */
rocjit_ctx *rj_test_open(void);
/* A small real kernel file: extern "C" axpy(int n, float a, const float *x, float *y). */
extern const char rj_test_axpy[];
/* Compiles rj_test_axpy for target with -D<macro>=<i>: a distinct cache key per i
 * (asserting success).  Returns the code object, owned by ctx. */
const rocjit_code *rj_test_compile_variant(rocjit_ctx *ctx, const char *target,
					   const char *macro, int i);
/* The same without asserting: rocjit_compile's result, the code object in *c. */
int rj_test_try_variant(const rocjit_code **c, rocjit_ctx *ctx, const char *target,
			const char *macro, int i);
/* ctx's counters, all of this header's version (asserting rocjit_stats_get succeeds). */
rocjit_stats rj_test_stats(rocjit_ctx *ctx);
/* Whether NVRTC can be loaded here (the NVIDIA compile tests skip where it cannot). */
int rj_test_have_nvrtc(void);
/* Reads a whole file into a malloc'ed NUL-terminated buffer; *size gets its length. */
char *rj_test_read_file(const char *path, size_t *size);
void rj_test_write_file(const char *path, const void *data, size_t size);
/* Runs argv (argv[0] a path) with extra environment entries "K=V" (NULL-terminated list),
 * captures stdout+stderr into a malloc'ed string (*output, may be NULL) and returns the
 * exit status, or -1 when it did not exit normally. */
/* Compiles src (named name, for diagnostics and the language) for target with options and
 * in-memory headers (either NULL with count 0); log (log_size bytes, may be 0) gets the
 * call's rocjit_last_log().  Returns rocjit_compile's result. */
int rj_test_compile(const rocjit_code **code, rocjit_ctx *ctx, const char *target,
		    const char *name, const char *src, const char *const *opts, size_t nopts,
		    const rocjit_header *headers, size_t nheaders, char *log, size_t log_size);
int rj_test_run(const char *const argv[], const char *const env[], char **output);
/* Skips the test (visibly) when platform's compiler cannot be loaded; what names it. */
void rj_test_skip_without(int platform, const char *what);
/* How many distinct files whose name (a path's last component) starts with name
 * ("libamdhip64.so": libamdhip64.so.5.2.21153 and a copy named libamdhip64.so.5) this
 * process has mapped (/proc/self/maps): 1 where one copy of a library is loaded. */
int rj_test_mapped_copies(const char *name);
/* Whether the code object's kernel list holds name. */
int rj_test_has_kernel(const rocjit_codeobj_info *info, const char *name);
/* Asserts that code's object reads and holds every kernel of want (NULL-terminated),
 * printing the missing name (what: the source, for the message); returns its kernel list. */
rocjit_codeobj_info *rj_test_assert_kernels(const rocjit_code *code, const char *what,
					    const char *target, const char *const *want);
/* Compiles the file dir/file for target with options (NULL-terminated, may be NULL),
 * asserting success and that every kernel of want (NULL-terminated) is in the code
 * object (printing the log or the missing name first); returns its kernel list. */
rocjit_codeobj_info *rj_test_fixture(rocjit_ctx *ctx, const char *target, const char *dir,
				     const char *file, const char *const *options,
				     const char *const *want);
/* The same without asserting: rocjit_compile's result, the log in log[log_size]. */
int rj_test_fixture_try(rocjit_ctx *ctx, const char *target, const char *dir, const char *file,
			const char *const *options, char *log, size_t log_size,
			const rocjit_code **code);
/* Standard error into the file path, from now until rj_test_stderr_restore (given what
 * this returned): what was written meanwhile, malloc'ed. */
int rj_test_stderr_capture(const char *path);
char *rj_test_stderr_restore(int saved, const char *path);
/* In a child process: runs argv (argv[0] a path) with env's "K=V" entries added; exits
 * 127 when it cannot.  exec and putenv take writable strings: they get copies. */
void rj_test_exec(const char *const argv[], const char *const env[]) __attribute__((noreturn));

#endif
