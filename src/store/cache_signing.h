/*
 * cache_signing.h - signing the entries already in a cache (cache_signing.c).
 */
#ifndef ROCJIT_CACHE_SIGNING_H
#define ROCJIT_CACHE_SIGNING_H

#include <stddef.h>

#include "sign/sign.h"
#include "store/cache.h"

/* Writes the signature of e into signer (its key's name) and sig. */
typedef void (*rj_cache_signer_fn)(const struct rj_sig_subject *e, char *signer,
				   unsigned char *sig, void *user);

/*
 * Signs the entries with these keys (keys NULL: every entry) with fn, replacing their
 * signatures, in one transaction.  An entry whose code fails its checksum is not signed
 * (*skipped counts them; may be NULL); a key not in the cache is no error.  0 and
 * *signed_count, or ROCJIT_EIO (read-only, the database failed: nothing is signed).
 */
int rj_cache_sign(rj_cache *c, const rj_key *keys, size_t n, rj_cache_signer_fn fn,
		  void *user, size_t *signed_count, size_t *skipped);

/* As rj_cache_sign, on the bundle file path: a signed copy is written beside it and
 * renamed over it (the mode kept).  On failure the bundle is as it was.  0, or
 * ROCJIT_EINVAL (not a regular file), ROCJIT_EIO. */
int rj_bundle_sign(const char *path, const rj_key *keys, size_t n, rj_cache_signer_fn fn,
		   void *user, size_t *signed_count, size_t *skipped);

#endif
