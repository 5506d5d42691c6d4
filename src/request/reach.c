/*
 * reach.c - which of a request's headers its key covers: those its source can reach
 * through its includes (issue 31: one source, one key).  The same file prewarmed alone,
 * prewarmed in its folder, exported, or embedded with a subset of the folder gets the same
 * key; a header it cannot reach is neither in its key nor given to its compile.
 *
 * The rule.  From the source's text and each header the options pre-include (-include),
 * every include directive and __has_include probe (compile/inputs.c's scanner: comments
 * skipped, line splices joined, every #if branch counted, taken or not) is resolved
 * against the headers' names every way a compiler could resolve it: the name as written,
 * the name normalized from the root ("./x.h", "a/../x.h"), and for a quoted include the
 * name relative to the including file's folder (the include rule of sources.c; hipRTC
 * also looks beside an in-memory header first).  Each header found is scanned in turn.
 * Reached as well, conservatively:
 *   - every header, when an include's name is made by a macro (#include NAME): any could
 *     be meant (the compile refuses it, compile/inputs.c; the key must not pretend);
 *   - every header, when the options name -I folders: a file there may include any of
 *     them, and its text is not read here;
 *   - a header named like one rocjit serves ("stdint.h", "cmath"): it replaces rocjit's
 *     wherever that is included, from rocjit's own headers too (compile/headers.c).
 * What is not reached is given to neither the key nor the compiler, so a compile never
 * reads a header its key does not cover: an include the scan missed would fail the
 * compile ("not found"), never serve stale code.  Under-including is loud; over-including
 * costs a needless compile.  Headers the compilers bring themselves are keyed as before
 * (the compiler's identity, the served set's digest).
 *
 * The result is sorted by name, so the key does not depend on the order the headers were
 * registered or given in (a folder or a subset of it, two rocjit_add_kernels calls); nor
 * does the compile for distinct names, and ties keep their order (hipRTC takes the last).
 *
 * Cost: one scan of the source and of the headers it reaches, never of the others.  For a
 * registered source once per context (sources.c), for a program per request, as its
 * digest is.  Reads texts only: no file, no store, no compiler.
 */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "compile/devlib.h"
#include "compile/inputs.h"
#include "key/options.h"
#include "request/reach.h"

/* A header's name and its place in the array given, to sort and search by name. */
struct named {
	const char *name;
	size_t index;
};

struct walk {
	const rocjit_header *headers;
	size_t n;
	struct named *sorted;   /* by name, then index */
	unsigned char *reached;
	size_t *queue, nq;      /* reached, not yet scanned */
	int all;                /* every header is reached */
	const char *file;       /* the name of the text being scanned */
};

static int by_name(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : (a->index > b->index) - (a->index < b->index);
}

static void mark(struct walk *w, size_t i)
{
	if (!w->reached[i]) {
		w->reached[i] = 1;
		w->queue[w->nq++] = i;
	}
}

/* Marks every header named name (len bytes, not NUL-terminated) reached. */
static void reach_name(struct walk *w, const char *name, size_t len)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) { /* the first sorted name not below name */
		size_t mid = lo + (hi - lo) / 2;
		if (strncmp(w->sorted[mid].name, name, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < w->n && strncmp(w->sorted[lo].name, name, len) == 0 &&
	       w->sorted[lo].name[len] == 0; lo++)
		mark(w, w->sorted[lo].index);
}

/* Every header an include of name (len bytes; quoted: "name") in the file w->file could
 * mean. */
static void resolve(struct walk *w, const char *name, size_t len, int quoted)
{
	const char *slash = strrchr(w->file, '/');
	char joined[4096];

	reach_name(w, name, len);
	if (rj_include_join(joined, sizeof joined, "", 0, name, len) == 0)
		reach_name(w, joined, strlen(joined));
	if (quoted && slash && rj_include_join(joined, sizeof joined, w->file,
					       (size_t)(slash - w->file), name, len) == 0)
		reach_name(w, joined, strlen(joined));
}

/* rj_includes_scan's callback: 1 stops the scan, every header being reached. */
static int on_include(void *user, const struct rj_include *inc)
{
	struct walk *w = user;

	if (!inc->name) {
		w->all = 1;
		return 1;
	}
	resolve(w, inc->name, inc->len, inc->quoted);
	return 0;
}

static size_t header_length(const rocjit_header *h)
{
	return h->length ? h->length : strlen(h->source);
}

/* The walk over name's text and every header it reaches; w->reached holds the result. */
static int walk(struct walk *w, const char *name, const char *text, size_t len,
		const struct rj_opts *opts)
{
	int rc;

	if (rj_reach_depends_on(opts)) {
		const char *cur = NULL, *v;

		for (const char *o = rj_opts_next(opts, NULL); o; o = rj_opts_next(opts, o))
			if (strncmp(o, "-I", 2) == 0) {
				w->all = 1;
				return 0;
			}
		w->file = ""; /* found like an include of a file at the root */
		while ((v = rj_opts_next_pre_include(opts, &cur)) != NULL)
			resolve(w, v, strlen(v), 1);
	}
	for (size_t i = 0; i < w->n; i++)
		if (rj_devlib_serves(w->headers[i].name))
			mark(w, i);
	w->file = name;
	rc = rj_includes_scan(text, len, on_include, w);
	while (rc == 0 && w->nq) {
		const rocjit_header *h = &w->headers[w->queue[--w->nq]];
		w->file = h->name;
		rc = rj_includes_scan(h->source, header_length(h), on_include, w);
	}
	return rc == 1 ? 0 : rc;
}

int rj_reach(struct rj_reached *out, const char *name, const char *text, size_t len,
	     const rocjit_header *headers, const rj_digest *digests, size_t n,
	     const struct rj_opts *opts)
{
	struct walk w = { headers, n, NULL, NULL, NULL, 0, 0, "" };
	size_t k = 0, size = 0;
	int rc = 0;

	memset(out, 0, sizeof *out);
	if (n == 0)
		return 0;
	w.sorted = malloc(n * sizeof *w.sorted);
	w.queue = malloc(n * sizeof *w.queue);
	w.reached = calloc(n, 1);
	if (w.sorted && w.queue && w.reached) {
		for (size_t i = 0; i < n; i++)
			w.sorted[i] = (struct named){ headers[i].name, i };
		qsort(w.sorted, n, sizeof *w.sorted, by_name);
		rc = walk(&w, name ? name : "", text, len, opts);
		size = n * (sizeof *out->headers + (digests ? sizeof *out->digests : 0));
		if (rc == 0)
			out->headers = malloc(size);
	}
	if (!out->headers) {
		free(w.sorted);
		free(w.queue);
		free(w.reached);
		RJ_CHECK(rc == 0, ROCJIT_ENOMEM, "out of memory finding the headers %s includes",
			 name ? name : "the source");
		return rc;
	}
	out->digests = digests ? (rj_digest *)(void *)(out->headers + n) : NULL;
	for (size_t s = 0; s < n; s++) {
		size_t i = w.sorted[s].index;
		if (!w.all && !w.reached[i])
			continue;
		out->headers[k] = headers[i];
		if (digests)
			out->digests[k] = digests[i];
		out->expands |= rj_key_expansions(headers[i].source, header_length(&headers[i]));
		k++;
	}
	out->n = k;
	free(w.sorted);
	free(w.queue);
	free(w.reached);
	return 0;
}

int rj_reach_depends_on(const struct rj_opts *opts)
{
	const char *cur = NULL;

	if (!opts)
		return 0;
	for (const char *o = rj_opts_next(opts, NULL); o; o = rj_opts_next(opts, o))
		if (strncmp(o, "-I", 2) == 0)
			return 1;
	return rj_opts_next_pre_include(opts, &cur) != NULL;
}

void rj_reached_free(struct rj_reached *r)
{
	free(r->headers);
	memset(r, 0, sizeof *r);
}
