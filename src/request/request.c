/*
 * request.c - the public calls on a context's programs: rocjit_compile (a code object),
 * rocjit_kernel_get (a launchable function) and their registered-source forms (launch.c
 * launches what they return).
 *
 * Owns argument checking, target resolution (override, else the device's, looked at
 * once), module loading and function lookup.  Slots of the table are filled by lookup.c;
 * this file never talks to SQLite or a compiler itself.
 *
 * The hit path of rocjit_kernel_get is: normalize options (no allocation), hash the
 * source and the key, take the read lock, find the slot and its kernel.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/search_dirs.h"
#include "request/context.h"
#include "base/error.h"

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

/*
 * Keeps of r's headers those its source reaches (reach.c: the key covers them, and the
 * compile is given them alone), and what their texts expand.  Per request, as the
 * source's digest is: a scan of the source and of the headers it reaches.
 */
static int take_reached(struct rj_request *r)
{
	struct rj_reached reached;

	RJ_FORWARD(rj_reach(&reached, r->name, r->source, r->length, r->headers, NULL,
			    r->num_headers, &r->opts));
	free(r->owned_headers);
	r->owned_headers = reached.headers;
	r->headers = reached.n ? reached.headers : NULL;
	r->num_headers = reached.n;
	r->expands = reached.expands;
	return 0;
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
	r->expands = 0;
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
	if (rc == 0) {
		rc = rj_opts_normalize(&r->opts, p->options, p->num_options);
		if (rc == 0 && r->num_headers && (rc = take_reached(r)) != 0)
			rj_opts_release(&r->opts);
	}
	if (rc != 0) {
		free(r->owned_headers);
		r->owned_headers = NULL;
		return rc;
	}
	r->digest = rj_digest_of(r->source, r->length);
	r->has_search_dirs = rj_search_dirs_digest(&r->opts, &r->search_dirs);
	/* Once per request, not per key (a request computes its key and portable key). */
	r->expands |= rj_key_expansions(r->source, r->length);
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
	k->forks = atomic_load_explicit(&rj_forks, memory_order_relaxed);
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
	int rc;

	RJ_CHECK(!source_name, ROCJIT_EINVAL, "source_name is NULL");
	r->owned_headers = NULL;
	r->name_expressions = NULL;
	r->num_name_expressions = 0;
	RJ_FORWARD(rj_opts_normalize(&r->opts, options, num_options));
	rc = rj_source_take(r, ctx, source_name);
	if (rc != 0) {
		rj_opts_release(&r->opts);
		return rc;
	}
	r->has_search_dirs = rj_search_dirs_digest(&r->opts, &r->search_dirs);
	return 0;
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
