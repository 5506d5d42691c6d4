/*
 * reach.h - which of a request's headers its key covers (reach.c).
 */
#ifndef ROCJIT_REACH_H
#define ROCJIT_REACH_H

#include <stddef.h>

#include "key/key.h"
#include "rocjit.h"

/* The headers a source reaches: what its key covers and its compile is given. */
struct rj_reached {
	rocjit_header *headers; /* sorted by name (ties in the order given); one allocation
	                           with digests: free it with rj_reached_free */
	rj_digest *digests;     /* of each, where the caller gave digests; else NULL */
	size_t n;
	unsigned expands;       /* rj_key_expansions of their texts, or'ed */
};

/*
 * The headers of headers[0..n) that the source text (registered or named as name) can
 * reach, into *out (see reach.c for the rule).  digests: each header's digest, or NULL.
 * opts: the request's normalized options.  0 or ROCJIT_ENOMEM.  Any thread.
 */
int rj_reach(struct rj_reached *out, const char *name, const char *text, size_t len,
	     const rocjit_header *headers, const rj_digest *digests, size_t n,
	     const struct rj_opts *opts);

/* Whether opts change what a source reaches (-I folders, pre-included headers): a reach
 * found without options does not hold for them. */
int rj_reach_depends_on(const struct rj_opts *opts);

void rj_reached_free(struct rj_reached *r);

#endif
