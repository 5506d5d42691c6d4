/*
 * lookup_remote.c - the fleet's tier for a slot: a look before the database where the
 * read index says the node cannot have the key, the look (and the fleet's compile lock)
 * after the node's tiers missed, a hit kept for the on-disk cache, and a fresh entry put
 * for the other nodes.  Talks to the tier only through remote.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/remote.h"
#include "request/lookup_internal.h"
#include "base/error.h"

_Thread_local int rj_fleet_nowait;

/* Puts s's entry to the remote tier, for the fleet's other nodes: 1 when it is there.  A
 * failure costs them a compile: one warning, counted (rocjit_stats.remote_put_errors). */
int rj_lookup_remote_put(rocjit_ctx *ctx, const struct rj_slot *s, const struct rj_cache_meta *m)
{
	struct rj_record rec;

	if (rj_remote_is_off(ctx->remote))
		return 0; /* down, and said so once: the others compile it */
	/* The value there was refused here for its signature only: it may be what the nodes
	   that trust its signer load.  An unsigned one would be refused by every node that
	   checks, and take it from them; a signed one replaces it (signers outrank none). */
	if (s->remote_sig_refused && !m->signer) {
		RJ_LOG(RJ_LOG_INFO, "remote cache %s: not replacing a value refused for its "
		       "signature with an unsigned one (set ROCJIT_SIGNING_KEY to put signed "
		       "values)", rj_remote_shown(ctx->remote));
		return 0;
	}
	rj_remote_record_of(&rec, &s->key, m, s->code.data, s->code.size);
	if (rj_remote_put(ctx->remote, &rec, 0) < 0) {
		rj_warn_once("remote-put", "%s; this node keeps its copy, the others compile it",
			     rocjit_last_error());
		return 0;
	}
	return 1;
}

/*
 * Copies a remote hit (s, filled) into the on-disk cache, so that the next process finds
 * it there: kept in memory and stored with the next batch of usage records (at close, at
 * exit), off the request path.  What is stored about it comes from the request, as for a
 * compile, not from the value (only its code and kernels, which were checked, do): a
 * value's other fields are whatever its writer chose.  A failure costs the next process
 * a remote request: counted, one warning.
 */
static void remote_keep(rocjit_ctx *ctx, const struct rj_request *r, const struct rj_slot *s,
			const char *compiler, const char *kernels, const struct rj_record *rec)
{
	struct rj_cache_meta m;
	char *options, *headers, *source_name, signer[RJ_SIG_NAME_MAX + 1];

	if (!ctx->cache || (ctx->flags & ROCJIT_OPEN_READONLY) || rj_cache_readonly(ctx->cache))
		return;
	/* The value's own texts, not the request's (its source name may differ: it is no
	   part of the key): the entry is stored as it was signed, so that its signature
	   holds over the row (issue 27: a signature covers every field). */
	options = strndup(rec->options ? rec->options : "", rec->options_len);
	headers = strndup(rec->headers ? rec->headers : "", rec->headers_len);
	source_name = strndup(rec->source_name ? rec->source_name : "", rec->source_name_len);
	if (options && headers && source_name) {
		rj_entry_meta(&m, r, s, compiler, options, headers, kernels);
		m.source_name = source_name;
		m.pkey = rec->pkey;
		/* Its signature goes along (checked by the tier when keys are trusted, over
		   every field the value holds, which are those stored here). */
		if (rec->sig_len == RJ_SIG_BYTES && rj_sig_name_valid(rec->signer, rec->signer_len)) {
			memcpy(signer, rec->signer, rec->signer_len);
			signer[rec->signer_len] = 0;
			m.signer = signer;
			m.sig = rec->sig;
		}
		/* From the remote tier; its signer recorded only when the tier checked the
		   signature against trusted keys (it served, so it held): a producer that
		   trusts no key may not vouch for what it got (origins.h). */
		m.origin = RJ_ORIGIN_REMOTE;
		m.origin_signer = m.signer && rj_signing_shared_trust(&ctx->signing) ? signer
										      : NULL;
		/* Under the value's key (s's, or a less specific target's: s->built_for),
		   which the next process finds as this one did. */
		if (rj_cache_put_later(ctx->cache, &rec->key, &m, s->code.data, s->code.size,
				       s->code_shared) != 0) {
			atomic_fetch_add(&ctx->cache_errors, 1);
			rj_warn_once("remote-keep", "%s; the kernel from the remote cache is still "
				     "used", rocjit_last_error());
		}
	}
	free(options);
	free(headers);
	free(source_name);
}

/* What the remote tier is asked for: the entry of target (s's, or a less specific one)
 * under key. */
static void want_of(struct rj_remote_want *w, const struct rj_request *r,
		    const struct rj_slot *s, const char *compiler, const rj_key *key,
		    const char *target)
{
	w->key = *key;
	w->pkey = rj_request_portable_key(r, s->platform, target);
	w->platform = s->platform->name;
	w->target = target;
	w->compiler = compiler;
}

/*
 * The remote tier's value for s: its key, else the key of a compatible, less specific
 * target (rj_target_compatible), each checked as the entry of the target it names (the
 * tier compares the value's target and signature with that one).  The exact key is
 * asked first and alone: its hit costs one request as before; the others are made and
 * asked only after it missed.  A miss is counted once, for the last (unless early).
 * *w is left asking for s's own key (what a claim locks); *refused, *sig_refused: what
 * the tier said of s's own value.  built[]: the target of the value found.
 */
static int remote_find(rocjit_ctx *ctx, const struct rj_request *r, const struct rj_slot *s,
		       const char *compiler, int early, struct rj_remote_want *w,
		       struct rj_remote_value *v, int *refused, int *sig_refused,
		       char built[RJ_TARGET_MAX])
{
	char targets[RJ_TARGET_COMPAT_MAX][RJ_TARGET_MAX];
	size_t n = rj_target_compatible(targets, s->target);
	int hit = 0;

	for (size_t i = 0; i < n && !hit; i++) {
		rj_key key = i ? rj_request_key(r, s->platform, targets[i], compiler) : s->key;
		want_of(w, r, s, compiler, &key, targets[i]);
		hit = early || i + 1 < n ? rj_remote_peek(ctx->remote, w, v)
					 : rj_remote_get(ctx->remote, w, v);
		if (i == 0)
			*refused = v->refused, *sig_refused = v->sig_refused;
		if (hit)
			memcpy(built, targets[i], RJ_TARGET_MAX);
	}
	want_of(w, r, s, compiler, &s->key, s->target);
	return hit;
}

/*
 * The remote tier, after the local tiers missed.  1 and s filled on a hit (kept in the
 * on-disk cache too), for s's target or a compatible, less specific one (remote_find).
 * Else, when claim is set (this process is about to compile), takes the key's compile
 * lock across the fleet into *lease, or waits for the node that holds it and takes its
 * value (1).  0: compile.  2: another node is compiling it and this thread does not wait
 * (rj_fleet_nowait).  early: a look before the database, whose miss the whole way's
 * look counts.
 */
int rj_lookup_remote(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		     const char *compiler, int claim, struct rj_remote_lease **lease, int early)
{
	struct rj_remote_want w;
	struct rj_remote_value v;
	double t0 = rj_now_ms();
	char hex[33], built[RJ_TARGET_MAX];
	rj_key served;
	int hit, refused = 0, sig_refused = 0;

	*lease = NULL;
	hit = remote_find(ctx, r, s, compiler, early, &w, &v, &refused, &sig_refused, built);
	if (!hit && sig_refused)
		s->remote_sig_refused = 1;
	if (!hit && claim)
		hit = rj_remote_claim(ctx->remote, &w, rj_keylock_timeout_ms(),
				      (rj_fleet_nowait ? RJ_CLAIM_NOWAIT : 0) |
				      (refused ? 0 : RJ_CLAIM_ABSENT), lease, &v);
	if (hit == 2)
		return 2; /* another node is compiling it: deferred (rj_fleet_nowait) */
	if (!hit)
		return 0;
	if (r->num_name_expressions && !rj_slot_take_names(s, r, strdup(v.kernels))) {
		rj_remote_value_free(&v);
		return 0;
	}
	/* The slot holds the whole value (shared with the copy the cache stores later); its
	   code lies inside. */
	s->code.data = v.rec.code;
	s->code.size = v.rec.code_size;
	s->code.compile_ms = v.rec.compile_ms;
	s->code.from_cache = 1;
	s->code_shared = v.bytes;
	served = v.rec.key;
	rj_slot_served_as(s, built, &served);
	v.bytes = NULL;
	if (rj_signing_shared_trust(&ctx->signing))
		atomic_fetch_add(&ctx->signing.checked, 1);
	else if (!ctx->unsigned_fleet_chosen)
		rj_warn_once("remote-unsigned", "remote cache %s: no trusted key "
			     "(ROCJIT_TRUSTED_KEYS), so its code is run unchecked: whoever can "
			     "write to that server chooses what runs on this GPU; sign where "
			     "kernels are compiled (ROCJIT_SIGNING_KEY) and trust that key here, "
			     "or set ROCJIT_REQUIRE_SIGNED=none to say an unsigned fleet is meant",
			     rj_remote_shown(ctx->remote));
	remote_keep(ctx, r, s, compiler, v.kernels, &v.rec);
	rj_remote_value_free(&v);
	if (rj_log_level() >= RJ_LOG_INFO) {
		rj_key_hex(&served, hex);
		rj_log(RJ_LOG_INFO, "hit key=%s target=%s (built for %s) source=%s %zu bytes in "
		       "%.3f ms from the remote cache %s (compiling took %.1f ms)", hex, s->target,
		       s->built_for, r->name, s->code.size, rj_now_ms() - t0,
		       rj_remote_shown(ctx->remote), s->code.compile_ms);
	}
	return 1;
}

/*
 * The remote tier before the database, where the read index says the database cannot
 * have the key nor that of any compatible, less specific target (rj_target_compatible;
 * it held every entry when it was written, and lacks them all) and no bundle could serve
 * it: a node's first request for a kernel the fleet has is then one
 * round trip, without opening SQLite at all (the copy into the cache is stored later).
 * 1 and s filled on a hit (from the index, which may hold a compatible target's entry,
 * or the tier); 0: go the whole way.  Without
 * the node's key lock, so processes of a node may each ask once for the same key; the
 * fleet's compile lock is taken only after the whole way missed.
 */
int rj_lookup_early_remote(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
			   const char *compiler)
{
	char targets[RJ_TARGET_COMPAT_MAX][RJ_TARGET_MAX];
	struct rj_remote_lease *none;
	size_t n = 1;
	int rc, absent = 1, refused = 0;

	if (rj_ctx_bundles(ctx) || rj_remote_is_off(ctx->remote))
		return 0;
	/* s's key, then (after it missed: an exact hit asks nothing more) the compatible
	   targets' keys: the index must lack them all for the tier to be asked first. */
	for (size_t i = 0; i < n; i++) {
		const void *code = NULL;
		void *owned = NULL; /* a private copy of the index's code, when one was made */
		char *column = NULL;
		size_t size = 0;
		double ms = 0, t0 = rj_now_ms();
		rj_key key = i ? rj_request_key(r, s->platform, targets[i], compiler) : s->key;
		const char *target = i ? targets[i] : s->target;

		rc = rj_cache_probe(ctx->cache, &key, &code, &owned, &size, &ms,
				    rj_local_column(ctx, r, &column));
		if (rc == 2) {
			rc = rj_local_take(ctx, r, s, compiler, &key, target, 2, code, owned, size,
					   ms, column, t0);
			if (rc == 1)
				return 1;
			refused |= rc == -1;
		} else {
			free(column);
			absent &= rc == 0;
			if (rc != 0)
				break; /* only the database can say: for every key alike */
		}
		if (i == 0)
			n = rj_target_compatible(targets, s->target);
	}
	if (refused)
		s->local_refused = 1;
	return absent && !refused && rj_lookup_remote(ctx, r, s, compiler, 0, &none, 1);
}
