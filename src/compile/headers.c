/*
 * headers.c - turning a compile request's in-memory headers into the two parallel
 * arrays both vendor compilers take (hiprtcCreateProgram, nvrtcCreateProgram).
 *
 * Owns the NUL-terminated copies: a caller's header may come with a length and no NUL.
 */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "compile/platform.h"

int rj_header_arrays_make(struct rj_header_arrays *a, const struct rj_compile_req *req,
			  size_t first)
{
	a->n = first + req->num_headers;
	a->first = first;
	a->src = calloc(a->n ? a->n : 1, sizeof *a->src);
	a->names = calloc(a->n ? a->n : 1, sizeof *a->names);
	if (!a->src || !a->names)
		goto oom;
	for (size_t i = 0; i < req->num_headers; i++) {
		const rocjit_header *h = &req->headers[i];
		size_t len = h->length ? h->length : strlen(h->source);
		char *copy = malloc(len + 1);

		if (!copy)
			goto oom;
		memcpy(copy, h->source, len);
		copy[len] = 0;
		a->src[first + i] = copy;
		a->names[first + i] = h->name;
	}
	return 0;
oom:
	rj_header_arrays_free(a);
	RJ_FAIL(ROCJIT_ENOMEM, "out of memory compiling %s", req->name);
}

void rj_header_arrays_free(struct rj_header_arrays *a)
{
	for (size_t i = a->first; a->src && i < a->n; i++)
		free((void *)a->src[i]);
	free(a->src);
	free(a->names);
	a->src = a->names = NULL;
	a->n = 0;
}
