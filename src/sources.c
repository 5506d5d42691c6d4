/*
 * sources.c - a context's view of registered sources: the embedded text, or the file in
 * $ROCJIT_KERNEL_PATH that replaces it while a kernel developer edits it.
 *
 * Owns the context's list of resolved sources (ctx->sources, under ctx->rw) and its set
 * of registered headers.  Each name is resolved once per context, so a registered request
 * hashes no source text at all: its digest is computed here, once.
 *
 * Registered headers: every registered file named *.h, *.hpp, *.cuh or *.inc is given to
 * every registered source as an in-memory header under its registered name, so kernels
 * can share code (#include "common.h").  All of them enter every registered source's key:
 * editing any header recompiles the registered kernels of the next run - never a stale
 * hit, at the price of some needless compiles.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "error.h"
#include "fsutil.h"
#include "registry.h"

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

/*
 * The context's view of a registered source, resolved once: the file in
 * $ROCJIT_KERNEL_PATH when there is one (the kernel developer's edit loop), else the
 * embedded text.  Its digest is computed here, so later requests hash no source at all.
 */
int rj_source_resolve(const struct rj_source **out, rocjit_ctx *ctx, const char *name)
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

void rj_sources_free(rocjit_ctx *ctx)
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
	free(ctx->headers);
	free(ctx->header_digests);
	ctx->headers = NULL;
	ctx->header_digests = NULL;
}

static int is_header_name(const char *name)
{
	static const char *const ext[] = { ".h", ".hpp", ".cuh", ".inc" };
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
		size_t n = strlen(ext[i]);
		if (len > n && strcmp(name + len - n, ext[i]) == 0)
			return 1;
	}
	return 0;
}

/* Collects the registered headers, each resolved like a source (ROCJIT_KERNEL_PATH). */
static int resolve_headers(rocjit_ctx *ctx)
{
	const rocjit_source_file **files;
	size_t n, k = 0;

	RJ_FORWARD(rj_registry_snapshot(&files, &n));
	/* A failed earlier attempt may have left arrays behind. */
	free(ctx->headers);
	free(ctx->header_digests);
	ctx->headers = calloc(n ? n : 1, sizeof *ctx->headers);
	ctx->header_digests = calloc(n ? n : 1, sizeof *ctx->header_digests);
	if (!ctx->headers || !ctx->header_digests) {
		free(files);
		RJ_FAIL(ROCJIT_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		const struct rj_source *s;
		if (!is_header_name(files[i]->name))
			continue;
		int rc = rj_source_resolve(&s, ctx, files[i]->name);
		if (rc != 0) {
			free(files);
			return rc;
		}
		ctx->headers[k].name = s->name;
		ctx->headers[k].source = s->text;
		/* An empty header has length 0, which would mean strlen: its text is "". */
		ctx->headers[k].length = s->length;
		ctx->header_digests[k] = s->digest;
		k++;
	}
	free(files);
	ctx->num_headers = k;
	return 0;
}

int rj_source_headers(rocjit_ctx *ctx, const rocjit_header **headers,
		      const rj_digest **digests, size_t *n)
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
	return 0;
}
