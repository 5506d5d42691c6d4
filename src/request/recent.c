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

/* ---- Registered sources with name expressions ------------------------------------------- */

/*
 * The memo of rocjit_kernel_get_registered_v2 (registered.c).  A registered source's text
 * is fixed for the life of a context (embedded, or read once from $ROCJIT_KERNEL_PATH), so
 * a request is the same one when its strings are: the source name, the kernel name, the
 * options and the name expressions, compared without hashing anything.  An op set
 * fetches its kernel by name at every launch: this is that launch's whole lookup.
 * Direct-mapped by a hash of the two names, not a ring like the program memos: a model's
 * step cycles through dozens of kernels, which a ring of a few entries would keep
 * evicting.  Two requests on one entry take turns; each is then a table lookup.
 */
#define REG_MEMOS 256 /* per thread, a power of two */

struct reg_memo {
	uint64_t ctx_gen;         /* 0: empty */
	char *strings;            /* source name, kernel name, options, expressions: each
	                             NUL-terminated, one after the other */
	size_t size;              /* bytes of strings */
	size_t num_options, num_exprs;
	rocjit_kernel *kernel;
};

struct reg_recent {
	struct reg_memo memo[REG_MEMOS];
};

/* The entry of a request: FNV-1a over the kernel name, then the source name. */
static unsigned reg_slot(const struct rj_registered_ask *a)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *c = (const unsigned char *)a->kernel_name; *c; c++)
		h = (h ^ *c) * 16777619u;
	for (const unsigned char *c = (const unsigned char *)a->source_name; *c; c++)
		h = (h ^ *c) * 16777619u;
	return (h ^ (h >> 16)) & (REG_MEMOS - 1);
}

static pthread_key_t reg_key;
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;

static void free_reg_recent(void *p)
{
	struct reg_recent *r = p;

	for (int i = 0; r && i < REG_MEMOS; i++)
		free(r->memo[i].strings);
	free(r);
}

static void make_reg_key(void)
{
	pthread_key_create(&reg_key, free_reg_recent);
}

/* Whether the n strings v (none NULL) come next at *p; advances *p past them. */
static int strings_at(const char **p, const char *end, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(v[i]) + 1;
		if ((size_t)(end - *p) < len || memcmp(*p, v[i], len) != 0)
			return 0;
		*p += len;
	}
	return 1;
}

/* Whether m holds this request (its strings checked non-NULL by the caller). */
static int reg_match(const struct reg_memo *m, const struct rj_registered_ask *a)
{
	const char *p = m->strings, *end = m->strings + m->size;
	const char *names[2] = { a->source_name, a->kernel_name };

	return m->num_options == a->num_options && m->num_exprs == a->num_exprs &&
	       strings_at(&p, end, names, 2) && strings_at(&p, end, a->options, a->num_options) &&
	       strings_at(&p, end, a->exprs, a->num_exprs) && p == end;
}

rocjit_kernel *rj_recent_registered_find(const rocjit_ctx *ctx,
					 const struct rj_registered_ask *a)
{
	const struct reg_memo *m;
	struct reg_recent *r;

	pthread_once(&reg_once, make_reg_key);
	r = pthread_getspecific(reg_key);
	if (!r)
		return NULL;
	m = &r->memo[reg_slot(a)];
	return m->ctx_gen == ctx->gen && reg_match(m, a) ? m->kernel : NULL;
}

/* Appends the n strings v at *p. */
static void put_strings(char **p, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(v[i]) + 1;
		memcpy(*p, v[i], len);
		*p += len;
	}
}

void rj_recent_registered_add(const rocjit_ctx *ctx, const struct rj_registered_ask *a,
			      rocjit_kernel *kernel)
{
	const char *names[2] = { a->source_name, a->kernel_name };
	struct reg_recent *r;
	struct reg_memo *m;
	size_t size = strlen(names[0]) + strlen(names[1]) + 2;
	char *strings, *p;

	pthread_once(&reg_once, make_reg_key);
	r = pthread_getspecific(reg_key);
	if (!r) {
		r = calloc(1, sizeof *r);
		if (!r || pthread_setspecific(reg_key, r) != 0) {
			free(r);
			return;
		}
	}
	for (size_t i = 0; i < a->num_options; i++)
		size += strlen(a->options[i]) + 1;
	for (size_t i = 0; i < a->num_exprs; i++)
		size += strlen(a->exprs[i]) + 1;
	strings = malloc(size);
	if (!strings)
		return; /* only a memo */
	p = strings;
	put_strings(&p, names, 2);
	put_strings(&p, a->options, a->num_options);
	put_strings(&p, a->exprs, a->num_exprs);
	m = &r->memo[reg_slot(a)];
	free(m->strings);
	m->ctx_gen = ctx->gen;
	m->strings = strings;
	m->size = size;
	m->num_options = a->num_options;
	m->num_exprs = a->num_exprs;
	m->kernel = kernel;
}
