/*
 * shared.h - a buffer shared by reference count (see shared.c): a code object read from
 * the remote tier is served by the request's slot and stored by the cache later, from
 * the same bytes, never copied.
 */
#ifndef ROCJIT_SHARED_H
#define ROCJIT_SHARED_H

#include <stddef.h>

/* size bytes (uninitialized) with one reference; NULL when out of memory. */
void *rj_shared_alloc(size_t size);
/* One more reference to p (a pointer rj_shared_alloc returned); p. */
void *rj_shared_ref(void *p);
/* One reference less; the last frees the buffer.  NULL: nothing. */
void rj_shared_unref(void *p);

#endif
