/*
 * registry.c - the process-wide table of registered (embedded) kernel sources.
 *
 * Owns only pointers to static data that generated code registers from constructors,
 * before main, possibly from several shared objects.  Lookups are rare (once per
 * context and name: the context keeps what it resolved, sources.c), so one mutex
 * suffices.  Knows nothing of contexts, and never copies or frees what it points to.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "request/registry.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rj_registered *files;
static size_t count, cap;

static struct rj_registered *find_locked(const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (strcmp(files[i].file->name, name) == 0)
			return &files[i];
	return NULL;
}

/* Element i of an array whose elements are size bytes apart (the _v2 calls: a caller's
 * rocjit_source_file may be a later release's, larger one).  Only the fields this
 * library knows are read through it. */
static const rocjit_source_file *nth(const rocjit_source_file *f, size_t i, size_t size)
{
	return (const rocjit_source_file *)(const void *)((const char *)f + i * size);
}

/*
 * Every public registration.  The first registration of a name keeps its text; a name
 * registered as a header (by rocjit_register_headers, at any time) is a header from then
 * on, so the order in which an application's constructors run cannot decide it.  The
 * table keeps pointers to the caller's elements, which is why they must be aligned.
 */
static int register_files(const char *fn, const rocjit_source_file *f, size_t n,
			  size_t size, int header)
{
	int rc = 0;

	RJ_CHECK(size < sizeof *f || size % _Alignof(rocjit_source_file) != 0, ROCJIT_EINVAL,
		 "%s: elem_size %zu is not sizeof(rocjit_source_file) as a caller knows it "
		 "(at least %zu, a multiple of %zu)", fn, size, sizeof *f,
		 (size_t)_Alignof(rocjit_source_file));
	RJ_CHECK(n && !f, ROCJIT_EINVAL, "%s: files is NULL", fn);
	RJ_CHECK(n > SIZE_MAX / size, ROCJIT_EINVAL, "%s: count %zu is too large", fn, n);
	for (size_t i = 0; i < n; i++) {
		const rocjit_source_file *e = nth(f, i, size);
		RJ_CHECK(!e->name || !*e->name || !e->text, ROCJIT_EINVAL,
			 "%s: file %zu has no name or no text", fn, i);
	}
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const rocjit_source_file *e = nth(f, i, size);
		struct rj_registered *r = find_locked(e->name);
		if (r) {
			r->header |= header; /* the first text wins */
			continue;
		}
		if (count == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			struct rj_registered *nf = realloc(files, ncap * sizeof *nf);
			if (!nf) {
				rc = ROCJIT_ENOMEM;
				break;
			}
			files = nf;
			cap = ncap;
		}
		files[count].file = e;
		files[count].header = header || rocjit_is_header_name(e->name);
		count++;
	}
	pthread_mutex_unlock(&lock);
	RJ_CHECK(rc, rc, "out of memory registering sources");
	rj_error_clear();
	return 0;
}

ROCJIT_API int rocjit_register_sources(const rocjit_source_file *f, size_t n)
{
	return register_files("rocjit_register_sources", f, n, sizeof *f, 0);
}

ROCJIT_API int rocjit_register_headers(const rocjit_source_file *f, size_t n)
{
	return register_files("rocjit_register_headers", f, n, sizeof *f, 1);
}

ROCJIT_API int rocjit_register_sources_v2(const rocjit_source_file *f, size_t n,
					  size_t elem_size)
{
	return register_files("rocjit_register_sources_v2", f, n, elem_size, 0);
}

ROCJIT_API int rocjit_register_headers_v2(const rocjit_source_file *f, size_t n,
					  size_t elem_size)
{
	return register_files("rocjit_register_headers_v2", f, n, elem_size, 1);
}

ROCJIT_API int rocjit_registered_is_header(const char *name)
{
	const struct rj_registered *r;
	int header;

	if (!name)
		return 0;
	pthread_mutex_lock(&lock);
	r = find_locked(name);
	header = r ? r->header : rocjit_is_header_name(name);
	pthread_mutex_unlock(&lock);
	return header;
}

ROCJIT_API int rocjit_registered_source(const rocjit_source_file **out, const char *name)
{
	const rocjit_source_file *f;

	RJ_CHECK(!out || !name, ROCJIT_EINVAL, "rocjit_registered_source: NULL argument");
	pthread_mutex_lock(&lock);
	{
		const struct rj_registered *r = find_locked(name);
		f = r ? r->file : NULL;
	}
	pthread_mutex_unlock(&lock);
	*out = f;
	RJ_CHECK(!f, ROCJIT_ENOTFOUND,
		 "no kernel source is registered as \"%s\": embed it with rocjit_add_kernels() "
		 "or check the name (a path relative to the embedded folder, e.g. \"axpy.hip\")",
		 name);
	rj_error_clear();
	return 0;
}

int rj_registry_snapshot(struct rj_registered **out, size_t *n)
{
	pthread_mutex_lock(&lock);
	*n = count;
	*out = malloc((count ? count : 1) * sizeof **out);
	if (*out && count)
		memcpy(*out, files, count * sizeof *files);
	pthread_mutex_unlock(&lock);
	RJ_CHECK(!*out, ROCJIT_ENOMEM, "out of memory");
	return 0;
}
