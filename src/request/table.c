/*
 * table.c - the in-process tier: a hash table from cache key to slot (struct rj_slot).
 *
 * Owns the buckets and the slots' memory.  The key is already a uniform 128-bit hash,
 * so its first 8 bytes index the buckets directly.  Slots are never moved or freed
 * before close, so a pointer found under the read lock stays valid after it is dropped.
 * Locking is the caller's (ctx->rw), see context.h; filling a slot is lookup.c's.  Never
 * touches a store or a compiler.
 */
#include <stdlib.h>
#include <string.h>

#include "request/context.h"
#include "base/shared.h"

static size_t bucket_of(const rj_key *key, size_t nbuckets)
{
	uint64_t h;

	memcpy(&h, key->b, sizeof h);
	return (size_t)(h & (nbuckets - 1));
}

struct rj_slot *rj_table_find(const rocjit_ctx *ctx, const rj_key *key)
{
	struct rj_slot *s;

	if (!ctx->nbuckets)
		return NULL;
	for (s = ctx->buckets[bucket_of(key, ctx->nbuckets)]; s; s = s->next)
		if (memcmp(s->key.b, key->b, sizeof key->b) == 0)
			return s;
	return NULL;
}

/* Doubles the bucket array (power of two) once slots outnumber buckets. */
static int grow(rocjit_ctx *ctx)
{
	size_t n = ctx->nbuckets ? ctx->nbuckets * 2 : 64;
	struct rj_slot **b = calloc(n, sizeof *b);

	if (!b)
		return -1;
	for (size_t i = 0; i < ctx->nbuckets; i++) {
		struct rj_slot *s = ctx->buckets[i], *next;
		for (; s; s = next) {
			size_t k = bucket_of(&s->key, n);
			next = s->next;
			s->next = b[k];
			b[k] = s;
		}
	}
	free(ctx->buckets);
	ctx->buckets = b;
	ctx->nbuckets = n;
	return 0;
}

struct rj_slot *rj_table_add(rocjit_ctx *ctx, const rj_key *key)
{
	struct rj_slot *s;
	size_t k;

	if (ctx->nslots >= ctx->nbuckets && grow(ctx) != 0)
		return NULL;
	s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->key = *key;
	s->state = RJ_PENDING;
	k = bucket_of(key, ctx->nbuckets);
	s->next = ctx->buckets[k];
	ctx->buckets[k] = s;
	ctx->nslots++;
	return s;
}

void rj_table_free(rocjit_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nbuckets; i++) {
		struct rj_slot *s = ctx->buckets[i], *next;
		for (; s; s = next) {
			struct rocjit_kernel *k = s->kernels, *kn;
			next = s->next;
			for (; k; k = kn) {
				kn = k->next;
				free(k);
			}
			if (s->module)
				s->platform->module_unload(s->module);
			free(s->code_mem);
			rj_shared_unref(s->code_shared);
			free(s->error);
			free(s->names);
			free(s);
		}
	}
	free(ctx->buckets);
	ctx->buckets = NULL;
	ctx->nbuckets = ctx->nslots = 0;
}
