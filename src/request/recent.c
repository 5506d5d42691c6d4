/*
 * recent.c - each thread's memo of the last kernels it got with rocjit_kernel_get, so
 * that asking again for the same program costs a comparison instead of a hash.
 *
 * A memo keeps a private copy of the program's source and options and answers only
 * when the caller's bytes still equal the copy (memcmp: cheaper than hashing them), for
 * the same context (by generation number, so a context closed and another opened at the
 * same address never matches).  Programs with in-memory headers are not memoized, nor
 * programs whose key depends on more than source and options (a language other than
 * HIP, which the name can decide).
 *
 * Owns each thread's memos and their copies (freed when the thread exits).  Never touches
 * a kernel of a context other than the one asking.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "request/context.h"

#define MEMOS 8 /* per thread */

struct memo {
	uint64_t ctx_gen;         /* 0: empty */
	const char *source;       /* the caller's pointer, as given */
	size_t length;
	char *copy;               /* the bytes it held, then the options, then the name */
	size_t num_options;
	size_t options_len;       /* bytes of options in copy, after the source */
	const char *kernel_name;  /* in copy */
	rocjit_kernel *kernel;
};

struct recent {
	struct memo memo[MEMOS];
	unsigned next;
};

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void free_recent(void *p)
{
	struct recent *r = p;

	for (int i = 0; r && i < MEMOS; i++)
		free(r->memo[i].copy);
	free(r);
}

static void make_key(void)
{
	pthread_key_create(&key, free_recent);
}

static int options_match(const struct memo *s, const char *const *opts, size_t n)
{
	const char *p = s->copy + s->length;

	if (n != s->num_options || (n && !opts))
		return 0;
	for (size_t i = 0; i < n; i++) {
		/* Both NUL-terminated: strcmp stops at the shorter. */
		if (!opts[i] || strcmp(p, opts[i]) != 0)
			return 0;
		p += strlen(p) + 1;
	}
	return 1;
}

/* Whether p's key is made of its source and options alone (and the context's target). */
static int memoizable(const rocjit_program *p)
{
	return !p->num_headers && !(p->version >= 2 && p->num_name_expressions) &&
	       rocjit_program_language(p->version >= 2 ? p->language : ROCJIT_LANG_AUTO,
				       p->name) == ROCJIT_LANG_HIP;
}

rocjit_kernel *rj_recent_find(const rocjit_ctx *ctx, const rocjit_program *p, size_t length,
			      const char *kernel_name)
{
	struct recent *r;

	if (!memoizable(p))
		return NULL;
	pthread_once(&key_once, make_key);
	r = pthread_getspecific(key);
	if (!r)
		return NULL;
	for (int i = 0; i < MEMOS; i++) {
		const struct memo *s = &r->memo[i];
		if (s->ctx_gen == ctx->gen && s->source == p->source && s->length == length &&
		    strcmp(s->kernel_name, kernel_name) == 0 &&
		    options_match(s, p->options, p->num_options) &&
		    memcmp(s->copy, p->source, length) == 0)
			return s->kernel;
	}
	return NULL;
}

void rj_recent_add(const rocjit_ctx *ctx, const rocjit_program *p, size_t length,
		   const char *kernel_name, rocjit_kernel *kernel)
{
	struct recent *r;
	struct memo *s;
	size_t olen = 0, nlen = strlen(kernel_name) + 1;
	char *copy, *q;

	if (!memoizable(p))
		return;
	pthread_once(&key_once, make_key);
	r = pthread_getspecific(key);
	if (!r) {
		r = calloc(1, sizeof *r);
		if (!r || pthread_setspecific(key, r) != 0) {
			free(r);
			return;
		}
	}
	for (size_t i = 0; i < p->num_options; i++)
		olen += strlen(p->options[i]) + 1;
	copy = malloc(length + olen + nlen);
	if (!copy)
		return; /* only a memo */
	memcpy(copy, p->source, length);
	q = copy + length;
	for (size_t i = 0; i < p->num_options; i++) {
		size_t len = strlen(p->options[i]) + 1;
		memcpy(q, p->options[i], len);
		q += len;
	}
	memcpy(q, kernel_name, nlen);
	s = &r->memo[r->next++ % MEMOS];
	free(s->copy);
	s->ctx_gen = ctx->gen;
	s->source = p->source;
	s->length = length;
	s->copy = copy;
	s->num_options = p->num_options;
	s->options_len = olen;
	s->kernel_name = q;
	s->kernel = kernel;
}
