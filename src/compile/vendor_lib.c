/*
 * vendor_lib.c - loading vendor libraries once, finding them, and reading a compiler's
 * program log: the parts the AMD and NVIDIA platforms share (vendor_lib.h).
 *
 * Owns no library handle and no vendor state: the platforms keep theirs.  Must not know
 * any vendor's API beyond the program-log pair both compilers have.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/trust.h"
#include "compile/vendor_lib.h"

/* The libraries loaded through a descriptor (open_checked), by their link map, with the
 * path they were named by: the loader knows them as /proc/self/fd/N only.  Written once
 * per library under the lock, read by rj_vendor_file; kept for the process's life, as
 * the libraries are. */
#define CHECKED_MAX 16
static struct {
	const struct link_map *map;
	char *path;
} checked[CHECKED_MAX];
static int nchecked;
static pthread_mutex_t checked_mu = PTHREAD_MUTEX_INITIALIZER;

/*
 * pthread_once makes every other caller wait for the first load and then see what it
 * wrote (rc, error), so both are read without a lock.
 */
int rj_vendor_load_ready(struct rj_vendor_load *l, void (*load)(void))
{
	pthread_once(&l->once, load);
	RJ_CHECK(l->rc, l->rc, "%s", l->error);
	return 0;
}

void rj_vendor_load_fail(struct rj_vendor_load *l, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->error, sizeof l->error, fmt, ap);
	va_end(ap);
	l->rc = code;
}

/*
 * A library named by a path (ROCJIT_HIP_LIBRARY, ROCJIT_NVRTC_LIBRARY, a toolkit's
 * folder) is code this process runs, so it falls under the trust rule (base/trust.h):
 * opened without blocking (a FIFO would hold every compile of the process in the one-time
 * load, a cache hit's included), a regular file owned by this user or root and writable
 * by nobody else, checked on the descriptor; then loaded through that descriptor
 * (/proc/self/fd/N), so that what the loader maps is what was checked, not whatever the
 * path names a moment later.  NULL, with a warning saying why, when it is refused; NULL
 * silently when the file is not there (the next name is tried).
 */
static void *open_checked(const char *file)
{
	char proc[64];
	struct stat st;
	struct link_map *map = NULL;
	void *h;
	int fd;

	if (access(file, F_OK) != 0)
		return NULL;
	fd = rj_trust_open(file, "the compiler library", 0, &st);
	if (fd < 0) {
		rj_log(RJ_LOG_WARN, "%s; it is not loaded%s", rocjit_last_error(),
		       strstr(rocjit_last_error(), "cannot open it") ?
			       ": name a regular library file of yours or root's" : "");
		return NULL;
	}
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	h = dlopen(proc, RTLD_NOW | RTLD_LOCAL);
	if (h && dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map) {
		int known = 0;
		pthread_mutex_lock(&checked_mu);
		for (int i = 0; i < nchecked; i++)
			known |= checked[i].map == map;
		if (!known && nchecked < CHECKED_MAX && (checked[nchecked].path = strdup(file)))
			checked[nchecked++].map = map;
		if (!known)
			fd = -1; /* kept open: see below */
		pthread_mutex_unlock(&checked_mu);
	}
	/* The loader knows a library by its name first: were N closed, the next library
	   loaded as /proc/self/fd/N would be taken for this one.  So the descriptor of a
	   library newly loaded stays open as long as the library (the process's life). */
	if (fd >= 0)
		close(fd);
	return h;
}

void *rj_vendor_open(const char *dir, size_t dirlen, const char *const *names)
{
	char path[4096];

	for (; *names; names++) {
		const char *file = *names;
		void *h;

		if (dir) {
			int n = snprintf(path, sizeof path, "%.*s/%s", (int)dirlen, dir, *names);
			if (n < 0 || (size_t)n >= sizeof path)
				continue;
			file = path;
		}
		/* A bare name is the loader's to find, in the folders root set up. */
		h = strchr(file, '/') ? open_checked(file) : dlopen(file, RTLD_NOW | RTLD_LOCAL);
		if (h)
			return h;
	}
	return NULL;
}

void *rj_vendor_sym(void *handle, const char *name)
{
	return handle ? dlsym(handle, name) : NULL;
}

const char *rj_vendor_file(void *symbol)
{
	Dl_info info;
	struct link_map *map = NULL;

	if (!symbol || !dladdr1(symbol, &info, (void **)&map, RTLD_DL_LINKMAP))
		return NULL;
	if (!strncmp(info.dli_fname, "/proc/self/fd/", 14)) {
		const char *path = NULL;
		pthread_mutex_lock(&checked_mu);
		for (int i = 0; i < nchecked && !path; i++)
			if (checked[i].map == map)
				path = checked[i].path;
		pthread_mutex_unlock(&checked_mu);
		return path;
	}
	return info.dli_fname;
}

char *rj_vendor_program_log(rj_vendor_program prog, int (*size)(rj_vendor_program, size_t *),
			    int (*get)(rj_vendor_program, char *))
{
	size_t n = 0;
	char *log;

	if (size(prog, &n) != 0)
		n = 0;
	log = calloc(1, n + 1);
	if (log && n && get(prog, log) != 0)
		log[0] = 0;
	return log;
}

int rj_vendor_add_names(rj_vendor_program prog, int (*add)(rj_vendor_program, const char *),
			const char *const *exprs, size_t n, const char *source_name)
{
	RJ_CHECK(n && !add, ROCJIT_ECOMPILE, "%s: this compiler has no name expressions "
		 "(AddNameExpression and GetLoweredName): declare the kernels extern \"C\", or "
		 "instantiate them explicitly and ask for their mangled names", source_name);
	for (size_t i = 0; i < n; i++)
		RJ_CHECK(add(prog, exprs[i]) != 0, ROCJIT_ECOMPILE,
			 "%s: the compiler refused the name expression \"%s\": give a kernel "
			 "template instantiation such as \"k<float, 4>\"", source_name, exprs[i]);
	return 0;
}

void rj_vendor_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

int rj_vendor_lowered_names(char ***out, rj_vendor_program prog,
			    int (*lower)(rj_vendor_program, const char *, const char **),
			    const char *const *exprs, size_t n, const char *source_name,
			    const char *fix)
{
	char **names;

	*out = NULL;
	if (!n)
		return 0;
	names = calloc(n, sizeof *names);
	RJ_CHECK(!names, ROCJIT_ENOMEM, "out of memory compiling %s", source_name);
	for (size_t i = 0; i < n; i++) {
		const char *lowered = NULL;
		if (lower(prog, exprs[i], &lowered) != 0 || !lowered || !*lowered) {
			rj_vendor_names_free(names, n);
			RJ_FAIL(ROCJIT_ECOMPILE, "%s compiled, but the compiler cannot lower the "
				"name expression \"%s\" (no kernel instantiation matches it): %s",
				source_name, exprs[i], fix);
		}
		names[i] = strdup(lowered);
		if (!names[i]) {
			rj_vendor_names_free(names, n);
			RJ_FAIL(ROCJIT_ENOMEM, "out of memory compiling %s", source_name);
		}
	}
	*out = names;
	return 0;
}

int rj_vendor_failed_name(const char *log, const char *source, size_t length,
			  const char *const *exprs, size_t n)
{
	const char *e = log ? strstr(log, "error") : NULL, *line, *end;
	size_t len;

	if (!e || !(line = strchr(e, '\n')))
		return -1;
	line++;
	while (*line == ' ' || *line == '\t')
		line++;
	end = strchr(line, '\n');
	len = end ? (size_t)(end - line) : strlen(line);
	if (!len || (source && memmem(source, length, line, len)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(exprs[i]);
		if (k && k <= len && memmem(line, len, exprs[i], k))
			return (int)i;
	}
	return -1;
}

char *rj_vendor_log_error(char *log, const char *source_name)
{
	const char *msg = rocjit_last_error();
	size_t old = log ? strlen(log) : 0;
	size_t len = old + strlen(source_name) + strlen(msg) + 16;
	char *n = realloc(log, len);

	if (!n)
		return log;
	snprintf(n + old, len - old, "%s%s: error: %s\n", old && n[old - 1] != '\n' ? "\n" : "",
		 source_name, msg);
	return n;
}
