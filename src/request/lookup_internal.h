/*
 * lookup_internal.h - the steps of filling a slot, across the files that own them:
 * entry.c (what a request's entry is: its keys, its stored fields, its names), lookup_local.c
 * (the node's own tiers: the on-disk cache, the key lock, the bundles), lookup_remote.c
 * (the fleet's tier), all under lookup.c (the order of the tiers, the compile, the
 * once-per-key protocol).  Only src/request/ includes it.
 */
#ifndef ROCJIT_LOOKUP_INTERNAL_H
#define ROCJIT_LOOKUP_INTERNAL_H

#include "request/context.h"
#include "store/cache.h"
#include "store/keylock.h"

struct rj_key_input;
struct rj_remote_lease;

/* ---- entry.c ---- */

/* The request's header names, space-separated, malloc'ed ("" when none); NULL when out
 * of memory. */
char *rj_request_header_names(const struct rj_request *r);
/* What r's key for target is made of; compiler NULL for the portable key. */
void rj_request_key_input(struct rj_key_input *in, const struct rj_request *r,
			  const struct rj_platform *platform, const char *target,
			  const char *compiler);
/* r's key for target less the compiler identity. */
rj_key rj_request_portable_key(const struct rj_request *r, const struct rj_platform *platform,
			       const char *target);
/* r's key for target, made by compiler (what the cache and the remote tier look up). */
rj_key rj_request_key(const struct rj_request *r, const struct rj_platform *platform,
		      const char *target, const char *compiler);
/* s's code is the entry of built_for under key (another target's: s's code says so). */
void rj_slot_served_as(struct rj_slot *s, const char *built_for, const rj_key *key);
/* The fields of s's entry as the stores keep them (kernels: its kernels column). */
void rj_entry_meta(struct rj_cache_meta *m, const struct rj_request *r,
		   const struct rj_slot *s, const char *compiler, const char *options,
		   const char *headers, const char *kernels);
/* s's name expressions from a stored kernels column (freed here): 1, or 0 (a miss). */
int rj_slot_take_names(struct rj_slot *s, const struct rj_request *r, char *column);

/* ---- lookup_local.c ---- */

/* A store's hit fills s (owned: code when s owns it, else NULL); a disk hit counted.
 * built_for and key: the target the entry was made for (s->target, or one
 * rj_target_compatible gives for it) and its key. */
void rj_slot_take_hit(rocjit_ctx *ctx, struct rj_slot *s, const void *code, void *owned,
		      size_t size, double ms, const char *built_for, const rj_key *key);
/* Whether a local hit may load under the signing rule (*code may become a private copy,
 * *owned then set).  key and target: the entry's (s's, or a compatible target's, whose
 * signature is checked as made for that target).  kernels and ms: the hit's kernels
 * column and compile time, which the signature is checked over (NULL kernels under
 * ROCJIT_REQUIRE_SIGNED=all: refused). */
int rj_local_ok(rocjit_ctx *ctx, const struct rj_request *r, const struct rj_slot *s,
		const rj_key *key, const char *target, const char *compiler, const void **code,
		void **owned, size_t size, const char *kernels, double ms);
/* What a local store answered (rc: rj_cache_get's or rj_cache_probe's) for the entry of
 * target under key, taken into s: 1 a hit, 0 a miss, -1 refused for its signature, -2
 * the store failed.  The hit's code, owned and column are taken (freed on a miss). */
int rj_local_take(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		  const char *compiler, const rj_key *key, const char *target, int rc,
		  const void *code, void *owned, size_t size, double ms, char *column, double t0);
/* Where a local lookup puts the kernels column (*column set NULL): column when the
 * request has name expressions or the signing rule checks local hits (the signature
 * covers the column), else NULL (not read).  The caller frees *column. */
char **rj_local_column(rocjit_ctx *ctx, const struct rj_request *r, char **column);
/* 1 and s filled when the on-disk cache has s's key, or the key of a compatible, less
 * specific target (rj_target_compatible); 0 on a miss. */
int rj_disk_lookup(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		   const char *compiler);
/* After a disk miss, the key's lock across the node's processes: 1 when the cache
 * answered meanwhile, else 0 with *lock held or not. */
int rj_wait_for_key(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		    const char *compiler, struct rj_keylock *lock);
/* The context's bundles, the one beside the executable looked for at the first call;
 * NULL when there are none. */
struct rj_bundle *rj_ctx_bundles(rocjit_ctx *ctx);

/* A bundle's entry found for a request, not yet taken. */
struct rj_bundle_hit {
	void *code;
	size_t size;
	double ms;
	const char *which;         /* the bundle's path */
	char *column;              /* its kernels column (with name expressions), or NULL */
	char built_for[RJ_TARGET_MAX];
	rj_key key;                /* its key as this context keys it (for built_for) */
	int found, exact;          /* exact: made by this compiler */
	int rejected;              /* entries passed over for their signature */
};


/* Finds s's program in a bundle (h->found says whether it did). */
void rj_bundle_find(rocjit_ctx *ctx, const struct rj_request *r, const struct rj_slot *s,
		    const char *compiler, struct rj_bundle_hit *h);
void rj_bundle_drop(struct rj_bundle_hit *h);
/* Fills s from a found bundle entry: 1, or 0 when it cannot serve. */
int rj_bundle_take(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		   struct rj_bundle_hit *h);

/* ---- lookup_remote.c ---- */

/* Puts s's fresh entry to the remote tier: 1 when it is there. */
int rj_lookup_remote_put(rocjit_ctx *ctx, const struct rj_slot *s, const struct rj_cache_meta *m);
/* The remote tier after the local tiers missed: 1 (s filled), 0 compile (*lease the
 * fleet's lock when claim), 2 deferred. */
int rj_lookup_remote(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		     const char *compiler, int claim, struct rj_remote_lease **lease, int early);
/* The remote tier before the database, where the read index says it cannot have the key:
 * 1 and s filled on a hit; 0 go the whole way. */
int rj_lookup_early_remote(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
			   const char *compiler);

#endif
