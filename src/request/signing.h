/*
 * signing.h - a context's rule for signed code (see signing.c): which key it signs with,
 * which keys it trusts, and which tiers' entries need their signature.
 */
#ifndef ROCJIT_REQUEST_SIGNING_H
#define ROCJIT_REQUEST_SIGNING_H

#include <stdatomic.h>
#include <stdint.h>

#include "sign/sign.h"
#include "store/cache.h"
#include "store/cache_signing.h"

struct rj_signing {
	struct rj_sig_secret *key;   /* NULL: entries are stored unsigned */
	char key_error[512];         /* why ROCJIT_SIGNING_KEY could not be used, or "" */
	struct rj_sig_trust trust;
	int require;                 /* ROCJIT_REQUIRE_SIGNED_NONE, _SHARED or _ALL */
	atomic_uint_fast64_t checked, rejects, signed_stores;
	rj_cache *counts;            /* rejects counted there too (rj_cache_count), or NULL */
};

struct rocjit_options;

/*
 * Reads the rule from the options (version 4) and the environment into *g.  A mistake
 * in the options fails (ROCJIT_EINVAL or ROCJIT_EIO, saying what to fix): the caller
 * wrote them.  One in the environment is a warning, and fails closed: a signing key
 * that cannot be read signs nothing; trusted keys that cannot be read trust no key (every
 * shared entry is then compiled here).  Free with rj_signing_free.
 */
int rj_signing_open(struct rj_signing *g, const struct rocjit_options *opts);
void rj_signing_free(struct rj_signing *g);

/* The trust that bundles and the remote tier check against, or NULL: none asked for. */
const struct rj_sig_trust *rj_signing_shared_trust(const struct rj_signing *g);

/* Signs an entry (key, meta's fields, code) when g has a key: m->signer and m->sig then
 * point into sig_out (RJ_SIG_BYTES) and g's key name; else leaves m unsigned. */
void rj_signing_sign(struct rj_signing *g, const rj_key *key, struct rj_cache_meta *m,
		     const void *code, size_t size, unsigned char *sig_out);

/*
 * ROCJIT_REQUIRE_SIGNED_ALL: whether a local cache hit may load: 1, or 0 after counting it
 * and warning once (the caller compiles instead).  1 without a look when the rule does not
 * cover the local cache.  hit: the entry's key, the hit's code, kernels column and compile
 * time (what the caller uses), with the request's portable key, platform, target and
 * compiler identity (the entry's: its key matched); its description digest is the
 * store's (the index's copy, else the row's).
 * A hit the read index served is loaded on the index's copy of its signature when that is
 * trusted over hit, without the database; anything else (no signature there, or one not
 * trusted) is judged by the database's row, which may be newer, as a hit from the database
 * is: only the database's answer refuses.  served: where the cache served the code (the
 * read index's mapping is found by it); hit->code is what is checked, a private copy of
 * it when it came from the index (lookup_local.c), so that what is checked is what is loaded.
 */
int rj_signing_local_ok(struct rj_signing *g, rj_cache *c, const struct rj_sig_subject *hit,
			const void *served);

/* The signatures a signer keeps on entries it did not compile (issue 27): g's trusted
 * keys and its signing key's public half, into *out (free with rj_sig_trust_free).  0, or
 * ROCJIT_ENOMEM. */
int rj_signing_keepable(const struct rj_signing *g, struct rj_sig_trust *out);

/*
 * A signer vouches only for code whose origin it knows (issue 27; origins.h): whether
 * entry e (its origin, its current signature: len 0 none) is signed anew by key
 * (RJ_SIGN_NEW: signer and sig written; an entry compiled here), keeps its current
 * signature (RJ_SIGN_KEEP: it holds under keep, rj_signing_keepable), or is refused
 * (RJ_SIGN_REFUSE: from the remote tier or a bundle without such a signature, or of
 * unknown origin), why (NULL: not wanted) then saying which entry, why and what to do.
 * The RJ_SIGN_* values are store/cache_signing.h's.  Any thread.
 */
int rj_signing_vouch(const struct rj_sig_secret *key, const struct rj_sig_trust *keep,
		     const struct rj_sig_subject *e, const struct rj_stored_origin *origin,
		     const struct rj_stored_sig *current, char *signer, unsigned char *sig,
		     char *why, size_t why_size);

/* A shared tier passed over n entries for their signature (what: the first): counted,
 * here and across processes, one warning a process (then at ROCJIT_LOG=info). */
void rj_signing_rejected(struct rj_signing *g, const char *what, uint64_t n);

#endif
