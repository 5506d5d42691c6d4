/*
 * inputs.h - what the compilers read beyond what a compile request hands them, and the
 * rule that keeps it inside the cache key: every input the compiler reads is in the key,
 * or the compile is refused (issue 27).
 *
 * The key (key/key.h) holds the source, the in-memory headers, the served headers' digest,
 * the options (and, for -I folders, a digest of what they hold: request/search_dirs.c).
 * What else a compiler would read - measured with hipRTC 5.2 and NVRTC 13 - is cut off:
 *   - absolute includes ("/path/x.h"), includes whose ".." leaves the headers they are
 *     among, and includes whose name comes from a macro: refused (rj_inputs_check);
 *   - an include no keyed header answers that is found in a folder the compiler searches
 *     by itself: hipRTC's system folders (/usr/include, /usr/local/include, the C++
 *     library's), NVRTC's folder of the including file (relative to the working
 *     directory): refused, naming where it was found.  (Cutting those folders off with
 *     -nostdinc or --no-source-include was tried: it also cuts off the compilers' own
 *     headers that rocjit's served headers use - HIP's cooperative groups in
 *     /usr/include/hip, CUDA's in the CUDA include folder.);
 *   - environment variables the compilers read (CPATH and CPLUS_INCLUDE_PATH: hipRTC reads
 *     them): workers run without them (rj_inputs_env_changes_code), and a compile in this
 *     process is refused while one is set (rj_inputs_env_check).
 */
#ifndef ROCJIT_INPUTS_H
#define ROCJIT_INPUTS_H

#include "compile/devlib.h"
#include "compile/platform.h"

/*
 * dir (dlen bytes, may be 0) joined with path (plen bytes) into out[size], "." and empty
 * components dropped, ".." taking one back ("ops" + "../x.h" -> "x.h"): 0, or -1 when it
 * leaves the root, is empty or does not fit.  The include rule's path arithmetic, shared
 * with request/sources.c.
 */
int rj_include_join(char *out, size_t size, const char *dir, size_t dlen, const char *path,
		    size_t plen);

/* One include found by rj_includes_scan: a directive (#include, #include_next, #import)
 * or a probe (__has_include, __has_include_next), whose answer is an input too. */
struct rj_include {
	int line;       /* 1-based, in the text as given */
	char what[24];  /* "#include", "__has_include", ... */
	const char *name; /* between the quotes or angle brackets (not NUL-terminated, valid
	                     during the callback only); NULL: a name made by a macro */
	size_t len;
	int quoted;     /* "name", else <name> */
};

/*
 * Calls fn(user, include) for each include of text, in order: each directive, and each
 * __has_include in a directive line (where a probe is evaluated).  Preprocessor-aware
 * where it matters: line splices are joined, comments and string literals are skipped (an
 * include in a comment is never read), blanks and comments may stand between '#', the
 * keyword and the name ("#  include", a comment before the name), a comment of several
 * lines is a blank.  Conditions are not evaluated: an include in any #if branch counts,
 * taken or not.  Returns 0, the first
 * non-zero result of fn, or ROCJIT_ENOMEM.  Any thread.  The one scanner of include
 * directives: the compile's check below and the key's reach (request/reach.c) read the
 * same includes.
 */
int rj_includes_scan(const char *text, size_t len,
		     int (*fn)(void *user, const struct rj_include *inc), void *user);

/* Whether entry ("NAME=value", as in environ) sets a variable that changes what a
 * compiler reads or how it compiles, and is not in the key: workers run without it. */
int rj_inputs_env_changes_code(const char *entry);

/* 0, or ROCJIT_EINVAL naming the first variable of rj_inputs_env_changes_code that is set
 * in this process and read by platform's compiler, and what to do. */
int rj_inputs_env_check(int platform);

/*
 * Checks every include directive (#include, #include_next, #import, __has_include,
 * __has_include_next) of req's source and in-memory headers: 0, or ROCJIT_EINVAL naming
 * the file, the line and the include, for one that would be read from outside the key
 * (see the top of this file).  served: the names rocjit serves (may be NULL); platform:
 * whose compiler's search rules apply.
 */
int rj_inputs_check(const struct rj_compile_req *req, const struct rj_served *served,
		    int platform);

#endif
