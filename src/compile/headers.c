/*
 * headers.c - turning a compile request's in-memory headers, and the headers rocjit
 * serves (devlib.c), into the two parallel arrays both vendor compilers take
 * (hiprtcCreateProgram, nvrtcCreateProgram).
 *
 * Owns the rule that the caller's headers win over rocjit's, and the NUL-terminated
 * copies of the caller's, all in one allocation: a caller's header may come with a length
 * and no NUL.  rocjit's own texts are static and NUL-terminated: they are not copied.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "compile/devlib.h"
#include "compile/platform.h"

/* What an empty header is passed as: hipRTC 5.2 refuses a header of no text
   (hiprtcCreateProgram: HIPRTC_ERROR_INVALID_INPUT), and a line break means the same. */
#define EMPTY_TEXT "\n"

static size_t header_length(const rocjit_header *h)
{
	return h->length ? h->length : strlen(h->source);
}

/*
 * Whether the caller supplies name itself, so that rocjit's header of that name must not
 * be served.  Both compilers search in-memory headers before every -I folder (measured:
 * hipRTC 5.2 and NVRTC 13, for <x.h> and "x.h"), and two in-memory headers of one name
 * do not mix (hipRTC takes the last, NVRTC fails), so rocjit's would shadow the caller's:
 * it is left out when a caller's in-memory header has the name, or when a -I folder of
 * the options holds a file of that name (where the compiler would find it next).
 */
static int caller_has(const struct rj_compile_req *req, const char *name)
{
	char path[4096];

	for (size_t i = 0; i < req->num_headers; i++)
		if (strcmp(req->headers[i].name, name) == 0)
			return 1;
	for (const char *o = rj_opts_next(req->options, NULL); o; o = rj_opts_next(req->options, o)) {
		int n;

		if (strncmp(o, "-I", 2) != 0 || !o[2])
			continue;
		n = snprintf(path, sizeof path, "%s/%s", o + 2, name);
		if (n > 0 && (size_t)n < sizeof path && access(path, F_OK) == 0)
			return 1;
	}
	return 0;
}

/* The include targets named in text ("x" of `#include <x>`, `#include "x"`,
 * `__has_include(<x>)`), appended to *t (grown as needed): 0, or -1 out of memory.  Every
 * "include" followed by a target counts, in a comment or not: naming one too many only
 * serves one more stand-in. */
struct targets {
	const char **s;
	size_t *len, n, cap;
};

static int collect_targets(struct targets *t, const char *text, size_t size)
{
	const char *end = text + size, *p = text;

	while ((p = memmem(p, (size_t)(end - p), "include", 7)) != NULL) {
		const char *q = p + 7, *close;

		p = q;
		if (end - q >= 5 && memcmp(q, "_next", 5) == 0)
			q += 5;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '('))
			q++;
		if (q == end || (*q != '<' && *q != '"'))
			continue;
		close = memchr(q + 1, *q == '<' ? '>' : '"', (size_t)(end - q - 1));
		if (!close || memchr(q + 1, '\n', (size_t)(close - q - 1)))
			continue;
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 32;
			const char **s = realloc(t->s, cap * sizeof *s);
			size_t *len = s ? realloc(t->len, cap * sizeof *len) : NULL;
			if (s)
				t->s = s;
			if (!len)
				return -1;
			t->len = len;
			t->cap = cap;
		}
		t->s[t->n] = q + 1;
		t->len[t->n++] = (size_t)(close - q - 1);
	}
	return 0;
}

static int targets_have(const struct targets *t, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < t->n; i++)
		if (t->len[i] == n && memcmp(t->s[i], name, n) == 0)
			return 1;
	return 0;
}

int rj_header_arrays_make(struct rj_header_arrays *a, const struct rj_compile_req *req,
			  const struct rj_served *served)
{
	struct targets named = { NULL, NULL, 0, 0 };
	size_t total = 0, n_served = served ? served->n : 0, n_named = served ? served->n_named : 0;
	char *p;

	a->n = req->num_headers;
	a->text = NULL;
	a->src = calloc(a->n + n_served + 1, sizeof *a->src);
	a->names = calloc(a->n + n_served + 1, sizeof *a->names);
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
		a->src[i] = len ? p : EMPTY_TEXT;
		a->names[i] = h->name;
		p += len + 1;
	}
	/* The stand-ins served by name only (devlib.h): those the texts include; all of them
	   when an -I folder's files could include one. */
	for (const char *o = rj_opts_next(req->options, NULL); o && served && served->n_named;
	     o = rj_opts_next(req->options, o))
		if (strncmp(o, "-I", 2) == 0)
			n_named = 0;
	if (served && n_named) {
		if (collect_targets(&named, req->source, strlen(req->source)) != 0)
			goto oom;
		for (size_t i = 0; i < req->num_headers; i++)
			if (collect_targets(&named, req->headers[i].source,
					    header_length(&req->headers[i])) != 0)
				goto oom;
	}
	for (size_t i = 0; i < n_served; i++) {
		const rocjit_source_file *f = served->files[i];

		if (i >= n_served - n_named && !targets_have(&named, f->name))
			continue;
		if (caller_has(req, f->name))
			continue;
		a->src[a->n] = f->length ? f->text : EMPTY_TEXT;
		a->names[a->n++] = f->name;
	}
	free(named.s);
	free(named.len);
	return 0;
oom:
	free(named.s);
	free(named.len);
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
