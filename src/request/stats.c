/*
 * stats.c - a context's statistics (rocjit_stats_get): its own counters, its cache's
 * totals, the compile workers', the remote tier's and the signing rule's, each part
 * written only where the caller's version has it.
 *
 * Owns nothing: it reads what the other files of the request layer count (context.h)
 * and what the tiers below report.
 */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "request/context.h"
#include "worker/pool.h"

/* rocjit_stats version 7: the remote tier's part. */
static void remote_stats(rocjit_stats *out, rocjit_ctx *ctx)
{
	struct rj_remote_counts rc;

	out->remote_url[0] = out->remote_off_reason[0] = 0;
	if (!ctx->remote) {
		out->remote_state = ROCJIT_REMOTE_NONE;
		memset(&rc, 0, sizeof rc);
	} else {
		rj_remote_counts_get(ctx->remote, &rc);
		snprintf(out->remote_url, sizeof out->remote_url, "%s",
			 rj_remote_shown(ctx->remote));
		out->remote_state = rj_remote_off_reason(ctx->remote, out->remote_off_reason,
							 sizeof out->remote_off_reason) ?
				    ROCJIT_REMOTE_OFF : ROCJIT_REMOTE_UP;
	}
	out->remote_hits = rc.hits;
	out->remote_misses = rc.misses;
	out->remote_errors = rc.errors;
	out->remote_rejected = rc.rejected;
	out->remote_puts = rc.puts;
	out->remote_put_errors = rc.put_errors;
	out->remote_waits = rc.waits;
	out->remote_bytes_read = rc.bytes_read;
	out->remote_bytes_written = rc.bytes_written;
	out->remote_saved_ms = rc.saved_ms;
	out->remote_ms = rc.remote_ms;
}

ROCJIT_API int rocjit_stats_get(rocjit_stats *out, rocjit_ctx *ctx)
{
	RJ_CHECK(!out || !ctx, ROCJIT_EINVAL, "rocjit_stats_get: out or ctx is NULL");
	RJ_CHECK(out->version < 1 || out->version > ROCJIT_STATS_VERSION, ROCJIT_EINVAL,
		 "rocjit_stats_get: stats version %u unknown: set it to ROCJIT_STATS_VERSION",
		 out->version);
	out->memory_hits = atomic_load(&ctx->memory_hits);
	out->disk_hits = atomic_load(&ctx->disk_hits);
	out->misses = atomic_load(&ctx->misses);
	out->compiles = atomic_load(&ctx->compiles);
	out->compile_errors = atomic_load(&ctx->compile_errors);
	out->cache_errors = atomic_load(&ctx->cache_errors);
	out->compile_ms = (double)atomic_load(&ctx->compile_us) / 1e3;
	out->entries = out->bytes = 0;
	out->cache_open = ctx->cache != NULL;
	out->cache_path[0] = 0;
	if (out->version >= 2)
		out->max_bytes = ctx->cache ? rj_cache_max_bytes(ctx->cache) : 0;
	if (out->version >= 3) {
		out->stores = atomic_load(&ctx->stores);
		out->store_failures = atomic_load(&ctx->store_failures);
		out->cache_readonly = ctx->cache && ((ctx->flags & ROCJIT_OPEN_READONLY) ||
						     rj_cache_readonly(ctx->cache));
		pthread_mutex_lock(&ctx->store_mu);
		snprintf(out->store_error, sizeof out->store_error, "%s", ctx->store_error);
		pthread_mutex_unlock(&ctx->store_mu);
	}
	if (out->version >= 4)
		out->empty_objects = atomic_load(&ctx->empty_objects);
	if (out->version >= 5) {
		struct rj_worker_counts wc;
		rj_worker_counts(&wc);
		out->worker_compiles = atomic_load(&ctx->worker_compiles);
		out->worker_overhead_ms = (double)atomic_load(&ctx->worker_overhead_us) / 1e3;
		out->workers_started = wc.started;
		out->workers_lost = wc.lost;
		out->workers_running = wc.running;
		out->workers_max = wc.max;
	}
	if (out->version >= 6)
		out->index_hits = atomic_load(&ctx->index_hits);
	if (out->version >= 7)
		remote_stats(out, ctx);
	if (out->version >= 8) {
		uint64_t remote_rej = ctx->remote ? rj_remote_sig_rejected(ctx->remote) : 0;
		out->require_signed = ctx->signing.require;
		out->trusted_keys = (int)ctx->signing.trust.n;
		snprintf(out->signing_key, sizeof out->signing_key, "%s",
			 ctx->signing.key ? ctx->signing.key->name : "");
		out->signatures_checked = atomic_load(&ctx->signing.checked) + remote_rej;
		out->signature_rejects = atomic_load(&ctx->signing.rejects) + remote_rej;
		out->signed_stores = atomic_load(&ctx->signing.signed_stores);
	}
	if (ctx->cache) {
		snprintf(out->cache_path, sizeof out->cache_path, "%s", rj_cache_path(ctx->cache));
		if (rj_cache_totals(ctx->cache, &out->entries, &out->bytes) != 0)
			atomic_fetch_add(&ctx->cache_errors, 1);
	}
	rj_error_clear();
	return 0;
}
