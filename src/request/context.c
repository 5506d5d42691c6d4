/*
 * context.c - the public context, kernel, compile and statistics calls.
 *
 * Owns argument checking, target resolution (override, else the device's, looked at
 * once), module loading and function lookup.  Slots of the table are filled by lookup.c;
 * this file never talks to SQLite or a compiler itself.
 *
 * The hit path of rocjit_kernel_get is: normalize options (no allocation), hash the
 * source and the key, take the read lock, find the slot and its kernel.
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
#include <unistd.h>

#include "request/context.h"
#include "base/error.h"

#define MSG_MAX 1024

/* The platform from the options, else $ROCJIT_PLATFORM; AUTO is decided at the device. */
static int choose_platform(rocjit_ctx *ctx, int requested)
{
	const char *env = getenv("ROCJIT_PLATFORM");

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
static atomic_uint forks;          /* fork()s since the first open: a kernel's birth mark */
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
	atomic_fetch_add(&forks, 1);
	for (rocjit_ctx *ctx = ctxs; ctx; ctx = ctx->next_open)
		child_fixup(ctx);
	pthread_mutex_init(&ctxs_mu, NULL);
}

static void register_atfork(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/*
 * The remote tier of rocjit_options.remote (version 3), else $ROCJIT_REMOTE.  Connects to
 * nothing: the first request that misses the local tiers does.  A wrong URL in the
 * options fails the open (the caller wrote it); one in the environment, or a build
 * without the tier, is a warning and a context without it (a job must not fail on the
 * fleet's setting).
 */
static int open_remote(rocjit_ctx *ctx, const rocjit_options *opts)
{
	int from_options = opts->version >= 3 && opts->remote;
	const char *url = from_options ? opts->remote : getenv("ROCJIT_REMOTE");
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
	return 0;
}

ROCJIT_API int rocjit_open(rocjit_ctx **out, const rocjit_options *opts)
{
	static const rocjit_options defaults = ROCJIT_OPTIONS_INIT;
	const char *target, *kpath = getenv("ROCJIT_KERNEL_PATH");
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
	target = opts->target ? opts->target : getenv("ROCJIT_ARCH");
	if (choose_platform(ctx, opts->platform) != 0 ||
	    (target && *target && rj_target_normalize(ctx->target, target) != 0)) {
		char msg[MSG_MAX];
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		rocjit_close(ctx);
		RJ_FAIL(ROCJIT_EINVAL, "rocjit_open: %s", msg);
	}
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

/* ---- Requests ------------------------------------------------------------------------ */

static int check_headers(const rocjit_header *h, size_t n)
{
	RJ_CHECK(n && !h, ROCJIT_EINVAL, "num_headers is %zu but headers is NULL", n);
	for (size_t i = 0; i < n; i++)
		RJ_CHECK(!h[i].name || !*h[i].name || !h[i].source, ROCJIT_EINVAL,
			 "header %zu has no name or no source", i);
	return 0;
}

/* Name expressions are stored one a line, tab before the lowered name (kernel_names.c). */
static int check_name_expressions(const char *const *e, size_t n)
{
	RJ_CHECK(n && !e, ROCJIT_EINVAL, "num_name_expressions is %zu but name_expressions "
		 "is NULL", n);
	for (size_t i = 0; i < n; i++) {
		RJ_CHECK(!e[i] || !*e[i], ROCJIT_EINVAL, "name expression %zu is NULL or empty",
			 i);
		for (const char *c = e[i]; *c; c++)
			RJ_CHECK((unsigned char)*c < 0x20 || *c == 0x7f, ROCJIT_EINVAL,
				 "name expression %zu (\"%s\") holds a control character: "
				 "write it on one line, without tabs", i, e[i]);
	}
	return 0;
}

/*
 * The program's headers, sizeof(rocjit_header) apart, for the layers below.  A caller
 * whose rocjit_header is another size (header_size, version 3: a later release's, larger)
 * gets a packed copy of the fields this library knows, freed by request_release.
 */
static int take_headers(struct rj_request *r, const rocjit_program *p)
{
	size_t stride = p->version >= 3 && p->header_size ? p->header_size : sizeof(rocjit_header);
	rocjit_header *copy;

	r->headers = p->headers;
	r->num_headers = p->num_headers;
	r->owned_headers = NULL;
	RJ_CHECK(stride < sizeof(rocjit_header), ROCJIT_EINVAL, "program header_size %zu is "
		 "smaller than a rocjit_header (%zu bytes): set it to sizeof(rocjit_header)",
		 stride, sizeof(rocjit_header));
	if (stride == sizeof(rocjit_header) || !p->num_headers || !p->headers)
		return check_headers(r->headers, r->num_headers);
	RJ_CHECK(p->num_headers > SIZE_MAX / stride, ROCJIT_EINVAL, "num_headers %zu is too "
		 "large", p->num_headers);
	copy = malloc(p->num_headers * sizeof *copy);
	RJ_CHECK(!copy, ROCJIT_ENOMEM, "out of memory reading the program's headers");
	for (size_t i = 0; i < p->num_headers; i++)
		memcpy(&copy[i], (const char *)p->headers + i * stride, sizeof *copy);
	r->headers = r->owned_headers = copy;
	return check_headers(r->headers, r->num_headers);
}

/* Releases what request_from_program or request_from_registered took. */
static void request_release(struct rj_request *r)
{
	rj_opts_release(&r->opts);
	free(r->owned_headers);
	r->owned_headers = NULL;
}

static int request_from_program(struct rj_request *r, const rocjit_program *p)
{
	int rc;

	r->owned_headers = NULL;
	RJ_CHECK(!p, ROCJIT_EINVAL, "program is NULL");
	RJ_CHECK(p->version < 1 || p->version > ROCJIT_PROGRAM_VERSION, ROCJIT_EINVAL,
		 "program version %u is not one this library knows (1..%d): initialize it "
		 "with ROCJIT_PROGRAM_INIT", p->version, ROCJIT_PROGRAM_VERSION);
	RJ_CHECK(!p->source, ROCJIT_EINVAL, "program source is NULL");
	r->header_digests = NULL;
	r->source = p->source;
	r->length = p->length ? p->length : strlen(p->source);
	RJ_CHECK(r->length == 0, ROCJIT_EINVAL, "program source is empty");
	r->name = p->name && *p->name ? p->name : "<source>";
	r->language = rocjit_program_language(p->version >= 2 ? p->language : ROCJIT_LANG_AUTO,
					      p->name);
	RJ_CHECK(r->language < 0, ROCJIT_EINVAL, "program language %d is not one of "
		 "ROCJIT_LANG_AUTO, ROCJIT_LANG_HIP, ROCJIT_LANG_CUDA", p->language);
	r->name_expressions = p->version >= 2 ? p->name_expressions : NULL;
	r->num_name_expressions = p->version >= 2 ? p->num_name_expressions : 0;
	RJ_FORWARD(check_name_expressions(r->name_expressions, r->num_name_expressions));
	/* p->log and p->log_size are never looked at: the log is rocjit_last_log(). */
	rc = take_headers(r, p);
	if (rc == 0)
		rc = rj_opts_normalize(&r->opts, p->options, p->num_options);
	if (rc != 0) {
		free(r->owned_headers);
		r->owned_headers = NULL;
		return rc;
	}
	r->digest = rj_digest_of(r->source, r->length);
	return 0;
}

/* The context's target for code that will run on its device: the override, else the
 * device's own.  Looks at the device once. */
static int device_target(rocjit_ctx *ctx, const char **out)
{
	int rc;

	if (atomic_load_explicit(&ctx->device_state, memory_order_acquire) == 1) {
		*out = ctx->target[0] ? ctx->target : ctx->device_target;
		return 0;
	}
	pthread_mutex_lock(&ctx->load_mu);
	if (ctx->device_state == 0) {
		char raw[256], first[512] = "";
		if (ctx->platform) {
			rc = ctx->platform->device_target(ctx->device, raw, sizeof raw);
		} else {
			/* AUTO: whichever GPU is present, NVIDIA's first. */
			rc = rj_platform_nvidia.device_target(ctx->device, raw, sizeof raw);
			if (rc == 0) {
				ctx->platform = &rj_platform_nvidia;
			} else {
				snprintf(first, sizeof first, "%s", rocjit_last_error());
				rc = rj_platform_amd.device_target(ctx->device, raw, sizeof raw);
				if (rc == 0)
					ctx->platform = &rj_platform_amd;
				else
					rj_error_set(rc, __FILE__, __LINE__, "%s; %s", first,
						     rocjit_last_error());
			}
		}
		if (rc == 0)
			rc = rj_target_normalize(ctx->device_target, raw);
		atomic_store_explicit(&ctx->device_state, rc == 0 ? 1 : rc, memory_order_release);
		if (rc == 0)
			RJ_LOG(RJ_LOG_DEBUG, "device %d is %s", ctx->device, ctx->device_target);
		else
			snprintf(ctx->device_error, sizeof ctx->device_error,
				 "%s: to compile without a GPU, give a target id (ROCJIT_ARCH=gfx90a "
				 "or sm_90, or rocjit_options.target) and use rocjit_compile",
				 rocjit_last_error());
	}
	rc = atomic_load_explicit(&ctx->device_state, memory_order_relaxed);
	pthread_mutex_unlock(&ctx->load_mu);
	/* The cause does not change: repeat it for this thread. */
	RJ_CHECK(rc < 0, rc, "%s", ctx->device_error);
	*out = ctx->target[0] ? ctx->target : ctx->device_target;
	return 0;
}

/* The target for rocjit_compile: the argument, else the override, else the device's. */
static int compile_target(rocjit_ctx *ctx, const char *target, char norm[RJ_TARGET_MAX],
			  const char **out)
{
	int rc;

	if (target) {
		RJ_FORWARD(rj_target_normalize(norm, target));
		*out = norm;
		return 0;
	}
	if (ctx->target[0]) {
		*out = ctx->target; /* ROCJIT_ARCH or rocjit_options.target: no device needed */
		return 0;
	}
	rc = device_target(ctx, out);
	RJ_CHECK(rc, rc, "no target id given and %s", ctx->device_error);
	return 0;
}

static int compile_request(const rocjit_code **out, rocjit_ctx *ctx, const char *target,
			   struct rj_request *r)
{
	struct rj_lookup lk;
	struct rj_slot *s;
	int rc = rj_lookup_init(&lk, ctx, r, target);

	if (rc == 0)
		rc = rj_slot_get(&s, ctx, r, &lk);

	request_release(r);
	RJ_FORWARD(rc);
	*out = &s->code;
	rj_error_clear();
	return 0;
}

ROCJIT_API int rocjit_compile(const rocjit_code **out, rocjit_ctx *ctx, const char *target,
			      const rocjit_program *prog)
{
	char norm[RJ_TARGET_MAX];
	struct rj_request r;

	rj_last_log_clear();
	RJ_CHECK(!out || !ctx, ROCJIT_EINVAL, "rocjit_compile: out or ctx is NULL");
	*out = NULL;
	RJ_FORWARD(compile_target(ctx, target, norm, &target));
	RJ_FORWARD(request_from_program(&r, prog));
	return compile_request(out, ctx, target, &r);
}

ROCJIT_API int rocjit_code_lowered_name(const char **out, const rocjit_code *code,
					const char *expression)
{
	const struct rj_slot *s;

	RJ_CHECK(!out || !code || !expression, ROCJIT_EINVAL,
		 "rocjit_code_lowered_name: out, code and expression must be given");
	/* Every rocjit_code the library hands out is a slot's (rocjit_compile). */
	s = (const struct rj_slot *)(const void *)((const char *)code -
						   offsetof(struct rj_slot, code));
	*out = rj_names_lowered(s->names, expression);
	RJ_CHECK(!*out, ROCJIT_ENOTFOUND, "\"%s\" is not a name expression of this code "
		 "object's program: list it in rocjit_program.name_expressions (the exact "
		 "string) when compiling", expression);
	rj_error_clear();
	return 0;
}

/* ---- Kernels ----------------------------------------------------------------------------- */

static struct rocjit_kernel *find_kernel(const struct rj_slot *s, const char *name)
{
	for (struct rocjit_kernel *k = s->kernels; k; k = k->next)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

/* Loads s's module on the device (once) and fetches the named function (once). */
static int load_kernel(rocjit_kernel **out, rocjit_ctx *ctx, struct rj_slot *s,
		       const char *name)
{
	struct rocjit_kernel *k;
	void *module, *fn;
	int rc = 0;

	pthread_mutex_lock(&ctx->load_mu);
	pthread_rwlock_rdlock(&ctx->rw);
	module = s->module;
	k = find_kernel(s, name);
	pthread_rwlock_unlock(&ctx->rw);
	if (k)
		goto out;
	if (!module) {
		rc = ctx->platform->module_load(ctx->device, s->code.data, s->code.size, &module);
		if (rc)
			goto out;
		pthread_rwlock_wrlock(&ctx->rw);
		s->module = module;
		pthread_rwlock_unlock(&ctx->rw);
	}
	rc = ctx->platform->function_get(module, name, &fn);
	if (rc)
		goto out;
	k = malloc(sizeof *k + strlen(name) + 1);
	if (!k) {
		rc = rj_error_set(ROCJIT_ENOMEM, __FILE__, __LINE__, "out of memory");
		goto out;
	}
	k->platform = ctx->platform;
	k->device = ctx->device;
	k->forks = atomic_load_explicit(&forks, memory_order_relaxed);
	k->function = fn;
	k->slot = s;
	memcpy(k->name, name, strlen(name) + 1);
	pthread_rwlock_wrlock(&ctx->rw);
	k->next = s->kernels;
	s->kernels = k;
	pthread_rwlock_unlock(&ctx->rw);
out:
	pthread_mutex_unlock(&ctx->load_mu);
	*out = k;
	return rc;
}

/*
 * The hit path: one read lock finds both the slot and its kernel.  The first request
 * for a program or a kernel name takes the slow path once.
 */
static int kernel_get(rocjit_kernel **out, rocjit_ctx *ctx, struct rj_request *r,
		      const char *kernel_name)
{
	struct rj_lookup lk;
	struct rj_slot *s;
	struct rocjit_kernel *k = NULL;
	const char *target;
	int rc;

	rc = device_target(ctx, &target);
	if (rc == 0 && rj_platform_for_target(target) != ctx->platform)
		rc = rj_error_set(ROCJIT_EINVAL, __FILE__, __LINE__,
				  "target %s cannot run on device %d, an %s GPU: fix ROCJIT_ARCH or "
				  "rocjit_options.target", target, ctx->device, ctx->platform->name);
	if (rc == 0)
		rc = rj_lookup_init(&lk, ctx, r, target);
	if (rc == 0) {
		pthread_rwlock_rdlock(&ctx->rw);
		s = rj_table_find(ctx, &lk.key);
		if (s && s->state == RJ_READY)
			k = find_kernel(s, rj_slot_symbol(s, kernel_name));
		pthread_rwlock_unlock(&ctx->rw);
		if (k)
			atomic_fetch_add_explicit(&ctx->memory_hits, 1, memory_order_relaxed);
		else
			rc = rj_slot_get(&s, ctx, r, &lk);
	}
	request_release(r);
	RJ_FORWARD(rc);
	if (!k)
		RJ_FORWARD(load_kernel(&k, ctx, s, rj_slot_symbol(s, kernel_name)));
	*out = k;
	rj_error_clear();
	return 0;
}

ROCJIT_API int rocjit_kernel_get(rocjit_kernel **out, rocjit_ctx *ctx,
				 const rocjit_program *prog, const char *kernel_name)
{
	struct rj_request r;

	rj_last_log_clear();
	RJ_CHECK(!out || !ctx || !kernel_name || !*kernel_name, ROCJIT_EINVAL,
		 "rocjit_kernel_get: out, ctx and kernel_name must be given");
	*out = NULL;
	/* The same program asked for again by this thread: compared, not hashed. */
	if (prog && prog->version >= 1 && prog->version <= ROCJIT_PROGRAM_VERSION &&
	    prog->source) {
		size_t length = prog->length ? prog->length : strlen(prog->source);
		rocjit_kernel *k = rj_recent_find(ctx, prog, length, kernel_name);
		if (k) {
			atomic_fetch_add_explicit(&ctx->memory_hits, 1, memory_order_relaxed);
			*out = k;
			rj_error_clear();
			return 0;
		}
	}
	RJ_FORWARD(request_from_program(&r, prog));
	RJ_FORWARD(kernel_get(out, ctx, &r, kernel_name));
	rj_recent_add(ctx, prog, r.length, kernel_name, *out);
	return 0;
}

static int request_from_registered(struct rj_request *r, rocjit_ctx *ctx, const char *source_name,
				   const char *const *options, size_t num_options)
{
	const struct rj_source *s = NULL;

	RJ_CHECK(!source_name, ROCJIT_EINVAL, "source_name is NULL");
	RJ_FORWARD(rj_source_resolve(&s, ctx, source_name));
	r->owned_headers = NULL;
	r->source = s->text;
	r->length = s->length;
	r->name = s->display;
	r->digest = s->digest;
	r->language = rocjit_program_language(ROCJIT_LANG_AUTO, source_name);
	r->name_expressions = NULL;
	r->num_name_expressions = 0;
	RJ_FORWARD(rj_source_headers(ctx, &r->headers, &r->header_digests, &r->num_headers));
	return rj_opts_normalize(&r->opts, options, num_options);
}

ROCJIT_API int rocjit_compile_registered(const rocjit_code **out, rocjit_ctx *ctx,
					 const char *target, const char *source_name,
					 const char *const *options, size_t num_options)
{
	char norm[RJ_TARGET_MAX];
	struct rj_request r;

	rj_last_log_clear();
	RJ_CHECK(!out || !ctx, ROCJIT_EINVAL, "rocjit_compile_registered: out or ctx is NULL");
	*out = NULL;
	RJ_FORWARD(compile_target(ctx, target, norm, &target));
	RJ_FORWARD(request_from_registered(&r, ctx, source_name, options, num_options));
	return compile_request(out, ctx, target, &r);
}

ROCJIT_API int rocjit_kernel_get_registered(rocjit_kernel **out, rocjit_ctx *ctx,
					    const char *source_name, const char *kernel_name,
					    const char *const *options, size_t num_options)
{
	struct rj_request r;

	rj_last_log_clear();
	RJ_CHECK(!out || !ctx || !source_name || !kernel_name || !*kernel_name, ROCJIT_EINVAL,
		 "rocjit_kernel_get_registered: out, ctx, source_name and kernel_name must "
		 "be given");
	*out = NULL;
	RJ_FORWARD(request_from_registered(&r, ctx, source_name, options, num_options));
	return kernel_get(out, ctx, &r, kernel_name);
}

ROCJIT_API const char *rocjit_kernel_name(const rocjit_kernel *kernel)
{
	return kernel ? kernel->name : NULL;
}

ROCJIT_API int rocjit_kernel_launch(const rocjit_kernel *k, rocjit_dim3 grid,
				    rocjit_dim3 block, unsigned int shared_bytes, void *stream,
				    void **args)
{
	RJ_CHECK(!k, ROCJIT_EINVAL, "rocjit_kernel_launch: kernel is NULL");
	RJ_CHECK(!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z,
		 ROCJIT_EINVAL, "rocjit_kernel_launch: %s has a zero grid or block dimension",
		 k->name);
	RJ_CHECK(k->forks != atomic_load_explicit(&forks, memory_order_relaxed), ROCJIT_EDEVICE,
		 "rocjit_kernel_launch: %s was loaded before this process was forked: GPU "
		 "runtimes cannot be used across fork(); get kernels in the process that "
		 "launches them", k->name);
	return k->platform->launch(k->function, k->device, grid, block, shared_bytes, stream,
				  args);
}
