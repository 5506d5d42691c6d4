/*
 * headers.c - turning a compile request's in-memory headers into the two parallel
 * arrays both vendor compilers take (hiprtcCreateProgram, nvrtcCreateProgram).
 *
 * Owns the NUL-terminated copies, all in one allocation: a caller's header may come
 * with a length and no NUL.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "compile/platform.h"

static size_t header_length(const rocjit_header *h)
{
	return h->length ? h->length : strlen(h->source);
}

int rj_header_arrays_make(struct rj_header_arrays *a, const struct rj_compile_req *req,
			  size_t first)
{
	size_t total = 0;
	char *p;

	a->n = first + req->num_headers;
	a->first = first;
	a->text = NULL;
	a->src = calloc(a->n ? a->n : 1, sizeof *a->src);
	a->names = calloc(a->n ? a->n : 1, sizeof *a->names);
	if (!a->src || !a->names)
		goto oom;
	for (size_t i = 0; i < req->num_headers; i++) {
		size_t len = header_length(&req->headers[i]);
		if (len >= SIZE_MAX - total)
			goto oom;
		total += len + 1;
	}
	if (!(a->text = malloc(total ? total : 1)))
		goto oom;
	p = a->text;
	for (size_t i = 0; i < req->num_headers; i++) {
		const rocjit_header *h = &req->headers[i];
		size_t len = header_length(h);

		memcpy(p, h->source, len);
		p[len] = 0;
		a->src[first + i] = p;
		a->names[first + i] = h->name;
		p += len + 1;
	}
	return 0;
oom:
	rj_header_arrays_free(a);
	RJ_FAIL(ROCJIT_ENOMEM, "out of memory compiling %s", req->name);
}

void rj_header_arrays_free(struct rj_header_arrays *a)
{
	free(a->text);
	free(a->src);
	free(a->names);
	a->src = a->names = NULL;
	a->text = NULL;
	a->n = 0;
}
