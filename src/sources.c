/*
 * sources.c - a context's view of registered sources: the embedded text, or the file in
 * $ROCJIT_KERNEL_PATH that replaces it while a kernel developer edits it.
 *
 * Owns the context's list of resolved sources (ctx->sources, under ctx->rw).  Each name
 * is resolved once per context, so a registered request hashes no source text at all:
 * its digest is computed here, once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "error.h"

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
}
