/*
 * signing.c - a context's rule for signed code (issue 16; include/rocjit.h, "Signed
 * code"): the key it signs what it stores with, the keys it trusts, and which tiers'
 * entries load only with a signature by one of them.
 *
 * Owns the reading of that rule (options version 4, else ROCJIT_SIGNING_KEY,
 * ROCJIT_TRUSTED_KEYS, ROCJIT_REQUIRE_SIGNED), the signing of entries as they are stored,
 * the local cache's check under ROCJIT_REQUIRE_SIGNED=all, and the counts and the warning
 * of entries refused.  The shared tiers check their own entries against
 * rj_signing_shared_trust (bundle_lookup.c, remote/tier.c): each entry once, when a
 * context first loads it; the context's table serves its repeats without a look.  What a
 * signature covers: src/sign/sign.h.
 */
#include "base/config.h"
#include "request/signing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "rocjit.h"

static int parse_require(const char *v, int *out)
{
	if (!strcasecmp(v, "none") || !strcmp(v, "0") || !strcasecmp(v, "off"))
		*out = ROCJIT_REQUIRE_SIGNED_NONE;
	else if (!strcasecmp(v, "shared") || !strcmp(v, "1") || !strcasecmp(v, "on"))
		*out = ROCJIT_REQUIRE_SIGNED_SHARED;
	else if (!strcasecmp(v, "all"))
		*out = ROCJIT_REQUIRE_SIGNED_ALL;
	else
		return -1;
	return 0;
}

int rj_signing_open(struct rj_signing *g, const struct rocjit_options *opts)
{
	int v4 = opts && opts->version >= 4;
	const char *keyfile = v4 && opts->signing_key ? opts->signing_key :
			      rj_config("ROCJIT_SIGNING_KEY", NULL);
	const char *trusted = v4 && opts->trusted_keys ? opts->trusted_keys :
			      rj_config("ROCJIT_TRUSTED_KEYS", NULL);
	const char *req = rj_config("ROCJIT_REQUIRE_SIGNED", NULL);
	int key_from_opts = v4 && opts->signing_key, trust_from_opts = v4 && opts->trusted_keys;
	int rc;

	memset(g, 0, sizeof *g);
	g->require = v4 ? opts->require_signed : ROCJIT_REQUIRE_SIGNED_DEFAULT;
	RJ_CHECK(g->require < ROCJIT_REQUIRE_SIGNED_DEFAULT ||
		 g->require > ROCJIT_REQUIRE_SIGNED_ALL, ROCJIT_EINVAL,
		 "rocjit_open: require_signed %d is not a ROCJIT_REQUIRE_SIGNED_* value",
		 g->require);
	if (g->require == ROCJIT_REQUIRE_SIGNED_DEFAULT && req && *req &&
	    parse_require(req, &g->require) != 0) {
		/* Fail closed: the operator asked for something; the strictest is safe. */
		rj_warn_once("ROCJIT_REQUIRE_SIGNED", "ROCJIT_REQUIRE_SIGNED=%s is not none, shared or "
			     "all; taking all", req);
		g->require = ROCJIT_REQUIRE_SIGNED_ALL;
	}
	if (trusted && *trusted) {
		rc = rj_sig_trust_parse(&g->trust, trusted, trust_from_opts ?
					"rocjit_options.trusted_keys" : "ROCJIT_TRUSTED_KEYS");
		if (rc != 0 && trust_from_opts)
			return rc;
		if (rc != 0) {
			rj_warn_once("trusted-keys", "%s; trusting no key: entries from bundles "
				     "and the remote tier are compiled here instead",
				     rocjit_last_error());
			if (g->require == ROCJIT_REQUIRE_SIGNED_DEFAULT)
				g->require = ROCJIT_REQUIRE_SIGNED_SHARED;
		}
	}
	if (g->require == ROCJIT_REQUIRE_SIGNED_DEFAULT)
		g->require = g->trust.n ? ROCJIT_REQUIRE_SIGNED_SHARED : ROCJIT_REQUIRE_SIGNED_NONE;
	if (keyfile && *keyfile) {
		g->key = calloc(1, sizeof *g->key);
		if (!g->key) {
			rj_sig_trust_free(&g->trust);
			RJ_FAIL(ROCJIT_ENOMEM, "out of memory reading the signing key");
		}
		rc = rj_sig_secret_load(g->key, keyfile);
		if (rc != 0) {
			free(g->key);
			g->key = NULL;
			if (key_from_opts) {
				rj_sig_trust_free(&g->trust);
				return rc;
			}
			snprintf(g->key_error, sizeof g->key_error, "ROCJIT_SIGNING_KEY: %s",
				 rocjit_last_error());
			rj_warn_once("signing-key", "%s; entries are stored unsigned",
				     g->key_error);
		}
	}
	return 0;
}

void rj_signing_free(struct rj_signing *g)
{
	if (g->key) {
		rj_sig_secret_wipe(g->key);
		free(g->key);
		g->key = NULL;
	}
	rj_sig_trust_free(&g->trust);
}

const struct rj_sig_trust *rj_signing_shared_trust(const struct rj_signing *g)
{
	return g->require >= ROCJIT_REQUIRE_SIGNED_SHARED ? &g->trust : NULL;
}

void rj_signing_sign(struct rj_signing *g, const rj_key *key, struct rj_cache_meta *m,
		     const void *code, size_t size, unsigned char *sig_out)
{
	struct rj_sig_subject e;

	m->signer = NULL;
	m->sig = NULL;
	if (!g->key)
		return;
	rj_cache_meta_subject(&e, key, m, code, size);
	rj_sig_sign(g->key, &e, sig_out);
	m->signer = g->key->name;
	m->sig = sig_out;
	atomic_fetch_add(&g->signed_stores, 1);
}

void rj_signing_rejected(struct rj_signing *g, const char *what, uint64_t n)
{
	rj_cache_count(g->counts, RJ_COUNT_SIGNATURE_REJECT, n);
	if (atomic_fetch_add(&g->rejects, n) == 0)
		rj_log(RJ_LOG_WARN, "%s; it is not loaded (counted in rocjit_stats."
		       "signature_rejects and in `rocjit stats`), and compiled here where a "
		       "compiler is", what);
	else
		RJ_LOG(RJ_LOG_INFO, "%s; not loaded", what);
}

int rj_signing_local_ok(struct rj_signing *g, rj_cache *c, const struct rj_sig_subject *hit,
			const void *served)
{
	const rj_key *key = hit->key;
	struct rj_cache_signed e;
	struct rj_stored_sig ix;
	struct rj_sig_subject sub;
	unsigned char described[RJ_SIG_DIGEST_BYTES];
	enum rj_sig_status st = RJ_SIG_BAD;
	char what[512], hex[33];
	int found;

	if (g->require < ROCJIT_REQUIRE_SIGNED_ALL)
		return 1;
	atomic_fetch_add(&g->checked, 1);
	/* A hit from the read index: its copy of the signature, trusted over this code and
	   the request's fields, loads it without opening the database.  The copy may be older
	   than the database's row (rocjit sign removes the index, and other programs' changes
	   drop it at the next open: cache_index_write.c), so it only ever accepts; whatever
	   it does not accept (unsigned there, signed since, a key no longer trusted) is the
	   database's to judge. */
	if (rj_cache_index_signature(c, key, served, &ix, described) == 1) {
		sub = *hit;
		memcpy(sub.described, described, sizeof described);
		if (rj_sig_verify(&g->trust, &sub, ix.signer, ix.sig, ix.len) == RJ_SIG_TRUSTED)
			return 1;
	}
	/* The database's row: its signature, portable key, platform, target, compiler and
	   description, over the hit's code, kernels column and compile time (what the caller
	   loads and counts, wherever it read them: a row that holds other ones fails). */
	if ((found = rj_cache_signed_get(c, key, &e)) == 1) {
		rj_sig_subject_make(&sub, key, &e.pkey, e.platform, e.target, e.compiler,
				    hit->kernels, hit->kernels_len, hit->compile_ms, e.described,
				    hit->code, hit->code_size);
		st = rj_sig_verify(&g->trust, &sub, e.sig.signer, e.sig.sig, e.sig.len);
		if (st == RJ_SIG_TRUSTED)
			return 1;
	}
	rj_key_hex(key, hex);
	if (found != 1)
		snprintf(what, sizeof what, "cache entry %s could not be checked: %s", hex,
			 found == 0 ? "its row is gone from the database (removed meanwhile)"
				    : rocjit_last_error());
	else
		snprintf(what, sizeof what, "cache entry %s is %s%s%s (ROCJIT_REQUIRE_SIGNED=all "
		 "loads only code signed by a trusted key: sign the cache with `rocjit sign`, or "
		 "set ROCJIT_SIGNING_KEY where it is compiled)", hex,
		 st == RJ_SIG_UNSIGNED ? "unsigned" : st == RJ_SIG_UNTRUSTED ?
		 "signed by a key that is not trusted: " : "badly signed: ",
		 st == RJ_SIG_UNSIGNED ? "" : e.sig.signer,
		 st == RJ_SIG_BAD ? " (altered since it was signed, or signed in an older "
				    "format: re-sign with `rocjit sign`)" : "");
	rj_signing_rejected(g, what, 1);
	return 0;
}

int rj_signing_keepable(const struct rj_signing *g, struct rj_sig_trust *out)
{
	struct rj_sig_public own;

	out->n = 0;
	out->keys = malloc((g->trust.n + 1) * sizeof *out->keys);
	RJ_CHECK(!out->keys, ROCJIT_ENOMEM, "out of memory signing");
	if (g->trust.n)
		memcpy(out->keys, g->trust.keys, g->trust.n * sizeof *out->keys);
	out->n = g->trust.n;
	/* Its own name already trusted under another key: that one is found first
	   (rj_sig_trust_find), and judges signatures in that name. */
	if (g->key && rj_sig_secret_public(g->key, &own) == 0)
		out->keys[out->n++] = own;
	return 0;
}

int rj_signing_vouch(const struct rj_sig_secret *key, const struct rj_sig_trust *keep,
		     const struct rj_sig_subject *e, const struct rj_stored_origin *origin,
		     const struct rj_stored_sig *current, char *signer, unsigned char *sig,
		     char *why, size_t why_size)
{
	char hex[33];

	if (origin->origin == RJ_ORIGIN_COMPILED) {
		rj_sig_sign(key, e, sig);
		memcpy(signer, key->name, strlen(key->name) + 1);
		return RJ_SIGN_NEW;
	}
	if (current->len && rj_sig_verify(keep, e, current->signer, current->sig,
					  current->len) == RJ_SIG_TRUSTED)
		return RJ_SIGN_KEEP;
	if (why) {
		rj_key_hex(e->key, hex);
		snprintf(why, why_size, "entry %s arrived %s %s: not signed, since a signer "
			 "vouches only for code compiled here or already signed by a key it "
			 "trusts; compile it here (rocjit purge %s, then rocjit prewarm or run the "
			 "program), or trust its signer's key", hex,
			 origin->origin == RJ_ORIGIN_UNKNOWN ? "before rocjit recorded origins, so" :
			 current->len ? "with a signature that does not hold here," : "unsigned",
			 origin->origin == RJ_ORIGIN_UNKNOWN ? "its origin is unknown" :
			 rj_origin_name(origin->origin), hex);
	}
	return RJ_SIGN_REFUSE;
}

ROCJIT_API int rocjit_keygen(const char *name, const char *dir, char *public_line, size_t size)
{
	RJ_CHECK(!name || !dir, ROCJIT_EINVAL, "rocjit_keygen: name or dir is NULL");
	RJ_FORWARD(rj_sig_keygen(name, dir, public_line, size));
	rj_error_clear();
	return 0;
}
