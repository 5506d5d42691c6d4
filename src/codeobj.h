/*
 * codeobj.h - reading code objects (AMDGPU ELF).  Internal side of rocjit_codeobj_*.
 *
 * Owns ELF parsing; pure functions over a byte range, no I/O, no global state.
 */
#ifndef ROCJIT_CODEOBJ_H
#define ROCJIT_CODEOBJ_H

#include <stddef.h>
#include "rocjit.h"

/*
 * Checks that data is a well-formed code object for the normalized target id `target`
 * (both the amdhsa.target note and e_flags must agree with it).  On success, when
 * kernels_out is not NULL, *kernels_out receives a malloc'ed, comma-separated list of the
 * kernel names ("axpy,scale"), which the caller frees.
 * Returns 0, ROCJIT_EFORMAT (malformed, or built for another target), ROCJIT_ENOMEM.
 */
int rj_codeobj_check(const void *data, size_t size, const char *target, char **kernels_out);

#endif
