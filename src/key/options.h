/*
 * options.h - compiler option normalization: the form options take in the cache key and
 * on the compiler's command line.
 */
#ifndef ROCJIT_OPTIONS_H
#define ROCJIT_OPTIONS_H

#include <stddef.h>

/* Normalized options: `count` NUL-terminated strings packed back to back in `buf`. */
struct rj_opts {
	char *buf;       /* points at inline, or at heap memory when it did not fit */
	size_t len;      /* bytes used in buf, NULs included                        */
	size_t cap;      /* capacity of buf                                         */
	size_t count;
	char inline_buf[1024];
};

/* Longest single option and longest total accepted. */
#define RJ_OPTION_MAX 4096
#define RJ_OPTIONS_TOTAL_MAX (256 * 1024)

/*
 * Normalizes argv-style options into *out (which needs no set-up; release it with
 * rj_opts_release):
 *  - surrounding white space is trimmed, empty options are dropped;
 *  - "-D" "N=4" and "-D N=4" become "-DN=4" (likewise -U and -I);
 *  - every -O level is removed and the last one (else "-O3", the compiler's default) is
 *    appended at the end, so "-O3" and no -O give the same key;
 *  - target options (--offload-arch, --amdgpu-target, --gpu-architecture, -arch, -mcpu,
 *    -march) are refused: the target is never an option.
 * Returns 0, ROCJIT_EINVAL (with a message naming the option), ROCJIT_ENOMEM.
 * Allocation-free when the result fits in 1 KiB (the hit path).
 */
int rj_opts_normalize(struct rj_opts *out, const char *const *opts, size_t n);
void rj_opts_release(struct rj_opts *o);

/* The next option after `cur` (NULL: the first), or NULL at the end. */
const char *rj_opts_next(const struct rj_opts *o, const char *cur);

/*
 * The header named by the next pre-include option (-include X, -includeX, -include=X,
 * --pre-include X, --pre-include=X) from *cur on (*cur NULL: the first option), *cur
 * moved past it; NULL when no more.  Such a header is found like an include: the
 * compile's check (compile/inputs.c) and the key's reach (request/reach.c) read it so.
 */
const char *rj_opts_next_pre_include(const struct rj_opts *o, const char **cur);

/* The options joined by single spaces into a malloc'ed string ("" for none), or NULL. */
char *rj_opts_join(const struct rj_opts *o);

#endif
