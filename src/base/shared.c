/*
 * shared.c - a buffer shared by reference count: a header before the bytes handed out,
 * aligned as malloc aligns.
 */
#include "base/shared.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

struct header {
	alignas(max_align_t) atomic_size_t refs;
};

void *rj_shared_alloc(size_t size)
{
	struct header *h;

	if (size > (size_t)-1 - sizeof *h)
		return NULL;
	h = malloc(sizeof *h + size);
	if (!h)
		return NULL;
	atomic_init(&h->refs, 1);
	return h + 1;
}

void *rj_shared_ref(void *p)
{
	atomic_fetch_add_explicit(&((struct header *)p - 1)->refs, 1, memory_order_relaxed);
	return p;
}

void rj_shared_unref(void *p)
{
	struct header *h;

	if (!p)
		return;
	h = (struct header *)p - 1;
	if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) == 1)
		free(h);
}
