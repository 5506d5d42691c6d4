/*
 * context.c - contexts and the request path: in-process table -> on-disk cache -> compile.
 *
 * Owns the public context, kernel and compile calls.  Talks to the vendor only through
 * the platform interface (platform.h), to SQLite only through cache.h, and never parses
 * code objects itself (codeobj.h).
 *
 * The hit path of rocjit_kernel_get is: normalize options (no allocation), hash the
 * source and the key, take the read lock, find the entry and its kernel.  Everything else
 * happens once per program: the first thread to miss becomes the entry's owner and
 * produces it (disk, else compile) without holding any table lock; threads asking for
 * the same entry meanwhile wait for it instead of compiling it again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj.h"
#include "context.h"
#include "error.h"

#define MSG_MAX 1024

static const struct rj_platform *platform_by_id(int id)
{
	return id == ROCJIT_PLATFORM_AMD ? &rj_platform_amd : NULL;
}

ROCJIT_API const char *rocjit_platform_name(int platform)
{
	switch (platform) {
	case ROCJIT_PLATFORM_AUTO: return "auto";
	case ROCJIT_PLATFORM_AMD: return "amd";
	default: return "unknown";
	}
}

static int env_flag(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

/* The platform from the options or $ROCJIT_PLATFORM; AUTO is AMD in this build. */
static int choose_platform(int requested, const struct rj_platform **out)
{
	const char *env = getenv("ROCJIT_PLATFORM");

	if (requested == ROCJIT_PLATFORM_AUTO && env && *env && strcmp(env, "auto") != 0) {
		RJ_CHECK(strcmp(env, "amd") != 0, ROCJIT_EINVAL,
			 "ROCJIT_PLATFORM=%s is not a platform of this build (amd, auto)", env);
		requested = ROCJIT_PLATFORM_AMD;
	}
	if (requested == ROCJIT_PLATFORM_AUTO)
		requested = ROCJIT_PLATFORM_AMD;
	*out = platform_by_id(requested);
	RJ_CHECK(!*out, ROCJIT_EINVAL, "unknown platform %d (use ROCJIT_PLATFORM_AMD)",
		 requested);
	return 0;
}

static void open_cache(rocjit_ctx *ctx, const char *dir)
{
	char path[4096];
	int rc;

	if (ctx->flags & ROCJIT_OPEN_NO_CACHE)
		return;
	rc = rj_cache_dir(path, sizeof path, dir);
	if (rc == 0)
		rc = rj_cache_open(&ctx->cache, path, !!(ctx->flags & ROCJIT_OPEN_READONLY));
	if (rc != 0)
		rj_warn_once("cache-open", "%s; kernels are compiled and kept in memory only",
			     rocjit_last_error());
	else
		RJ_LOG(RJ_LOG_DEBUG, "cache %s", rj_cache_path(ctx->cache));
}

ROCJIT_API int rocjit_open(rocjit_ctx **out, const rocjit_options *opts)
{
	static const rocjit_options defaults = ROCJIT_OPTIONS_INIT;
	const char *target, *kpath = getenv("ROCJIT_KERNEL_PATH");
	rocjit_ctx *ctx;

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
				 ROCJIT_OPEN_READONLY),
		 ROCJIT_EINVAL, "rocjit_open: unknown flags 0x%x", opts->flags);
	ctx = calloc(1, sizeof *ctx);
	RJ_CHECK(!ctx, ROCJIT_ENOMEM, "out of memory opening a context");
	pthread_rwlock_init(&ctx->rw, NULL);
	pthread_mutex_init(&ctx->wait_mu, NULL);
	pthread_cond_init(&ctx->wait_cv, NULL);
	pthread_mutex_init(&ctx->load_mu, NULL);
	ctx->device = opts->device;
	ctx->flags = opts->flags;
	if (env_flag("ROCJIT_DISABLE_CACHE"))
		ctx->flags |= ROCJIT_OPEN_NO_CACHE;
	if (env_flag("ROCJIT_NO_COMPILE"))
		ctx->flags |= ROCJIT_OPEN_NO_COMPILE;
	target = opts->target ? opts->target : getenv("ROCJIT_ARCH");
	if (choose_platform(opts->platform, &ctx->platform) != 0 ||
	    (target && *target && rj_target_normalize(ctx->target, target) != 0) ||
	    (kpath && *kpath && !(ctx->kernel_path = strdup(kpath)))) {
		char msg[MSG_MAX];
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		rocjit_close(ctx);
		RJ_FAIL(ROCJIT_EINVAL, "rocjit_open: %s", msg);
	}
	open_cache(ctx, opts->cache_dir);
	*out = ctx;
	rj_error_clear();
	return 0;
}

static void free_sources(rocjit_ctx *ctx)
{
	struct rj_source *s = ctx->sources, *next;

	for (; s; s = next) {
		next = s->next;
		free(s->name);
		free(s->display);
		free(s->owned);
		free(s);
	}
	ctx->sources = NULL;
}

ROCJIT_API void rocjit_close(rocjit_ctx *ctx)
{
	if (!ctx)
		return;
	rj_table_free(ctx);
	free_sources(ctx);
	rj_cache_close(ctx->cache);
	free(ctx->kernel_path);
	pthread_rwlock_destroy(&ctx->rw);
	pthread_mutex_destroy(&ctx->wait_mu);
	pthread_cond_destroy(&ctx->wait_cv);
	pthread_mutex_destroy(&ctx->load_mu);
	free(ctx);
}

/* ---- Requests ------------------------------------------------------------------------ */

/* A validated request: what enters the key, plus where diagnostics go. */
struct request {
	const char *source;
	size_t length;
	const char *name;
	const rocjit_header *headers;
	size_t num_headers;
	struct rj_opts opts;
	rj_digest digest;
	char *log;
	size_t log_size;
};

static int check_headers(const rocjit_header *h, size_t n)
{
	RJ_CHECK(n && !h, ROCJIT_EINVAL, "num_headers is %zu but headers is NULL", n);
	for (size_t i = 0; i < n; i++)
		RJ_CHECK(!h[i].name || !*h[i].name || !h[i].source, ROCJIT_EINVAL,
			 "header %zu has no name or no source", i);
	return 0;
}

static int request_from_program(struct request *r, const rocjit_program *p)
{
	RJ_CHECK(!p, ROCJIT_EINVAL, "program is NULL");
	RJ_CHECK(p->version < 1 || p->version > ROCJIT_PROGRAM_VERSION, ROCJIT_EINVAL,
		 "program version %u is not one this library knows (1..%d): initialize it "
		 "with ROCJIT_PROGRAM_INIT", p->version, ROCJIT_PROGRAM_VERSION);
	RJ_CHECK(!p->source, ROCJIT_EINVAL, "program source is NULL");
	RJ_FORWARD(check_headers(p->headers, p->num_headers));
	r->source = p->source;
	r->length = p->length ? p->length : strlen(p->source);
	RJ_CHECK(r->length == 0, ROCJIT_EINVAL, "program source is empty");
	r->name = p->name && *p->name ? p->name : "<source>";
	r->headers = p->headers;
	r->num_headers = p->num_headers;
	r->log = p->log;
	r->log_size = p->log_size;
	if (r->log && r->log_size)
		r->log[0] = 0;
	RJ_FORWARD(rj_opts_normalize(&r->opts, p->options, p->num_options));
	r->digest = rj_digest_of(r->source, r->length);
	return 0;
}

/* ---- Producing an entry: disk, else compile ------------------------------------------- */

static void copy_log(const struct request *r, const char *log)
{
	if (r->log && r->log_size && log)
		snprintf(r->log, r->log_size, "%s", log);
}

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

static char *join_header_names(const struct request *r)
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

/* Stores a fresh code object; failures only cost the next process a compile. */
static void store(rocjit_ctx *ctx, const struct request *r, struct rj_entry *e,
		  const char *compiler, const char *kernels)
{
	struct rj_cache_meta m;
	char *options = rj_opts_join(&r->opts), *headers = join_header_names(r);

	if (!options || !headers) {
		atomic_fetch_add(&ctx->cache_errors, 1);
		goto out;
	}
	m.platform = ctx->platform->name;
	m.target = e->target;
	m.compiler = compiler;
	m.options = options;
	m.source_name = r->name;
	m.headers = headers;
	m.kernels = kernels;
	m.compile_ms = e->code.compile_ms;
	if (rj_cache_put(ctx->cache, &e->key, &m, e->code.data, e->code.size) != 0) {
		atomic_fetch_add(&ctx->cache_errors, 1);
		rj_warn_once("cache-put", "%s; the kernel is still used", rocjit_last_error());
	}
out:
	free(options);
	free(headers);
}

static int compile(rocjit_ctx *ctx, const struct request *r, struct rj_entry *e,
		   const char *compiler)
{
	struct rj_compile_req req;
	struct rj_compile_out out;
	char *source, *kernels = NULL, hex[33], first[512];
	double t0;
	int rc;

	rj_key_hex(&e->key, hex);
	RJ_CHECK(ctx->flags & ROCJIT_OPEN_NO_COMPILE, ROCJIT_ENOTCACHED,
		 "%s for %s is not in the cache (key %s) and compiling is forbidden "
		 "(ROCJIT_NO_COMPILE or ROCJIT_OPEN_NO_COMPILE): prewarm the cache for this "
		 "target, or allow compiling", r->name, e->target, hex);
	RJ_CHECK(memchr(r->source, 0, r->length) != NULL, ROCJIT_EINVAL,
		 "%s contains a NUL byte: kernel source must be text", r->name);
	RJ_FORWARD(ctx->platform->target_check(e->target));
	source = malloc(r->length + 1);
	RJ_CHECK(!source, ROCJIT_ENOMEM, "out of memory compiling %s", r->name);
	memcpy(source, r->source, r->length);
	source[r->length] = 0;
	req.source = source;
	req.name = r->name;
	req.options = &r->opts;
	req.headers = r->headers;
	req.num_headers = r->num_headers;
	t0 = rj_now_ms();
	rc = ctx->platform->compile(e->target, &req, &out);
	free(source);
	e->code.compile_ms = rj_now_ms() - t0;
	copy_log(r, out.log);
	if (rc != 0) {
		char msg[MSG_MAX];
		atomic_fetch_add(&ctx->compile_errors, 1);
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		first_error(first, sizeof first, out.log);
		free(out.log);
		RJ_LOG(RJ_LOG_INFO, "compile failed key=%s target=%s source=%s %.1f ms", hex,
		       e->target, r->name, e->code.compile_ms);
		if (rc == ROCJIT_ECOMPILE)
			RJ_FAIL(rc, "%s did not compile for %s%s", r->name, e->target,
				first[0] ? first : " (no diagnostics; see the log)");
		RJ_FAIL(rc, "%s", msg);
	}
	if (out.log && *out.log)
		RJ_LOG(RJ_LOG_INFO, "compiler said for %s:\n%s", r->name, out.log);
	free(out.log);
	atomic_fetch_add(&ctx->compiles, 1);
	atomic_fetch_add(&ctx->compile_us, (uint64_t)(e->code.compile_ms * 1e3));
	rc = rj_codeobj_check(out.code, out.size, e->target, &kernels);
	if (rc != 0) {
		char msg[MSG_MAX];
		snprintf(msg, sizeof msg, "%s", rocjit_last_error());
		free(out.code);
		RJ_FAIL(rc, "the compiler returned an unusable code object for %s: %s", r->name,
			msg);
	}
	e->code.data = out.code;
	e->code.size = out.size;
	e->code.from_cache = 0;
	RJ_LOG(RJ_LOG_INFO, "compiled key=%s target=%s source=%s kernels=%s %zu bytes in %.1f ms",
	       hex, e->target, r->name, kernels, out.size, e->code.compile_ms);
	if (ctx->cache)
		store(ctx, r, e, compiler, kernels);
	free(kernels);
	return 0;
}

static int produce(rocjit_ctx *ctx, const struct request *r, struct rj_entry *e,
		   const char *compiler)
{
	char hex[33];

	if (ctx->cache) {
		void *code;
		size_t size;
		double t0 = rj_now_ms(), ms = 0;
		int rc = rj_cache_get(ctx->cache, &e->key, &code, &size, &ms);

		if (rc == 1) {
			e->code.data = code;
			e->code.size = size;
			e->code.compile_ms = ms;
			e->code.from_cache = 1;
			atomic_fetch_add(&ctx->disk_hits, 1);
			if (rj_log_level() >= RJ_LOG_INFO) {
				rj_key_hex(&e->key, hex);
				rj_log(RJ_LOG_INFO, "hit key=%s target=%s source=%s %zu bytes in "
				       "%.3f ms (compiling took %.1f ms)", hex, e->target, r->name,
				       size, rj_now_ms() - t0, ms);
			}
			return 0;
		}
		if (rc < 0) {
			atomic_fetch_add(&ctx->cache_errors, 1);
			rj_warn_once("cache-get", "%s; compiling instead", rocjit_last_error());
		}
	}
	atomic_fetch_add(&ctx->misses, 1);
	if (rj_log_level() >= RJ_LOG_INFO) {
		rj_key_hex(&e->key, hex);
		rj_log(RJ_LOG_INFO, "miss key=%s target=%s source=%s", hex, e->target, r->name);
	}
	return compile(ctx, r, e, compiler);
}

/* Wakes the threads waiting for e after its owner changed its state. */
static void publish(rocjit_ctx *ctx, struct rj_entry *e, int rc)
{
	pthread_rwlock_wrlock(&ctx->rw);
	if (rc == 0) {
		e->state = RJ_READY;
	} else {
		free(e->error);
		e->error = strdup(rocjit_last_error());
		e->rc = rc;
		e->state = RJ_FAILED;
	}
	pthread_rwlock_unlock(&ctx->rw);
	pthread_mutex_lock(&ctx->wait_mu);
	pthread_cond_broadcast(&ctx->wait_cv);
	pthread_mutex_unlock(&ctx->wait_mu);
}

/*
 * Returns the READY entry for the request and target, producing it if this thread is
 * the first to ask.  A FAILED entry is retried by the next request that finds it (its
 * error may have been passing: a full disk, a missing library installed since); the
 * threads that waited for the failed attempt get its error.
 */
static int get_entry(struct rj_entry **out, rocjit_ctx *ctx, const struct request *r,
		     const char *target)
{
	const char *compiler = ctx->platform->compiler_id();
	struct rj_key_input in;
	struct rj_entry *e;
	rj_key key;
	int rc, owner = 0;

	RJ_CHECK(!compiler, ROCJIT_ENOCOMPILER, "%s", rocjit_last_error());
	in.platform = ctx->platform->id;
	in.target = target;
	in.compiler = compiler;
	in.options = &r->opts;
	in.headers = r->headers;
	in.num_headers = r->num_headers;
	in.source = r->digest;
	key = rj_key_compute(&in);

	pthread_rwlock_rdlock(&ctx->rw);
	e = rj_table_find(ctx, &key);
	if (e && e->state == RJ_READY) {
		pthread_rwlock_unlock(&ctx->rw);
		atomic_fetch_add(&ctx->memory_hits, 1);
		*out = e;
		return 0;
	}
	pthread_rwlock_unlock(&ctx->rw);

	pthread_rwlock_wrlock(&ctx->rw);
	e = rj_table_find(ctx, &key);
	if (!e) {
		e = rj_table_add(ctx, &key);
		if (e) {
			snprintf(e->target, sizeof e->target, "%s", target);
			e->code.target = e->target;
			rj_key_hex(&key, e->code.key);
			owner = 1;
		}
	} else if (e->state == RJ_FAILED) {
		e->state = RJ_PENDING;
		owner = 1;
	}
	pthread_rwlock_unlock(&ctx->rw);
	RJ_CHECK(!e, ROCJIT_ENOMEM, "out of memory in the kernel table");

	if (owner) {
		rc = produce(ctx, r, e, compiler);
		publish(ctx, e, rc);
		*out = e;
		return rc;
	}
	/* Another thread owns it: wait for its result instead of compiling it again. */
	rc = 0;
	pthread_mutex_lock(&ctx->wait_mu);
	for (;;) {
		enum rj_state st;
		pthread_rwlock_rdlock(&ctx->rw);
		st = e->state;
		if (st == RJ_FAILED)
			rc = rj_error_set(e->rc, __FILE__, __LINE__, "%s", e->error ? e->error : "");
		pthread_rwlock_unlock(&ctx->rw);
		if (st != RJ_PENDING)
			break;
		pthread_cond_wait(&ctx->wait_cv, &ctx->wait_mu);
	}
	pthread_mutex_unlock(&ctx->wait_mu);
	*out = e;
	if (rc == 0)
		atomic_fetch_add(&ctx->memory_hits, 1);
	return rc;
}

/* The context's target for code that will run on its device: the override, else the
 * device's own.  Looks at the device once. */
static int device_target(rocjit_ctx *ctx, const char **out)
{
	int rc;

	pthread_mutex_lock(&ctx->load_mu);
	if (ctx->device_state == 0) {
		char raw[256];
		rc = ctx->platform->device_target(ctx->device, raw, sizeof raw);
		if (rc == 0)
			rc = rj_target_normalize(ctx->device_target, raw);
		ctx->device_state = rc == 0 ? 1 : rc;
		if (rc == 0)
			RJ_LOG(RJ_LOG_DEBUG, "device %d is %s", ctx->device, ctx->device_target);
		else
			snprintf(ctx->device_error, sizeof ctx->device_error, "%s",
				 rocjit_last_error());
	}
	rc = ctx->device_state;
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
	RJ_CHECK(rc, rc, "no GPU found and no target id given (%s): pass a target to "
		 "rocjit_compile, or set ROCJIT_ARCH (e.g. ROCJIT_ARCH=gfx90a) or "
		 "rocjit_options.target", ctx->device_error);
	return 0;
}

static int compile_request(const rocjit_code **out, rocjit_ctx *ctx, const char *target,
			   struct request *r)
{
	struct rj_entry *e;
	int rc = get_entry(&e, ctx, r, target);

	rj_opts_release(&r->opts);
	RJ_FORWARD(rc);
	*out = &e->code;
	rj_error_clear();
	return 0;
}

ROCJIT_API int rocjit_compile(const rocjit_code **out, rocjit_ctx *ctx, const char *target,
			      const rocjit_program *prog)
{
	char norm[RJ_TARGET_MAX];
	struct request r;

	RJ_CHECK(!out || !ctx, ROCJIT_EINVAL, "rocjit_compile: out or ctx is NULL");
	*out = NULL;
	RJ_FORWARD(compile_target(ctx, target, norm, &target));
	RJ_FORWARD(request_from_program(&r, prog));
	return compile_request(out, ctx, target, &r);
}

/* ---- Kernels ----------------------------------------------------------------------------- */

static struct rocjit_kernel *find_kernel(const struct rj_entry *e, const char *name)
{
	for (struct rocjit_kernel *k = e->kernels; k; k = k->next)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

/* Loads e's module on the device (once) and fetches the named function (once). */
static int load_kernel(rocjit_kernel **out, rocjit_ctx *ctx, struct rj_entry *e,
		       const char *name)
{
	struct rocjit_kernel *k;
	void *module, *fn;
	int rc = 0;

	pthread_mutex_lock(&ctx->load_mu);
	pthread_rwlock_rdlock(&ctx->rw);
	module = e->module;
	k = find_kernel(e, name);
	pthread_rwlock_unlock(&ctx->rw);
	if (k)
		goto out;
	if (!module) {
		rc = ctx->platform->module_load(ctx->device, e->code.data, e->code.size, &module);
		if (rc)
			goto out;
		pthread_rwlock_wrlock(&ctx->rw);
		e->module = module;
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
	k->function = fn;
	k->entry = e;
	memcpy(k->name, name, strlen(name) + 1);
	pthread_rwlock_wrlock(&ctx->rw);
	k->next = e->kernels;
	e->kernels = k;
	pthread_rwlock_unlock(&ctx->rw);
out:
	pthread_mutex_unlock(&ctx->load_mu);
	*out = k;
	return rc;
}

static int kernel_get(rocjit_kernel **out, rocjit_ctx *ctx, struct request *r,
		      const char *kernel_name)
{
	struct rj_entry *e;
	struct rocjit_kernel *k;
	const char *target;
	int rc;

	rc = device_target(ctx, &target);
	if (rc == 0)
		rc = get_entry(&e, ctx, r, target);
	rj_opts_release(&r->opts);
	RJ_FORWARD(rc);
	pthread_rwlock_rdlock(&ctx->rw);
	k = find_kernel(e, kernel_name);
	pthread_rwlock_unlock(&ctx->rw);
	if (!k)
		RJ_FORWARD(load_kernel(&k, ctx, e, kernel_name));
	*out = k;
	rj_error_clear();
	return 0;
}

ROCJIT_API int rocjit_kernel_get(rocjit_kernel **out, rocjit_ctx *ctx,
				 const rocjit_program *prog, const char *kernel_name)
{
	struct request r;

	RJ_CHECK(!out || !ctx || !kernel_name || !*kernel_name, ROCJIT_EINVAL,
		 "rocjit_kernel_get: out, ctx and kernel_name must be given");
	*out = NULL;
	RJ_FORWARD(request_from_program(&r, prog));
	return kernel_get(out, ctx, &r, kernel_name);
}

/* Reads dir/name into a malloc'ed buffer. 1 read, 0 no such file, <0 error. */
static int read_kernel_file(char **text, size_t *len, char **display, const char *dir,
			    const char *name)
{
	char path[4096];
	FILE *f;
	long n;

	RJ_CHECK((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path,
		 ROCJIT_EINVAL, "ROCJIT_KERNEL_PATH path too long");
	f = fopen(path, "rb");
	if (!f && errno == ENOENT)
		return 0;
	RJ_CHECK(!f, ROCJIT_EIO, "cannot read %s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    !(*text = malloc((size_t)n + 1)) || fread(*text, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		RJ_FAIL(ROCJIT_EIO, "cannot read %s", path);
	}
	fclose(f);
	(*text)[n] = 0;
	*len = (size_t)n;
	*display = strdup(path);
	return 1;
}

/*
 * The context's view of a registered source, resolved once: the file in
 * $ROCJIT_KERNEL_PATH when there is one (the kernel developer's edit loop), else the
 * embedded text.  Its digest is computed here, so later requests hash no source at all.
 */
static int resolve_source(const struct rj_source **out, rocjit_ctx *ctx, const char *name)
{
	const rocjit_source_file *f = NULL;
	struct rj_source *s;
	int rc = 0;

	pthread_rwlock_rdlock(&ctx->rw);
	for (s = ctx->sources; s && strcmp(s->name, name) != 0; s = s->next)
		;
	pthread_rwlock_unlock(&ctx->rw);
	if (s) {
		*out = s;
		return 0;
	}
	s = calloc(1, sizeof *s);
	RJ_CHECK(!s, ROCJIT_ENOMEM, "out of memory");
	if (ctx->kernel_path)
		rc = read_kernel_file(&s->owned, &s->length, &s->display, ctx->kernel_path, name);
	if (rc == 1) {
		s->text = s->owned;
		RJ_LOG(RJ_LOG_INFO, "using %s instead of the embedded %s", s->display, name);
	} else if (rc == 0) {
		rc = rocjit_registered_source(&f, name);
		if (rc == 0 && ctx->kernel_path)
			RJ_LOG(RJ_LOG_DEBUG, "%s is not in ROCJIT_KERNEL_PATH=%s: embedded text",
			       name, ctx->kernel_path);
		if (rc == 0) {
			s->text = f->text;
			s->length = f->length;
			s->display = strdup(name);
		}
	}
	s->name = strdup(name);
	if (rc < 0 || !s->name || !s->display) {
		free(s->owned);
		free(s->display);
		free(s->name);
		free(s);
		RJ_CHECK(rc == 0, ROCJIT_ENOMEM, "out of memory");
		return rc;
	}
	s->digest = rj_digest_of(s->text, s->length);
	pthread_rwlock_wrlock(&ctx->rw);
	{
		/* Another thread may have resolved it meanwhile: keep the first. */
		struct rj_source *t;
		for (t = ctx->sources; t && strcmp(t->name, name) != 0; t = t->next)
			;
		if (t) {
			free(s->owned);
			free(s->display);
			free(s->name);
			free(s);
			s = t;
		} else {
			s->next = ctx->sources;
			ctx->sources = s;
		}
	}
	pthread_rwlock_unlock(&ctx->rw);
	*out = s;
	return 0;
}

static int request_from_registered(struct request *r, rocjit_ctx *ctx, const char *source_name,
				   const char *const *options, size_t num_options)
{
	const struct rj_source *s = NULL;

	RJ_CHECK(!source_name, ROCJIT_EINVAL, "source_name is NULL");
	RJ_FORWARD(resolve_source(&s, ctx, source_name));
	memset(r, 0, sizeof *r);
	r->source = s->text;
	r->length = s->length;
	r->name = s->display;
	r->digest = s->digest;
	return rj_opts_normalize(&r->opts, options, num_options);
}

ROCJIT_API int rocjit_compile_registered(const rocjit_code **out, rocjit_ctx *ctx,
					 const char *target, const char *source_name,
					 const char *const *options, size_t num_options)
{
	char norm[RJ_TARGET_MAX];
	struct request r;

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
	struct request r;

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
	return k->platform->launch(k->function, grid, block, shared_bytes, stream, args);
}

/* ---- Statistics ---------------------------------------------------------------------------- */

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
	if (ctx->cache) {
		snprintf(out->cache_path, sizeof out->cache_path, "%s", rj_cache_path(ctx->cache));
		if (rj_cache_totals(ctx->cache, &out->entries, &out->bytes) != 0)
			atomic_fetch_add(&ctx->cache_errors, 1);
	}
	rj_error_clear();
	return 0;
}
