/*
 * cache_signing.h - signing the entries already in a cache (cache_signing.c).
 */
#ifndef ROCJIT_CACHE_SIGNING_H
#define ROCJIT_CACHE_SIGNING_H

#include <stddef.h>

#include "sign/sign.h"
#include "store/cache.h"

/* What the signer decides for an entry (the caller's rule: src/request/admin.c). */
enum rj_sign_verdict {
	RJ_SIGN_NEW,    /* signer and sig were written: stored as its signature */
	RJ_SIGN_KEEP,   /* its current signature stays */
	RJ_SIGN_REFUSE, /* not signed (the caller recorded why) */
};
/* Decides for entry e, whose origin (origins.h) and current signature (len 0: none) are
 * given; writes the signature of e into signer (its key's name) and sig for RJ_SIGN_NEW. */
typedef int (*rj_cache_signer_fn)(const struct rj_sig_subject *e,
				  const struct rj_stored_origin *origin,
				  const struct rj_stored_sig *current, char *signer,
				  unsigned char *sig, void *user);

/* What a signing did. */
struct rj_sign_counts {
	size_t signed_count; /* signatures written */
	size_t kept;         /* signatures the signer kept */
	size_t refused;      /* entries the signer would not sign */
	size_t bad;          /* entries whose code fails its checksum: never signed */
};

/*
 * Signs the entries with these keys (keys NULL: every entry) as fn decides, in one
 * transaction.  A key not in the cache is no error.  0 and *counts, or ROCJIT_EIO
 * (read-only, the database failed: nothing is signed).
 */
int rj_cache_sign(rj_cache *c, const rj_key *keys, size_t n, rj_cache_signer_fn fn,
		  void *user, struct rj_sign_counts *counts);

/* As rj_cache_sign, on the bundle file path (its origins table, which the export that
 * wrote it copied, says where its entries came from): a signed copy is written beside it
 * and renamed over it (the mode kept).  On failure the bundle is as it was.  0, or
 * ROCJIT_EINVAL (not a regular file), ROCJIT_EIO. */
int rj_bundle_sign(const char *path, const rj_key *keys, size_t n, rj_cache_signer_fn fn,
		   void *user, struct rj_sign_counts *counts);

#endif
