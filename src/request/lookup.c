/*
 * lookup.c - filling a slot of the in-process table: from the on-disk cache, else a
 * bundle, else the compiler.
 *
 * Owns the once-per-key protocol: the first thread to miss a key becomes the slot's
 * owner and fills it without holding any table lock; threads asking for the same key
 * meanwhile wait for its result instead of compiling it again.  Owns the order of the
 * tiers and the key of a request.  Talks to the vendor only through the platform
 * interface, and to the stores only through their handles (cache.h, bundle_lookup.h,
 * keylock.h): never SQLite, never a store's layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codeobj/codeobj.h"
#include "compile/compiler_id.h"
#include "compile/devlib.h"
#include "compile/vendor_lib.h"
#include "remote/remote.h"
#include "store/keylock.h"
#include "worker/pool.h"
#include "request/context.h"
#include "base/error.h"

#define MSG_MAX 1024

_Thread_local int rj_fleet_nowait;

/* The first line of the log that says "error", for the one-line error message. */
static void first_error(char *out, size_t size, const char *log)
{
	const char *p = log ? strstr(log, "error") : NULL;
	const char *start = p, *end;

	out[0] = 0;
	if (!p)
		return;
	while (start > log && start[-1] != '\n')
		start--;
	end = strchr(p, '\n');
	snprintf(out, size, ": %.*s", (int)(end ? end - start : (ptrdiff_t)strlen(start)),
		 start);
}

static char *join_header_names(const struct rj_request *r)
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

/* What r's key for target is made of; compiler NULL for the portable key. */
static void key_input(struct rj_key_input *in, const struct rj_request *r,
		      const struct rj_platform *platform, const char *target, const char *compiler)
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
static int take_names(struct rj_slot *s, const struct rj_request *r, char *column)
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
static rj_key portable_key(const struct rj_request *r, const struct rj_platform *platform,
			   const char *target)
{
	struct rj_key_input in;

	key_input(&in, r, platform, target, NULL);
	return rj_key_compute_portable(&in);
}

/*
 * Counts what became of a compiled code object, so that callers can say what was stored
 * (rocjit_stats.stores, .store_failures) instead of assuming it.  A failure keeps its
 * reason, rocjit_last_error(), for rocjit_stats.store_error.
 */
void rj_note_store(rocjit_ctx *ctx, int ok)
{
	if (ok) {
		atomic_fetch_add(&ctx->stores, 1);
		return;
	}
	atomic_fetch_add(&ctx->store_failures, 1);
	pthread_mutex_lock(&ctx->store_mu);
	snprintf(ctx->store_error, sizeof ctx->store_error, "%s", rocjit_last_error());
	pthread_mutex_unlock(&ctx->store_mu);
}

/* The fields of s's entry as the stores keep them (kernels: its kernels column). */
static void entry_meta(struct rj_cache_meta *m, const struct rj_request *r,
		       const struct rj_slot *s, const char *compiler, const char *options,
		       const char *headers, const char *kernels)
{
	m->platform = s->platform->name;
	m->target = s->target;
	m->compiler = compiler;
	m->options = options;
	m->source_name = r->name;
	m->headers = headers;
	m->kernels = kernels;
	m->compile_ms = s->code.compile_ms;
	m->pkey = portable_key(r, s->platform, s->target);
	m->signer = NULL;
	m->sig = NULL;
}

/* Puts s's entry to the remote tier, for the fleet's other nodes: 1 when it is there.  A
 * failure costs them a compile: one warning, counted (rocjit_stats.remote_put_errors). */
static int remote_put(rocjit_ctx *ctx, const struct rj_slot *s, const struct rj_cache_meta *m)
{
	struct rj_record rec;

	if (rj_remote_is_off(ctx->remote))
		return 0; /* down, and said so once: the others compile it */
	/* The value there was refused here for its signature only: it may be what the nodes
	   that trust its signer load.  An unsigned one would be refused by every node that
	   checks, and take it from them; a signed one replaces it (signers outrank none). */
	if (s->remote_sig_refused && !m->signer) {
		RJ_LOG(RJ_LOG_INFO, "remote cache %s: not replacing a value refused for its "
		       "signature with an unsigned one (set ROCJIT_SIGNING_KEY to put signed "
		       "values)", rj_remote_shown(ctx->remote));
		return 0;
	}
	rj_remote_record_of(&rec, &s->key, m, s->code.data, s->code.size);
	if (rj_remote_put(ctx->remote, &rec, 0) < 0) {
		rj_warn_once("remote-put", "%s; this node keeps its copy, the others compile it",
			     rocjit_last_error());
		return 0;
	}
	return 1;
}

/*
 * Stores a fresh code object: in the on-disk cache (unless the context does not write
 * one), and on the remote tier (unless it is read-only).  Failures only cost the next
 * process, or node, a compile.  kernels is its kernels column, name expressions included
 * (kernel_names.c).  1 when the remote tier has it now (then its lock may go as the
 * compile's success: the waiting nodes find it).
 */
static int store(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		 const char *compiler, const char *kernels)
{
	int remote = 0;
	struct rj_cache_meta m;
	unsigned char sig[RJ_SIG_BYTES];
	char *options = rj_opts_join(&r->opts), *headers = join_header_names(r);
	int local = ctx->cache && !(ctx->flags & ROCJIT_OPEN_READONLY);

	if (!options || !headers) {
		atomic_fetch_add(&ctx->cache_errors, 1);
		rj_error_set(ROCJIT_ENOMEM, __FILE__, __LINE__, "out of memory storing %s in the "
			     "cache", r->name);
		rj_note_store(ctx, 0);
		goto out;
	}
	entry_meta(&m, r, s, compiler, options, headers, kernels);
	rj_signing_sign(&ctx->signing, &s->key, &m, s->code.data, s->code.size, sig);
	if (local && rj_cache_put(ctx->cache, &s->key, &m, s->code.data, s->code.size) != 0) {
		atomic_fetch_add(&ctx->cache_errors, 1);
		rj_note_store(ctx, 0);
		rj_warn_once("cache-put", "%s; the kernel is still used", rocjit_last_error());
	} else if (local) {
		rj_note_store(ctx, 1);
	} else if (!ctx->cache && !(ctx->flags & ROCJIT_OPEN_NO_CACHE)) {
		/* A cache was wanted but could not be opened: this object is not kept. */
		rj_error_set(ROCJIT_EIO, __FILE__, __LINE__, "%s", ctx->cache_error[0] ?
			     ctx->cache_error : "no on-disk cache is open");
		rj_note_store(ctx, 0);
	}
	if (ctx->remote && !rj_remote_readonly(ctx->remote))
		remote = remote_put(ctx, s, &m);
out:
	free(options);
	free(headers);
	return remote;
}

/* Compiles r for s and stores the result; *put: the remote tier has it now. */
static int compile(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		   const char *compiler, int *put)
{
	struct rj_compile_req req;
	struct rj_compile_out out;
	struct rj_worker_run run;
	char *source, *kernels = NULL, hex[33], first[512];
	double t0;
	int rc;

	rj_key_hex(&s->key, hex);
	RJ_CHECK(ctx->flags & ROCJIT_OPEN_NO_COMPILE, ROCJIT_ENOTCACHED,
		 "%s for %s is not in the cache (key %s) and compiling is forbidden "
		 "(ROCJIT_NO_COMPILE or ROCJIT_OPEN_NO_COMPILE): prewarm the cache for this "
		 "target, or allow compiling", r->name, s->target, hex);
	RJ_CHECK(memchr(r->source, 0, r->length) != NULL, ROCJIT_EINVAL,
		 "%s contains a NUL byte: kernel source must be text", r->name);
	source = malloc(r->length + 1);
	RJ_CHECK(!source, ROCJIT_ENOMEM, "out of memory compiling %s", r->name);
	memcpy(source, r->source, r->length);
	source[r->length] = 0;
	req.source = source;
	req.name = r->name;
	req.options = &r->opts;
	req.headers = r->headers;
	req.num_headers = r->num_headers;
	req.language = r->language;
	req.name_expressions = r->name_expressions;
	req.num_name_expressions = r->num_name_expressions;
	t0 = rj_now_ms();
	rc = rj_worker_compile(s->platform, s->target, compiler, &req, &out,
			       (ctx->flags & ROCJIT_OPEN_COMPILE_INPROCESS) != 0, &run);
	free(source);
	s->code.compile_ms = rj_now_ms() - t0;
	if (run.in_worker) {
		atomic_fetch_add(&ctx->worker_compiles, 1);
		if (s->code.compile_ms > run.compiler_ms)
			atomic_fetch_add(&ctx->worker_overhead_us,
					 (uint64_t)((s->code.compile_ms - run.compiler_ms) * 1e3));
	}
	/* The requesting thread's: the program is const, and may be shared by threads. */
	rj_last_log_set(out.log);
	if (rc != 0) {
		char msg[MSG_MAX];
		/* A refused target (checked by the worker, before any compile) ran no compiler. */
		if (rc != ROCJIT_EUNSUPPORTED)
			atomic_fetch_add(&ctx->compile_errors, 1);
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		first_error(first, sizeof first, out.log);
		free(out.log);
		RJ_LOG(RJ_LOG_INFO, "compile failed key=%s target=%s source=%s %.1f ms", hex,
		       s->target, r->name, s->code.compile_ms);
		if (rc == ROCJIT_ECOMPILE && !run.lost)
			RJ_FAIL(rc, "%s did not compile for %s%s", r->name, s->target,
				first[0] ? first : " (no diagnostics; see the log)");
		RJ_FAIL(rc, "%s", msg);
	}
	if (out.log && *out.log)
		RJ_LOG(RJ_LOG_INFO, "compiler said for %s:\n%s", r->name, out.log);
	free(out.log);
	atomic_fetch_add(&ctx->compiles, 1);
	atomic_fetch_add(&ctx->compile_us, (uint64_t)(s->code.compile_ms * 1e3));
	rc = rj_codeobj_check(out.code, out.size, s->target, &kernels);
	if (rc != 0) {
		char msg[MSG_MAX];
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		free(out.code);
		rj_vendor_names_free(out.lowered, r->num_name_expressions);
		RJ_FAIL(rc, "the compiler returned an unusable code object for %s: %s", r->name,
			msg);
	}
	if (r->num_name_expressions) {
		/* The lowered names go into the kernels column and the slot (a platform gives
		   them for every successful compile with name expressions). */
		char *column = out.lowered ? rj_kernels_column(kernels, r->name_expressions,
							       out.lowered,
							       r->num_name_expressions) : NULL;
		rj_vendor_names_free(out.lowered, r->num_name_expressions);
		free(kernels);
		kernels = column;
		s->names = column ? rj_names_pairs(rj_kernels_names(column)) : NULL;
		if (!s->names) {
			free(column);
			free(out.code);
			RJ_FAIL(ROCJIT_ENOMEM, "out of memory compiling %s", r->name);
		}
	}
	s->code.data = s->code_mem = out.code;
	s->code.size = out.size;
	s->code.from_cache = 0;
	RJ_LOG(RJ_LOG_INFO, "compiled key=%s target=%s source=%s kernels=%s %zu bytes in %.1f ms",
	       hex, s->target, r->name, kernels, out.size, s->code.compile_ms);
	if (!kernels[0]) {
		/* Not an error (a file of device functions is valid), but usually a mistake. */
		atomic_fetch_add(&ctx->empty_objects, 1);
		RJ_LOG(RJ_LOG_WARN, "%s compiled for %s into a code object with 0 kernels: "
		       "templates that were never instantiated? add name expressions "
		       "(rocjit_program.name_expressions) or explicit instantiations", r->name,
		       s->target);
	}
	*put = store(ctx, r, s, compiler, kernels);
	free(kernels);
	return 0;
}

/* A store's hit fills s: code, which s owns when it is owned (malloc'ed; NULL: the cache's
 * mapping, valid while the cache is open), counted as a disk hit. */
static void take_hit(rocjit_ctx *ctx, struct rj_slot *s, const void *code, void *owned,
		     size_t size, double ms)
{
	s->code.data = code;
	s->code_mem = owned;
	s->code.size = size;
	s->code.compile_ms = ms;
	s->code.from_cache = 1;
	atomic_fetch_add(&ctx->disk_hits, 1);
}

/*
 * Whether a local hit (*code, size; *owned: its private copy, or NULL when it lies in the
 * read index's shared mapping) may load under the signing rule (signing.c).  The fields a
 * signature covers besides the code are the request's (the entry's key matched them), so
 * a signature the read index holds is checked without the database; the portable key is
 * computed only when the rule covers the local cache.  Code from the index is copied
 * first and the copy checked and loaded: anyone who may write the index file could change
 * the mapped bytes between the check and the load.  0 also when the copy cannot be made.
 */
static int local_ok(rocjit_ctx *ctx, const struct rj_request *r, const struct rj_slot *s,
		    const char *compiler, const void **code, void **owned, size_t size)
{
	struct rj_sig_subject hit;
	const void *served = *code;
	rj_key pkey;

	if (ctx->signing.require < ROCJIT_REQUIRE_SIGNED_ALL)
		return 1;
	if (!*owned) {
		if (!(*owned = malloc(size ? size : 1)))
			return 0;
		memcpy(*owned, served, size);
		*code = *owned;
	}
	pkey = portable_key(r, s->platform, s->target);
	hit.key = &s->key;
	hit.pkey = &pkey;
	hit.platform = s->platform->name;
	hit.target = s->target;
	hit.compiler = compiler;
	hit.code = *code;
	hit.code_size = size;
	return rj_signing_local_ok(&ctx->signing, ctx->cache, &hit, served);
}

/* 1 and s filled when the on-disk cache has s's key; 0 on a miss (or a cache failure). */
static int disk_lookup(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		       const char *compiler)
{
	const void *code;
	void *owned;
	size_t size;
	double t0 = rj_now_ms(), ms = 0;
	char hex[33];
	char *column = NULL;
	int rc;

	if (s->local_refused)
		return 0;
	rc = rj_cache_get(ctx->cache, &s->key, &code, &owned, &size, &ms,
			  r->num_name_expressions ? &column : NULL);
	if (rc > 0 && !local_ok(ctx, r, s, compiler, &code, &owned, size)) {
		s->local_refused = 1;
		free(owned);
		free(column);
		return 0;
	}
	if (rc > 0 && r->num_name_expressions && !take_names(s, r, column)) {
		free(owned);
		return 0;
	}
	if (rc > 0) {
		take_hit(ctx, s, code, owned, size, ms);
		if (rc == 2)
			atomic_fetch_add(&ctx->index_hits, 1);
		if (rj_log_level() >= RJ_LOG_INFO) {
			rj_key_hex(&s->key, hex);
			rj_log(RJ_LOG_INFO, "hit key=%s target=%s source=%s %zu bytes in %.3f ms "
			       "from the %s (compiling took %.1f ms)", hex, s->target, r->name,
			       size, rj_now_ms() - t0, rc == 2 ? "index" : "database", ms);
		}
		return 1;
	}
	if (rc < 0) {
		atomic_fetch_add(&ctx->cache_errors, 1);
		rj_warn_once("cache-get", "%s; compiling instead", rocjit_last_error());
	}
	return 0;
}

/*
 * After a disk miss: takes the key's lock across processes, so that of all the processes
 * missing the same key at once only one compiles.  The others wait for its result in the
 * cache, taking the lock themselves if the holder dies, for at most the lock timeout.
 * Returns 1 when the cache answered meanwhile; else 0 with *lock held or not (no lock can
 * be had: compile anyway).
 */
static int wait_for_key(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
			const char *compiler, struct rj_keylock *lock)
{
	double deadline = rj_now_ms() + rj_keylock_timeout_ms();
	unsigned sleep_us = 2000;
	int rc;

	lock->fd = -1;
	if ((ctx->flags & ROCJIT_OPEN_READONLY) || rj_cache_readonly(ctx->cache))
		return 0;
	while ((rc = rj_keylock_try(lock, rj_cache_dir_of(ctx->cache), &s->key)) == RJ_LOCK_BUSY) {
		if (rj_now_ms() > deadline) {
			char hex[33];
			rj_key_hex(&s->key, hex);
			rj_log(RJ_LOG_WARN, "another process has been compiling %s (key %s) for "
			       "%d ms; compiling it here too (ROCJIT_LOCK_TIMEOUT_MS sets the wait)",
			       r->name, hex, rj_keylock_timeout_ms());
			return 0;
		}
		usleep(sleep_us);
		if (sleep_us < 50000)
			sleep_us *= 2;
		if (disk_lookup(ctx, r, s, compiler))
			return 1;
	}
	/* Held: the previous holder may have stored it just before letting go. */
	if (rc == RJ_LOCK_HELD && disk_lookup(ctx, r, s, compiler)) {
		rj_keylock_release(lock);
		return 1;
	}
	return 0;
}

/*
 * The target ids whose code runs on target, most specific first: the id itself, then with
 * fewer features.  Code built for "gfx90a" (xnack and sramecc "any") runs on every
 * gfx90a; code for "gfx90a:xnack-" only where xnack is off.  At most 8 (3 features).
 */
static size_t compatible_targets(char out[8][RJ_TARGET_MAX], const char *target)
{
	const char *feat[3];
	size_t nfeat = 0, plen = rj_target_processor_len(target), n = 0;

	for (const char *p = strchr(target, ':'); p && nfeat < 3; p = strchr(p + 1, ':'))
		feat[nfeat++] = p + 1;
	if (strchr(target, ':') && nfeat == 3 && strchr(feat[2], ':'))
		nfeat = 0; /* more features than we enumerate: the exact id only */
	for (unsigned drop = 0; drop < (1u << nfeat) && n < 8; drop++) {
		size_t len = plen;
		memcpy(out[n], target, plen);
		for (size_t i = 0; i < nfeat; i++) {
			size_t fl = strcspn(feat[i], ":");
			if (drop & (1u << i))
				continue;
			out[n][len++] = ':';
			memcpy(out[n] + len, feat[i], fl);
			len += fl;
		}
		out[n][len] = 0;
		n++;
	}
	if (n == 0) {
		snprintf(out[0], RJ_TARGET_MAX, "%s", target);
		n = 1;
	}
	return n;
}

/* The context's bundles, complete: the first call looks for <executable>.rocjit (kept off
 * rocjit_open, the path of every process's first hit).  NULL when there are none. */
static struct rj_bundle *ctx_bundles(rocjit_ctx *ctx)
{
	if (atomic_load_explicit(&ctx->bundles_complete, memory_order_acquire))
		return ctx->bundles;
	pthread_mutex_lock(&ctx->bundles_mu);
	if (!atomic_load_explicit(&ctx->bundles_complete, memory_order_relaxed)) {
		rj_bundles_add_beside_executable(&ctx->bundles);
		atomic_store_explicit(&ctx->bundles_complete, 1, memory_order_release);
	}
	pthread_mutex_unlock(&ctx->bundles_mu);
	return ctx->bundles;
}

/* A bundle's entry found for a request, not yet taken. */
struct bundle_hit {
	void *code;
	size_t size;
	double ms;
	const char *which;         /* the bundle's path */
	char *column;              /* its kernels column (with name expressions), or NULL */
	char built_for[RJ_TARGET_MAX];
	int found, exact;          /* exact: made by this compiler */
	int rejected;              /* entries passed over for their signature */
};

/* Finds s's program in a bundle, for its target or a less specific id of the same
 * processor whose code runs there.  h->found says whether it did. */
static void bundle_find(rocjit_ctx *ctx, const struct rj_request *r, const struct rj_slot *s,
			const char *compiler, struct bundle_hit *h)
{
	char targets[8][RJ_TARGET_MAX];
	size_t n;

	const struct rj_sig_trust *trust = rj_signing_shared_trust(&ctx->signing);

	memset(h, 0, sizeof *h);
	if (!ctx_bundles(ctx))
		return;
	n = compatible_targets(targets, s->target);
	for (size_t i = 0; i < n && !h->found; i++) {
		rj_key pkey = portable_key(r, s->platform, targets[i]);
		struct rj_bundle_reject rej;
		h->found = rj_bundles_get(ctx->bundles, &pkey, targets[i], compiler, trust,
					  &h->code, &h->size, &h->ms, &h->which,
					  r->num_name_expressions ? &h->column : NULL, &h->exact,
					  &rej);
		if (h->found)
			memcpy(h->built_for, targets[i], sizeof h->built_for);
		if (trust)
			atomic_fetch_add(&ctx->signing.checked, (uint64_t)rej.count + (h->found ? 1 : 0));
		if (rej.count) {
			char what[4800];
			h->rejected += rej.count;
			snprintf(what, sizeof what, "bundle %s has an entry for %s of %s that is %s%s%s",
				 rej.which, targets[i], r->name,
				 rej.status == RJ_SIG_UNSIGNED ? "unsigned" :
				 rej.status == RJ_SIG_UNTRUSTED ? "signed by a key that is not trusted: "
								: "badly signed: ",
				 rej.status == RJ_SIG_UNSIGNED ? "" : rej.signer,
				 " (ROCJIT_TRUSTED_KEYS)");
			for (int k = 1; k < rej.count; k++)
				atomic_fetch_add(&ctx->signing.rejects, 1);
			rj_signing_rejected(&ctx->signing, what);
		}
	}
}

static void bundle_drop(struct bundle_hit *h)
{
	free(h->code);
	free(h->column);
	memset(h, 0, sizeof *h);
}

/* Fills s from a found bundle entry: 1, or 0 when it cannot serve (its names). */
static int bundle_take(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		       struct bundle_hit *h)
{
	if (!h->found)
		return 0;
	if (r->num_name_expressions && !take_names(s, r, h->column)) {
		h->column = NULL; /* take_names freed it */
		bundle_drop(h);
		return 0;
	}
	h->column = NULL;
	take_hit(ctx, s, h->code, h->code, h->size, h->ms);
	RJ_LOG(RJ_LOG_INFO, "hit target=%s source=%s from bundle %s (built for %s)", s->target,
	       r->name, h->which, h->built_for);
	h->code = NULL;
	h->found = 0;
	return 1;
}

/*
 * Copies a remote hit (s, filled) into the on-disk cache, so that the next process finds
 * it there: kept in memory and stored with the next batch of usage records (at close, at
 * exit), off the request path.  What is stored about it comes from the request, as for a
 * compile, not from the value (only its code and kernels, which were checked, do): a
 * value's other fields are whatever its writer chose.  A failure costs the next process
 * a remote request: counted, one warning.
 */
static void remote_keep(rocjit_ctx *ctx, const struct rj_request *r, const struct rj_slot *s,
			const char *compiler, const char *kernels, const struct rj_record *rec)
{
	struct rj_cache_meta m;
	char *options, *headers, signer[RJ_SIG_NAME_MAX + 1];

	if (!ctx->cache || (ctx->flags & ROCJIT_OPEN_READONLY) || rj_cache_readonly(ctx->cache))
		return;
	options = rj_opts_join(&r->opts);
	headers = join_header_names(r);
	if (options && headers) {
		entry_meta(&m, r, s, compiler, options, headers, kernels);
		/* Its signature goes along (checked by the tier when keys are trusted; the
		   fields it covers are the request's, which the value matched). */
		if (rec->sig_len == RJ_SIG_BYTES && rj_sig_name_valid(rec->signer, rec->signer_len)) {
			memcpy(signer, rec->signer, rec->signer_len);
			signer[rec->signer_len] = 0;
			m.signer = signer;
			m.sig = rec->sig;
		}
		if (rj_cache_put_later(ctx->cache, &s->key, &m, s->code.data, s->code.size,
				       s->code_shared) != 0) {
			atomic_fetch_add(&ctx->cache_errors, 1);
			rj_warn_once("remote-keep", "%s; the kernel from the remote cache is still "
				     "used", rocjit_last_error());
		}
	}
	free(options);
	free(headers);
}

/*
 * The remote tier, after the local tiers missed.  1 and s filled on a hit (kept in the
 * on-disk cache too).  Else, when claim is set (this process is about to compile), takes
 * the key's compile lock across the fleet into *lease, or waits for the node that holds
 * it and takes its value (1).  0: compile.  2: another node is compiling it and this
 * thread does not wait (rj_fleet_nowait).  early: a look before the database, whose miss
 * the whole way's look counts.
 */
static int remote_lookup(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
			 const char *compiler, int claim, struct rj_remote_lease **lease, int early)
{
	struct rj_remote_want w;
	struct rj_remote_value v;
	double t0 = rj_now_ms();
	char hex[33];
	int hit;

	*lease = NULL;
	w.key = s->key;
	w.pkey = portable_key(r, s->platform, s->target);
	w.platform = s->platform->name;
	w.target = s->target;
	w.compiler = compiler;
	hit = early ? rj_remote_peek(ctx->remote, &w, &v) : rj_remote_get(ctx->remote, &w, &v);
	if (!hit && v.sig_refused)
		s->remote_sig_refused = 1;
	if (!hit && claim)
		hit = rj_remote_claim(ctx->remote, &w, rj_keylock_timeout_ms(),
				      (rj_fleet_nowait ? RJ_CLAIM_NOWAIT : 0) |
				      (v.refused ? 0 : RJ_CLAIM_ABSENT), lease, &v);
	if (hit == 2)
		return 2; /* another node is compiling it: deferred (rj_fleet_nowait) */
	if (!hit)
		return 0;
	if (r->num_name_expressions && !take_names(s, r, strdup(v.kernels))) {
		rj_remote_value_free(&v);
		return 0;
	}
	/* The slot holds the whole value (shared with the copy the cache stores later); its
	   code lies inside. */
	s->code.data = v.rec.code;
	s->code.size = v.rec.code_size;
	s->code.compile_ms = v.rec.compile_ms;
	s->code.from_cache = 1;
	s->code_shared = v.bytes;
	v.bytes = NULL;
	if (rj_signing_shared_trust(&ctx->signing))
		atomic_fetch_add(&ctx->signing.checked, 1);
	remote_keep(ctx, r, s, compiler, v.kernels, &v.rec);
	rj_remote_value_free(&v);
	if (rj_log_level() >= RJ_LOG_INFO) {
		rj_key_hex(&s->key, hex);
		rj_log(RJ_LOG_INFO, "hit key=%s target=%s source=%s %zu bytes in %.3f ms from the "
		       "remote cache %s (compiling took %.1f ms)", hex, s->target, r->name,
		       s->code.size, rj_now_ms() - t0, rj_remote_shown(ctx->remote),
		       s->code.compile_ms);
	}
	return 1;
}

/*
 * The remote tier before the database, where the read index says the database cannot
 * have the key (it held every entry when it was written, and lacks this one) and no
 * bundle could serve it: a node's first request for a kernel the fleet has is then one
 * round trip, without opening SQLite at all (the copy into the cache is stored later).
 * 1 and s filled on a hit (from the index or the tier); 0: go the whole way.  Without
 * the node's key lock, so processes of a node may each ask once for the same key; the
 * fleet's compile lock is taken only after the whole way missed.
 */
static int early_remote(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
			const char *compiler)
{
	struct rj_remote_lease *none;
	const void *code;
	void *owned = NULL; /* a private copy of the index's code, when one was made */
	char *column = NULL;
	size_t size;
	double ms = 0;
	int rc;

	if (ctx_bundles(ctx) || rj_remote_is_off(ctx->remote))
		return 0;
	rc = rj_cache_probe(ctx->cache, &s->key, &code, &size, &ms,
			    r->num_name_expressions ? &column : NULL);
	if (rc == 2 && !local_ok(ctx, r, s, compiler, &code, &owned, size)) {
		s->local_refused = 1;
		free(owned);
		free(column);
		return 0;
	}
	if (rc == 2) {
		if (r->num_name_expressions && !take_names(s, r, column)) {
			free(owned);
			return 0;
		}
		take_hit(ctx, s, code, owned, size, ms);
		atomic_fetch_add(&ctx->index_hits, 1);
		return 1;
	}
	free(column);
	return rc == 0 && remote_lookup(ctx, r, s, compiler, 0, &none, 1);
}

/*
 * Fills s: the on-disk cache, the bundles made by this compiler, then - with this node's
 * key lock held, so that one process of the node asks - the remote tier, then a bundle
 * made by another compiler version, then the compiler; one compile per key across the
 * node (key lock) and across the fleet (the remote tier's lock).
 */
static int produce(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		   const char *compiler)
{
	struct rj_keylock lock = { .fd = -1 };
	struct rj_remote_lease *lease = NULL;
	struct bundle_hit bh;
	char hex[33];
	int rc, put = 0, may_compile = !(ctx->flags & ROCJIT_OPEN_NO_COMPILE);

	if (!compiler) {
		/* No compiler is installed: the bundles are all there is. */
		bundle_find(ctx, r, s, NULL, &bh);
		if (bundle_take(ctx, r, s, &bh))
			return 0;
		atomic_fetch_add(&ctx->misses, 1);
		if (bh.rejected)
			RJ_FAIL(ROCJIT_ENOCOMPILER, "%s for %s is in no bundle signed by a trusted "
				"key (%d entries passed over for their signature: see the warning), "
				"and no compiler is installed to compile it: ship a bundle signed "
				"by a key in ROCJIT_TRUSTED_KEYS (rocjit sign), or install the "
				"compiler", r->name, s->target, bh.rejected);
		RJ_FAIL(ROCJIT_ENOCOMPILER, "%s for %s is in no bundle, and no compiler is "
			"installed to compile it: ship a bundle built for %s, or install the "
			"compiler", r->name, s->target, s->target);
	}
	if (ctx->cache && ctx->remote && early_remote(ctx, r, s, compiler))
		return 0;
	if (ctx->cache && disk_lookup(ctx, r, s, compiler))
		return 0;
	bundle_find(ctx, r, s, compiler, &bh);
	/* A network round trip is worth it only against an entry of another compiler. */
	if (bh.found && (bh.exact || !ctx->remote) && bundle_take(ctx, r, s, &bh))
		return 0;
	if (ctx->cache && may_compile && wait_for_key(ctx, r, s, compiler, &lock)) {
		bundle_drop(&bh);
		return 0;
	}
	if (ctx->remote &&
	    (rc = remote_lookup(ctx, r, s, compiler, may_compile && !bh.found, &lease, 0))) {
		bundle_drop(&bh);
		rj_keylock_release(&lock);
		if (rc == 2)
			RJ_FAIL(RJ_DEFERRED, "%s for %s: another node is compiling it", r->name,
				s->target);
		return 0;
	}
	if (bundle_take(ctx, r, s, &bh)) {
		rj_keylock_release(&lock);
		return 0;
	}
	atomic_fetch_add(&ctx->misses, 1);
	if (rj_log_level() >= RJ_LOG_INFO) {
		rj_key_hex(&s->key, hex);
		rj_log(RJ_LOG_INFO, "miss key=%s target=%s source=%s", hex, s->target, r->name);
	}
	rc = compile(ctx, r, s, compiler, &put);
	/* Released as done only when the value is there for the waiting nodes; else the
	   mark of a failure sends them to compile at once, each on its own. */
	rj_remote_release(ctx->remote, lease, rc == 0 && put);
	rj_keylock_release(&lock);
	return rc;
}

/* Wakes the threads waiting for s after its owner changed its state. */
static void publish(rocjit_ctx *ctx, struct rj_slot *s, int rc)
{
	pthread_rwlock_wrlock(&ctx->rw);
	if (rc == 0) {
		s->state = RJ_READY;
	} else {
		free(s->error);
		s->error = strdup(rocjit_last_error());
		s->rc = rc;
		s->state = RJ_FAILED;
	}
	pthread_rwlock_unlock(&ctx->rw);
	pthread_mutex_lock(&ctx->wait_mu);
	pthread_cond_broadcast(&ctx->wait_cv);
	pthread_mutex_unlock(&ctx->wait_mu);
}

/*
 * What r is looked up by for target: the platform that compiles for it, the compiler's
 * identity and the key.  Without a compiler, a context with bundles still gets a lookup:
 * the portable key, which is all the bundles can be asked by (lk->compiler NULL).
 */
int rj_lookup_init(struct rj_lookup *lk, rocjit_ctx *ctx, const struct rj_request *r,
		   const char *target)
{
	struct rj_key_input in;

	lk->platform = rj_platform_for_target(target);
	if (!lk->platform)
		return ROCJIT_EUNSUPPORTED; /* the message is recorded */
	lk->compiler = rj_compiler_id(lk->platform, ctx->cache);
	lk->target = target;
	if (!lk->compiler && ctx_bundles(ctx)) {
		/* No compiler to name: only the bundles can serve, by the portable key. */
		lk->key = portable_key(r, lk->platform, target);
		return 0;
	}
	if (!lk->compiler)
		return ROCJIT_ENOCOMPILER;
	key_input(&in, r, lk->platform, target, lk->compiler);
	lk->key = rj_key_compute(&in);
	return 0;
}

/*
 * Returns the READY slot for the request and target, filling it if this thread is the
 * first to ask.  A FAILED slot is retried by the next request that finds it (its error
 * may have been passing: a full disk, a missing library installed since); the threads
 * that waited for the failed attempt get its error.
 */
int rj_slot_get(struct rj_slot **out, rocjit_ctx *ctx, const struct rj_request *r,
		const struct rj_lookup *lk)
{
	const struct rj_platform *platform = lk->platform;
	const char *compiler = lk->compiler, *target = lk->target;
	const rj_key key = lk->key;
	struct rj_slot *s;
	int rc, owner;

again:
	owner = 0;
	pthread_rwlock_rdlock(&ctx->rw);
	s = rj_table_find(ctx, &key);
	if (s && s->state == RJ_READY) {
		pthread_rwlock_unlock(&ctx->rw);
		atomic_fetch_add(&ctx->memory_hits, 1);
		*out = s;
		return 0;
	}
	pthread_rwlock_unlock(&ctx->rw);

	pthread_rwlock_wrlock(&ctx->rw);
	s = rj_table_find(ctx, &key);
	if (!s) {
		s = rj_table_add(ctx, &key);
		if (s) {
			s->platform = platform;
			snprintf(s->target, sizeof s->target, "%s", target);
			s->code.target = s->target;
			rj_key_hex(&key, s->code.key);
			owner = 1;
		}
	} else if (s->state == RJ_FAILED) {
		s->state = RJ_PENDING;
		owner = 1;
	}
	pthread_rwlock_unlock(&ctx->rw);
	RJ_CHECK(!s, ROCJIT_ENOMEM, "out of memory in the kernel table");

	if (owner) {
		rc = produce(ctx, r, s, compiler);
		publish(ctx, s, rc);
		*out = s;
		return rc;
	}
	/* Another thread owns it: wait for its result instead of compiling it again. */
	rc = 0;
	pthread_mutex_lock(&ctx->wait_mu);
	for (;;) {
		enum rj_state st;
		int deferred;
		pthread_rwlock_rdlock(&ctx->rw);
		st = s->state;
		deferred = st == RJ_FAILED && s->rc == RJ_DEFERRED;
		if (st == RJ_FAILED && !deferred)
			rc = rj_error_set(s->rc, __FILE__, __LINE__, "%s", s->error ? s->error : "");
		pthread_rwlock_unlock(&ctx->rw);
		if (deferred) {
			/* Its owner (a prefetch thread) went on to other work: this thread takes
			   the request up itself, from the start (it never defers: only prefetch
			   threads set rj_fleet_nowait). */
			pthread_mutex_unlock(&ctx->wait_mu);
			goto again;
		}
		if (st != RJ_PENDING)
			break;
		pthread_cond_wait(&ctx->wait_cv, &ctx->wait_mu);
	}
	pthread_mutex_unlock(&ctx->wait_mu);
	*out = s;
	if (rc == 0)
		atomic_fetch_add(&ctx->memory_hits, 1);
	return rc;
}
