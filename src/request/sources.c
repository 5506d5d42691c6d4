/*
 * sources.c - a context's view of registered sources: the embedded text, or the file in
 * $ROCJIT_KERNEL_PATH that replaces it while a kernel developer edits it.
 *
 * Owns the context's list of resolved sources (ctx->sources, under ctx->rw) and its set
 * of registered headers.  Each name is resolved once per context, so a registered request
 * hashes no source text at all: its digest is computed here, once.  Reads the registry
 * (registry.c) and files under $ROCJIT_KERNEL_PATH only; never touches the table, the
 * stores or a compiler.
 *
 * Registered headers: every registered file named *.h, *.hpp, *.cuh or *.inc, and every
 * file registered by rocjit_register_headers whatever its name ("cmath"), is a header a
 * registered source may include under its registered name, so kernels can share code
 * (#include "common.h").  Each source is given, and keyed with, the registered headers it
 * reaches through its includes (reach.c), found once per context at its first request:
 * editing a header recompiles exactly the sources that reach it, and a source's key does
 * not depend on which other files were registered beside it (issue 31).
 *
 * The include rule (rj_include_rewrite, also public as rocjit_include_resolve for the
 * CLI): a quoted include resolves relative to the including file's folder first, then
 * from the registered root, as every C compiler does for files.  Neither vendor compiler
 * can do it for in-memory headers (measured, hipRTC 5.2 and NVRTC 13): hipRTC places the
 * source in a folder of its own, so "rj_ops.h" in ops/unary.hip misses ops/rj_ops.h;
 * NVRTC matches a header by the name as written, even from a header in a subfolder.  So
 * the rule is applied to the text each file is compiled with: a quoted include naming a
 * registered header relative to the file's folder is rewritten to that header's registered
 * name, which both compilers find.  The key hashes the text as rewritten, so the same text
 * in two folders, each with its own "common.h", gets two keys.  Nothing is read from disk
 * for an include: a path that leaves the registered root ("../../x.h") resolves to no
 * registered header and is left as written.  A file at the root needs no rewrite, so
 * flat kernel folders keep their keys.  One corner stays: hipRTC looks beside the
 * including header first, so a rewritten "ops/x.h" inside ops/y.h would reach a registered
 * "ops/ops/x.h" if one existed; NVRTC takes "ops/x.h" exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "request/context.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "compile/inputs.h"
#include "request/reach.h"
#include "request/registry.h"

/*
 * Reads dir/name into a malloc'ed buffer. 1 read, 0 no such file, <0 error.  Opened
 * O_NONBLOCK and checked with fstat before reading: a FIFO or a device in the folder is an
 * error at once, never a hang.
 */
static int read_kernel_file(char **text, size_t *len, char **display, const char *dir,
			    const char *name)
{
	char path[4096];
	struct stat st;
	int fd, rc;

	RJ_CHECK((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path,
		 ROCJIT_EINVAL, "ROCJIT_KERNEL_PATH path too long");
	fd = rj_fs_open_regular(AT_FDCWD, path, O_RDONLY, 0, &st);
	if (fd < 0 && errno == ENOENT)
		return 0;
	RJ_CHECK(fd < 0, ROCJIT_EIO, "cannot read %s (in ROCJIT_KERNEL_PATH): %s; replace it by "
		 "the kernel file, or remove it to use the embedded text", path,
		 rj_fs_why(errno, &st));
	rc = rj_fs_read_all(fd, (size_t)st.st_size, text);
	close(fd);
	RJ_CHECK(rc != 0, ROCJIT_EIO, "cannot read %s (in ROCJIT_KERNEL_PATH): %s", path,
		 strerror(errno));
	*len = (size_t)st.st_size;
	*display = strdup(path);
	return 1;
}


/* s's text as it is compiled: the include rule applied (see the top of this file). */
static int apply_include_rule(struct rj_source *s)
{
	struct rj_registered *files;
	const char **names;
	size_t n, k = 0, len;
	char *text;
	int rc;

	if (!strchr(s->name, '/'))
		return 0;
	RJ_FORWARD(rj_registry_snapshot(&files, &n));
	names = malloc((n ? n : 1) * sizeof *names);
	if (!names) {
		free(files);
		RJ_FAIL(ROCJIT_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		if (files[i].header)
			names[k++] = files[i].file->name;
	rc = rj_include_rewrite(&text, &len, s->name, s->text, s->length, names, k);
	free(names);
	free(files);
	if (rc == 0 && text) {
		free(s->owned);
		s->owned = text;
		s->text = text;
		s->length = len;
	}
	return rc;
}

static void source_free(struct rj_source *s)
{
	rj_reached_free(&s->reached);
	free(s->owned);
	free(s->display);
	free(s->name);
	free(s);
}

/*
 * The context's view of a registered source, resolved once: the file in
 * $ROCJIT_KERNEL_PATH when there is one (the kernel developer's edit loop), else the
 * embedded text.  Its digest is computed here, so later requests hash no source at all.
 */
static int resolve(struct rj_source **out, rocjit_ctx *ctx, const char *name)
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
		source_free(s);
		RJ_CHECK(rc == 0, ROCJIT_ENOMEM, "out of memory");
		return rc;
	}
	rc = apply_include_rule(s);
	if (rc != 0) {
		source_free(s);
		return rc;
	}
	s->digest = rj_digest_of(s->text, s->length);
	s->expands = rj_key_expansions(s->text, s->length); /* once per context */
	pthread_rwlock_wrlock(&ctx->rw);
	{
		/* Another thread may have resolved it meanwhile: keep the first. */
		struct rj_source *t;
		for (t = ctx->sources; t && strcmp(t->name, name) != 0; t = t->next)
			;
		if (t) {
			source_free(s);
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

int rj_source_resolve(const struct rj_source **out, rocjit_ctx *ctx, const char *name)
{
	struct rj_source *s;

	RJ_FORWARD(resolve(&s, ctx, name));
	*out = s;
	return 0;
}

void rj_sources_free(rocjit_ctx *ctx)
{
	struct rj_source *s = ctx->sources, *next;

	for (; s; s = next) {
		next = s->next;
		source_free(s);
	}
	ctx->sources = NULL;
	free(ctx->headers);
	free(ctx->header_digests);
	ctx->headers = NULL;
	ctx->header_digests = NULL;
}

static int name_in(const char *name, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

/* The quoted path of an #include directive starting at line, or NULL; *len its length. */
static const char *quoted_include(const char *line, const char *end, size_t *len)
{
	const char *p = line, *q;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p++ != '#')
		return NULL;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 7 || memcmp(p, "include", 7) != 0)
		return NULL;
	p += 7;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p != '"')
		return NULL;
	q = ++p;
	while (q < end && *q != '"' && *q != '\n')
		q++;
	if (q == end || *q != '"' || q == p)
		return NULL;
	*len = (size_t)(q - p);
	return p;
}

int rj_include_rewrite(char **out, size_t *out_len, const char *name, const char *text,
		       size_t len, const char *const *headers, size_t num_headers)
{
	const char *slash = strrchr(name, '/'), *end = text + len;
	size_t dlen = slash ? (size_t)(slash - name) : 0, cap = 0, n = 0, done = 0;
	char *buf = NULL;

	*out = NULL;
	*out_len = 0;
	if (!slash)
		return 0; /* at the root, relative to the folder is relative to the root */
	for (const char *line = text; line < end;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *path;
		char target[4096];
		size_t plen;

		if (!eol)
			eol = end;
		path = quoted_include(line, eol, &plen);
		if (path && rj_include_join(target, sizeof target, name, dlen, path, plen) == 0 &&
		    name_in(target, headers, num_headers) &&
		    (strlen(target) != plen || memcmp(target, path, plen) != 0)) {
			/* Copy up to the path, then the registered name instead of it. */
			size_t before = (size_t)(path - text) - done, tlen = strlen(target);
			size_t need = n + before + tlen + (len - (size_t)(path - text)) + 1;
			if (need > cap) {
				char *nb;
				cap = need + 256;
				nb = realloc(buf, cap);
				if (!nb) {
					free(buf);
					RJ_FAIL(ROCJIT_ENOMEM, "out of memory reading %s", name);
				}
				buf = nb;
			}
			memcpy(buf + n, text + done, before);
			n += before;
			memcpy(buf + n, target, tlen);
			n += tlen;
			done = (size_t)(path - text) + plen;
		}
		line = eol < end ? eol + 1 : end;
	}
	if (!buf)
		return 0;
	memcpy(buf + n, text + done, len - done);
	n += len - done;
	buf[n] = 0;
	*out = buf;
	*out_len = n;
	return 0;
}

ROCJIT_API int rocjit_include_resolve(char **out, size_t *out_length, const char *name,
				      const char *text, size_t length,
				      const char *const *headers, size_t num_headers)
{
	RJ_CHECK(!out || !out_length || !name || !text || (num_headers && !headers),
		 ROCJIT_EINVAL, "rocjit_include_resolve: NULL argument");
	for (size_t i = 0; i < num_headers; i++)
		RJ_CHECK(!headers[i], ROCJIT_EINVAL, "rocjit_include_resolve: header %zu is NULL",
			 i);
	RJ_FORWARD(rj_include_rewrite(out, out_length, name, text, length ? length :
				      strlen(text), headers, num_headers));
	rj_error_clear();
	return 0;
}

/* Collects the registered headers, each resolved like a source (ROCJIT_KERNEL_PATH). */
static int resolve_headers(rocjit_ctx *ctx)
{
	struct rj_registered *files;
	size_t n, k = 0;

	RJ_FORWARD(rj_registry_snapshot(&files, &n));
	/* A failed earlier attempt may have left arrays behind. */
	free(ctx->headers);
	free(ctx->header_digests);
	ctx->header_expands = 0;
	ctx->headers = calloc(n ? n : 1, sizeof *ctx->headers);
	ctx->header_digests = calloc(n ? n : 1, sizeof *ctx->header_digests);
	if (!ctx->headers || !ctx->header_digests) {
		free(files);
		RJ_FAIL(ROCJIT_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		const struct rj_source *s;
		if (!files[i].header)
			continue;
		int rc = rj_source_resolve(&s, ctx, files[i].file->name);
		if (rc != 0) {
			free(files);
			return rc;
		}
		ctx->headers[k].name = s->name;
		ctx->headers[k].source = s->text;
		/* An empty header has length 0, which would mean strlen: its text is "". */
		ctx->headers[k].length = s->length;
		ctx->header_digests[k] = s->digest;
		ctx->header_expands |= s->expands;
		k++;
	}
	free(files);
	ctx->num_headers = k;
	return 0;
}

int rj_source_headers(rocjit_ctx *ctx, const rocjit_header **headers,
		      const rj_digest **digests, size_t *n, unsigned *expands)
{
	int rc = 0;

	if (!atomic_load_explicit(&ctx->headers_resolved, memory_order_acquire)) {
		pthread_mutex_lock(&ctx->load_mu);
		if (!atomic_load_explicit(&ctx->headers_resolved, memory_order_relaxed)) {
			rc = resolve_headers(ctx);
			atomic_store_explicit(&ctx->headers_resolved, rc == 0,
					      memory_order_release);
		}
		pthread_mutex_unlock(&ctx->load_mu);
		RJ_FORWARD(rc);
	}
	*headers = ctx->num_headers ? ctx->headers : NULL;
	*digests = ctx->num_headers ? ctx->header_digests : NULL;
	*n = ctx->num_headers;
	if (expands)
		*expands = ctx->header_expands;
	return 0;
}

int rj_source_take(struct rj_request *r, rocjit_ctx *ctx, const char *name)
{
	const rocjit_header *all;
	const rj_digest *digests;
	const struct rj_reached *reached;
	struct rj_reached own;
	struct rj_source *s;
	size_t n;
	int rc = 0;

	RJ_FORWARD(resolve(&s, ctx, name));
	r->owned_headers = NULL;
	r->source = s->text;
	r->length = s->length;
	r->name = s->display;
	r->digest = s->digest;
	r->language = rocjit_program_language(ROCJIT_LANG_AUTO, name);
	if (rj_reach_depends_on(&r->opts)) {
		/* -I folders or pre-included headers: this request's own reach. */
		RJ_FORWARD(rj_source_headers(ctx, &all, &digests, &n, NULL));
		RJ_FORWARD(rj_reach(&own, s->name, s->text, s->length, all, digests, n,
				    &r->opts));
		r->owned_headers = own.headers;
		reached = &own;
	} else {
		if (!atomic_load_explicit(&s->reached_done, memory_order_acquire)) {
			RJ_FORWARD(rj_source_headers(ctx, &all, &digests, &n, NULL));
			pthread_mutex_lock(&ctx->load_mu);
			if (!atomic_load_explicit(&s->reached_done, memory_order_relaxed)) {
				rc = rj_reach(&s->reached, s->name, s->text, s->length, all,
					      digests, n, NULL);
				atomic_store_explicit(&s->reached_done, rc == 0,
						      memory_order_release);
			}
			pthread_mutex_unlock(&ctx->load_mu);
			RJ_FORWARD(rc);
		}
		reached = &s->reached;
	}
	r->headers = reached->n ? reached->headers : NULL;
	r->header_digests = reached->n ? reached->digests : NULL;
	r->num_headers = reached->n;
	r->expands = s->expands | reached->expands;
	return 0;
}
