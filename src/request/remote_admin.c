/*
 * remote_admin.c - the public calls on a context's remote tier (rocjit_remote_push,
 * _info_get, _counters_get), and its counters kept in the on-disk cache across processes.
 *
 * Owns only the step from the context to the tier: checking the context, finding its
 * tier and cache (or saying why it has none), turning a cache entry into a remote value.
 * The tier (remote/remote.h) talks to the servers; the cache (store/cache_admin.h) reads
 * the entries.  Never touches a socket, SQLite or a compiler itself.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "request/context.h"
#include "store/cache_admin.h"

/* The counters' names in the cache (cache/FORMAT.md), in rj_remote_counts' order. */
static const char *const counter_names[] = {
	"remote_hits", "remote_misses", "remote_errors", "remote_rejected", "remote_puts",
	"remote_put_errors", "remote_waits", "remote_bytes_read", "remote_bytes_written",
	"remote_saved_ms", "remote_ms",
};
#define NCOUNTERS (sizeof counter_names / sizeof counter_names[0])

void rj_remote_persist_counts(rocjit_ctx *ctx)
{
	struct rj_remote_counts c;
	double v[NCOUNTERS];

	if (!ctx->remote || !ctx->cache || (ctx->flags & ROCJIT_OPEN_READONLY) ||
	    rj_cache_readonly(ctx->cache))
		return;
	rj_remote_counts_get(ctx->remote, &c);
	/* Errors are counted as they happen (rj_remote_count_in), not here. */
	v[0] = (double)c.hits, v[1] = (double)c.misses, v[2] = 0;
	v[3] = (double)c.rejected, v[4] = (double)c.puts, v[5] = (double)c.put_errors;
	v[6] = (double)c.waits, v[7] = (double)c.bytes_read, v[8] = (double)c.bytes_written;
	v[9] = c.saved_ms, v[10] = c.remote_ms;
	/* Statistics only: a cache that cannot take them loses them. */
	rj_cache_counters_add(ctx->cache, counter_names, v, NCOUNTERS);
}

ROCJIT_API int rocjit_remote_counters_get(rocjit_remote_counters *out, rocjit_ctx *ctx)
{
	double v[NCOUNTERS];
	unsigned int version;

	RJ_CHECK(!out || !ctx, ROCJIT_EINVAL, "rocjit_remote_counters_get: out or ctx is NULL");
	version = out->version;
	RJ_CHECK(version != ROCJIT_REMOTE_COUNTERS_VERSION, ROCJIT_EINVAL,
		 "rocjit_remote_counters_get: version %u unknown: set it to "
		 "ROCJIT_REMOTE_COUNTERS_VERSION", version);
	memset(out, 0, sizeof *out);
	out->version = version;
	RJ_CHECK(!ctx->cache, ROCJIT_EIO, "this context has no on-disk cache to keep counters");
	RJ_FORWARD(rj_cache_counters_read(ctx->cache, counter_names, v, NCOUNTERS));
	out->hits = (uint64_t)v[0], out->misses = (uint64_t)v[1], out->errors = (uint64_t)v[2];
	out->rejected = (uint64_t)v[3], out->puts = (uint64_t)v[4];
	out->put_errors = (uint64_t)v[5], out->waits = (uint64_t)v[6];
	out->bytes_read = (uint64_t)v[7], out->bytes_written = (uint64_t)v[8];
	out->saved_ms = v[9], out->remote_ms = v[10];
	rj_error_clear();
	return 0;
}

/* The context's tier, or ROCJIT_EINVAL saying there is none. */
static int remote_of(struct rj_remote **out, rocjit_ctx *ctx)
{
	RJ_CHECK(!ctx, ROCJIT_EINVAL, "ctx is NULL");
	RJ_CHECK(!ctx->remote, ROCJIT_EINVAL, "no remote tier is configured: set ROCJIT_REMOTE "
		 "(redis://host:port, unix:///path/to/redis.sock or redis-cluster://host:port,...)"
		 " or rocjit_options.remote");
	*out = ctx->remote;
	return 0;
}

ROCJIT_API int rocjit_remote_info_get(rocjit_remote_info *out, rocjit_ctx *ctx,
				      unsigned int what)
{
	struct rj_remote_server_info si;
	struct rj_remote *t = NULL;
	unsigned int version;

	RJ_CHECK(!out, ROCJIT_EINVAL, "rocjit_remote_info_get: out is NULL");
	version = out->version;
	RJ_CHECK(version != ROCJIT_REMOTE_INFO_VERSION, ROCJIT_EINVAL, "rocjit_remote_info_get: "
		 "version %u unknown: set it to ROCJIT_REMOTE_INFO_VERSION", version);
	RJ_CHECK(what & ~ROCJIT_REMOTE_INFO_KEYS, ROCJIT_EINVAL, "rocjit_remote_info_get: "
		 "unknown flags 0x%x", what);
	memset(out, 0, sizeof *out);
	out->version = version;
	RJ_FORWARD(remote_of(&t, ctx));
	snprintf(out->url, sizeof out->url, "%s", rj_remote_shown(t));
	out->cluster = strncmp(out->url, "redis-cluster://", 16) == 0;
	out->readonly = rj_remote_readonly(t);
	RJ_FORWARD(rj_remote_server_info(t, (what & ROCJIT_REMOTE_INFO_KEYS) != 0, &si));
	out->servers = si.servers;
	out->latency_ms = si.latency_ms;
	snprintf(out->server_version, sizeof out->server_version, "%s", si.version);
	snprintf(out->maxmemory_policy, sizeof out->maxmemory_policy, "%s", si.policy);
	out->used_memory = si.used_memory;
	out->maxmemory = si.maxmemory;
	out->keys_counted = si.keys_counted;
	out->entries = si.entries;
	out->bytes = si.bytes;
	out->locks = si.locks;
	rj_error_clear();
	return 0;
}

/* ---- push ----------------------------------------------------------------------------------- */

struct push {
	struct rj_remote *t;
	rocjit_ctx *ctx;
	size_t pushed, present, failed;
	rocjit_reject_fn on_fail;
	void *user;
	char first[768];          /* the first failure's reason */
	struct rj_sig_trust keep; /* with a signing key: the signatures it keeps */
};

static void push_failed(struct push *p, const char *key, const char *why)
{
	p->failed++;
	if (!p->first[0])
		snprintf(p->first, sizeof p->first, "%s: %s", key, why);
	if (p->on_fail)
		p->on_fail(key, why, p->user);
}

/* rj_cache_find's callback: one entry and its checked code, as a remote value. */
static int push_one(const rocjit_entry *e, const void *code, size_t size, void *user)
{
	struct push *p = user;
	struct rj_cache_meta m;
	struct rj_cache_signed stored;
	unsigned char sig[RJ_SIG_BYTES];
	char signer[RJ_SIG_NAME_MAX + 1];
	struct rj_record rec;
	rj_key key;
	char *column = NULL;
	size_t klen = strlen(e->kernels), nlen = strlen(e->name_expressions);
	int rc;

	if (!code) {
		push_failed(p, e->key, "its code does not match its checksum (rocjit verify)");
		return 0;
	}
	if (!e->pkey[0]) {
		push_failed(p, e->key, "it was stored by a rocjit that kept no portable key: "
			    "compile it again to push it");
		return 0;
	}
	/* The kernels column again: symbols, then the name expressions' lines. */
	column = malloc(klen + nlen + 2);
	if (!column) {
		push_failed(p, e->key, "out of memory");
		return 0;
	}
	memcpy(column, e->kernels, klen);
	column[klen] = 0;
	if (nlen) {
		column[klen] = '\n';
		memcpy(column + klen + 1, e->name_expressions, nlen + 1);
	}
	m.platform = e->platform, m.target = e->target, m.compiler = e->compiler;
	m.options = e->options, m.source_name = e->source_name, m.headers = e->headers;
	m.kernels = column, m.compile_ms = e->compile_ms;
	m.signer = NULL, m.sig = NULL, m.origin = RJ_ORIGIN_UNKNOWN, m.origin_signer = NULL;
	for (int i = 0; i < 16; i++) {
		unsigned a, b;
		sscanf(e->key + 2 * i, "%2x", &a);
		sscanf(e->pkey + 2 * i, "%2x", &b);
		key.b[i] = (uint8_t)a;
		m.pkey.b[i] = (uint8_t)b;
	}
	/* With the context's key: signed when compiled here, else with a signature it keeps
	   (by a key it trusts), else not pushed (issue 27: a signer vouches only for code
	   whose origin it knows).  Without a key: with the signature it was stored with. */
	if (rj_cache_signed_get(p->ctx->cache, &key, &stored) != 1)
		memset(&stored, 0, sizeof stored);
	if (p->ctx->signing.key) {
		struct rj_stored_origin origin;
		struct rj_sig_subject subject;
		char why[700];

		rj_cache_origin_get(p->ctx->cache, &key, &origin);
		rj_cache_meta_subject(&subject, &key, &m, code, size);
		switch (rj_signing_vouch(p->ctx->signing.key, &p->keep, &subject, &origin,
					 &stored.sig, signer, sig, why, sizeof why)) {
		case RJ_SIGN_NEW:
			m.signer = signer;
			m.sig = sig;
			atomic_fetch_add(&p->ctx->signing.signed_stores, 1);
			break;
		case RJ_SIGN_KEEP:
			m.signer = stored.sig.signer;
			m.sig = stored.sig.sig;
			break;
		default:
			push_failed(p, e->key, why);
			free(column);
			return 0;
		}
	} else if (stored.sig.len == RJ_SIG_BYTES) {
		m.signer = stored.sig.signer;
		m.sig = stored.sig.sig;
	}
	rj_remote_record_of(&rec, &key, &m, code, size);
	rc = rj_remote_put(p->t, &rec, 1);
	free(column);
	if (rc == 1)
		p->pushed++;
	else if (rc == 0)
		p->present++;
	else
		push_failed(p, e->key, rocjit_last_error());
	return 0;
}

/* 1 when s is 32 hex digits. */
static int is_key(const char *s)
{
	size_t n = 0;

	while (s && n < 33 && isxdigit((unsigned char)s[n]))
		n++;
	return s && n == 32 && !s[32];
}

ROCJIT_API int rocjit_remote_push(rocjit_ctx *ctx, const char *const *keys, size_t n,
				  size_t *pushed, size_t *present, size_t *failed,
				  rocjit_reject_fn on_fail, void *user)
{
	struct push p;

	if (pushed)
		*pushed = 0;
	if (present)
		*present = 0;
	if (failed)
		*failed = 0;
	memset(&p, 0, sizeof p);
	p.ctx = ctx;
	RJ_FORWARD(remote_of(&p.t, ctx));
	RJ_CHECK(n && !keys, ROCJIT_EINVAL, "rocjit_remote_push: keys is NULL");
	RJ_CHECK(rj_remote_readonly(p.t), ROCJIT_EINVAL, "remote cache %s is read-only "
		 "(?readonly or ROCJIT_REMOTE_READONLY): nothing can be pushed",
		 rj_remote_shown(p.t));
	RJ_CHECK(!ctx->cache, ROCJIT_EIO, "this context has no on-disk cache to push from");
	for (size_t i = 0; i < n; i++)
		RJ_CHECK(!is_key(keys[i]), ROCJIT_EINVAL, "rocjit_remote_push: \"%s\" is not a key "
			 "(32 hex digits)", keys[i] ? keys[i] : "(null)");
	p.on_fail = on_fail;
	p.user = user;
	if (ctx->signing.key)
		RJ_FORWARD(rj_signing_keepable(&ctx->signing, &p.keep));
	for (size_t i = 0; i < n; i++) {
		int rc = rj_cache_find(ctx->cache, &ctx->signing.trust, keys[i], push_one, &p);
		if (rc == ROCJIT_ENOTFOUND)
			push_failed(&p, keys[i], "no such entry in the cache");
		else if (rc < 0)
			push_failed(&p, keys[i], rocjit_last_error());
	}
	rj_sig_trust_free(&p.keep);
	if (pushed)
		*pushed = p.pushed;
	if (present)
		*present = p.present;
	if (failed)
		*failed = p.failed;
	if (p.failed)
		RJ_FAIL(ROCJIT_EIO, "%zu pushed, %zu already there, %zu failed (first: %s)",
			p.pushed, p.present, p.failed, p.first);
	rj_error_clear();
	return 0;
}
