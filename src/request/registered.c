/*
 * registered.c - requests for registered sources with name expressions
 * (rocjit_kernel_get_registered_v2, rocjit_compile_registered_v2): a source made of
 * kernel templates, of which each request instantiates only what it names.
 *
 * Owns the step from such a request to the request path: the checks of its options, the
 * registered text and headers as sources.c resolved them (digests computed once per
 * context, never per request), the per-thread memo of the kernels it returned (recent.c)
 * and, for code objects, the lookup itself (lookup.c).  A kernel on the device comes from
 * rocjit_kernel_get, which owns loading modules: it is given the registered text as a
 * program, so its key is the one rocjit_compile_registered_v2 stores, by construction.
 * Never touches a store, a compiler or a module itself.
 */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "key/options.h"
#include "key/target.h"
#include "request/search_dirs.h"
#include "request/context.h"

/* opts as the library reads it: the defaults for NULL, checked otherwise. */
static int take_options(struct rj_registered_ask *a, const rocjit_registered_options *opts)
{
	a->options = NULL;
	a->num_options = 0;
	a->exprs = NULL;
	a->num_exprs = 0;
	if (!opts)
		return 0;
	RJ_CHECK(opts->version < 1 || opts->version > ROCJIT_REGISTERED_OPTIONS_VERSION,
		 ROCJIT_EINVAL, "rocjit_registered_options version %u is not one this library "
		 "knows (1..%d): initialize it with ROCJIT_REGISTERED_OPTIONS_INIT", opts->version,
		 ROCJIT_REGISTERED_OPTIONS_VERSION);
	RJ_CHECK((opts->num_options && !opts->options) ||
		 (opts->num_name_expressions && !opts->name_expressions), ROCJIT_EINVAL,
		 "rocjit_registered_options: a count is set but its array is NULL");
	for (size_t i = 0; i < opts->num_options; i++)
		RJ_CHECK(!opts->options[i], ROCJIT_EINVAL, "option %zu is NULL", i);
	/* The expressions are stored one a line, each with a tab before its lowered name. */
	for (size_t i = 0; i < opts->num_name_expressions; i++) {
		const unsigned char *e = (const unsigned char *)opts->name_expressions[i];
		size_t bad = 0;
		RJ_CHECK(!e || !*e, ROCJIT_EINVAL, "name expression %zu is NULL or empty", i);
		while (e[bad] && e[bad] >= 0x20 && e[bad] != 0x7f)
			bad++;
		RJ_CHECK(e[bad] != 0, ROCJIT_EINVAL, "name expression %zu (\"%s\") holds a "
			 "control character: write it on one line, without tabs", i,
			 opts->name_expressions[i]);
	}
	a->options = opts->options;
	a->num_options = opts->num_options;
	a->exprs = opts->name_expressions;
	a->num_exprs = opts->num_name_expressions;
	return 0;
}

/*
 * The registered source as a program: what rocjit_kernel_get and rocjit_compile take, its
 * headers those it reaches (sources.c), which r holds: release it with release_ask.
 */
static int as_program(rocjit_program *p, struct rj_request *r, rocjit_ctx *ctx,
		      const struct rj_registered_ask *a)
{
	int rc;

	RJ_FORWARD(rj_opts_normalize(&r->opts, a->options, a->num_options));
	rc = rj_source_take(r, ctx, a->source_name);
	if (rc != 0) {
		rj_opts_release(&r->opts);
		return rc;
	}
	p->version = ROCJIT_PROGRAM_VERSION;
	p->source = r->source;
	p->length = r->length;
	p->name = r->name;
	p->headers = r->headers;
	p->num_headers = r->num_headers;
	p->options = a->options;
	p->num_options = a->num_options;
	p->log = NULL;
	p->log_size = 0;
	p->header_size = sizeof *p->headers; /* packed (sources.c) */
	p->language = r->language;
	p->name_expressions = a->exprs;
	p->num_name_expressions = a->num_exprs;
	return 0;
}

static void release_ask(struct rj_request *r)
{
	rj_opts_release(&r->opts);
	free(r->owned_headers);
	r->owned_headers = NULL;
}

ROCJIT_API int rocjit_kernel_get_registered_v2(rocjit_kernel **out, rocjit_ctx *ctx,
					       const char *source_name, const char *kernel_name,
					       const rocjit_registered_options *opts)
{
	struct rj_registered_ask a;
	rocjit_program p;
	rocjit_kernel *k;

	rj_last_log_clear();
	RJ_CHECK(!out || !ctx || !source_name || !kernel_name || !*kernel_name, ROCJIT_EINVAL,
		 "rocjit_kernel_get_registered_v2: out, ctx, source_name and kernel_name must "
		 "be given");
	*out = NULL;
	RJ_FORWARD(take_options(&a, opts));
	a.source_name = source_name;
	a.kernel_name = kernel_name;
	k = rj_recent_registered_find(ctx, &a);
	if (k) {
		atomic_fetch_add_explicit(&ctx->memory_hits, 1, memory_order_relaxed);
		*out = k;
		rj_error_clear();
		return 0;
	}
	if (a.num_exprs == 0) {
		/* No expression: the registered request itself, same key, no hashing. */
		RJ_FORWARD(rocjit_kernel_get_registered(&k, ctx, source_name, kernel_name,
							a.options, a.num_options));
	} else {
		struct rj_request r;
		int rc;

		RJ_FORWARD(as_program(&p, &r, ctx, &a));
		rc = rocjit_kernel_get(&k, ctx, &p, kernel_name);
		release_ask(&r);
		RJ_FORWARD(rc);
	}
	rj_recent_registered_add(ctx, &a, k);
	*out = k;
	return 0;
}

/*
 * The code object for an explicit target (or the context's override): straight to the
 * lookup with the digests sources.c computed once, so a prewarm of many small entries,
 * or an application's first use of each, hashes no source text.
 */
static int compile_for(const rocjit_code **out, rocjit_ctx *ctx, const char *target,
		       const struct rj_registered_ask *a)
{
	struct rj_request r;
	struct rj_lookup lk;
	struct rj_slot *slot;
	int rc;

	memset(&r, 0, sizeof r);
	RJ_FORWARD(rj_opts_normalize(&r.opts, a->options, a->num_options));
	rc = rj_source_take(&r, ctx, a->source_name);
	if (rc == 0) {
		r.name_expressions = a->exprs;
		r.num_name_expressions = a->num_exprs;
		r.has_search_dirs = rj_search_dirs_digest(&r.opts, &r.search_dirs);
		rc = rj_lookup_init(&lk, ctx, &r, target);
	}
	if (rc == 0)
		rc = rj_slot_get(&slot, ctx, &r, &lk);
	release_ask(&r);
	RJ_FORWARD(rc);
	*out = &slot->code;
	rj_error_clear();
	return 0;
}

ROCJIT_API int rocjit_compile_registered_v2(const rocjit_code **out, rocjit_ctx *ctx,
					    const char *target, const char *source_name,
					    const rocjit_registered_options *opts)
{
	char norm[RJ_TARGET_MAX];
	struct rj_registered_ask a;
	rocjit_program p;

	rj_last_log_clear();
	RJ_CHECK(!out || !ctx || !source_name, ROCJIT_EINVAL,
		 "rocjit_compile_registered_v2: out, ctx and source_name must be given");
	*out = NULL;
	RJ_FORWARD(take_options(&a, opts));
	a.source_name = source_name;
	a.kernel_name = "";
	if (target) {
		RJ_FORWARD(rj_target_normalize(norm, target));
		return compile_for(out, ctx, norm, &a);
	}
	if (ctx->target[0])
		return compile_for(out, ctx, ctx->target, &a);
	/* The device's own target: rocjit_compile finds it. */
	{
		struct rj_request r;
		int rc;

		RJ_FORWARD(as_program(&p, &r, ctx, &a));
		rc = rocjit_compile(out, ctx, NULL, &p);
		release_ask(&r);
		return rc;
	}
}
