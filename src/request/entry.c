/*
 * entry.c - what a request's entry is: the inputs of its key and its portable key, the
 * fields the stores keep about it, and the lowered names of its name expressions read
 * back from a stored entry.  Pure over the request and the slot: no store, no tier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compile/devlib.h"
#include "request/lookup_internal.h"
#include "base/error.h"

/* The request's header names, space-separated (the stores' headers field). */
char *rj_request_header_names(const struct rj_request *r)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < r->num_headers; i++)
		len += strlen(r->headers[i].name) + 1;
	s = calloc(1, len);
	for (size_t i = 0; s && i < r->num_headers; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, r->headers[i].name);
	}
	return s;
}

/*
 * What the compilers would expand from outside r's texts (issue 27: every input is in the
 * key): the source's name where the texts use __FILE__ (both platforms compile the
 * source under its name: NVRTC's program name, a #line on AMD), the day and the time as
 * the compiler would show them (local time) where they use __DATE__ or __TIME__.
 * The texts are searched once (rj_key_expansions): per request for a program, per context
 * for registered sources and headers.
 */
static void request_expansions(struct rj_key_input *in, const struct rj_request *r)
{
	unsigned flags = r->expands; /* rj_key_expansions, found when the request was made */
	time_t now;
	struct tm tm;

	in->file_name = in->date = in->time = NULL;
	if (flags & RJ_EXPANDS_FILE)
		in->file_name = r->name;
	if (!(flags & (RJ_EXPANDS_DATE | RJ_EXPANDS_TIME)))
		return;
	now = time(NULL);
	localtime_r(&now, &tm);
	if (flags & RJ_EXPANDS_DATE) {
		strftime(in->when[0], sizeof in->when[0], "%b %e %Y", &tm);
		in->date = in->when[0];
	}
	if (flags & RJ_EXPANDS_TIME) {
		strftime(in->when[1], sizeof in->when[1], "%H:%M:%S", &tm);
		in->time = in->when[1];
	}
}

/* What r's key for target is made of; compiler NULL for the portable key. */
void rj_request_key_input(struct rj_key_input *in, const struct rj_request *r,
			  const struct rj_platform *platform, const char *target,
			  const char *compiler)
{
	in->platform = platform->id;
	in->target = target;
	in->compiler = compiler;
	in->served = rj_devlib_served(platform->id)->digest;
	in->options = &r->opts;
	in->headers = r->headers;
	in->num_headers = r->num_headers;
	in->header_digests = r->header_digests;
	in->source = r->digest;
	in->language = r->language;
	in->name_expressions = r->name_expressions;
	in->num_name_expressions = r->num_name_expressions;
	/* What the -I folders hold, read when the request was made (once for its key and its
	   portable key): the compiler reads them at any miss. */
	in->has_search_dirs = r->has_search_dirs;
	in->search_dirs = r->search_dirs;
	request_expansions(in, r);
}

const char *rj_slot_symbol(const struct rj_slot *s, const char *kernel_name)
{
	const char *lowered = rj_names_lowered(s->names, kernel_name);
	return lowered ? lowered : kernel_name;
}

/*
 * s's name expressions from a stored kernels column (a disk or bundle hit).  The key holds
 * the expressions, so an entry found by it carries them all; one that does not (written
 * by another tool) is a miss: 0 then, 1 when s->names is set.
 */
int rj_slot_take_names(struct rj_slot *s, const struct rj_request *r, char *column)
{
	int ok = column != NULL;

	if (ok)
		s->names = rj_names_pairs(rj_kernels_names(column));
	for (size_t i = 0; ok && i < r->num_name_expressions; i++)
		ok = rj_names_lowered(s->names, r->name_expressions[i]) != NULL;
	free(column);
	if (!ok) {
		free(s->names);
		s->names = NULL;
		RJ_LOG(RJ_LOG_WARN, "a stored entry of %s for %s lacks the lowered names of its "
		       "name expressions: compiling it again", r->name, s->target);
	}
	return ok;
}

/* r's key for target less the compiler identity: what finds it in a bundle without a
 * compiler. */
rj_key rj_request_portable_key(const struct rj_request *r, const struct rj_platform *platform,
			       const char *target)
{
	struct rj_key_input in;

	rj_request_key_input(&in, r, platform, target, NULL);
	return rj_key_compute_portable(&in);
}

/* r's key for target, made by compiler: what the on-disk cache and the remote tier find
 * its entry by. */
rj_key rj_request_key(const struct rj_request *r, const struct rj_platform *platform,
		      const char *target, const char *compiler)
{
	struct rj_key_input in;

	rj_request_key_input(&in, r, platform, target, compiler);
	return rj_key_compute(&in);
}

/* s's code came from the entry of target built_for under key: when that is another
 * target's (a less specific one, rj_target_compatible), the code says so, its key and
 * target those of the entry it is (what rocjit_bundle_export, push and show find). */
void rj_slot_served_as(struct rj_slot *s, const char *built_for, const rj_key *key)
{
	if (built_for == s->target || strcmp(built_for, s->target) == 0)
		return;
	memcpy(s->built_for, built_for, strlen(built_for) + 1);
	rj_key_hex(key, s->code.key);
}

/* The fields of s's entry as the stores keep them (kernels: its kernels column).  Its
 * target is the one its code was built for (s->built_for: s->target, or a less specific
 * id an entry served from another tier was built for, rj_target_compatible). */
void rj_entry_meta(struct rj_cache_meta *m, const struct rj_request *r,
		   const struct rj_slot *s, const char *compiler, const char *options,
		   const char *headers, const char *kernels)
{
	m->platform = s->platform->name;
	m->target = s->built_for;
	m->compiler = compiler;
	m->options = options;
	m->source_name = r->name;
	m->headers = headers;
	m->kernels = kernels;
	m->compile_ms = s->code.compile_ms;
	m->pkey = rj_request_portable_key(r, s->platform, s->built_for);
	m->signer = NULL;
	m->sig = NULL;
	m->origin = RJ_ORIGIN_UNKNOWN; /* the caller says where it came from */
	m->origin_signer = NULL;
}
