/*
 * table.c - the in-process tier: a hash table from cache key to entry.
 *
 * Owns the buckets and the entries' memory.  The key is already a uniform 128-bit hash,
 * so its first 8 bytes index the buckets directly.  Entries are never moved or freed
 * before close, so a pointer found under the read lock stays valid after it is dropped.
 * Locking is the caller's (ctx->rw), see context.h.
 */
#include <stdlib.h>
#include <string.h>

#include "request/context.h"

static size_t bucket_of(const rj_key *key, size_t nbuckets)
{
	uint64_t h;

	memcpy(&h, key->b, sizeof h);
	return (size_t)(h & (nbuckets - 1));
}

struct rj_entry *rj_table_find(const rocjit_ctx *ctx, const rj_key *key)
{
	struct rj_entry *e;

	if (!ctx->nbuckets)
		return NULL;
	for (e = ctx->buckets[bucket_of(key, ctx->nbuckets)]; e; e = e->next)
		if (memcmp(e->key.b, key->b, sizeof key->b) == 0)
			return e;
	return NULL;
}

/* Doubles the bucket array (power of two) once entries outnumber buckets. */
static int grow(rocjit_ctx *ctx)
{
	size_t n = ctx->nbuckets ? ctx->nbuckets * 2 : 64;
	struct rj_entry **b = calloc(n, sizeof *b);

	if (!b)
		return -1;
	for (size_t i = 0; i < ctx->nbuckets; i++) {
		struct rj_entry *e = ctx->buckets[i], *next;
		for (; e; e = next) {
			size_t k = bucket_of(&e->key, n);
			next = e->next;
			e->next = b[k];
			b[k] = e;
		}
	}
	free(ctx->buckets);
	ctx->buckets = b;
	ctx->nbuckets = n;
	return 0;
}

struct rj_entry *rj_table_add(rocjit_ctx *ctx, const rj_key *key)
{
	struct rj_entry *e;
	size_t k;

	if (ctx->nentries >= ctx->nbuckets && grow(ctx) != 0)
		return NULL;
	e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->key = *key;
	e->state = RJ_PENDING;
	k = bucket_of(key, ctx->nbuckets);
	e->next = ctx->buckets[k];
	ctx->buckets[k] = e;
	ctx->nentries++;
	return e;
}

void rj_table_free(rocjit_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nbuckets; i++) {
		struct rj_entry *e = ctx->buckets[i], *next;
		for (; e; e = next) {
			struct rocjit_kernel *k = e->kernels, *kn;
			next = e->next;
			for (; k; k = kn) {
				kn = k->next;
				free(k);
			}
			if (e->module)
				e->platform->module_unload(e->module);
			free((void *)e->code.data);
			free(e->error);
			free(e);
		}
	}
	free(ctx->buckets);
	ctx->buckets = NULL;
	ctx->nbuckets = ctx->nentries = 0;
}
