/*
 * env.h - one parser per kind of value rocjit reads from its environment (see env.c).
 * rocjit_env_flag() and rocjit_parse_size() are public (rocjit.h): the CLI reads the same
 * values the same way.
 */
#ifndef ROCJIT_ENV_H
#define ROCJIT_ENV_H

#include <stdint.h>

#include "rocjit.h"

#include "base/parse.h" /* rj_parse_flag */

/*
 * The size in setting name (rj_config: the environment, then the files): 1 and *out set when it holds one, 0 with *out = fallback when it is
 * unset or empty, or is no size (then with a warning, once a process).
 */
int rj_env_size(const char *name, uint64_t fallback, uint64_t *out);

/* The whole number in setting name, clamped up to min; fallback when unset, empty, not a whole
 * number or above max (the last two with a warning, once a process). */
long rj_env_long(const char *name, long fallback, long min, long max);

/* The settings' warnings (the files' lines, the environment's bad values) are said by the
 * process that started this one: a compile worker calls this first, so that its parent's
 * warnings are not printed again by each worker. */
void rj_config_warnings_said(void);

#endif
