/*
 * pch.h - NVRTC's precompiled headers, kept in the cache folder (see pch.c).
 *
 * A compile in a worker whose source starts like one compiled before (the same
 * pre-included prelude, served headers, options and leading #include lines) skips the
 * header parse: NVRTC loads the parsed state from a file made by the first.  Only in
 * compile workers: NVRTC's state holds pointers into its PCH heap, so a file can be used
 * only by a process whose heap sits at the same address (worker/pch_heap.c places it).
 */
#ifndef ROCJIT_COMPILE_PCH_H
#define ROCJIT_COMPILE_PCH_H

#include <stddef.h>

#include "compile/platform.h"

struct rj_pch {
	int dirfd;            /* the checked folder, -1 when this compile uses no PCH */
	int creating;         /* 1: the compile writes tmp, renamed to name when it succeeds */
	char name[40];        /* <key>.pch */
	char tmp[40];         /* tmp-<64 random bits>.pch */
	char option[96];      /* --use-pch=... or --create-pch=..., for NVRTC's argv */
};

/* The fixed-address PCH heap of this process, for a heap of len bytes (worker/pch_heap.c,
   in the worker only; NULL elsewhere).  Arm: 1 when NVRTC's heap will be placed, or was,
   where every worker places it; 0 when it cannot be (armed for another size, or mapped
   elsewhere).  Placed: 1 once it was mapped there. */
int rj_pch_heap_arm(size_t len) __attribute__((weak));
int rj_pch_heap_placed(void) __attribute__((weak));

/*
 * Chooses what this compile does with a PCH: dir is the request's PCH folder (created
 * 0700 when missing; "" or NULL: none), identity everything outside the source that
 * decides the compiler's parse (compiler id, target, every option NVRTC gets, NUL
 * separated, identity_len bytes), h the in-memory headers.  Sets p->option to pass to
 * NVRTC and returns 1, or returns 0 (p->dirfd -1) when this compile uses none: no folder,
 * a folder that is not this user's alone, or ROCJIT_PCH_MAX_MB=0.
 */
int rj_pch_begin(struct rj_pch *p, const char *dir, const char *identity,
		 size_t identity_len, const struct rj_header_arrays *h, const char *source);

/* After the compile: compiled is 1 when it succeeded, created when NVRTC says the PCH
   file was written (and the heap it recorded is the fixed one).  Renames a created file
   into place and keeps the folder within ROCJIT_PCH_MAX_MB; a compile that succeeded
   without making one marks the leading part not to be tried again for a week. */
void rj_pch_end(struct rj_pch *p, int compiled, int created);

/* After a compile that used p's file and NVRTC refused it: removes the file. */
void rj_pch_discard(struct rj_pch *p);

/* The length of source's leading part that a PCH can hold: blank lines, comments and
   preprocessor directives before the first other token. */
size_t rj_pch_prefix(const char *source);

#endif
