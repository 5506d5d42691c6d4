/*
 * bundle_lookup.h - the bundle tier: read-only bundles of prebuilt code objects, looked
 * in after the user cache (see bundle_lookup.c and the Bundles section of rocjit.h).
 */
#ifndef ROCJIT_BUNDLE_LOOKUP_H
#define ROCJIT_BUNDLE_LOOKUP_H

#include <stddef.h>

#include "key/key.h"

struct rj_bundle;

/* Opens the bundles of paths (colon-separated; may be NULL) and $ROCJIT_BUNDLE_PATH.
 * Unusable ones are skipped with a warning.  NULL when none. */
struct rj_bundle *rj_bundles_open(const char *paths);
/* Appends <executable>.rocjit to *list when it is there (a missing one is no warning). */
void rj_bundles_add_beside_executable(struct rj_bundle **list);
void rj_bundles_close(struct rj_bundle *list);

/*
 * Looks a portable key up for target in each bundle in turn, preferring an entry the
 * given compiler (may be NULL: none installed) made, then the newest.  On a hit (1),
 * *code is a malloc'ed checked copy and *which the bundle's path, and *kernels (when
 * kernels is not NULL) a malloc'ed copy of its kernels column, and *exact 1 when the
 * given compiler made it.  0 on a miss.
 */
int rj_bundles_get(struct rj_bundle *list, const rj_key *pkey, const char *target,
		   const char *compiler, void **code, size_t *size, double *compile_ms,
		   const char **which, char **kernels, int *exact);

#endif
