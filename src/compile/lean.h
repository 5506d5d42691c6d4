/*
 * lean.h - whether a compile for NVIDIA may leave the small float types (fp16, bf16, fp8)
 * out of the pre-included prelude (see lean.c).
 */
#ifndef ROCJIT_COMPILE_LEAN_H
#define ROCJIT_COMPILE_LEAN_H

#include <stddef.h>

#include "compile/platform.h"

/* 1 when text holds an identifier that may name something cuda_fp16.h, cuda_bf16.h or
   cuda_fp8.h declares. */
int rj_lean_names_small_floats(const char *text, size_t len);

/* 1 when none of req's texts (source, headers, options, name expressions) does: the
   compile may define __ROCJIT_LEAN_PRELUDE__. */
int rj_lean_prelude_fits(const struct rj_compile_req *req);

#endif
