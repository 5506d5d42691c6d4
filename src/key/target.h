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

/* Most ids rj_target_compatible gives: the id with each subset of up to 3 features. */
#define RJ_TARGET_COMPAT_MAX 8

/*
 * The target ids whose code runs on a device that reports target (normalized), in order
 * of preference, most specific first: out[0] is target itself, then the ids of the same
 * processor with fewer of its features, down to the processor alone.  AMD's rule: a
 * feature an entry leaves unspecified ("any") runs on either setting; a feature it
 * specifies runs only where the device has the same setting.  So "gfx90a" serves
 * "gfx90a:sramecc+:xnack-", but "gfx90a:xnack+" serves neither "gfx90a:xnack-" nor
 * "gfx90a" (the reverse never holds).  Ids that are not AMD's (sm_90) and ids with more
 * than 3 features give the id alone.  The one rule every tier looks up by (the disk
 * cache and its read index, bundles, the remote tier).  Returns how many (1 at least).
 */
size_t rj_target_compatible(char out[RJ_TARGET_COMPAT_MAX][RJ_TARGET_MAX], const char *target);

/* Length of the processor part of a target id ("gfx90a" in "gfx90a:xnack-"). */
size_t rj_target_processor_len(const char *target);

#endif
