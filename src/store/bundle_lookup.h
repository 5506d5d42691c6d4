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

/* Entries a lookup passed over for their signature (rj_bundles_get). */
struct rj_bundle_reject {
	int count;
	int status;               /* the last one's enum rj_sig_status */
	char signer[65];          /* ... its signer as stored ("" none) */
	const char *which;        /* ... its bundle's path */
};

struct rj_sig_trust;

/*
 * Looks a portable key up for target in each bundle in turn, preferring an entry the
 * given compiler (may be NULL: none installed) made, then the newest.  With trust (not
 * NULL), an entry serves only with a signature by one of its keys that holds; the others
 * are passed over, counted in *rej (one verification per lookup: the caller's table
 * keeps what was found).  On a hit (1), *code is a malloc'ed checked copy and *which the
 * bundle's path, and *kernels (when kernels is not NULL) a malloc'ed copy of its kernels
 * column, and *exact 1 when the given compiler made it.  0 on a miss.
 */
int rj_bundles_get(struct rj_bundle *list, const rj_key *pkey, const char *target,
		   const char *compiler, const struct rj_sig_trust *trust, void **code,
		   size_t *size, double *compile_ms, const char **which, char **kernels,
		   int *exact, struct rj_bundle_reject *rej);

#endif
