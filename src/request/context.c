/*
 * context.c - the public context: rocjit_open and rocjit_close, and what keeps open
 * contexts right across fork().
 *
 * Owns the context's options (platform, target override, flags), the tiers it opens (the
 * on-disk cache, the remote tier, the bundles named), the list of open contexts and the
 * fork handlers.  The requests made on a context are request.c's.
 *
 * fork(): every open context is made quiet before a fork (its locks taken, so that no
 * table is half-changed) and set right in the child (pthread_atfork): a slot a parent
 * thread was producing fails there, to be produced anew by the next request; the
 * parent's modules and kernels are forgotten (GPU runtimes do not carry over a fork), and
 * when the parent had initialized the device, the child's device requests fail with a
 * message saying so.  Code objects in the table stay valid, so rocjit_compile works in the
 * child, as do the cache (cache_process.c) and the key locks (keylock.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "request/context.h"
#include "base/error.h"

#define MSG_MAX 1024

/* The platform from the options, else $ROCJIT_PLATFORM; AUTO is decided at the device. */
static int choose_platform(rocjit_ctx *ctx, int requested)
{
	const char *env = rj_config("ROCJIT_PLATFORM", NULL);

	if (requested == ROCJIT_PLATFORM_AUTO && env && *env && strcmp(env, "auto") != 0) {
		if (strcmp(env, "amd") == 0)
			requested = ROCJIT_PLATFORM_AMD;
		else if (strcmp(env, "nvidia") == 0)
			requested = ROCJIT_PLATFORM_NVIDIA;
		else
			RJ_FAIL(ROCJIT_EINVAL,
				"ROCJIT_PLATFORM=%s is not a platform (amd, nvidia, auto)", env);
	}
	RJ_CHECK(requested != ROCJIT_PLATFORM_AUTO && !rj_platform_by_id(requested),
		 ROCJIT_EINVAL, "unknown platform %d (use ROCJIT_PLATFORM_AUTO, _AMD or _NVIDIA)",
		 requested);
	ctx->requested_platform = requested;
	ctx->platform = rj_platform_by_id(requested);
	return 0;
}

static void open_cache(rocjit_ctx *ctx, const char *dir)
{
	char path[4096];
	int rc;

	if (ctx->flags & ROCJIT_OPEN_NO_CACHE)
		return;
	rc = rocjit_cache_dir(path, sizeof path, dir);
	if (rc == 0)
		rc = rj_cache_open(&ctx->cache, path, !!(ctx->flags & ROCJIT_OPEN_READONLY));
	if (rc != 0) {
		/* Kept: a compile that cannot be stored says why (rocjit_stats.store_error). */
		snprintf(ctx->cache_error, sizeof ctx->cache_error, "%s", rocjit_last_error());
		rj_warn_once("cache-open", "%s; kernels are compiled and kept in memory only",
			     rocjit_last_error());
	}
	else
		RJ_LOG(RJ_LOG_DEBUG, "cache %s", rj_cache_path(ctx->cache));
}

static atomic_uint_fast64_t next_gen;

/* ---- fork ------------------------------------------------------------------------------- */

static pthread_mutex_t ctxs_mu = PTHREAD_MUTEX_INITIALIZER;
static rocjit_ctx *ctxs;           /* the open contexts, under ctxs_mu */
atomic_uint rj_forks;               /* context.h */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* Lock order, as everywhere: load_mu, wait_mu, rw. */
static void before_fork(void)
{
	pthread_mutex_lock(&ctxs_mu);
	for (rocjit_ctx *ctx = ctxs; ctx; ctx = ctx->next_open) {
		pthread_mutex_lock(&ctx->load_mu);
		pthread_mutex_lock(&ctx->wait_mu);
		pthread_rwlock_wrlock(&ctx->rw);
	}
}

/*
 * The context's locks, as rocjit_open makes them.  From glibc's static initializers, which
 * are what the init calls make (these locks take no other attributes): each call is one
 * more symbol the loader binds at its first use in a new process, about half a
 * microsecond apiece on rocjit_open's path.
 */
static void init_locks(rocjit_ctx *ctx)
{
	/* Writers first: a stream of hits must not starve the thread publishing a fresh
	   slot (nothing takes the read lock recursively). */
	static const pthread_rwlock_t rw = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
	static const pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static const pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

	ctx->rw = rw;
	ctx->wait_mu = mu;
	ctx->wait_cv = cv;
	ctx->load_mu = mu;
	ctx->store_mu = mu;
	ctx->bundles_mu = mu;
}

static void unlock_all(void)
{
	for (rocjit_ctx *ctx = ctxs; ctx; ctx = ctx->next_open) {
		pthread_rwlock_unlock(&ctx->rw);
		pthread_mutex_unlock(&ctx->wait_mu);
		pthread_mutex_unlock(&ctx->load_mu);
	}
	pthread_mutex_unlock(&ctxs_mu);
}

static void after_fork_parent(void)
{
	unlock_all();
}

/* The child, alone: see the top of the file. */
static void child_fixup(rocjit_ctx *ctx)
{
	ctx->gen = atomic_fetch_add(&next_gen, 1) + 1; /* the thread memos no longer match */
	for (size_t i = 0; i < ctx->nbuckets; i++)
		for (struct rj_slot *s = ctx->buckets[i]; s; s = s->next) {
			struct rocjit_kernel *k = s->kernels, *next;
			if (s->state == RJ_PENDING) {
				/* Its producer was a parent thread: the next request retries. */
				free(s->error);
				s->error = NULL;
				s->rc = ROCJIT_EIO;
				s->state = RJ_FAILED;
			}
			for (; k; k = next) {
				next = k->next;
				k->next = ctx->stale_kernels;
				ctx->stale_kernels = k;
			}
			s->kernels = NULL;
			s->module = NULL;
		}
	if (atomic_load(&ctx->device_state) == 1) {
		snprintf(ctx->device_error, sizeof ctx->device_error,
			 "device %d was initialized by process %d before it forked this one: GPU "
			 "runtimes cannot be used in a forked child; rocjit_compile still works "
			 "here, and a process started with exec (posix_spawn, multiprocessing's "
			 "'spawn') can use the GPU", ctx->device, (int)getppid());
		atomic_store(&ctx->device_state, ROCJIT_EDEVICE);
	}
	atomic_store(&ctx->memory_hits, 0);
	atomic_store(&ctx->disk_hits, 0);
	atomic_store(&ctx->index_hits, 0);
	atomic_store(&ctx->misses, 0);
	atomic_store(&ctx->compiles, 0);
	atomic_store(&ctx->compile_errors, 0);
	atomic_store(&ctx->cache_errors, 0);
	atomic_store(&ctx->compile_us, 0);
	/* Made anew, not unlocked: a lock taken by the parent's thread is not the child's
	   to release (glibc's rwlock knows its writer by thread id), and the condition's
	   waiters stayed in the parent. */
	init_locks(ctx);
}

static void after_fork_child(void)
{
	atomic_fetch_add(&rj_forks, 1);
	for (rocjit_ctx *ctx = ctxs; ctx; ctx = ctx->next_open)
		child_fixup(ctx);
	pthread_mutex_init(&ctxs_mu, NULL);
}

static void register_atfork(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* Whether the caller said that no signature is asked for (ROCJIT_REQUIRE_SIGNED=none, or
 * rocjit_options.require_signed): then a remote tier without trusted keys is what was
 * meant, and its hits are not warned about. */
static int unsigned_fleet_chosen(const rocjit_options *opts)
{
	const char *req = rj_config("ROCJIT_REQUIRE_SIGNED", NULL);

	if (opts->version >= 4 && opts->require_signed != ROCJIT_REQUIRE_SIGNED_DEFAULT)
		return opts->require_signed == ROCJIT_REQUIRE_SIGNED_NONE;
	return req && !strcasecmp(req, "none");
}

/*
 * The remote tier of rocjit_options.remote (version 3), else $ROCJIT_REMOTE.  Connects to
 * nothing: the first request that misses the local tiers does.  A wrong URL in the
 * options fails the open (the caller wrote it); one in the environment, or a build
 * without the tier, is a warning and a context without it (a job must not fail on the
 * fleet's setting).  A tier whose values are checked against no trusted key is warned
 * about at its first hit (lookup_remote.c), unless the caller chose it.
 */
static int open_remote(rocjit_ctx *ctx, const rocjit_options *opts)
{
	int from_options = opts->version >= 3 && opts->remote;
	const char *url = from_options ? opts->remote : rj_config("ROCJIT_REMOTE", NULL);
	int rc;

	if (!url || !*url)
		return 0;
	rc = rj_remote_open(&ctx->remote, url, from_options ? "rocjit_options.remote" :
			    "ROCJIT_REMOTE");
	if (rc == ROCJIT_EINVAL && from_options)
		return rc;
	if (rc != 0) {
		rj_warn_once("remote-open", "%s; going on without the remote tier",
			     rocjit_last_error());
		return 0;
	}
	rj_remote_set_trust(ctx->remote, rj_signing_shared_trust(&ctx->signing));
	ctx->unsigned_fleet_chosen = unsigned_fleet_chosen(opts);
	return 0;
}

/*
 * A ROCJIT_KERNEL_PATH that names no folder (mistyped) would serve every registered kernel
 * from its embedded text without a word: the edits the developer is testing never run.
 * Said once a process; the embedded text still serves.
 */
static void check_kernel_path(const char *kpath)
{
	struct stat st;

	if (!kpath || !*kpath)
		return;
	if (stat(kpath, &st) != 0)
		rj_warn_once("kernel-path", "ROCJIT_KERNEL_PATH=%s: %s; registered kernels come "
			     "from their embedded text: check the folder's name", kpath,
			     strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		rj_warn_once("kernel-path", "ROCJIT_KERNEL_PATH=%s is not a folder; registered "
			     "kernels come from their embedded text: name the folder that holds "
			     "the kernel files", kpath);
}

ROCJIT_API int rocjit_open(rocjit_ctx **out, const rocjit_options *opts)
{
	static const rocjit_options defaults = ROCJIT_OPTIONS_INIT;
	const char *target, *kpath = rj_config("ROCJIT_KERNEL_PATH", NULL);
	rocjit_ctx *ctx;
	int rc;

	RJ_CHECK(!out, ROCJIT_EINVAL, "rocjit_open: out is NULL");
	*out = NULL;
	if (!opts)
		opts = &defaults;
	RJ_CHECK(opts->version < 1 || opts->version > ROCJIT_OPTIONS_VERSION, ROCJIT_EINVAL,
		 "rocjit_open: options version %u is not one this library knows (1..%d): "
		 "initialize them with ROCJIT_OPTIONS_INIT", opts->version,
		 ROCJIT_OPTIONS_VERSION);
	RJ_CHECK(opts->device < 0, ROCJIT_EINVAL, "rocjit_open: device %d is negative",
		 opts->device);
	RJ_CHECK(opts->flags & ~(ROCJIT_OPEN_NO_CACHE | ROCJIT_OPEN_NO_COMPILE |
				 ROCJIT_OPEN_READONLY | ROCJIT_OPEN_COMPILE_INPROCESS),
		 ROCJIT_EINVAL, "rocjit_open: unknown flags 0x%x", opts->flags);
	/* Before the cache's (opened below): its fork handlers then run first, taking the
	   caches' locks before the contexts'; nothing nests them the other way. */
	pthread_once(&atfork_once, register_atfork);
	ctx = calloc(1, sizeof *ctx);
	RJ_CHECK(!ctx, ROCJIT_ENOMEM, "out of memory opening a context");
	ctx->gen = atomic_fetch_add(&next_gen, 1) + 1;
	init_locks(ctx);
	ctx->device = opts->device;
	ctx->flags = opts->flags;
	if (rocjit_env_flag("ROCJIT_DISABLE_CACHE"))
		ctx->flags |= ROCJIT_OPEN_NO_CACHE;
	if (rocjit_env_flag("ROCJIT_NO_COMPILE"))
		ctx->flags |= ROCJIT_OPEN_NO_COMPILE;
	target = opts->target ? opts->target : rj_config("ROCJIT_ARCH", NULL);
	if (choose_platform(ctx, opts->platform) != 0 ||
	    (target && *target && rj_target_normalize(ctx->target, target) != 0)) {
		char msg[MSG_MAX];
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		rocjit_close(ctx);
		RJ_FAIL(ROCJIT_EINVAL, "rocjit_open: %s", msg);
	}
	rj_log_level(); /* a ROCJIT_LOG that names no level is said now, not at the first log */
	check_kernel_path(kpath);
	if (kpath && *kpath && !(ctx->kernel_path = strdup(kpath))) {
		rocjit_close(ctx);
		RJ_FAIL(ROCJIT_ENOMEM, "out of memory opening a context");
	}
	if ((rc = rj_signing_open(&ctx->signing, opts)) != 0) {
		char msg[MSG_MAX];
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		rocjit_close(ctx);
		RJ_FAIL(rc, "rocjit_open: %s", msg);
	}
	/* The remote tier's URL before the cache: an open that fails on a mistake in the
	   options creates no cache folder. */
	if (open_remote(ctx, opts) != 0) {
		char msg[MSG_MAX];
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		rocjit_close(ctx);
		RJ_FAIL(ROCJIT_EINVAL, "rocjit_open: %s", msg);
	}
	open_cache(ctx, opts->cache_dir);
	if (ctx->remote && ctx->cache && !rj_cache_readonly(ctx->cache))
		rj_remote_share_breaker(ctx->remote, rj_cache_dirfd(ctx->cache));
	/* Failures are counted across processes in the cache, where they happen. */
	ctx->signing.counts = ctx->cache;
	if (ctx->remote)
		rj_remote_count_in(ctx->remote, ctx->cache);
	/* The bundles named here now (a wrong name is said at once); the one beside the
	   executable at the first lookup that needs it (lookup_local.c). */
	ctx->bundles = rj_bundles_open(opts->version >= 2 ? opts->bundles : NULL);
	pthread_mutex_lock(&ctxs_mu);
	ctx->next_open = ctxs;
	ctxs = ctx;
	pthread_mutex_unlock(&ctxs_mu);
	*out = ctx;
	rj_error_clear();
	return 0;
}

ROCJIT_API void rocjit_close(rocjit_ctx *ctx)
{
	if (!ctx)
		return;
	pthread_mutex_lock(&ctxs_mu);
	for (rocjit_ctx **p = &ctxs; *p; p = &(*p)->next_open)
		if (*p == ctx) {
			*p = ctx->next_open;
			break;
		}
	pthread_mutex_unlock(&ctxs_mu);
	for (struct rocjit_kernel *k = ctx->stale_kernels, *next; k; k = next) {
		next = k->next;
		free(k);
	}
	rj_table_free(ctx);
	rj_sources_free(ctx);
	if (ctx->cache)
		rj_cache_note_counts(ctx->cache, atomic_load(&ctx->misses),
				     atomic_load(&ctx->compiles),
				     (double)atomic_load(&ctx->compile_us) / 1e3);
	rj_remote_persist_counts(ctx);
	rj_remote_close(ctx->remote);
	rj_cache_close(ctx->cache);
	rj_bundles_close(ctx->bundles);
	rj_signing_free(&ctx->signing);
	free(ctx->kernel_path);
	pthread_rwlock_destroy(&ctx->rw);
	pthread_mutex_destroy(&ctx->wait_mu);
	pthread_cond_destroy(&ctx->wait_cv);
	pthread_mutex_destroy(&ctx->load_mu);
	pthread_mutex_destroy(&ctx->store_mu);
	pthread_mutex_destroy(&ctx->bundles_mu);
	free(ctx);
}
