/*
 * lookup_local.c - the node's own tiers for a slot: the on-disk cache (its read index
 * first), the signing rule for what it serves, the key lock that makes one process of
 * the node compile a key, and the bundles (named, and the one beside the executable).
 * Talks to the stores only through their handles (cache.h, bundle_lookup.h, keylock.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "request/lookup_internal.h"
#include "base/error.h"

/* A store's hit fills s: code, which s owns when it is owned (malloc'ed; NULL: the cache's
 * mapping, valid while the cache is open), counted as a disk hit.  built_for and key: the
 * target the entry was made for and its key, which the served code says
 * (rocjit_code.target, .key). */
void rj_slot_take_hit(rocjit_ctx *ctx, struct rj_slot *s, const void *code, void *owned,
		      size_t size, double ms, const char *built_for, const rj_key *key)
{
	s->code.data = code;
	s->code_mem = owned;
	s->code.size = size;
	s->code.compile_ms = ms;
	s->code.from_cache = 1;
	rj_slot_served_as(s, built_for, key);
	atomic_fetch_add(&ctx->disk_hits, 1);
}

/*
 * Whether a local hit (*code, size; *owned: its private copy, or NULL when it lies in the
 * read index's shared mapping) may load under the signing rule (signing.c).  The fields a
 * signature covers besides the code are the request's for the entry's target (the
 * entry's key, key, matched them), so a signature the read index holds is checked
 * without the database; the portable key is computed only when the rule covers the local
 * cache.  An entry of a less specific target is checked as signed for that target, the
 * one it was made for.  Code from the index is copied first and the copy checked and
 * loaded: anyone who may write the index file could change the mapped bytes between the
 * check and the load.  0 also when the copy cannot be made.
 */
int rj_local_ok(rocjit_ctx *ctx, const struct rj_request *r, const struct rj_slot *s,
		const rj_key *key, const char *target, const char *compiler, const void **code,
		void **owned, size_t size, const char *kernels, double ms)
{
	struct rj_sig_subject hit;
	const void *served = *code;
	unsigned char none[RJ_SIG_DIGEST_BYTES] = { 0 };
	rj_key pkey;

	if (ctx->signing.require < ROCJIT_REQUIRE_SIGNED_ALL)
		return 1;
	if (!kernels)
		return 0; /* out of memory reading it: nothing to check the signature over */
	if (!*owned) {
		if (!(*owned = malloc(size ? size : 1)))
			return 0;
		memcpy(*owned, served, size);
		*code = *owned;
	}
	pkey = rj_request_portable_key(r, s->platform, target);
	/* The description digest is the store's to give (rj_signing_local_ok). */
	rj_sig_subject_make(&hit, key, &pkey, s->platform->name, target, compiler, kernels,
			    strlen(kernels), ms, none, *code, size);
	return rj_signing_local_ok(&ctx->signing, ctx->cache, &hit, served);
}

char **rj_local_column(rocjit_ctx *ctx, const struct rj_request *r, char **column)
{
	*column = NULL;
	return r->num_name_expressions || ctx->signing.require >= ROCJIT_REQUIRE_SIGNED_ALL
		       ? column
		       : NULL;
}

/*
 * What a local store (rj_cache_get, or rj_cache_probe) answered (rc) for the entry of
 * target under key, taken into s: 1 a hit (rc 2: from the read index), 0 a miss, -1 the
 * entry was refused for its signature, -2 the store failed (rc < 0).  t0: when the
 * lookup began.
 */
int rj_local_take(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		  const char *compiler, const rj_key *key, const char *target, int rc,
		  const void *code, void *owned, size_t size, double ms, char *column, double t0)
{
	char hex[33];

	if (rc > 0 && !rj_local_ok(ctx, r, s, key, target, compiler, &code, &owned, size,
				   column, ms)) {
		free(owned);
		free(column);
		return -1;
	}
	if (!r->num_name_expressions) {
		free(column); /* read for the signature's check alone */
		column = NULL;
	}
	if (rc <= 0) {
		free(column);
		return rc < 0 ? -2 : 0;
	}
	if (r->num_name_expressions && !rj_slot_take_names(s, r, column)) {
		free(owned);
		return 0;
	}
	rj_slot_take_hit(ctx, s, code, owned, size, ms, target, key);
	if (rc == 2)
		atomic_fetch_add(&ctx->index_hits, 1);
	if (rj_log_level() >= RJ_LOG_INFO) {
		rj_key_hex(key, hex);
		rj_log(RJ_LOG_INFO, "hit key=%s target=%s%s%s source=%s %zu bytes in %.3f ms "
		       "from the %s (compiling took %.1f ms)", hex, s->target,
		       target != s->target ? " built for " : "", target != s->target ? target : "",
		       r->name, size, rj_now_ms() - t0, rc == 2 ? "index" : "database", ms);
	}
	return 1;
}

/* One local lookup of the entry of target under key: in the read index alone
 * (index_only), or in the database behind it. */
static int disk_lookup_one(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
			   const char *compiler, const rj_key *key, const char *target,
			   int index_only)
{
	const void *code = NULL;
	void *owned = NULL;
	size_t size = 0;
	double ms = 0, t0 = rj_now_ms();
	char *column = NULL;
	char **col = rj_local_column(ctx, r, &column);
	int rc = index_only ? rj_cache_probe(ctx->cache, key, &code, &owned, &size, &ms, col)
			    : rj_cache_get(ctx->cache, key, &code, &owned, &size, &ms, col);

	if (index_only && rc == 1)
		rc = 0; /* only the database can say: the second pass asks it */
	return rj_local_take(ctx, r, s, compiler, key, target, rc, code, owned, size, ms, column,
			     t0);
}

/*
 * 1 and s filled when the on-disk cache (its read index first) has s's key, else the key
 * of a compatible, less specific target (rj_target_compatible: a cache prewarmed for
 * gfx90a serves a device that reports gfx90a:sramecc+:xnack-); 0 on a miss (or a cache
 * failure).  The exact key is asked first and alone: its index hit costs nothing more than
 * it did; the other targets' keys are made only after it missed.  Two passes, the read
 * index for every id, then the database for every id: a new process served by a less
 * specific id's entry in the index opens no database (0.4-0.8 ms, bench/RESULTS.md), and
 * where only the database holds the exact entry, an index hit of a less specific one is
 * taken first (either runs on the device).  An entry refused for its signature is passed
 * over for the next target, and not asked for again; the slot does not look again.
 */
int rj_disk_lookup(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		   const char *compiler)
{
	char targets[RJ_TARGET_COMPAT_MAX][RJ_TARGET_MAX];
	rj_key keys[RJ_TARGET_COMPAT_MAX];
	int rc, refused[RJ_TARGET_COMPAT_MAX] = { 0 }, any = 0;
	size_t n = 1;

	if (s->local_refused)
		return 0;
	rc = disk_lookup_one(ctx, r, s, compiler, &s->key, s->target, 1);
	if (rc == 0 || rc == -1) {
		refused[0] = rc == -1;
		n = rj_target_compatible(targets, s->target);
		keys[0] = s->key;
		for (size_t i = 1; i < n && (rc == 0 || rc == -1); i++) {
			keys[i] = rj_request_key(r, s->platform, targets[i], compiler);
			rc = disk_lookup_one(ctx, r, s, compiler, &keys[i], targets[i], 1);
			refused[i] = rc == -1;
		}
		for (size_t i = 0; i < n && (rc == 0 || rc == -1); i++)
			if (!refused[i]) {
				rc = disk_lookup_one(ctx, r, s, compiler, &keys[i],
						     i ? targets[i] : s->target, 0);
				refused[i] = rc == -1;
			}
	}
	if (rc == 1)
		return 1;
	for (size_t i = 0; i < n; i++)
		any |= refused[i];
	s->local_refused = any;
	if (rc == -2) {
		atomic_fetch_add(&ctx->cache_errors, 1);
		rj_warn_once("cache-get", "%s; compiling instead", rocjit_last_error());
	}
	return 0;
}

/*
 * After a disk miss: takes the key's lock across processes, so that of all the processes
 * missing the same key at once only one compiles.  The others wait for its result in the
 * cache, taking the lock themselves if the holder dies, for at most the lock timeout.
 * Returns 1 when the cache answered meanwhile; else 0 with *lock held or not (no lock can
 * be had: compile anyway).
 */
int rj_wait_for_key(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		    const char *compiler, struct rj_keylock *lock)
{
	double deadline = rj_now_ms() + rj_keylock_timeout_ms();
	unsigned sleep_us = 2000;
	int rc;

	lock->fd = -1;
	if ((ctx->flags & ROCJIT_OPEN_READONLY) || rj_cache_readonly(ctx->cache))
		return 0;
	while ((rc = rj_keylock_try(lock, rj_cache_dir_of(ctx->cache), &s->key)) == RJ_LOCK_BUSY) {
		if (rj_now_ms() > deadline) {
			char hex[33];
			rj_key_hex(&s->key, hex);
			rj_log(RJ_LOG_WARN, "another process has been compiling %s (key %s) for "
			       "%d ms; compiling it here too (ROCJIT_LOCK_TIMEOUT_MS sets the wait)",
			       r->name, hex, rj_keylock_timeout_ms());
			return 0;
		}
		usleep(sleep_us);
		if (sleep_us < 50000)
			sleep_us *= 2;
		if (rj_disk_lookup(ctx, r, s, compiler))
			return 1;
	}
	/* Held: the previous holder may have stored it just before letting go. */
	if (rc == RJ_LOCK_HELD && rj_disk_lookup(ctx, r, s, compiler)) {
		rj_keylock_release(lock);
		return 1;
	}
	return 0;
}

/* The context's bundles, complete: the first call looks for <executable>.rocjit (kept off
 * rocjit_open, the path of every process's first hit).  NULL when there are none. */
struct rj_bundle *rj_ctx_bundles(rocjit_ctx *ctx)
{
	if (atomic_load_explicit(&ctx->bundles_complete, memory_order_acquire))
		return ctx->bundles;
	pthread_mutex_lock(&ctx->bundles_mu);
	if (!atomic_load_explicit(&ctx->bundles_complete, memory_order_relaxed)) {
		rj_bundles_add_beside_executable(&ctx->bundles);
		atomic_store_explicit(&ctx->bundles_complete, 1, memory_order_release);
	}
	pthread_mutex_unlock(&ctx->bundles_mu);
	return ctx->bundles;
}

/* Finds s's program in a bundle, for its target or a less specific id of the same
 * processor whose code runs there (rj_target_compatible).  h->found says whether it did. */
void rj_bundle_find(rocjit_ctx *ctx, const struct rj_request *r, const struct rj_slot *s,
		    const char *compiler, struct rj_bundle_hit *h)
{
	char targets[RJ_TARGET_COMPAT_MAX][RJ_TARGET_MAX];
	size_t n;

	const struct rj_sig_trust *trust = rj_signing_shared_trust(&ctx->signing);

	memset(h, 0, sizeof *h);
	if (!rj_ctx_bundles(ctx))
		return;
	n = rj_target_compatible(targets, s->target);
	for (size_t i = 0; i < n && !h->found; i++) {
		rj_key pkey = rj_request_portable_key(r, s->platform, targets[i]);
		struct rj_bundle_reject rej;
		h->found = rj_bundles_get(ctx->bundles, &pkey, targets[i], compiler, trust,
					  &h->code, &h->size, &h->ms, &h->which,
					  r->num_name_expressions ? &h->column : NULL, &h->exact,
					  &rej);
		if (h->found) {
			memcpy(h->built_for, targets[i], sizeof h->built_for);
			/* Its key, as this context keys it (a compiler's, else the portable). */
			h->key = !i ? s->key : compiler ? rj_request_key(r, s->platform, targets[i],
									compiler)
						       : pkey;
		}
		if (trust)
			atomic_fetch_add(&ctx->signing.checked, (uint64_t)rej.count + (h->found ? 1 : 0));
		if (rej.count) {
			char what[4800];
			h->rejected += rej.count;
			snprintf(what, sizeof what, "bundle %s has an entry for %s of %s that is %s%s%s",
				 rej.which, targets[i], r->name,
				 rej.status == RJ_SIG_UNSIGNED ? "unsigned" :
				 rej.status == RJ_SIG_UNTRUSTED ? "signed by a key that is not trusted: "
								: "badly signed: ",
				 rej.status == RJ_SIG_UNSIGNED ? "" : rej.signer,
				 " (ROCJIT_TRUSTED_KEYS)");
			rj_signing_rejected(&ctx->signing, what, (uint64_t)rej.count);
		}
	}
}

void rj_bundle_drop(struct rj_bundle_hit *h)
{
	free(h->code);
	free(h->column);
	memset(h, 0, sizeof *h);
}

/* Fills s from a found bundle entry: 1, or 0 when it cannot serve (its names). */
int rj_bundle_take(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		   struct rj_bundle_hit *h)
{
	if (!h->found)
		return 0;
	if (r->num_name_expressions && !rj_slot_take_names(s, r, h->column)) {
		h->column = NULL; /* rj_slot_take_names freed it */
		rj_bundle_drop(h);
		return 0;
	}
	h->column = NULL;
	rj_slot_take_hit(ctx, s, h->code, h->code, h->size, h->ms, h->built_for, &h->key);
	RJ_LOG(RJ_LOG_INFO, "hit target=%s source=%s from bundle %s (built for %s)", s->target,
	       r->name, h->which, h->built_for);
	h->code = NULL;
	h->found = 0;
	return 1;
}
