/*
 * lookup.c - filling a slot of the in-process table: from the on-disk cache, else a
 * bundle, else the remote tier, else the compiler.
 *
 * Owns the once-per-key protocol: the first thread to miss a key becomes the slot's
 * owner and fills it without holding any table lock; threads asking for the same key
 * meanwhile wait for its result instead of compiling it again.  Owns the order of the
 * tiers, the key of a request, the compile and the store of what it made; each tier's
 * steps are lookup_local.c's and lookup_remote.c's (lookup_internal.h).  Talks to the
 * vendor only through the platform interface, and to the stores only through their
 * handles: never SQLite, never a store's layout.
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
#include "request/lookup_internal.h"
#include "base/error.h"

#define MSG_MAX 1024

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
	char *options = rj_opts_join(&r->opts), *headers = rj_request_header_names(r);
	int local = ctx->cache && !(ctx->flags & ROCJIT_OPEN_READONLY);

	if (!options || !headers) {
		atomic_fetch_add(&ctx->cache_errors, 1);
		rj_error_set(ROCJIT_ENOMEM, __FILE__, __LINE__, "out of memory storing %s in the "
			     "cache", r->name);
		rj_note_store(ctx, 0);
		goto out;
	}
	rj_entry_meta(&m, r, s, compiler, options, headers, kernels);
	m.origin = RJ_ORIGIN_COMPILED; /* what its signer may vouch for (origins.h) */
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
		remote = rj_lookup_remote_put(ctx, s, &m);
out:
	free(options);
	free(headers);
	return remote;
}

/* The folder for NVRTC's precompiled headers (compile/pch.c): pch-<uid> in the cache
   folder, this user's alone even in a cache shared by a group; NULL without a writable
   cache folder. */
static const char *pch_dir(rocjit_ctx *ctx, char *buf, size_t size)
{
	const char *dir = ctx->cache ? rj_cache_dir_of(ctx->cache) : NULL;

	if (!dir || rj_cache_dirfd(ctx->cache) < 0 || rj_cache_readonly(ctx->cache))
		return NULL;
	if ((size_t)snprintf(buf, size, "%s/pch-%u", dir, (unsigned)geteuid()) >= size)
		return NULL;
	return buf;
}

/* Compiles r for s and stores the result; *put: the remote tier has it now. */
static int compile(rocjit_ctx *ctx, const struct rj_request *r, struct rj_slot *s,
		   const char *compiler, int *put)
{
	struct rj_compile_req req;
	struct rj_compile_out out;
	struct rj_worker_run run;
	char *source, *kernels = NULL, hex[33], first[512], pch[4200];
	double t0;
	int rc, bad;

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
	req.pch_dir = pch_dir(ctx, pch, sizeof pch);
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
		if (rc != ROCJIT_EUNSUPPORTED) {
			atomic_fetch_add(&ctx->compile_errors, 1);
			rj_cache_count(ctx->cache, RJ_COUNT_COMPILE_ERROR, 1);
		}
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		first_error(first, sizeof first, out.log);
		bad = rj_vendor_failed_name(out.log, r->source, r->length, r->name_expressions,
					    r->num_name_expressions);
		free(out.log);
		RJ_LOG(RJ_LOG_INFO, "compile failed key=%s target=%s source=%s %.1f ms", hex,
		       s->target, r->name, s->code.compile_ms);
		/* The compiler's words point at a line it added: name the expression. */
		if (rc == ROCJIT_ECOMPILE && !run.lost && bad >= 0)
			RJ_FAIL(rc, "%s did not compile for %s: the name expression \"%s\" names "
				"no kernel of it (%s); give a __global__ function template of %s "
				"with all its template arguments (\"scale<float, 4>\")", r->name,
				s->target, r->name_expressions[bad], first + 2, r->name);
		if (rc == ROCJIT_ECOMPILE && !run.lost)
			RJ_FAIL(rc, "%s did not compile for %s%s", r->name, s->target,
				first[0] ? first : " (no diagnostics; see the log)");
		RJ_FAIL(rc, "%s", msg);
	}
	/* rocjit's own warnings about the compile (code a __CUDA_ARCH__ test left out:
	   compile/arch_gates.c) are seen without asking; the compiler's words at info. */
	if (out.log && *out.log)
		rj_log_block(strstr(out.log, "rocjit: warning:") ? RJ_LOG_WARN : RJ_LOG_INFO,
			     out.log, "compiler said for %s:", r->name);
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
	memcpy(s->built_for, s->target, sizeof s->built_for); /* its own entry, key s->key */
	memcpy(s->code.key, hex, sizeof s->code.key);
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
	struct rj_bundle_hit bh;
	char hex[33];
	int rc, put = 0, may_compile = !(ctx->flags & ROCJIT_OPEN_NO_COMPILE);

	if (!compiler) {
		/* No compiler is installed: the bundles are all there is. */
		rj_bundle_find(ctx, r, s, NULL, &bh);
		if (rj_bundle_take(ctx, r, s, &bh))
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
	if (ctx->cache && ctx->remote && rj_lookup_early_remote(ctx, r, s, compiler))
		return 0;
	if (ctx->cache && rj_disk_lookup(ctx, r, s, compiler))
		return 0;
	rj_bundle_find(ctx, r, s, compiler, &bh);
	/* A network round trip is worth it only against an entry of another compiler. */
	if (bh.found && (bh.exact || !ctx->remote) && rj_bundle_take(ctx, r, s, &bh))
		return 0;
	if (ctx->cache && may_compile && rj_wait_for_key(ctx, r, s, compiler, &lock)) {
		rj_bundle_drop(&bh);
		return 0;
	}
	if (ctx->remote &&
	    (rc = rj_lookup_remote(ctx, r, s, compiler, may_compile && !bh.found, &lease, 0))) {
		rj_bundle_drop(&bh);
		rj_keylock_release(&lock);
		if (rc == 2)
			RJ_FAIL(RJ_DEFERRED, "%s for %s: another node is compiling it", r->name,
				s->target);
		return 0;
	}
	if (rj_bundle_take(ctx, r, s, &bh)) {
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
	lk->platform = rj_platform_for_target(target);
	if (!lk->platform)
		return ROCJIT_EUNSUPPORTED; /* the message is recorded */
	lk->compiler = rj_compiler_id(lk->platform, ctx->cache);
	lk->target = target;
	if (!lk->compiler && rj_ctx_bundles(ctx)) {
		/* No compiler to name: only the bundles can serve, by the portable key. */
		lk->key = rj_request_portable_key(r, lk->platform, target);
		return 0;
	}
	if (!lk->compiler)
		return ROCJIT_ENOCOMPILER;
	lk->key = rj_request_key(r, lk->platform, target, lk->compiler);
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
			memcpy(s->built_for, s->target, sizeof s->built_for);
			s->code.target = s->built_for;
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
