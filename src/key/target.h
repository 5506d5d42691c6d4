/*
 * target.h - target ids ("gfx90a:sramecc+:xnack-"): syntax and normalization only.
 * Whether a compiler supports a target is the platform's business (platform.h).
 */
#ifndef ROCJIT_TARGET_H
#define ROCJIT_TARGET_H

#include <stddef.h>

/* Longest normalized target id accepted (with its NUL). */
#define RJ_TARGET_MAX 64

/*
 * Normalizes `in` into out[RJ_TARGET_MAX]: the processor lower-cased, features lower-cased
 * and sorted by name, each exactly once with a '+' or '-'.  Returns 0 or ROCJIT_EINVAL with
 * a message that shows the expected form.
 */
int rj_target_normalize(char out[RJ_TARGET_MAX], const char *in);

/* Length of the processor part of a target id ("gfx90a" in "gfx90a:xnack-"). */
size_t rj_target_processor_len(const char *target);

#endif
