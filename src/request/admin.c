/*
 * admin.c - the public calls on a context's on-disk stores: administering its cache
 * (rocjit_cache_foreach, _find, _remove, _compact, _verify[_each], _zero, and
 * rocjit_counters_get) and moving entries between its cache and a bundle file
 * (rocjit_bundle_export, _import).
 *
 * Owns only the step from the context to the store: checking the context, finding its
 * cache (or saying why it has none), clearing the out-parameters, then handing the
 * rj_cache to the store (store/cache_admin.h, store/bundle_transfer.h), which does the
 * work and knows nothing of contexts.  Never touches SQLite, the table or a compiler
 * itself.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/error.h"
#include "request/context.h"
#include "store/bundle_transfer.h"
#include "store/cache_admin.h"
#include "store/cache_internal.h"
#include "store/cache_signing.h"

#define NO_CACHE " (ROCJIT_DISABLE_CACHE, ROCJIT_OPEN_NO_CACHE, or it could not be opened: " \
		 "see the warning)"
#define NO_CACHE_FOR_BUNDLES " to export from or import into"

/* The context's on-disk cache, or ROCJIT_EIO saying it has none (why: the message's end). */
static int cache_of(rj_cache **out, rocjit_ctx *ctx, const char *why)
{
	RJ_CHECK(!ctx, ROCJIT_EINVAL, "ctx is NULL");
	RJ_CHECK(!ctx->cache, ROCJIT_EIO, "this context has no on-disk cache%s", why);
	*out = ctx->cache;
	return 0;
}

ROCJIT_API int rocjit_cache_foreach(rocjit_ctx *ctx, rocjit_entry_fn fn, void *user)
{
	rj_cache *c = NULL;

	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE));
	return rj_cache_foreach(c, &ctx->signing.trust, fn, user);
}

ROCJIT_API int rocjit_cache_find(rocjit_ctx *ctx, const char *prefix,
				 int (*fn)(const rocjit_entry *entry, const void *code,
					   size_t size, void *user),
				 void *user)
{
	rj_cache *c = NULL;

	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE));
	return rj_cache_find(c, &ctx->signing.trust, prefix, fn, user);
}

ROCJIT_API int rocjit_cache_remove(rocjit_ctx *ctx, const char *const *keys, size_t n,
				   size_t *removed)
{
	rj_cache *c = NULL;

	if (removed)
		*removed = 0;
	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE));
	return rj_cache_remove(c, keys, n, removed);
}

ROCJIT_API int rocjit_cache_compact(rocjit_ctx *ctx)
{
	rj_cache *c = NULL;

	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE));
	return rj_cache_compact(c);
}

ROCJIT_API int rocjit_cache_maxsize_set(rocjit_ctx *ctx, const char *size)
{
	rj_cache *c = NULL;
	uint64_t bytes;

	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE));
	if (size)
		RJ_FORWARD(rocjit_parse_size(&bytes, size));
	return rj_cache_limit_set(c, size);
}

ROCJIT_API int rocjit_cache_maxsize_get(uint64_t *bytes, const char **source,
					const char **stored, rocjit_ctx *ctx)
{
	rj_cache *c = NULL;
	const char *file = NULL, *text = NULL;
	uint64_t n = 0;
	int from = RJ_FROM_DEFAULT;

	if (bytes)
		*bytes = 0;
	if (source)
		*source = NULL;
	if (stored)
		*stored = NULL;
	RJ_CHECK(!bytes, ROCJIT_EINVAL, "rocjit_cache_maxsize_get: bytes is NULL");
	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE));
	RJ_FORWARD(rj_cache_limit_get(c, &n, &from, &text));
	rocjit_config_get("ROCJIT_CACHE_MAXSIZE", &file);
	*bytes = n;
	if (source)
		*source = from == RJ_FROM_CACHE ? "cache" :
			  from == RJ_FROM_ENV	? "environment" :
			  from == RJ_FROM_DEFAULT ? "default" : file;
	if (stored)
		*stored = text;
	return 0;
}

ROCJIT_API int rocjit_cache_verify(rocjit_ctx *ctx, int fix,
				   void (*bad)(const rocjit_entry *entry, int reason,
					       const char *message, void *user),
				   void *user, uint64_t *checked, uint64_t *bad_count)
{
	rj_cache *c = NULL;

	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE));
	return rj_cache_verify(c, &ctx->signing.trust,
			       ctx->signing.require == ROCJIT_REQUIRE_SIGNED_ALL, fix, 0, bad, user,
			       checked, bad_count);
}

ROCJIT_API int rocjit_cache_verify_each(rocjit_ctx *ctx, int fix,
					void (*each)(const rocjit_entry *entry, int reason,
						     const char *message, void *user),
					void *user, uint64_t *checked, uint64_t *bad_count)
{
	rj_cache *c = NULL;

	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE));
	return rj_cache_verify(c, &ctx->signing.trust,
			       ctx->signing.require == ROCJIT_REQUIRE_SIGNED_ALL, fix, 1, each,
			       user, checked, bad_count);
}

/* Fills the fields of out's version only: a caller built with an older header has a
 * shorter struct. */
ROCJIT_API int rocjit_counters_get(rocjit_counters *out, rocjit_ctx *ctx)
{
	static const size_t sizes[] = { offsetof(rocjit_counters, compile_errors),
					sizeof(rocjit_counters) };
	rocjit_counters all;
	rj_cache *c = NULL;
	unsigned int version;

	RJ_CHECK(!out, ROCJIT_EINVAL, "rocjit_counters_get: out is NULL");
	version = out->version;
	RJ_CHECK(version < 1 || version > ROCJIT_COUNTERS_VERSION, ROCJIT_EINVAL,
		 "rocjit_counters_get: version %u unknown: set it to ROCJIT_COUNTERS_VERSION "
		 "(rocjit_counters_init)", version);
	memset(out, 0, sizes[version - 1]);
	out->version = version;
	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE));
	memset(&all, 0, sizeof all);
	RJ_FORWARD(rj_cache_counters(c, &all));
	memcpy((char *)out + sizeof out->version, (char *)&all + sizeof all.version,
	       sizes[version - 1] - sizeof all.version);
	return 0;
}

ROCJIT_API int rocjit_cache_counters(rocjit_ctx *ctx, rocjit_counters *out)
{
	RJ_CHECK(!out, ROCJIT_EINVAL, "rocjit_cache_counters: out is NULL");
	out->version = 1;
	return rocjit_counters_get(out, ctx);
}

ROCJIT_API int rocjit_cache_zero(rocjit_ctx *ctx)
{
	rj_cache *c = NULL;

	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE));
	return rj_cache_zero(c);
}

ROCJIT_API int rocjit_bundle_export(rocjit_ctx *ctx, const char *path, const char *const *keys,
				    size_t n, size_t *count)
{
	rj_cache *c = NULL;

	if (count)
		*count = 0;
	RJ_CHECK(!keys || n == 0, ROCJIT_EINVAL, "rocjit_bundle_export: no keys given: name "
		 "the entries to export (rocjit_cache_foreach or `rocjit list` gives their keys)");
	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE_FOR_BUNDLES));
	/* With a signing key, what is exported is signed by it (in the cache first: the
	   export copies entries with their signatures). */
	if (ctx->signing.key)
		RJ_FORWARD(rocjit_cache_sign(ctx, keys, n, NULL));
	return rj_bundle_export(c, path, keys, n, count);
}

/* The signer's rule (issue 27): whom it signs as, the keys whose signatures it keeps, and
 * what it refused. */
struct sign_rule {
	const struct rj_sig_secret *key;
	struct rj_sig_trust trust;   /* the context's trusted keys and the key's public half */
	char first[700];             /* the first refusal: which entry, why, what to do */
};

/* rj_cache_sign's signer: the context's rule for entries already stored (signing.c). */
static int sign_with(const struct rj_sig_subject *e, const struct rj_stored_origin *origin,
		     const struct rj_stored_sig *current, char *signer, unsigned char *sig,
		     void *user)
{
	struct sign_rule *r = user;

	return rj_signing_vouch(r->key, &r->trust, e, origin, current, signer, sig,
				r->first[0] ? NULL : r->first, sizeof r->first);
}

/* rocjit_cache_sign (path NULL) and rocjit_bundle_sign (the bundle file path). */
static int sign_entries(rocjit_ctx *ctx, const char *path, const char *const *keys, size_t n,
			size_t *count)
{
	rj_cache *c = NULL;
	rj_key *k = NULL;
	struct rj_sign_counts done;
	struct sign_rule rule;
	int rc;

	if (count)
		*count = 0;
	RJ_CHECK(!ctx, ROCJIT_EINVAL, "ctx is NULL");
	if (!path)
		RJ_FORWARD(cache_of(&c, ctx, " to sign"));
	RJ_CHECK(!ctx->signing.key && ctx->signing.key_error[0], ROCJIT_EINVAL,
		 "no signing key: %s", ctx->signing.key_error);
	RJ_CHECK(!ctx->signing.key, ROCJIT_EINVAL, "no signing key: give one with "
		 "ROCJIT_SIGNING_KEY or rocjit_options.signing_key (rocjit keygen makes one)");
	memset(&rule, 0, sizeof rule);
	rule.key = ctx->signing.key;
	RJ_FORWARD(rj_signing_keepable(&ctx->signing, &rule.trust));
	if (keys && n && (rc = rj_cache_keys_from_hex(&k, keys, n)) != 0) {
		rj_sig_trust_free(&rule.trust);
		return rc;
	}
	if (path)
		rc = rj_bundle_sign(path, k, keys ? n : 0, sign_with, &rule, &done);
	else
		rc = rj_cache_sign(c, k, keys ? n : 0, sign_with, &rule, &done);
	free(k);
	rj_sig_trust_free(&rule.trust);
	if (rc != 0)
		return rc;
	atomic_fetch_add(&ctx->signing.signed_stores, done.signed_count);
	if (count)
		*count = done.signed_count + done.kept;
	RJ_CHECK(done.refused, ROCJIT_EFORMAT, "%zu entries signed, %zu kept their trusted "
		 "signature, %zu not signed (their origin is not this node); the first: %s%s",
		 done.signed_count, done.kept, done.refused, rule.first,
		 done.bad ? "; and some fail their checksum (rocjit verify --fix removes them)"
			  : "");
	RJ_CHECK(done.bad, ROCJIT_EFORMAT, "%zu entries signed; %zu not: their code fails its "
		 "checksum (rocjit verify --fix removes them)", done.signed_count, done.bad);
	rj_error_clear();
	return 0;
}

ROCJIT_API int rocjit_cache_sign(rocjit_ctx *ctx, const char *const *keys, size_t n,
				 size_t *count)
{
	return sign_entries(ctx, NULL, keys, n, count);
}

ROCJIT_API int rocjit_bundle_sign(rocjit_ctx *ctx, const char *path, const char *const *keys,
				  size_t n, size_t *count)
{
	if (count)
		*count = 0;
	RJ_CHECK(!path || !*path, ROCJIT_EINVAL, "rocjit_bundle_sign: path is NULL or empty");
	return sign_entries(ctx, path, keys, n, count);
}

ROCJIT_API int rocjit_bundle_import_v2(rocjit_ctx *ctx, const char *path, size_t *copied,
				       size_t *rejected, rocjit_reject_fn fn, void *user)
{
	rj_cache *c = NULL;

	if (copied)
		*copied = 0;
	if (rejected)
		*rejected = 0;
	RJ_FORWARD(cache_of(&c, ctx, NO_CACHE_FOR_BUNDLES));
	return rj_bundle_import(c, path, rj_signing_shared_trust(&ctx->signing), copied,
				rejected, fn, user);
}

ROCJIT_API int rocjit_bundle_import(rocjit_ctx *ctx, const char *path, size_t *count)
{
	return rocjit_bundle_import_v2(ctx, path, count, NULL, NULL, NULL);
}
