/*
 * compiler_id.h - the compiler identity for cache keys, remembered across processes so
 * that a cache hit loads no compiler (see compiler_id.c).
 */
#ifndef ROCJIT_COMPILER_ID_H
#define ROCJIT_COMPILER_ID_H

#include "store/cache.h"
#include "compile/platform.h"

#define RJ_COMPILER_MAX_FILES 8

/*
 * The identity of platform p's compiler: remembered in cache (may be NULL) when the files
 * it came from are unchanged, else asked of the loaded compiler (and remembered).  The
 * string is static.  NULL when the compiler cannot be loaded (error recorded).  Any thread.
 */
const char *rj_compiler_id(const struct rj_platform *p, rj_cache *cache);

#endif
